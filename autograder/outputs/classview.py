"""Trusted: a graded class as the report sees it: one row per student of the manifest, sorted into kinds.

    graded        the submission ran and was judged (whatever its score)
    blank         judged, 0 points, and nothing written (``Result.blank``): the file holds no code, or every
                  failure is the starter code's own exception (the judge says so: ``Finding.starter``); a
                  hand-in with a syntax error, misspelt classes or code that raises something else wrote
                  something, and is graded
    refused       judged, 0 points, and the sandbox refused something it tried (files outside its view, a
                  refused call, a flood of output: ``RunFacts.refused``): never "blank"
    timeout       the run was stopped at the time limit (whatever it scored before): never "blank"
    unreadable    the file could not be read as a submission (not a notebook, too large, not a file)
    grader error  the grader itself failed: regrade with --student
    missing       no usable result file (the run was stopped before this student): run the command again

Blank, refused and unreadable submissions are counted apart and left out of test pass rates and misconceptions:
twenty stubs would otherwise make NotImplementedError the class's most common mistake.

Whatever the kind, a row may carry flags a TA should see (``ClassView.flagged``): a name that looks like
another student's ("аlice" in Cyrillic beside "alice", ``outputs.lookalikes``), and a note on what else was
in the student's nbgrader folder and was not graded (a second notebook, a renamed copy).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grading.handins import NO_TIME
from autograder.grading.result import GRADER_ERROR, Result
from autograder.outputs.folder import Manifest, OutputFolder
from autograder.outputs.lateness import MISSING, Late
from autograder.outputs.lookalikes import lookalikes
from autograder.outputs.similarity.store import Outcome, similar_to
from autograder.outputs.similarity.store import load as load_similarity
from autograder.protocol.said import render as render_said

__all__ = ["Row", "ClassView", "load_class", "triage", "KINDS", "FLAGS"]

KINDS = ("graded", "blank", "refused", "timeout", "unreadable", "grader error", "missing")
# Flags beside a row's kind: what each means, and what to do (the report's Needs a look).
FLAGS = {
    "look-alike name": "two names drawn alike (another script, a zero-width character): check they are two "
    "different students before sending grades",
    "other files in the folder": "graded the assignment's own notebook only, as nbgrader does; the note lists "
    "what else the student handed in",
    "several editions": "handed in more than one edition: graded the later submission by nbgrader's timestamp "
    "(the assignment's own edition when the times are the same); the other is not graded",
    "edition chosen without a time": "handed in more than one edition, and a timestamp.txt is missing or says no "
    "time, so which came later is not known: graded the assignment's own edition. Check which the student meant; "
    "then put nbgrader's time in that timestamp.txt (or move the edition not meant out of submitted/) and run the "
    "same command again",
    "submission time unreadable": "nbgrader's timestamp.txt says no time it can read (nbgrader's own autograde "
    "refuses it): nothing is counted late; check when it was handed in",
    "submission time missing": "no timestamp.txt beside the hand-in (nbgrader collect writes one; a folder made by "
    "hand has none): nothing is counted late. Check when it was handed in; put nbgrader's time in "
    "<student>/<assignment>/timestamp.txt (e.g. 2026-05-04 09:30:00 UTC) and run the same command again",
    "late": "handed in after the due date: the late policy's penalty is apart from the grader's score "
    "(grades.csv: late_penalty, final_score)",
    "feedback page stale": "the page placed for the student before this run shows another mark or other charges: "
    "run `nbgrader release_feedback <assignment>` in the course again, for each edition (a page handed out by "
    "hand: hand out the new one from the course's feedback folder); regrades.jsonl says why the mark moved",
}


@dataclass
class Row:
    uid: str
    name: str
    result: Result | None
    kind: str  # one of KINDS
    problem: str = ""  # why the file is unreadable or the result is missing
    suffix: str = "ipynb"  # "ipynb" or "py": how the student's parts are numbered
    submission: str = ""
    graded_at: str = ""
    note: str = ""  # what else was in the student's nbgrader folder, not graded
    edition_note: str = ""  # several editions handed in: which was graded and why
    edition_rule: str = ""  # how that edition was chosen (grading.handins: BY_TIME, SAME_TIME, NO_TIME)
    nbgrader_id: str | None = None  # the student's folder in nbgrader's layout (None: not that layout)
    edition: str | None = None  # the edition folder (nbgrader assignment) the graded file sits in
    late: Late | None = None  # when it was handed in against the due date (nbgrader's layout only)
    confusable_with: list[str] = field(default_factory=list)  # other students' names drawn like this one
    stale_page: dict | None = None  # a page placed for release before this run that shows something else now
    similar_to: list[str] = field(default_factory=list)  # hand-ins sharing this one's code (outputs.similarity)

    def problem_in(self, language: str) -> str:
        """`problem` in `language`: a refused file's reason as the engine's catalog words it (its result carries
        the message as a value: ``RunFacts.refusal``), any other problem as recorded."""
        run = self.result.run if self.result is not None else None
        if self.kind == "unreadable" and run is not None and run.refusal is not None:
            return render_said(run.refusal, language)
        return self.problem

    @property
    def feedback_href(self) -> str:
        return f"feedback/{self.uid}.html"  # uids are file-safe: no quoting needed


@dataclass
class ClassView:
    manifest: Manifest
    rows: list[Row] = field(default_factory=list)
    similarity: Outcome | None = None  # the similarity pass's similarity.json (None: it has not run here)

    def of_kind(self, *kinds: str) -> list[Row]:
        return [r for r in self.rows if r.kind in kinds]

    @property
    def judged(self) -> list[Row]:
        """Rows whose tests say something about understanding: graded or timed out, not blank, refused or
        unreadable."""
        return self.of_kind("graded", "timeout")

    def counts(self) -> Counter:
        return Counter(r.kind for r in self.rows)

    def flagged(self) -> dict[str, list[Row]]:
        """FLAGS key -> the rows it concerns (only flags that concern someone)."""
        found = {
            "look-alike name": [r for r in self.rows if r.confusable_with],
            "other files in the folder": [r for r in self.rows if r.note],
            "several editions": [r for r in self.rows if r.edition_note and r.edition_rule != NO_TIME],
            "edition chosen without a time": [r for r in self.rows if r.edition_note and r.edition_rule == NO_TIME],
            "submission time unreadable": [r for r in self.rows if r.late is not None and r.late.problem],
            "submission time missing": [
                r for r in self.rows if r.late is not None and r.late.due and r.late.stamp == MISSING
            ],
            "late": [r for r in self.rows if r.late is not None and r.late.seconds > 0],
            "feedback page stale": [r for r in self.rows if r.stale_page],
        }
        return {flag: rows for flag, rows in found.items() if rows}


def triage(result: Result | None, unreadable: str = "") -> str:
    """The kind of one student's outcome (see the module's table)."""
    if result is None:
        return "missing"
    if result.status == GRADER_ERROR:
        return "grader error"
    if unreadable or (result.run is not None and result.run.refusal is not None):
        return "unreadable"
    if result.status == "timeout":
        return "timeout"
    if result.score == 0 and result.run is not None and result.run.refused:
        return "refused"
    return "blank" if result.blank else "graded"


def load_class(out: str | Path) -> ClassView:
    """The manifest's students with their results; FileNotFoundError when `out` is not a batch folder."""
    folder = OutputFolder(out)
    manifest = folder.read_manifest()
    if manifest is None:
        raise FileNotFoundError(
            f"{str(folder.manifest_path)!r} is missing or not a grading manifest: pass the --out folder of a "
            "batch run (python -m autograder grade ... --out FOLDER writes it)"
        )
    view = ClassView(manifest=manifest)
    for entry in manifest.students:
        uid = entry["uid"]
        result, batch, why = folder.load_result(uid)
        unreadable = str(entry.get("unreadable") or batch.get("unreadable") or "")
        kind = triage(result, unreadable)
        problem = why or unreadable or (result.grader_error or "" if result is not None else "")
        view.rows.append(
            Row(
                uid=uid,
                name=str(entry.get("name") or uid),
                result=result,
                kind=kind,
                problem=problem,
                suffix="py" if str(entry.get("submission", "")).endswith(".py") else "ipynb",
                submission=str(entry.get("submission", "")),
                graded_at=str(batch.get("graded_at", "")),
                note=str(entry.get("note") or ""),
                edition_note=str(entry.get("edition_note") or ""),
                edition_rule=str(entry.get("edition_rule") or ""),
                nbgrader_id=_text(entry.get("nbgrader_id")),
                edition=_text(entry.get("edition")),
                late=Late.from_dict(entry.get("late")),
                stale_page=entry.get("stale_page") if isinstance(entry.get("stale_page"), dict) else None,
            )
        )
    alike = lookalikes([r.name for r in view.rows])
    for row in view.rows:
        row.confusable_with = alike.get(row.name, [])
    view.similarity = load_similarity(folder.out)
    near = similar_to(view.similarity)
    for row in view.rows:
        row.similar_to = near.get(row.uid, [])
    return view


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
