"""Untrusted: which language an assignment's self-check speaks, and its words in it.

The edition's language (the release's ``edition.py``, written by the build), or ``$<NAME>_LANG`` (``Words.ENV``:
``WEIGHT_TYING_LANG`` for weight_tying). Every word the self-check says comes from the release's message catalog
(``<assignment>_checks/messages.py``: the grader's messages the self-check says and the framework's own,
``coursecheck/messages.py``), rendered in the student's language where it is built (``tell``; ``unloadable`` for
why the submission could not be found or loaded); so the self-check, the notebook's practice cells and the
grader's feedback use the same words. Nothing is translated.
"""

from __future__ import annotations

import linecache
import os
import sys
from types import ModuleType

from coursecheck.notebook import CellPlace, name_cell

__all__ = ["LANGUAGES", "Words"]

LANGUAGES = ("en", "zh")


class Words:
    """An assignment's words: `catalog` is its release's messages module (``CATALOG``, ``Said``, ``render_said``,
    ``area_name``, ``SELF_CHECK_IDS``); `edition` the language of this edition; `name` the assignment's (its
    settings' prefix)."""

    def __init__(self, name: str, catalog: ModuleType, edition: str) -> None:
        self.catalog = catalog
        self.edition = edition
        self.ENV = f"{name.upper()}_LANG"

    def own(self, key: str) -> str:
        """The id of one of the assignment's own words (``header``, ``title.<check>``, ``group.<group>``,
        ``covers.here``, ``covers.<line>``): its catalog's ``SELF_CHECK_IDS`` prefix, ids being unique across the
        kit's catalogs (weight_tying's ``check.header``, selftest's ``selftest.check.header``)."""
        return self.catalog.SELF_CHECK_IDS + key

    def language(self) -> str:
        """'en' or 'zh': $<NAME>_LANG when set, else this edition's language."""
        chosen = os.environ.get(self.ENV, "").strip().lower() or self.edition
        if chosen not in LANGUAGES:
            raise ValueError(
                f"{self.ENV}={chosen!r} is not a language of this assignment: use one of {', '.join(LANGUAGES)}"
            )
        return chosen

    def tell(self, key: str, **params: object) -> str:
        """The catalog's message `key` in the student's language."""
        return self.render(key, self.language(), **params)

    def render(self, key: str, language: str, **params: object) -> str:
        """The catalog's message `key` in `language`; KeyError naming the id when the catalog has none."""
        if key not in self.catalog.CATALOG:
            raise KeyError(f"no message {key!r} in the {self.catalog.OWNER} catalog: add it to its catalog")
        return self.catalog.render_said(self.catalog.Said(key, **params), language)

    def listed(self, items) -> str:
        """`items` (names, code) as a list in running text, in the student's language: "a, b" or "a、b"."""
        return self.tell("check.list.sep").join(str(item) for item in items)

    def shown(self, problem) -> str | None:
        """What a diagnosis found (a message as a value, or None), in the student's language."""
        return None if problem is None else self.catalog.render_said(problem, self.language())

    def opening(self, failure) -> str:
        """The id of the message a check's failure (``checks.Failed``) opens with: "" when it has none (words
        made outside the catalog)."""
        return failure.said.first().key if failure.said is not None else failure.key

    def mistake(self, key: str) -> str:
        """The misconception the catalog's message `key` names ("two_tables"), "" for none."""
        return getattr(self.catalog.CATALOG.get(key), "names", None) or ""

    def same_mistake(self, above: str | None, mistake: str) -> bool:
        """A failure naming misconception `mistake` under a check whose failure named `above` says the same mistake:
        the same one, or one `above` explains (the catalog's ``COVERS``, the marking scheme's: a tie made in
        forward leaves a built model two tables)."""
        covers = getattr(self.catalog, "COVERS", {})  # a release's catalog built before it had none
        return bool(mistake) and (above == mistake or mistake in covers.get(above or "", ()))

    def again(self, failure) -> str:
        """A failure said short, for a check that fails as one above did (whose message said it in full): its
        opening message's ``<id>.again``, with the same values and what follows it; "" when the catalog has none."""
        said = failure.said
        if said is None and failure.key:
            said = self.catalog.Said(failure.key, **failure.params)
        if said is None or f"{said.first().key}.again" not in self.catalog.CATALOG:
            return ""
        short = self.catalog.Said(f"{said.first().key}.again", **said.first().params)
        for part in getattr(said, "parts", (said,))[1:]:  # a Joined's other parts: where to reread, ...
            short = short + part
        return self.shown(short)

    def area(self, area: str) -> str:
        """A graded area's name in the student's language."""
        return self.catalog.area_name(area, self.language())

    def cell_name(self, place: CellPlace) -> str:
        """A cell's name in the student's language: its number, its section's heading and its first line, as the
        grader's pages name it (both word it with ``coursecheck.notebook.name_cell``)."""
        forms = ("full", "no_heading", "no_first", "bare")
        templates = {form: self.catalog.CATALOG[f"check.place.{form}"].template(self.language()) for form in forms}
        return name_cell(place, templates)

    def kernel_cell(self, filename: str) -> str:
        """The name of a cell the notebook's IPython kernel ran under `filename` (a traceback's file for a cell,
        such as ``/tmp/ipykernel_7/2576366449.py``): the execution count Jupyter shows beside it ("[5]") and its
        first line, in the student's language. "" outside a kernel, or for a file the kernel did not run."""
        ipython = sys.modules.get("IPython")  # only a kernel has imported it: never imported here
        try:
            shell = ipython.get_ipython() if ipython is not None else None
            label = shell.compile.format_code_name(filename) if shell is not None else None  # ("Cell", "In[5]")
        except Exception:  # another IPython: the file's own name is said instead
            return ""
        if not label or not isinstance(label[1], str):
            return ""
        count = label[1].removeprefix("In").strip("[] ")
        first = next((line.strip() for line in linecache.getlines(filename) if line.strip()), "")
        first = first if len(first) <= 60 else first[:59] + "…"
        return self.tell("check.place.kernel" if first else "check.place.kernel_bare", count=count, first=first)

    def unloadable(self, error: Exception) -> str:
        """Why the submission could not be found or loaded, in the student's language: coursecheck.selfcheck gives
        each error a language-free ``reason`` and its ``params``; anything else is quoted as it is."""
        reason, params = getattr(error, "reason", ""), getattr(error, "params", None)
        if isinstance(reason, str) and isinstance(params, dict) and f"checkfail.load.{reason}" in self.catalog.CATALOG:
            try:
                return self.tell(f"checkfail.load.{reason}", **params)
            except (KeyError, IndexError):  # an older coursecheck with other values: its own words
                pass
        return self.tell("checkfail.load.unreadable", error=str(error))
