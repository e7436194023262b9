"""The command line: exit codes, one JSON object last on stdout, readable errors for bad arguments."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.cli.main import build_parser, main
from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT as KIT
from autograder.grading.result import Result

FAKE = '{"score": 3, "max_score": 3, "output": "all passed", "tests": []}'


def cli(*args: str, cwd: Path | None = None, columns: int | None = None) -> subprocess.CompletedProcess:
    """`python -m autograder ARGS` (`columns`: the tables' width, $COLUMNS, else what this process was given)."""
    env = {**os.environ, "COLUMNS": str(columns)} if columns else None
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args],
        capture_output=True,
        text=True,
        cwd=cwd or KIT,
        timeout=300,
        env=env,
    )


def test_help_mentions_every_option_and_what_is_not_enforced(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["grade", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in (
        "--assignment",
        "--json",
        "--seed",
        "--timeout",
        "--memory",
        "--workers",
        "--out",
        "--gradebook",
        "--nbgrader-course",
        "--gradebook-assignment",
        "--due",
        "--late-penalty",
        "--extension",
        "--extensions",
        "--accept-new-options",
    ):
        assert option in text
    assert "NOT enforced" in text
    words = " ".join(text.split())
    assert "one task cell per area" in words and "grade cell" not in words  # how scores land in nbgrader
    # scores go to each student's own edition unless --gradebook-assignment says otherwise
    assert "(default: each student's own edition, as handed in" in words


@pytest.mark.parametrize(
    "args, needle",
    [
        (["grade", "--assignment", "nope", "x.py"], "unknown assignment 'nope'"),
        (["grade", "--assignment", "selftest", "does/not/exist.py"], "'does/not/exist.py' does not exist"),
        (["grade", "--assignment", "selftest", "pyproject.toml"], "neither .py nor .ipynb"),
        (["grade", "--assignment", "selftest"], "give the submissions to grade"),
        (["grade", "--assignment", "selftest", "--nbgrader-course", "nowhere"], "'nowhere' is not a folder"),
        (["grade", "--assignment", "selftest", "--nbgrader-course", ".", "--gradebook", "g.db"], "not both"),
        (["grade", "--assignment", "selftest", "--nbgrader-course", "autograder"], "collect the submissions first"),
        (["grade", "--assignment", "selftest", "x.py", "--gradebook", "no/such/gradebook.db"], "existing folder"),
        (["grade", "--assignment", "selftest", "tests", "--due", "soon"], "--due 'soon' is not a date and time; give"),
        (
            ["grade", "--assignment", "selftest", "tests", "--due", "2026-12-01 23:59 Berlin"],
            "'Berlin' is not a time zone (did you mean Europe/Berlin?); give a date and time, then an IANA zone or an",
        ),
        (
            ["grade", "--assignment", "selftest", "tests", "--due", "2026-12-01 23:59 Europe/Berln"],
            "--due '2026-12-01 23:59 Europe/Berln': 'Europe/Berln' is not a time zone (did you mean Europe/Berlin",
        ),
        (["grade", "--assignment", "selftest", "tests", "--extension", "ann"], "'ann' is not STUDENT=DURATION"),
        (["grade", "--assignment", "selftest", "tests", "--extension", "ann=2"], "--extension 'ann=2': '2' is not a"),
        (["grade", "--assignment", "selftest", "tests", "--extensions", "nope.csv"], "'nope.csv' cannot be read"),
        (
            ["grade", "--assignment", "selftest", "solutions/weight_tying.py", "--extension", "a=1d"],
            "give --out FOLDER",
        ),
        (["grade", "--assignment", "selftest", "tests", "--late-penalty", "half"], "'half' is not a late policy"),
        (["grade", "--assignment", "selftest", "README.md", "--due", "2026-05-04"], "neither .py nor .ipynb"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(args, needle, capsys, monkeypatch):
    monkeypatch.chdir(KIT)
    assert main(args) == 2
    assert needle in capsys.readouterr().err


def test_bad_memory_size_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["grade", "--assignment", "selftest", "--memory", "lots", "x.py"])
    assert exc.value.code == 2 and "'lots'" in capsys.readouterr().err


@pytest.mark.e2e
def test_json_is_the_graders_even_when_the_student_prints_fake_json(tmp_path):
    sub = tmp_path / "cheat.py"
    sub.write_text(f"import sys\nprint({FAKE!r})\nprint({FAKE!r}, file=sys.stderr)\nsys.exit(0)\n")
    proc = cli("grade", "--assignment", "selftest", str(sub), "--json", "--seed", "3", "--timeout", "20")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["score"] == 0 and result["max_score"] == 3 and len(result["tests"]) == 2
    assert result["extra_data"]["seed"] == 3
    assert len(proc.stdout.strip().splitlines()) == 1  # the student's prints never reach the grader's stdout
    assert "all passed" in result["extra_data"]["run"]["stdout_tail"]  # ... they are kept for the instructor


@pytest.mark.e2e
def test_batch_survives_hangs_and_crashes_and_writes_grades_report_and_gradebook(tmp_path):
    course = tmp_path / "course"
    for student, body in (
        ("ann", "def add(a, b):\n    return a + b\n"),
        # a hang that leaves the CPU to the others, and ignores the alarm of the runner's own time budgets
        # (autograder/runner/budget.py): only the sandbox's limit stops it
        ("ben", "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(600)\n"),
        ("cat", "import os\nos._exit(1)\n"),
    ):
        (course / "submitted" / student / "selftest").mkdir(parents=True)
        (course / "submitted" / student / "selftest" / "selftest.py").write_text(body)
    out = tmp_path / "graded"
    proc = cli(
        "grade",
        "--assignment",
        "selftest",
        "--nbgrader-course",
        str(course),
        "--out",
        str(out),
        "--timeout",
        "8",  # ann's run takes about a second; ben's hang is cut at 8 s
        "--workers",
        "2",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert {s: r["score"] for s, r in summary["students"].items()} == {"ann": 3, "ben": 0, "cat": 0}
    assert (out / "grades.csv").read_text().count("\n") == 4
    assert json.loads((out / "results" / "cat.json").read_text())["result"]["run"]["status"] == "exited"
    ben = json.loads((out / "results" / "ben.json").read_text())["result"]  # the kit's wire form of a Result
    assert ben["run"]["status"] == "timeout"
    assert ben["run"]["running"] == {"cell": 0}  # the runner said which part was running
    assert '"ben",0.0,3.0,"timeout","timeout"' in (out / "grades.csv").read_text()  # never "blank"
    report = (out / "report.html").read_text()
    assert (
        "ben</a>: while running your file</li>" in report[report.index("Needs a look") : report.index("Class summary")]
    )
    # the instructor's report and one feedback page per student (helper A's autograder.report)
    assert summary["report"] == str(out / "report.html") and (out / "report.html").stat().st_size > 0
    assert sorted(p.stem for p in (out / "feedback").glob("*.html")) == ["ann", "ben", "cat"]
    # nbgrader's gradebook: every student, one task cell per area of the suite, the same points
    from nbgrader.api import Gradebook

    assert summary["gradebook"] == str(course / "gradebook.db") and "3 students written" in proc.stderr
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        got = {s.student.id: (s.score, s.max_score) for s in gb.find_assignment("selftest").submissions}
    assert got == {"ann": (3, 3), "ben": (0, 3), "cat": (0, 3)}


@pytest.mark.e2e
def test_calibrate_passes_and_reports_timing(tmp_path):
    # three of the selftest's calibration files, one per kind: the whole set re-runs attacks that the
    # sandbox and engine tests already cover, at ~4 s of torch start-up each on a shared machine
    mine = tmp_path / "calibration"
    own = get_assignment("selftest").calibration_dir
    for rel in ("correct/plus.py", "wrong/minus.py", "attacks/patch_allclose.py"):
        (mine / rel).parent.mkdir(parents=True, exist_ok=True)
        (mine / rel).write_text((own / rel).read_text())
    proc = cli("calibrate", "--assignment", "selftest", "--calibration-dir", str(mine), "--timeout", "20", "--json")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["ok"] and summary["reference_seconds"] > 0
    assert [v["expected"] for v in summary["verdicts"]] == ["correct", "correct", "wrong subtraction", "attack"]
    assert "shows 'subtraction'" in summary["verdicts"][2]["note"]


def test_a_grader_failure_exits_1_with_its_reason(tmp_path, monkeypatch, capsys):
    import autograder.grading.executors

    def broken(**kwargs):
        raise RuntimeError("the hidden suite could not run")

    monkeypatch.setattr(autograder.grading.executors, "grade_file", broken)
    sub = tmp_path / "s.py"
    sub.write_text("x = 1\n")
    assert main(["grade", "--assignment", "selftest", str(sub)]) == 1
    assert "grader error: RuntimeError: the hidden suite could not run" in capsys.readouterr().err
    # Gradescope still receives a result for the student, saying the grader failed (and the exit is still 1).
    assert main(["grade", "--assignment", "selftest", str(sub), "--json"]) == 1
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["score"] == 0 and "could not grade" in result["output"] and "grader_error" in result["extra_data"]


def _course(root: Path, students: dict[str, str]) -> Path:
    for student, body in students.items():
        (root / "submitted" / student / "selftest").mkdir(parents=True)
        (root / "submitted" / student / "selftest" / "selftest.py").write_text(body)
    return root


@pytest.mark.e2e
def test_after_kill_9_the_same_command_grades_only_what_is_missing_and_then_nothing(tmp_path):
    add = "def add(a, b):\n    return a + b\n"
    course = _course(
        tmp_path / "course", {"ann": add, "bob": add, "cat": add, "zz_slow": add + "import time\ntime.sleep(8)\n"}
    )
    out = tmp_path / "graded"
    args = [sys.executable, "-m", "autograder", "grade", "--assignment", "selftest", str(course / "submitted")]
    args += ["--out", str(out), "--workers", "1", "--timeout", "30", "--json"]
    proc = subprocess.Popen(args, cwd=KIT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not list((out / "results").glob("*.json")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its pool workers; sandboxes die with their parent
        proc.wait(timeout=60)
    done = sorted(p.stem for p in (out / "results").glob("*.json"))
    assert 1 <= len(done) < 4, done
    for path in (out / "results").iterdir():  # whole files only: nothing half-written survives a kill
        assert not path.name.startswith(".") and Result.from_wire(json.loads(path.read_text())["result"]).max_score == 3
    seed = json.loads((out / "manifest.json").read_text())["seed"]
    resumed = subprocess.run(args, cwd=KIT, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    summary = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert sorted(summary["up_to_date"]) == done and sorted(summary["graded"] + done) == [
        "ann",
        "bob",
        "cat",
        "zz_slow",
    ]
    assert summary["seed"] == seed and all(s["score"] == 3 for s in summary["students"].values())
    stamps = {p.stem: json.loads(p.read_text())["batch"]["graded_at"] for p in (out / "results").glob("*.json")}
    again = subprocess.run(args, cwd=KIT, capture_output=True, text=True, timeout=600)
    summary = json.loads(again.stdout.strip().splitlines()[-1])
    assert summary["graded"] == [] and len(summary["up_to_date"]) == 4
    assert stamps == {p.stem: json.loads(p.read_text())["batch"]["graded_at"] for p in (out / "results").glob("*.json")}
    assert (out / "grades.csv").read_text().count("\n") == 5


@pytest.mark.e2e
def test_after_kill_9_a_resume_keeps_every_penalty_and_a_misspelt_zone_stops_naming_it(tmp_path):
    add = "def add(a, b):\n    return a + b\n"
    course = _course(tmp_path / "course", {"ann": add, "bob": add, "zz_slow": add + "import time\ntime.sleep(8)\n"})
    for student, stamp in {"ann": "12:00:19", "bob": "11:00:00", "zz_slow": "14:30:00"}.items():
        (course / "submitted" / student / "selftest" / "timestamp.txt").write_text(f"2026-05-04 {stamp}.000000 UTC\n")
    out = tmp_path / "graded"
    args = [sys.executable, "-m", "autograder", "grade", "--assignment", "selftest", str(course / "submitted")]
    args += ["--out", str(out), "--workers", "1", "--timeout", "30"]
    late = ["--due", "2026-05-04 14:00 Europe/Berlin", "--late-penalty", "1/hour"]  # 12:00 UTC: summer time
    misspelt = cli(*args[3:], "--due", "2026-05-04 14:00 Europe/Berln", "--late-penalty", "1/hour")
    assert misspelt.returncode == 2 and not out.exists()
    assert "'Europe/Berln' is not a time zone (did you mean Europe/Berlin" in misspelt.stderr
    proc = subprocess.Popen(
        [*args, *late], cwd=KIT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 300
        while not list((out / "results").glob("*.json")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    assert 1 <= len(list((out / "results").glob("*.json"))) < 3
    for again in ([], ["--force"]):  # as README advises after a kill, with or without --force
        resumed = subprocess.run([*args, *again], cwd=KIT, capture_output=True, text=True, timeout=600)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
        assert {s: (r["late_by"], r["late_penalty"], r["final_score"]) for s, r in rows.items()} == {
            "ann": ("19 s", "1.0", "2.0"),
            "bob": ("on time", "0.0", "3.0"),
            "zz_slow": ("2 h 30 min", "3.0", "0.0"),
        }
    other = subprocess.run([*args, "--late-penalty", "zero"], cwd=KIT, capture_output=True, text=True, timeout=600)
    assert other.returncode == 2 and "--late-penalty: 1/hour in this folder, zero now" in other.stderr


@pytest.mark.e2e
def test_a_class_of_odd_names_grades_completely_with_each_students_own_score(tmp_path):
    add, sub = "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"
    flat = tmp_path / "flat"
    (flat / "x[").mkdir(parents=True)
    files = {
        b"alice.py": add,
        b"alice!.py": sub,  # same safe name as alice
        b"caf\xe9.py": add,  # not UTF-8
        b"=HYPERLINK(1).py": add,  # a formula
        b"a].py": sub,
        b"x[/a].py": add,  # given below beside a].py: the same stem, so its key is its path, with brackets
        b"eve.py": 'def add(a, b):\n    raise ValueError("\\udcff <b>not bold</b> [red]x[/red]")\n',
        b"broken.ipynb": "{ not a notebook",
    }
    for name, body in files.items():
        (flat / os.fsdecode(name)).write_text(body)
    out = tmp_path / "graded"
    paths = [str(p) for p in sorted(flat.glob("*.*"))] + [str(flat / "x[" / "a].py")]
    # wide enough for the long name on one line (a narrower table folds it: summary.print_batch)
    proc = cli(
        "grade", "--assignment", "selftest", *paths, "--out", str(out), "--workers", "2", "--timeout", "30", columns=200
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    import csv

    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    scores = {name: row["score"] for name, row in rows.items()}
    x_key = next(name for name in scores if name.endswith("x[/a]"))
    assert scores == {
        "alice": "3.0",
        "alice!": "0.0",
        "caf\\xe9": "3.0",
        "'=HYPERLINK(1)": "3.0",
        "a]": "0.0",
        x_key: "3.0",
        "eve": "0.0",
        "broken": "0.0",
    }
    assert rows["broken"]["kind"] == "unreadable"
    pages = {p.name for p in (out / "feedback").iterdir()}
    assert pages == {f"{r['id']}.html" for r in rows.values()} and len(pages) == 8
    alice_bang = (out / "feedback" / f"{rows['alice!']['id']}.html").read_text()
    assert "Score: 0 / 3" in alice_bang and "subtraction" in alice_bang
    assert "Score: 3 / 3" in (out / "feedback" / "alice.html").read_text()
    eve = (out / "feedback" / "eve.html").read_text()
    assert "\\udcff" in eve and "&lt;b&gt;not bold" in eve
    report = (out / "report.html").read_text()
    assert all(f'href="feedback/{r["id"]}.html"' in report for r in rows.values())
    assert "x[/a]" in proc.stdout  # brackets printed as they are, not read as markup


def test_one_file_that_does_not_say_its_edition_is_shown_in_the_runs_language(tmp_path):
    """Issue 48 (round 8): `grade FILE --language zh` on a file that is not a notebook printed English only."""
    bad = tmp_path / "chen_shi.ipynb"
    bad.write_text('{"cells": [\n')
    zh = cli("grade", "--assignment", "weight_tying", "--seed", "1", "--language", "zh", str(bad))
    assert zh.returncode == 0, zh.stderr
    assert "得分：0 / 100" in zh.stdout and "你的提交没有被运行。chen_shi.ipynb 不是 notebook" in zh.stdout, zh.stdout
    assert "Score" not in zh.stdout and "How the marks" not in zh.stdout
