"""The options that shape a mark are on disk before anything is graded; a resume (the same command again, with or
without --force) uses them; one with different options stops, naming both, until the change is accepted.
The grader is faked here; tests/autograder/cli/test_cli.py kills a real class run with kill -9."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from datetime import timedelta
from pathlib import Path

import pytest

import autograder.graders
import autograder.grading.executors
from autograder.cli.main import main
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.submissions import find_submissions
from autograder.outputs.classrun import ClassJob, ClassRunError, grade_class
from autograder.outputs.options import MarkOptions, OptionsChanged, scheme_digest, settle
from autograder.sandbox import Limits

pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's own add_submission
DUE = "2026-05-04 12:00 UTC"
HANDED_IN = {  # student -> timestamp.txt
    "ann": "2026-05-04 11:00:00.000000 UTC",
    "ben": "2026-05-04 12:00:19.000000 UTC",  # 19 s late: one hour begun
    "dee": "2026-05-04 14:30:00.000000 UTC",  # 2 h 30 min late: three hours begun
}


class Killed(BaseException):
    """kill -9 as the batch sees it: nothing after it runs (not an Exception the class run catches)."""


class Batch:
    """Every file scores 3 of 3; `kill_after` results, then the process is "killed"."""

    def __init__(self, kill_after: int | None = None) -> None:
        self.kill_after, self.graded = kill_after, []

    def __call__(self, *, submissions, on_result, seed, **_):
        for n, uid in enumerate(sorted(submissions)):
            if n == self.kill_after:
                raise Killed
            self.graded.append(uid)
            tests = [TestOutcome("test_add.py::test_same_shape", 2.0, "values", True)]
            tests.append(TestOutcome("test_add.py::test_broadcast", 1.0, "broadcasting", True))
            on_result(uid, Result(tests=tests, run=RunFacts(status="ok"), seed=seed, execution_time=1.0))


@pytest.fixture
def course(tmp_path) -> Path:
    root = tmp_path / "course" / "submitted"
    for student, stamp in HANDED_IN.items():
        folder = root / student / "selftest"
        folder.mkdir(parents=True)
        (folder / "selftest.py").write_text("def add(a, b):\n    return a + b\n")
        (folder / "timestamp.txt").write_text(stamp)
    return root


def _run(root: Path, monkeypatch, batch: Batch | None = None, **options):
    monkeypatch.setattr(autograder.grading.executors, "grade_batch", batch or Batch())
    out = root.parent.parent / "graded"
    job = ClassJob(
        assignment="selftest", paths=(root,), out=out, progress=False, limits=Limits(wall_seconds=30), **options
    )
    return grade_class(job, submissions=find_submissions([root], assignment="selftest"))


def _penalties(outcome) -> dict[str, float]:
    return {s.name: outcome.late[s.uid].penalty for s in outcome.roster}


def test_a_run_killed_part_way_resumes_with_every_penalty_with_or_without_force(course, monkeypatch):
    with pytest.raises(Killed):
        _run(course, monkeypatch, Batch(kill_after=1), due=DUE, late_penalty="1/hour")
    manifest = json.loads((course.parent.parent / "graded" / "manifest.json").read_text())
    assert manifest["finished"] is None  # as kill -9 leaves it: the first manifest only
    assert manifest["options"]["due"] == "2026-05-04T12:00:00+00:00" and manifest["options"]["late_penalty"] == "1/hour"
    resumed = _run(course, monkeypatch)  # the same command again, without the options
    assert sorted(resumed.graded) == ["ben", "dee"] and _penalties(resumed) == {"ann": 0, "ben": 1, "dee": 3}
    forced = _run(course, monkeypatch, force=True)
    assert len(forced.graded) == 3 and _penalties(forced) == {"ann": 0, "ben": 1, "dee": 3}
    assert forced.options.due == "2026-05-04T12:00:00+00:00" and forced.options.timeout == 30


def test_a_resume_with_other_options_stops_naming_both_until_accepted(course, monkeypatch):
    _run(course, monkeypatch, due=DUE, late_penalty="1/hour")
    batch = Batch()
    with pytest.raises(OptionsChanged) as caught:
        _run(course, monkeypatch, batch, due="2026-05-04 13:00 Europe/Berlin", late_penalty="zero")
    said = str(caught.value)
    assert "--due: 2026-05-04 12:00:00 UTC in this folder, 2026-05-04 11:00:00 UTC now" in said
    assert "--late-penalty: 1/hour in this folder, zero now" in said and "add --accept-new-options" in said
    assert batch.graded == []  # nothing was graded
    assert json.loads((course.parent.parent / "graded" / "manifest.json").read_text())["late_penalty"] == "1/hour"
    same = _run(course, monkeypatch, due="2026-05-04T14:00+02:00", late_penalty="1/h")  # the same, written otherwise
    assert _penalties(same) == {"ann": 0, "ben": 1, "dee": 3}
    changed = _run(course, monkeypatch, late_penalty="zero", accept_new_options=True)
    assert (
        _penalties(changed) == {"ann": 0, "ben": 3, "dee": 3}
        and _run(course, monkeypatch).options.late_penalty == "zero"
    )


def test_a_changed_marking_scheme_stops_until_accepted(course, monkeypatch):
    _run(course, monkeypatch)
    spec = autograder.graders.get_assignment("selftest")
    scheme = spec.scheme
    moved = dataclasses.replace(
        scheme, misconceptions={**scheme.misconceptions, "subtraction": dataclasses.replace(
            scheme.misconceptions["subtraction"], costs={"values": 1.0})}
    )  # fmt: skip
    monkeypatch.setattr(autograder.graders, "get_assignment", lambda name: dataclasses.replace(spec, scheme=moved))
    with pytest.raises(OptionsChanged, match="the marking scheme changed .*`--dry-run` lists whose marks it moves"):
        _run(course, monkeypatch)
    accepted = _run(course, monkeypatch, accept_new_options=True)
    assert accepted.options.scheme == scheme_digest(moved) != scheme_digest(scheme)
    assert _run(course, monkeypatch).options.scheme == scheme_digest(moved)  # the folder's own now


def test_an_extension_moves_a_students_due_date_and_a_misspelt_one_stops(course, monkeypatch):
    outcome = _run(course, monkeypatch, due=DUE, late_penalty="1/hour", extensions=(("ben", 60.0), ("dee", 3 * 3600.0)))
    assert _penalties(outcome) == {"ann": 0, "ben": 0, "dee": 0}
    assert {s.name: d for s in outcome.roster if (d := outcome.granted.get(s.uid))} == {
        "ben": timedelta(minutes=1),
        "dee": timedelta(hours=3),
    }
    assert _penalties(_run(course, monkeypatch)) == {"ann": 0, "ben": 0, "dee": 0}  # kept by the folder
    with pytest.raises(ClassRunError, match="--extension 'bne' matches no hand-in of this class .* ann, ben, dee"):
        _run(course, monkeypatch, extensions=(("bne", 60.0),), accept_new_options=True)


def test_a_folder_an_older_kit_wrote_keeps_its_seed_due_and_policy(course, monkeypatch):
    first = _run(course, monkeypatch, due=DUE, late_penalty="1/hour")
    path = course.parent.parent / "graded" / "manifest.json"
    old = json.loads(path.read_text())
    del old["options"]  # what a kit before the options recorded
    path.write_text(json.dumps(old))
    again = _run(course, monkeypatch, extensions=(("ben", 60.0),))  # what it never recorded is taken as given
    assert again.seed == first.seed and _penalties(again) == {"ann": 0, "ben": 0, "dee": 3}


def test_settle_takes_the_folders_for_what_is_not_given_and_names_what_differs():
    recorded = MarkOptions(seed=7, due="2026-05-04T12:00:00+00:00", extensions=(("ann", 60.0),), scheme="a")
    kept, changes = settle(MarkOptions(scheme="a"), recorded)
    assert kept == recorded and changes == []
    asked = MarkOptions(seed=7, extensions=(("ann", 120.0), ("bo", 60.0)), scheme="a")
    with pytest.raises(OptionsChanged) as caught:
        settle(asked, recorded, out=Path("graded"))
    assert "--extension: ann 1 min in this folder, 2 min now; bo none in this folder, 1 min now" in str(caught.value)
    accepted, changes = settle(asked, recorded, accept=True)
    assert accepted.extensions == (("ann", 120.0), ("bo", 60.0)) and [c.name for c in changes] == ["extensions"]


def test_a_resume_without_the_gradebook_writes_the_one_the_folder_recorded_with_each_extension(
    course, monkeypatch, capsys
):
    from nbgrader.api import Gradebook

    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setattr(autograder.grading.executors, "grade_batch", Batch())
    db, out = course.parent / "gradebook.db", course.parent.parent / "graded"
    args = ["grade", "--assignment", "selftest", str(course), "--out", str(out), "--due", DUE]
    assert main([*args, "--gradebook", str(db), "--extension", "ben=1d", "--late-penalty", "1/hour"]) == 0
    with Gradebook(f"sqlite:///{db}") as gb:
        assert gb.find_submission("selftest", "ben").extension == timedelta(days=1)
        assert gb.find_submission("selftest", "dee").extension is None
        assert gb.find_submission("selftest", "dee").late_submission_penalty == 3
    db.unlink()
    capsys.readouterr()
    assert main(args) == 0  # the same command without --gradebook, --extension or --late-penalty
    assert f"note: --gradebook {db.resolve()}, as {str(out)!r} recorded" in capsys.readouterr().err
    with Gradebook(f"sqlite:///{db}") as gb:
        assert gb.find_submission("selftest", "ben").extension == timedelta(days=1)
        assert gb.find_submission("selftest", "dee").late_submission_penalty == 3
