"""A class into an output folder: every student once, resumable, idempotent (the grader itself faked here;
tests/autograder/cli/test_cli.py runs the real one, kill -9 included)."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

import autograder.grading.executors
from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.gradescope.results import gradescope_results
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.grading.submissions import SubmissionRefused, find_submissions, read_submission
from autograder.outputs.classrun import ClassJob, ClassRunError, grade_class
from autograder.outputs.folder import RESULT_FORMAT
from autograder.outputs.options import OptionsChanged
from autograder.protocol.said import Said

GOOD, BAD = "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"


class FakeBatch:
    """Stands in for grade_batch: 3 points for a file that adds, 0 otherwise; `crash_after` results, then breaks."""

    def __init__(self, crash_after: int | None = None) -> None:
        self.calls: list[list[str]] = []
        self.seeds: list[int] = []
        self.crash_after = crash_after

    def __call__(self, *, assignment, submissions, seed, limits, workers, progress, hide, on_result, roots=(), **_):
        self.calls.append(sorted(submissions))
        self.seeds.append(seed)
        for n, (uid, path) in enumerate(sorted(submissions.items())):
            if self.crash_after is not None and n == self.crash_after:
                raise RuntimeError("the pool broke")
            try:  # read as the real batch reads (bounded): a refused file is graded empty, with why
                ok, refusal = "a + b" in read_submission(Path(path))[1], None
            except SubmissionRefused as exc:
                ok, refusal = False, Said(exc.key, **exc.params)
            tests = [
                TestOutcome(
                    "test_add.py::test_same_shape",
                    2.0,
                    "values",
                    ok,
                    None if ok else Finding(Said("selftest.subtraction")),
                )
            ]
            tests.append(
                TestOutcome(
                    "test_add.py::test_broadcast",
                    1.0,
                    "broadcasting",
                    ok,
                    None if ok else Finding(Said("selftest.not_sum")),
                )
            )
            run = RunFacts(status="ok", refusal=refusal)
            result = Result(tests=tests, run=run, seed=seed, execution_time=1.0)
            on_result(uid, rendered(result, get_assignment(assignment)))  # as step 8 leaves it
        return {}


@pytest.fixture
def fake(monkeypatch):
    batch = FakeBatch()
    monkeypatch.setattr(autograder.grading.executors, "grade_batch", batch)
    return batch


@pytest.fixture
def klass(tmp_path) -> Path:
    folder = tmp_path / "class"
    folder.mkdir()
    for name, body in {b"alice": GOOD, b"alice!": BAD, b"caf\xe9": GOOD, b"=cmd": GOOD, b"x[]": BAD}.items():
        (folder / os.fsdecode(name + b".py")).write_text(body)
    return folder


def run(klass: Path, out: Path, **options) -> object:
    job = ClassJob(assignment="selftest", paths=(klass,), out=out, progress=False, **options)
    return grade_class(job, submissions=find_submissions([klass], assignment="selftest"))


def _csv(out: Path) -> dict[str, str]:
    return {r["student"]: r["score"] for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}


def test_every_student_gets_one_row_one_result_and_one_page_with_their_own_score(klass, tmp_path, fake):
    out = tmp_path / "graded"
    outcome = run(klass, out)
    assert _csv(out) == {"alice": "3.0", "alice!": "0.0", "caf\\xe9": "3.0", "'=cmd": "3.0", "x[]": "0.0"}
    ids = {s.name: s.uid for s in outcome.roster}
    assert len(set(ids.values())) == 5 and ids["alice"] == "alice"
    full = {"alice", "caf\\xe9", "=cmd"}
    for name, uid in ids.items():
        data = json.loads((out / "results" / f"{uid}.json").read_text())
        assert data["batch"]["student"] == name
        page = (out / "feedback" / f"{uid}.html").read_text()
        assert f"Score: {3 if name in full else 0} / 3" in page
    report = (out / "report.html").read_text()
    assert all(f'href="feedback/{uid}.html"' in report for uid in ids.values())


def test_an_unchanged_rerun_grades_nothing_and_a_changed_file_only_itself(klass, tmp_path, fake):
    out = tmp_path / "graded"
    first = run(klass, out)
    before = (out / "results" / "alice.json").read_text()
    again = run(klass, out)
    assert fake.calls == [sorted(s.uid for s in first.roster)] and again.graded == []
    assert len(again.reused) == 5 and (out / "results" / "alice.json").read_text() == before
    (klass / "alice!.py").write_text(GOOD)  # alice! fixes the bug and hands in again
    third = run(klass, out)
    assert [next(s.name for s in third.roster if s.uid == u) for u in third.graded] == ["alice!"]
    assert _csv(out)["alice!"] == "3.0"


def test_a_result_file_an_older_kit_wrote_is_graded_again_with_a_note_never_misread(klass, tmp_path, fake):
    out = tmp_path / "graded"
    run(klass, out)
    path = out / "results" / "alice.json"
    stored = json.loads(path.read_text())
    old = gradescope_results(Result.from_wire(stored["result"]))  # Gradescope's shape, as kits before format 2 wrote
    old["score"], old["extra_data"]["batch"] = 99.0, stored["batch"]  # same grading key: only the format differs
    path.write_text(json.dumps(old))
    again = run(klass, out)
    assert again.graded == ["alice"] and len(again.reused) == 4
    assert any("older kit" in w and "alice.json" in w and "graded again" in w for w in again.warnings)
    assert json.loads(path.read_text())["format"] == RESULT_FORMAT and _csv(out)["alice"] == "3.0"
    assert not any("older kit" in w for w in run(klass, out).warnings)


def test_force_regrades_everyone_and_student_only_those_named(klass, tmp_path, fake):
    out = tmp_path / "graded"
    run(klass, out)
    assert len(run(klass, out, force=True).graded) == 5
    named = run(klass, out, only=("alice!", "caf\\xe9"))
    assert sorted(next(s.name for s in named.roster if s.uid == u) for u in named.graded) == ["alice!", "caf\\xe9"]
    with pytest.raises(ClassRunError, match="--student 'nobody' matches no submission"):
        run(klass, out, only=("nobody",))


def test_a_broken_batch_keeps_what_arrived_and_the_next_run_grades_the_rest_on_the_same_seed(
    klass, tmp_path, monkeypatch
):
    out = tmp_path / "graded"
    broken = FakeBatch(crash_after=2)
    monkeypatch.setattr(autograder.grading.executors, "grade_batch", broken)
    first = run(klass, out)
    assert first.batch_error == "RuntimeError: the pool broke" and len(first.graded) == 2
    assert list(_csv(out).values()).count("") == 3  # the others have a row, without a score
    assert "run the same command again" in (out / "report.html").read_text()
    fixed = FakeBatch()
    monkeypatch.setattr(autograder.grading.executors, "grade_batch", fixed)
    second = run(klass, out)
    assert len(second.graded) == 3 and sorted(second.reused) == sorted(first.graded)
    assert fixed.seeds == [first.seed] and "" not in _csv(out).values()


def test_the_seed_is_the_folders_until_another_is_asked_for_and_accepted(klass, tmp_path, fake):
    out = tmp_path / "graded"
    seed = run(klass, out).seed
    assert json.loads((out / "manifest.json").read_text())["seed"] == seed
    assert run(klass, out).seed == seed and fake.seeds == [seed]
    with pytest.raises(OptionsChanged, match=f"--seed: {seed} in this folder, {seed + 1} now.*--accept-new-options"):
        run(klass, out, seed=seed + 1)
    assert fake.seeds == [seed] and json.loads((out / "manifest.json").read_text())["seed"] == seed
    other = run(klass, out, seed=seed + 1, accept_new_options=True)
    assert len(other.graded) == 5 and other.seed == seed + 1 and run(klass, out).seed == seed + 1


def test_a_student_no_longer_handed_in_leaves_the_outputs(klass, tmp_path, fake):
    out = tmp_path / "graded"
    run(klass, out)
    (klass / "x[].py").unlink()
    run(klass, out)
    assert "x[]" not in _csv(out) and "x[]" not in (out / "report.html").read_text()


def test_a_folder_of_another_assignment_is_refused(klass, tmp_path, fake):
    out = tmp_path / "graded"
    run(klass, out)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["assignment"] = "weight_tying"
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ClassRunError, match="holds grades of assignment 'weight_tying'"):
        run(klass, out)


def test_a_report_that_fails_never_costs_the_grades(klass, tmp_path, fake, monkeypatch):
    import autograder.outputs.report

    def broken(out, **kwargs):
        raise RuntimeError("no charts today")

    monkeypatch.setattr(autograder.outputs.report, "write_report", broken)
    outcome = run(klass, tmp_path / "graded")
    assert outcome.report is None and "no charts today" in outcome.warnings[0]
    assert _csv(tmp_path / "graded")["alice"] == "3.0"


def _bytes_read() -> int:
    with open("/proc/self/io") as fh:  # rchar: bytes this process read through read(2) and friends
        return next(int(line.split()[1]) for line in fh if line.startswith("rchar:"))


def test_a_sparse_terabyte_hand_in_is_refused_unread_and_the_class_is_graded(klass, tmp_path, fake):
    run(klass, tmp_path / "warm-up")  # the first class of a process imports the report's libraries: not counted
    huge = klass / "tera.py"
    huge.touch()
    os.truncate(huge, 1 << 40)  # 1 TiB, sparse: the grading key once hashed every byte before grading anyone
    out = tmp_path / "graded"
    before = _bytes_read()
    outcome = run(klass, out)
    # unread: neither the terabyte nor the 64 MiB the reader takes of a file (the report's charts read ~14 MiB
    # of font files, the rest ~1 MiB)
    assert _bytes_read() - before < 32 << 20
    assert _csv(out)["alice"] == "3.0" and len(outcome.results) == 6
    row = next(r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8")) if r["student"] == "tera")
    assert (row["score"], row["kind"]) == ("0.0", "unreadable")
    entry = next(s for s in json.loads((out / "manifest.json").read_text())["students"] if s["name"] == "tera")
    assert "over the 64 MiB limit" in entry["unreadable"]
    assert run(klass, out).graded == []  # and a rerun reuses its refusal like any other result


class WatchingBatch(FakeBatch):
    """FakeBatch that looks at the output folder from inside the batch: before the first result, and after
    each result it hands back, before the next is graded (what a kill -9 at that moment would leave)."""

    def __init__(self, out: Path) -> None:
        super().__init__()
        self.out = out
        self.seen: list[tuple[object, list[str]]] = []

    def __call__(self, *, on_result, seed, **kwargs):
        manifest = self.out / "manifest.json"
        self.seen.append((json.loads(manifest.read_text())["seed"] if manifest.exists() else None, []))

        def and_look(uid, result):
            on_result(uid, result)
            self.seen.append((None, sorted(p.stem for p in (self.out / "results").glob("*.json"))))

        return super().__call__(on_result=and_look, seed=seed, **kwargs)


def test_the_seed_is_on_disk_before_grading_and_each_result_the_moment_it_arrives(klass, tmp_path, monkeypatch):
    out = tmp_path / "graded"
    batch = WatchingBatch(out)
    monkeypatch.setattr(autograder.grading.executors, "grade_batch", batch)
    outcome = run(klass, out)
    (seed_before_grading, _), *after_each = batch.seen
    assert seed_before_grading == outcome.seed  # the manifest with the seed, before the first submission
    graded = batch.calls[0]
    assert [files for _, files in after_each] == [sorted(graded[: i + 1]) for i in range(len(graded))]
