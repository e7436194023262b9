"""Trusted: the small pieces every HTML page of the grader shares (style, escaping, tables, embedded charts)."""

from __future__ import annotations

import base64
import html
import io
from typing import Any

__all__ = ["CSS", "escape", "number", "page", "table", "png", "img"]

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;
vertical-align:top}th{background:#f3f3f3}td.num{text-align:right}tr.failed td{background:#fff3f3}
tr.passed td{background:#f3fff3}pre{white-space:pre-wrap;margin:0;font-size:90%}.bad{color:#a00}
img{max-width:100%}.charts{display:flex;flex-wrap:wrap;gap:1em}
"""


def escape(value: Any) -> str:
    return html.escape(str(value), quote=True)


def number(value: float) -> str:
    return f"{value:.4g}"


def page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body>\n{body}\n</body></html>\n"
    )


def table(header: list[str], rows: list[str]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>"


def png(fig) -> str:
    """A matplotlib figure as base64 PNG, so the page is one self-contained file."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def img(alt: str, data: str) -> str:
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'
