"""Trusted: the small pieces every HTML page of the grader shares (style, escaping, tables, embedded charts).

Pages are single self-contained files (no script, no external fetch), readable on a laptop and a phone:
body text at a normal size, messages in the body font at a readable measure, wide tables scroll inside
their own box instead of widening the page. ``escape`` is the only way student text enters a page: it
HTML-escapes, and turns what UTF-8 cannot hold (a lone surrogate) into a visible ``\\udcff``.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

__all__ = ["CSS", "escape", "number", "page", "table", "png", "img", "bar"]

CSS = """
:root{--ok:#1a7f37;--bad:#b42318;--muted:#5b6470;--line:#d9dde3;--soft:#f5f7fa}
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:72rem;
color:#1f2328;padding:1.5rem 1rem 3rem}
h1{font-size:1.6rem;margin:.2rem 0 .3rem;line-height:1.25}h2{font-size:1.2rem;margin:2rem 0 .6rem}
h1,h2,h3{overflow-wrap:anywhere}
h3{font-size:1.05rem;margin:1rem 0 .3rem}
p,li{max-width:48rem;overflow-wrap:break-word}.meta{color:var(--muted);margin:0 0 1rem}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5rem 0 1rem}th,td{border:1px solid var(--line);padding:.35rem .6rem;
text-align:left;vertical-align:top;overflow-wrap:break-word}th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap}.bad{color:var(--bad)}.ok{color:var(--ok)}
.msg{white-space:pre-wrap;overflow-wrap:anywhere;max-width:48rem;margin:.3rem 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em;background:var(--soft);
padding:0 .2em;border-radius:3px}
.card{border:1px solid var(--line);border-left:4px solid var(--bad);border-radius:6px;padding:.6rem .9rem;
margin:.8rem 0;max-width:52rem}.card.pass{border-left-color:var(--ok)}
.card ul{margin:.3rem 0 .2rem;padding-left:1.2rem}
.score{font-size:1.3rem;font-weight:600}
.barbox{display:inline-block;width:8rem;height:.7rem;background:#e8ebef;border-radius:4px;vertical-align:middle;
margin-right:.5rem}.barbox span{display:block;height:100%;border-radius:4px;background:var(--ok)}
img{max-width:100%;height:auto}.charts{display:flex;flex-wrap:wrap;gap:1rem}
details{margin:.5rem 0}summary{cursor:pointer}
"""


def escape(value: Any) -> str:
    """HTML-escaped text that UTF-8 can always encode (lone surrogates and NUL shown, never fatal)."""
    text = str(value).encode("utf-8", errors="backslashreplace").decode("utf-8").replace("\0", "\\x00")
    return html.escape(text, quote=True)


def number(value: float) -> str:
    return f"{value:.4g}"


def page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body>\n{body}\n</body></html>\n"
    )


def table(header: list[str] | None, rows: list[str], *, numeric: tuple[int, ...] = ()) -> str:
    """A table (rows are ready-made <tr> strings) in a box that scrolls sideways when it is too wide."""
    num = ' class="num"'
    head = "".join(f"<th{num if i in numeric else ''}>{escape(h)}</th>" for i, h in enumerate(header or []))
    thead = f"<thead><tr>{head}</tr></thead>" if header else ""
    return f'<div class="scroll"><table>{thead}<tbody>\n' + "\n".join(rows) + "\n</tbody></table></div>"


def bar(fraction: float) -> str:
    """A small horizontal bar for a share between 0 and 1 (no image needed)."""
    pct = max(0.0, min(1.0, fraction)) * 100
    return f'<span class="barbox" aria-hidden="true"><span style="width:{pct:.0f}%"></span></span>'


def png(fig) -> str:
    """A matplotlib figure as base64 PNG, so the page is one self-contained file."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def img(alt: str, data: str) -> str:
    return f'<img class="chart" alt="{escape(alt)}" src="data:image/png;base64,{data}">'
