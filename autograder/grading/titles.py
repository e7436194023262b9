"""Trusted: a grader's areas, tests, charges and experiments by the names its catalog gives them, in a language.

A grader names what it grades through its catalog (``AssignmentSpec.catalog``: ``title``, ``area_name``,
``misconception_title``, ``experiment_title``); a name the catalog lacks, or a language the grader does not
speak, reads as the suite names it (``readable_test``). ::

    readable_test("test_generation.py::test_generate_respects_block_size[2]") -> "generate respects block size [2]"
"""

from __future__ import annotations

from collections.abc import Callable

from autograder.graders.spec import AssignmentSpec
from autograder.grading.language import DEFAULT_LANGUAGE

__all__ = [
    "names",
    "readable_test",
    "test_title",
    "title_cases",
    "subject_fed",
    "label_form",
    "charge_title",
    "experiment_title",
]


def names(spec: AssignmentSpec, language: str) -> Callable[[str], str] | None:
    """A function naming a graded area, or a test by its readable name, in `language` from the grader's
    catalog (a name the catalog lacks stays as it is); None for English or a grader without a catalog."""
    if language == DEFAULT_LANGUAGE or spec.catalog is None or language not in spec.languages:
        return None
    catalog = spec.catalog

    def name(text: str) -> str:
        found = catalog.title(text, language)
        return catalog.area_name(text, language) if found is None else found

    return name


def readable_test(test_id: str) -> str:
    """'test_generation.py::test_generate_respects_block_size[2]' -> 'generate respects block size [2]'."""
    func = str(test_id).rpartition("::")[2] or str(test_id)
    base, bracket, params = func.partition("[")
    base = base[5:] if base.startswith("test_") else base
    return base.replace("_", " ").strip() + (f" [{params}" if bracket else "")


def test_title(spec: AssignmentSpec | None, test_id: str, language: str = DEFAULT_LANGUAGE) -> str:
    """A suite test as students read it: its catalog title in `language` (its readable name without one)."""
    readable = readable_test(test_id)
    if spec is None or spec.catalog is None or language not in spec.languages:
        return readable
    return spec.catalog.title(readable, language) or readable


def title_cases(spec: AssignmentSpec | None, test_id: str) -> frozenset[str]:
    """The catalog ids of the case test `test_id`'s title names already (its catalog's ``title_cases``: "after
    .to(torch.float64)"), empty when the catalog says none."""
    cases = getattr(spec.catalog, "title_cases", None) if spec is not None else None
    return frozenset(cases(readable_test(test_id))) if cases is not None else frozenset()


def subject_fed(spec: AssignmentSpec | None, key: str) -> bool:
    """Whether a test's subject, said by catalog id `key`, is an input the test fed the student's code (its
    catalog's ``subject_fed``: a generate call, a prompt) rather than a thing it checked; False when it says none."""
    fed = getattr(spec.catalog, "subject_fed", None) if spec is not None else None
    return bool(fed(key)) if fed is not None else False


def label_form(spec: AssignmentSpec | None, key: str) -> str | None:
    """The catalog id of subject `key`'s form where it stands alone as a label's value (its catalog's
    ``label_form``: the call first, its inputs after), None when it reads the same there or the catalog says none."""
    form = getattr(spec.catalog, "label_form", None) if spec is not None else None
    return form(key) if form is not None else None


def experiment_title(spec: AssignmentSpec | None, name: str, language: str = DEFAULT_LANGUAGE) -> str | None:
    """What the grader's runner was doing in its experiment `name`, in `language` (its catalog's title); None for
    a name the catalog does not know (the runner's word is the student's to forge: never looked up elsewhere)."""
    titled = getattr(spec.catalog, "experiment_title", None) if spec is not None else None
    if titled is None:
        return None
    return titled(name, language if language in spec.languages else DEFAULT_LANGUAGE)


def charge_title(spec: AssignmentSpec | None, charge, language: str = DEFAULT_LANGUAGE) -> str:
    """What a charge (``marking.Charge``) is for, in `language`: its misconception's title, or the test's."""
    if charge.misconception and spec is not None and spec.catalog is not None:
        return spec.catalog.misconception_title(charge.cause, language if language in spec.languages else "en")
    return charge.cause if charge.misconception else test_title(spec, charge.cause, language)
