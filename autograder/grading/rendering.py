"""Trusted: step 8's second half: a marked result rendered, once per language, into what every output shows.

``rendered`` records the language its submission is written in and renders the result into one ``Shown`` per
language the kit speaks (``grading.shown``), which the ``Result`` carries to every output: the run in sentences
(``RunFacts.summary``, the engine's catalog) and, on a timeout, where the time ran out; each test by its
catalog title with its finding's message; the marking scheme's charges (``marking.breakdown``: called here,
never where a result is shown) by what they are for; the areas in the scheme's order. Nothing is translated:
each word comes from a catalog id and its parameters, rendered here in each language. ::

    result = rendered(mark(result, spec), spec, kind="ipynb", language="zh")
    result.shown_in("zh").charges[0].title
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace

from autograder.graders.spec import AssignmentSpec
from autograder.grading.catalog import LANGUAGES, cell_name, render
from autograder.grading.findings import Finding
from autograder.grading.language import DEFAULT_LANGUAGE
from autograder.grading.marking import Charge, Part, Scheme, breakdown, costs_nothing, part_of
from autograder.grading.readable import clean_message
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.shown import Shown, ShownArea, ShownCharge, ShownTest, summary_lines
from autograder.grading.titles import (
    charge_title,
    experiment_title,
    label_form,
    names,
    subject_fed,
    test_title,
    title_cases,
)
from autograder.protocol.said import Joined, Said, Text, ended, owner_of, verbatim
from autograder.protocol.said import render as render_said
from coursecheck.notebook import CellPlace

__all__ = ["rendered", "show", "part_words", "stopped_at", "place", "in_scheme_order", "reason_key"]

# Parameters that name what a test was checking (the subject), not why it failed: left out of a reason.
_SUBJECTS = frozenset({"what", "call", "label", "model"})


def rendered(
    result: Result, spec: AssignmentSpec | None, *, kind: str = "ipynb", language: str | None = None
) -> Result:
    """`result` (marked) read in `language` (its own by default; one the kit does not speak is English), with
    its run summary in that language and its rendering in every language (``Result.shown``). `kind`: "ipynb"
    or "py", how the submission's parts are named. The tests keep their names, points, findings and charges."""
    language = language or result.language
    out = replace(result, language=language if language in LANGUAGES else DEFAULT_LANGUAGE)
    out.output = _summary(out, out.language)
    out.shown = {one: show(out, spec, one, kind=kind) for one in LANGUAGES}
    return out


def show(result: Result, spec: AssignmentSpec | None, language: str, *, kind: str = "ipynb") -> Shown:
    """`result` in `language`: what every output shows of it (see the module)."""
    scheme = spec.scheme if spec is not None else None
    area = (names(spec, language) if spec is not None else None) or str
    totals = result.areas  # area -> (got, top)
    area_names = {a: area(a) for a in totals}  # each area named once, not once a test
    by_name = {t.name: t for t in result.tests}
    run = result.run
    timed_out = run is not None and result.grader_error is None and run.status == "timeout"
    stopped = stopped_at(run, kind=kind, starts=_places(run), language=language, spec=spec) if timed_out else ""
    summary = _summary(result, language)
    tests, places = [], _places(run) if run is not None else {}
    for test in result.tests:  # each by its title, with its finding's message ("" when it passed)
        finding = test.finding
        if finding is not None and places:  # "cell 25, line 20" with its section and first line, as the self-check
            finding = replace(finding, said=_named_cells(finding.said, places, language))
        message = finding.render(language) if finding is not None else ""
        subject = finding.said.first().params.get("what") if finding is not None else None
        # A bare class name ("TiedEmbeddingLM") adds nothing to the test's title, which names the class: left out.
        what = "" if subject is None or (isinstance(subject, str) and subject.isidentifier()) else subject
        what = "" if _keys(what) & title_cases(spec, test.name) else what  # its title names the case already
        what = what if isinstance(what, str) else render_said(standalone(what, spec), language)
        title = test_title(spec, test.name, language)
        fed = bool(what) and isinstance(subject, Said | Joined) and subject_fed(spec, subject.first().key)
        message, what = clean_message(message) if message else "", clean_message(what) if what else ""
        tests.append(
            ShownTest(test.name, title, test.area, area_names[test.area], test.points, test.passed, message, what, fed)
        )
    return Shown(
        language=language,
        summary=summary,
        run_lines=summary_lines(summary) + ((render("run.stopped_where", language, where=stopped),) if stopped else ()),
        stopped=stopped,
        tests=tuple(tests),
        charges=tuple(_charge(c, by_name, spec, scheme, language) for c in breakdown(result.tests, scheme)),
        areas=tuple(ShownArea(a, area_names[a], *totals[a]) for a in in_scheme_order(totals, spec)),
    )


def standalone(text: Text, spec: AssignmentSpec | None) -> Text:
    """`text` where it stands alone as a label's value (a test's subject: ``ShownTest.what``): each message that has
    a form of its own for that (the grader's ``label_form``: the call first, then its inputs) in that form; a
    sentence that opens with the same case keeps the "…时，" form."""
    parts = text.parts if isinstance(text, Joined) else (text,)
    out = tuple(Said(form, **p.params) if (form := label_form(spec, p.key)) else p for p in parts)
    return out[0] if len(out) == 1 else Joined(out)


def _summary(result: Result, language: str) -> str:
    """How the run went, in `language` (the engine's catalog): the grader's failure, or the run's summary."""
    if result.grader_error is not None:
        return render("run.grader_error", language, why=result.grader_error)
    if result.run is None:
        return result.output
    return result.run.summary(language, blank=result.blank, stopped=stopped_calls(result.tests, language))


def stopped_calls(tests: Iterable[TestOutcome], language: str) -> list[str]:
    """What each check stopped at its time budget was calling (judge.did_not_finish_within's `what`), in
    `language`, once each in the tests' order: the run line's {what} (catalog run.ok.stopped, run.ok.file.stopped)."""
    found = (
        part.params.get("what")
        for test in tests
        if test.finding is not None
        for part in test.finding.said.walk()
        if part.key == "judge.did_not_finish_within"
    )
    return list(dict.fromkeys(w if isinstance(w, str) else render_said(w, language) for w in found if w))


def _charge(
    charge: Charge, by_name: dict[str, TestOutcome], spec: AssignmentSpec | None, scheme: Scheme | None, language: str
) -> ShownCharge:
    members = [by_name[name] for name, _ in charge.tests]
    lead = _lead(members, charge.cause, scheme) if charge.misconception else members[0]
    plain = lead.finding.kind if lead.finding is not None else "plain"
    opening = lead.finding.said.first() if lead.finding is not None else None
    again = f"{opening.key}.again" if opening is not None else ""
    parts = {name: _part(by_name[name], lost, charge, spec) for name, lost in charge.tests}
    caps = _caps(charge, by_name, parts, spec, language)
    return ShownCharge(
        title=charge_title(spec, charge, language),
        points=charge.points,
        exercise=charge.exercise,
        misconception=charge.cause if charge.misconception else None,
        kind="misconception" if charge.misconception else plain,
        lead=lead.name,
        reason="" if charge.misconception else json.dumps(reason_key(lead.finding)),
        tests=tuple((name, lost, part_words(spec, parts[name], language)) for name, lost in charge.tests),
        caps=tuple(sentence for _, sentence in caps),
        cap_areas=tuple(area for area, _ in caps),
        free=tuple(
            name
            for name, lost in charge.tests
            if charge.misconception and spec is not None and costs_nothing(by_name[name], charge.cause, spec.scheme)
        ),
        again=_said(Said(again, **opening.params), language) if again and owner_of(again) else "",
        opening=opening.key if opening is not None else "",
    )


def _keys(text: object) -> set[str]:
    """The catalog ids `text` is made of (a Said's key and its parameters', a Joined's parts'); none for a str."""
    if isinstance(text, Joined):
        return set().union(*(_keys(part) for part in text.parts))
    if isinstance(text, Said):
        return {text.key}.union(*(_keys(value) for value in text.params.values()))
    return set()


def _said(said: Said, language: str) -> str:
    """A message of the result's own, as a finding's is shown (``Finding.render``, ``clean_message``)."""
    text = render_said(said, language)
    return clean_message(ended(text) if language == "zh" else text)


def _part(test: TestOutcome, lost: float, charge: Charge, spec: AssignmentSpec | None) -> Part | None:
    """Why `test` carries less than all its points in `charge` (a misconception's): None when it carries all, or
    the charge is a test's own."""
    return part_of(test, charge.cause, spec.scheme) if charge.misconception and spec is not None else None


def part_words(spec: AssignmentSpec | None, part: Part | None, language: str = DEFAULT_LANGUAGE) -> str:
    """What of a test's points other misconceptions take (``marking.Part``), in `language`: "2 of its points go
    to “loss target shift wrong”" ("" when none do; what the misconception's cost in the area leaves uncharged is
    said once per area, ``_caps``)."""
    if part is None:
        return ""
    language = language if spec is None or language in spec.languages else DEFAULT_LANGUAGE
    catalog = spec.catalog if spec is not None else None
    said = [
        render(
            "charge.part.others",
            language,
            points=f"{points:g}",
            title=catalog.misconception_title(cause, language) if catalog is not None else cause,
        )
        for cause, points in part.others
    ]
    return render("charge.part.sep", language).join(said)


# the cap note of an area, by (does the area cost anything, does the charge have one test there)
_CAP_NOTES = {
    (True, False): "charge.cap",
    (True, True): "charge.cap.one",
    (False, False): "charge.cap.none",
    (False, True): "charge.cap.none.one",
}


def _caps(
    charge: Charge,
    by_name: dict[str, TestOutcome],
    parts: dict[str, Part | None],
    spec: AssignmentSpec | None,
    language: str,
) -> tuple[tuple[str, str], ...]:
    """Each area where the misconception's cost (once per exercise) leaves points of the charge's tests uncharged,
    with a sentence, in the scheme's order: ("gradient accumulation", "In “gradient accumulation” this mistake costs
    a fixed 6 points, so the 2 tests of that area above (worth 9 points) lose 6 for it in all"). An area with one
    test of the charge says why that test costs less than it is worth ("... so this 8-point test loses only 6")."""
    tests = Counter(by_name[name].area for name, _ in charge.tests)
    worth = Counter()
    for name, _ in charge.tests:
        worth[by_name[name].area] += by_name[name].points
    capped = {by_name[name].area: part.cap for name, part in parts.items() if part is not None and part.free > 0}
    area = (names(spec, language) if spec is not None else None) or str
    return tuple(
        (
            name,
            render(
                _CAP_NOTES[bool(cap), tests[name] == 1],
                language,
                area=area(name),
                cap=f"{cap:g}",
                n=str(tests[name]),
                points=f"{worth[name]:g}",
            ),
        )
        for name, cap in ((a, capped[a]) for a in in_scheme_order(capped, spec))
    )


def _lead(members: list[TestOutcome], cause: str, scheme: Scheme | None) -> TestOutcome:
    """The test whose message a misconception's charge opens with: one that names it, in the area where it costs
    most (the precise diagnosis: a copied table by its identity test, not by the count's list of causes)."""
    costs = scheme.misconceptions[cause].costs if scheme is not None and cause in scheme.misconceptions else {}
    named = [t for t in members if t.finding is not None and t.finding.names == cause]
    named = named or [t for t in members if t.finding is not None and t.finding.names is not None]
    return max(named, key=lambda t: costs.get(t.area, 0), default=members[0])  # ties: the suite's order


def reason_key(finding: Finding | None) -> tuple:
    """What makes two failures the same reason: the opening message's id and its parameters, the subject
    aside (what the student's code raised is one of them: the same exception groups)."""
    if finding is None:
        return ("passed",)
    first = finding.said.first()
    params = tuple(
        sorted(
            (k, v if isinstance(v, str) else repr(v.to_wire())) for k, v in first.params.items() if k not in _SUBJECTS
        )
    )
    return (finding.kind, first.key, params)


def in_scheme_order(areas: Iterable[str], spec: AssignmentSpec | None) -> list[str]:
    """`areas` in the order the marking scheme lists them (the notebook's), those it does not list after, as given."""
    order = list(spec.scheme.areas) if spec is not None else []
    return sorted(areas, key=lambda area: order.index(area) if area in order else len(order))


def _places(run: RunFacts) -> dict[int, CellPlace]:
    """The cells the run names, as ``pipeline.named_cells`` read them from the submission (``RunFacts.cells``)."""
    cells = run.cells if isinstance(run.cells, dict) else {}
    out = {}
    for key, named in cells.items():
        if (
            str(key).isdigit()
            and isinstance(named, list)
            and len(named) == 2
            and all(isinstance(p, str) for p in named)
        ):
            out[int(key)] = CellPlace(int(key) + 1, named[0][:80], named[1][:80])
    return out


def _named_cells(text: Text, places: Mapping[int, CellPlace], language: str) -> Text:
    """`text` with each cell the judge names by its number only (``cell.place.bare``: where the student's code
    raised) named as the run knows it: its section and first line, in `language`; where the code raised, the cell
    and line first and where that cell is after them (``judge.raised_at.named``), in one pair of brackets."""
    if isinstance(text, Joined):
        return Joined(tuple(_named_cells(part, places, language) for part in text.parts))
    bare = _known_place(text, places)
    if bare is not None:
        return verbatim(cell_name(bare, language))
    cell = text.params.get("place")
    known = _known_place(cell, places) if text.key == "judge.raised_at" else None
    if known is not None and (known.heading or known.first_line):  # the cell and line, then where that cell is
        form = ("full", "no_heading", "no_first")[(not known.heading) + 2 * (not known.first_line)]
        where = verbatim(render(f"cell.where.{form}", language, heading=known.heading, first=known.first_line))
        return Said("judge.raised_at.named", **{**text.params, "place": cell, "where": where})
    params = {k: v if isinstance(v, str) else _named_cells(v, places, language) for k, v in text.params.items()}
    return Said(text.key, **params)


def _known_place(cell: object, places: Mapping[int, CellPlace]) -> CellPlace | None:
    """The place of the cell a ``cell.place.bare`` names, when the run knows it; None otherwise."""
    number = cell.params.get("number") if isinstance(cell, Said) and cell.key == "cell.place.bare" else None
    return places.get(int(number) - 1) if isinstance(number, str) and number.isdigit() else None


def place(
    index: int,
    kind: str,
    starts: Mapping[int, CellPlace] | None,
    language: str = DEFAULT_LANGUAGE,
    *,
    parts: int = 0,
    staff: bool = False,
) -> str:
    """Cell `index`'s name, as the self-check names it ('cell 30 (in “10. Try it”, starting “torch.manual_seed(0)”)'),
    or a .py file's 'part 3' ('your file' when it is one part: `parts`, ``RunFacts.parts``; 'the file' on a page
    for the course's staff, `staff`)."""
    if kind == "py":
        whole = "cell.place.the_file" if staff else "cell.place.file"
        return render(whole if parts == 1 else "cell.place.part", language, number=index + 1)
    return cell_name((starts or {}).get(index) or CellPlace(index + 1), language)


def stopped_at(
    run: RunFacts,
    *,
    kind: str = "ipynb",
    starts: Mapping[int, CellPlace] | None = None,
    language: str = DEFAULT_LANGUAGE,
    spec: AssignmentSpec | None = None,
) -> str:
    """Where the time ran out, from the runner's last word about what it was running (see runner/__main__): a
    cell by its name, a check by its title in the grader's catalog (`spec`), a name it does not know as it came."""
    running = run.running if isinstance(run.running, dict) else {}
    cell, check = running.get("cell"), running.get("check")
    if type(cell) is int and cell >= 0:
        return render("run.where.cell", language, place=place(cell, kind, starts, language, parts=run.parts))
    if isinstance(check, str) and check:
        return render("run.where.check", language, check=experiment_title(spec, check, language) or check[:80])
    return render("run.where.unknown", language)
