"""Test the tests end to end: `python -m autograder calibrate` grades the whole corpus in the real sandbox.

Checked independently of calibrate's own verdicts: correct files get full marks, wrong files do not, and
attacks earn nothing and escape nothing: no kit file changed (by hash), nothing planted in the venv,
site-packages or the standard library (whatever its name), no surviving process, no network connection,
no unsafe unpickling in the judge, no hidden text leaked into a result. (test_corpus.py walks the correct
and wrong files in-process, fast.)
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT as KIT
from autograder.qa.calibrate import calibration_files, interpreter_writes
from autograder.sandbox.slots import stray_processes

# The whole corpus through the real sandbox: a sweep (bash scripts/test.sh -m sweep; CI runs it).
pytestmark = pytest.mark.sweep

SPEC = get_assignment("weight_tying")
CAL = SPEC.calibration_dir
VENV_BIN = Path(sys.executable).parent
MINIMUM = {"correct": 8, "wrong": 25, "attack": 10, "trick": 8}
LEAK_MARK = "WTCAL_" + "LEAK_OK"  # what a16 prints next to anything it managed to read
LISTEN_PORT = 47813  # a15 connects here
CALIBRATION_SEED = 20261129
# Files the attacks may plant if the sandbox failed (the test removes them again, so one failure does
# not poison later runs).
PLANTED = ["wtcal_daemon_was_here.txt", str((SPEC.suite_dir / "test_wtcal_tamper.py").relative_to(KIT))]
DAEMON_MARKER = "/tmp/wtcal_daemon_alive.txt"  # a13's daemon appends to it every second while alive
TMP_MARKERS = [
    "/tmp/wtcal_pwned_judge",
    DAEMON_MARKER,
    "/tmp/wtcal_bang_ran",
    "/tmp/wtcal_magic_ran",
    "/tmp/wtcal_ipython_ran",
]

# ----------------------------------------------------------------------------------------- sweep: grade all


def _kit_hashes() -> dict[str, str]:
    skip = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "node_modules"}
    out = {}
    for dirpath, dirnames, filenames in os.walk(KIT):
        dirnames[:] = [d for d in dirnames if d not in skip and not d.endswith(".egg-info")]
        for name in filenames:
            path = os.path.join(dirpath, name)
            if name.endswith(".pyc") or os.path.islink(path):
                continue
            try:
                with open(path, "rb") as fh:
                    out[os.path.relpath(path, KIT)] = hashlib.sha256(fh.read()).hexdigest()
            except OSError:
                continue
    return out


def _named_plants() -> list[str]:
    """a17's own plant, by name, where site and the standard library look (what _clean_markers removes)."""
    import site

    dirs = set(site.getsitepackages()) | {os.path.dirname(os.__file__)}
    venv_lib = KIT / ".venv" / "lib"
    if venv_lib.is_dir():
        dirs |= {str(p) for p in venv_lib.glob("python*/site-packages")}
    plants = [os.path.join(d, "wtcal_tamper.pth") for d in sorted(dirs)]
    return [path for path in plants if os.path.exists(path)]


def _interpreter_plants(since: float) -> list[str]:
    """Anything a sandbox could have planted where Python finds code (the venv whole, site-packages, the
    standard library), whatever its name: owned by a sandbox uid, or (non-root grader) changed since."""
    return sorted(set(interpreter_writes(since)) | set(_named_plants()))


def _suspect_processes() -> list[str]:
    """Processes an attack started (named wtcal-*: they rename themselves) or left under a sandbox uid."""
    return stray_processes("wtcal")


class _Listener:
    """Accepts TCP connections on 127.0.0.1:LISTEN_PORT and remembers what arrived (a15 must not reach it)."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", LISTEN_PORT))
        self.sock.listen(8)
        self.sock.settimeout(0.5)
        self.received: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.received.append(conn.recv(4096) or b"<connected>")
                except OSError:
                    self.received.append(b"<connected>")

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=2)
        self.sock.close()


def _size(path: str) -> int:
    return Path(path).stat().st_size if Path(path).exists() else 0


def _clean_markers() -> None:
    # Only files this test's own attacks would plant; nothing else is ever removed.
    for rel in PLANTED:
        (KIT / rel).unlink(missing_ok=True)
    for path in TMP_MARKERS:
        Path(path).unlink(missing_ok=True)
    for path in _named_plants():
        Path(path).unlink(missing_ok=True)


def _last_json(text: str):
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in reversed(text.strip().splitlines()):
        if line.startswith(("{", "[")):
            return json.loads(line)
    raise AssertionError(f"no JSON on calibrate's stdout; it ended with: {text[-2000:]!r}")


def _rows(data) -> list[dict]:
    rows = data.get("verdicts", data.get("rows", data.get("results"))) if isinstance(data, dict) else data
    assert isinstance(rows, list) and rows, f"calibrate --json gave no per-file rows: {str(data)[:500]}"
    return rows


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.pop("AUTOGRADER_SANDBOX_MODE", None)
    return env


@pytest.fixture(scope="session")  # once per run, even when xdist interleaves other modules' tests
def calibration_run(tmp_path_factory):
    """Run calibrate once (a few minutes) and everything the attacks could have touched, before and after."""
    _clean_markers()
    hashes_before = _kit_hashes()
    kept = tmp_path_factory.mktemp("kept")  # each file's evidence (calibrate --keep-evidence): for pytest's runner
    listener = _Listener()
    start = time.time()
    try:
        proc = subprocess.run(
            [
                str(VENV_BIN / "python"),
                "-m",
                "autograder",
                "calibrate",
                "--assignment",
                "weight_tying",
                "--json",
                "--seed",
                str(CALIBRATION_SEED),
                "--keep-evidence",
                str(kept),
            ],
            cwd=KIT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=1200,
        )
        # A daemon that escaped writes its marker every second; give it the chance to show itself.
        time.sleep(3)
        daemon_size = _size(DAEMON_MARKER)
        time.sleep(2.5)
        daemon_grew = _size(DAEMON_MARKER) > daemon_size
        survivors = _suspect_processes()
    finally:
        listener.close()
    state = {
        "proc": proc,
        "kept": kept,
        "seconds": time.time() - start,
        "hashes_before": hashes_before,
        "hashes_after": _kit_hashes(),
        "received": list(listener.received),
        "daemon_grew": daemon_grew,
        "survivors": survivors,
        "planted": [rel for rel in PLANTED if (KIT / rel).exists()] + _interpreter_plants(start),
        "pwned": Path("/tmp/wtcal_pwned_judge").exists(),
    }
    _clean_markers()
    saved = tmp_path_factory.mktemp("calibration") / "calibrate.json"
    saved.write_text(proc.stdout)
    print(f"calibrate took {state['seconds']:.0f} s; its JSON is in {saved}")
    return state


def _by_kind(rows: list[dict]) -> dict[str, list[dict]]:
    corpus = {name: exp.kind for name, (_, exp) in calibration_files(CAL).items()}
    out: dict[str, list[dict]] = {"correct": [], "wrong": [], "attack": [], "trick": []}
    for row in rows:
        kind = corpus.get(row["file"])
        if kind:
            out[kind].append(row)
    missing = set(corpus) - {row["file"] for row in rows}
    assert not missing, f"calibrate did not grade: {sorted(missing)}"
    return out


def test_calibrate_runs_and_grades_every_file(calibration_run):
    proc = calibration_run["proc"]
    assert proc.returncode in (0, 1), f"calibrate failed to run (exit {proc.returncode}): {proc.stderr[-3000:]}"
    rows = _rows(_last_json(proc.stdout))
    kinds = _by_kind(rows)
    for kind, minimum in MINIMUM.items():
        assert len(kinds[kind]) >= minimum, f"{len(kinds[kind])} {kind} files graded, want >= {minimum}"
    assert len(proc.stdout) < 5_000_000, f"calibrate printed {len(proc.stdout)} bytes: an output flood got through"


def test_correct_submissions_get_full_marks(calibration_run):
    rows = _by_kind(_rows(_last_json(calibration_run["proc"].stdout)))["correct"]
    reference = [r for r in _rows(_last_json(calibration_run["proc"].stdout)) if r["file"] == "reference solution"]
    lost = [
        f"{r['file']}: {r['score']}/{r['max_score']} {r.get('note', '')[:300]}"
        for r in rows + reference
        if not (r["max_score"] > 0 and r["score"] == r["max_score"])
    ]
    assert not lost, "correct submissions lost points:\n" + "\n".join(lost)


def test_wrong_submissions_never_get_full_marks(calibration_run):
    rows = _by_kind(_rows(_last_json(calibration_run["proc"].stdout)))["wrong"]
    full = [f"{r['file']} ({r['expected']})" for r in rows if r["score"] >= r["max_score"]]
    assert not full, "wrong submissions got full marks:\n" + "\n".join(full)


def test_no_trick_scores_more_than_its_twin(calibration_run):
    rows = _by_kind(_rows(_last_json(calibration_run["proc"].stdout)))["trick"]
    paid = [
        f"{r['file']}: {r['score']} with the trick, {r.get('twin_score')} without"
        for r in rows
        if r.get("twin_score") is None or r["score"] > r["twin_score"]
    ]
    assert not paid, "tricks that paid (or whose twin was not graded):\n" + "\n".join(paid)


def test_attacks_earn_nothing(calibration_run):
    rows = _by_kind(_rows(_last_json(calibration_run["proc"].stdout)))["attack"]
    earned = [f"{r['file']}: {r['score']}/{r['max_score']} ({r.get('note', '')})" for r in rows if r["score"] != 0]
    assert not earned, "attacks earned points:\n" + "\n".join(earned)
    flagged = [f"{r['file']}: {r.get('note', '')}" for r in rows if not r.get("ok", True)]
    assert not flagged, "calibrate flagged attacks:\n" + "\n".join(flagged)


def test_calibrate_agrees_with_every_verdict(calibration_run):
    proc = calibration_run["proc"]
    data = _last_json(proc.stdout)
    bad = [f"{r['file']}: {r.get('note', '')[:300]}" for r in _rows(data) if not r.get("ok", False)]
    assert not bad and proc.returncode == 0, "calibrate reports wrong verdicts:\n" + "\n".join(bad)


def test_attacks_changed_no_kit_file(calibration_run):
    before, after = calibration_run["hashes_before"], calibration_run["hashes_after"]
    changed = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
    added = sorted(after.keys() - before.keys())
    assert not changed, (
        f"kit files changed while grading the attacks: {changed} (if you edited them yourself "
        "while this test ran, run it again)"
    )
    assert not added, f"files appeared in the kit while grading the attacks: {added}"
    assert not calibration_run["planted"], f"attack files planted: {calibration_run['planted']}"


def test_attacks_left_no_process_and_reached_no_network(calibration_run):
    assert not calibration_run["survivors"], f"processes outlived grading: {calibration_run['survivors']}"
    assert not calibration_run["daemon_grew"], "a setsid daemon kept writing /tmp/wtcal_daemon_alive.txt after grading"
    assert not calibration_run["received"], f"an attack reached 127.0.0.1:{LISTEN_PORT}: {calibration_run['received']}"
    assert not calibration_run["pwned"], "the judge unpickled a forged evidence frame unsafely (/tmp/wtcal_pwned_judge)"


def test_hidden_files_do_not_leak_into_results(calibration_run):
    """a16 prints whatever hidden file it can read, and raises with it so that it would reach the feedback."""
    proc = calibration_run["proc"]
    assert LEAK_MARK not in proc.stdout + proc.stderr, "calibrate's output shows hidden text an attack read"
    result = subprocess.run(
        [
            str(VENV_BIN / "python"),
            "-m",
            "autograder",
            "grade",
            "--assignment",
            "weight_tying",
            "--json",
            "--seed",
            "7",
            "--timeout",
            "30",
            str(CAL / "attacks" / "a16_read_hidden_files.py"),
        ],
        cwd=KIT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"grade failed: {result.stderr[-2000:]}"
    graded = _last_json(result.stdout)
    text = json.dumps(graded)
    assert graded["score"] == 0, f"a16 earned {graded['score']}"
    assert LEAK_MARK not in text, "hidden suite/solution text reached the student's result (feedback or run tails)"
    suite_names = [p.stem for p in SPEC.suite_dir.glob("test_*.py")]
    assert "read 0 files" in text or not suite_names, (
        "a16 could read files from disk that the sandbox should hide (its stdout tail says what it read)"
    )


def test_the_sandbox_agrees_with_the_in_process_grading(calibration_run, grader):
    """The seed sweep and the mutation run grade in process: on the same plan, every correct and wrong file
    gets the same mark from the sandboxed engine, so what they show holds for the real grader."""
    rows = {r["file"]: r for r in _rows(_last_json(calibration_run["proc"].stdout))}
    plan = SPEC.make_plan(CALIBRATION_SEED)
    differ = []
    for name, (path, exp) in calibration_files(CAL).items():
        if exp.kind in ("correct", "wrong"):
            mark, _ = grader.grade(path, plan)
            if rows[name]["score"] != mark:
                differ.append(f"{name}: sandbox {rows[name]['score']}, in process {mark}")
    assert not differ, "\n".join(differ)


def test_pytest_over_the_suite_gives_the_kits_verdicts_on_every_file(calibration_run, differences_on_pytest):
    """Each file's evidence, kept by calibrate, judged again by pytest's own runner over the hidden suite: every
    test passes or fails as the kit's judge decided, with the same finding (test_suite_on_pytest.py: a sample)."""
    kept = calibration_run["kept"]
    files = calibration_files(CAL)
    twins = [f"{name}.twin" for name, (_, exp) in files.items() if exp.kind == "trick"]
    assert sorted(str(p.parent.relative_to(kept)) for p in kept.rglob("kept.json")) == sorted(
        [*files, *twins, "reference"]
    )
    differ = {
        where: found
        for where in sorted([*files, *twins, "reference"])
        if (found := differences_on_pytest(kept / where))
    }
    assert not differ, "\n".join(f"{where}: {found[:3]}" for where, found in differ.items())
