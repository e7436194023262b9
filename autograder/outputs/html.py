"""Trusted: the one way the grader makes an HTML page: a Jinja2 template from ``outputs/templates/``.

Pages are single self-contained files (no script, no external fetch), readable on a laptop and a phone. The
templates are rendered with autoescaping on and undefined names refused (``StrictUndefined``), so student
text (names, messages, test names) is escaped unless a template says otherwise, and none does. Before
escaping, every value goes through ``visible``: what UTF-8 cannot hold (a lone surrogate), NUL, and the
characters that reorder text (the bidirectional overrides and isolates, U+202A-U+202E, U+2066-U+2069) are
shown as ``\\u202e``-style escapes, so a name cannot flip the words around it. ::

    render("feedback.html.j2", lang="en", title="...", ...)  -> the page's text
"""

from __future__ import annotations

import re
from typing import Any

import jinja2
from markupsafe import Markup, escape

from autograder.outputs import messages_pages  # noqa: F401 - registers page.html_lang, read below
from autograder.protocol.said import LANGUAGES, message

__all__ = ["render", "visible", "number", "html_lang", "phrase_breaks", "id_breaks", "TEMPLATES"]

TEMPLATES = "templates"  # the folder of this package that holds the pages' templates
_REORDERING = re.compile("[\u202a-\u202e\u2066-\u2069\0]")
_AFTER_LINKING_WORD = re.compile("(?<=[与的和])(?=.)")  # 形状与|输出数值, 两条路径的|梯度相加: where a phrase may break


def visible(value: Any) -> Any:
    """`value` as text that UTF-8 can encode and that cannot reorder what surrounds it; Markup (a macro's
    output, already escaped) passes through."""
    if isinstance(value, Markup):
        return value
    text = value if isinstance(value, str) else str(value)
    text = text.encode("utf-8", errors="backslashreplace").decode("utf-8")
    return _REORDERING.sub(lambda m: f"\\u{ord(m.group()):04x}" if m.group() != "\0" else "\\x00", text)


def number(value: float) -> str:
    return f"{value:.4g}"


def phrase_breaks(label: str) -> Markup:
    """A short Chinese label (a column's heading) that may break only after a linking word (与, 的, 和), as a
    reader would, never inside a word: a ``<wbr>`` there, for a cell whose style keeps words whole
    (``word-break:keep-all``). A label with no linking word, or in English, is unchanged (escaped)."""
    return Markup("<wbr>").join(escape(visible(part)) for part in _AFTER_LINKING_WORD.split(label))


def id_breaks(name: str) -> Markup:
    """A student's id that may break only after an underscore ("w09_tied_in_forward"), never inside a word: a
    ``<wbr>`` after each, for a narrow column whose links keep words whole (style.css: td.examples)."""
    return Markup("_<wbr>").join(escape(visible(part)) for part in name.split("_"))


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


def html_lang(language: str) -> str:
    """A page's ``<html lang>`` for the kit's `language`: "zh-CN" for Chinese, so a browser draws the mainland's
    glyphs (the pages' catalog, ``page.html_lang``)."""
    return message("page.html_lang").template(language if language in LANGUAGES else "en")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("autograder.outputs", TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        finalize=visible,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["number"] = number
    env.filters["html_lang"] = html_lang
    env.filters["phrase_breaks"] = phrase_breaks
    env.filters["id_breaks"] = id_breaks
    env.globals["pct"] = _pct
    return env


_ENV = _environment()


def render(template: str, **context: Any) -> str:
    """The named template rendered with `context` (every name it uses must be given: StrictUndefined)."""
    return _ENV.get_template(template).render(**context)
