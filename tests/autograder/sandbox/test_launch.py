"""Attacks on the sandbox itself, through the tiny `autograder.runner.probe` payload (Python code on stdin)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from killed_grader import left_after_killing, processes_named

from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT as KIT
from autograder.sandbox import GiB, KiB, Limits, probe_isolation, run_sandboxed
from autograder.sandbox.view import build_view

SUITE = get_assignment("selftest").suite_dir
MODE = probe_isolation().mode
ROOT_ONLY = pytest.mark.skipif(MODE == "rlimits", reason="needs root: uid-level limits")
NAMESPACES = pytest.mark.skipif(MODE != "namespaces", reason="needs root and util-linux unshare")


def probe(code: str, *, hidden: tuple[str, ...] = (), **limits) -> object:
    return run_sandboxed(
        module="autograder.runner.probe",
        stdin=textwrap.dedent(code).encode(),
        limits=Limits(**{"wall_seconds": 10, **limits}),
        hidden_paths=hidden,
    )


def reported(result) -> str:
    """What the payload wrote to the evidence fd after the probe's own 'ok'."""
    assert result.evidence.startswith(b"ok"), (result.stderr, result.evidence)
    return result.evidence[2:].decode()


def test_isolation_mode_is_reported():
    isolation = probe_isolation()
    assert isolation.mode in ("namespaces", "uid", "rlimits")
    assert "wall time" in isolation.enforced
    if isolation.mode == "rlimits":  # e.g. not root, or a container that forbids namespaces: say so
        assert any("setsid" in item for item in isolation.not_enforced)
        assert any("unprivileged user" in item for item in isolation.not_enforced)
    else:
        assert "unprivileged uid" in isolation.enforced


def test_plain_run_reports_exit_code_and_output():
    result = probe("import sys; print('hello'); sys.stderr.write('oops'); os_exit = 7; raise SystemExit(7)")
    assert result.exit_code == 7 and result.signal is None and not result.timed_out
    assert result.stdout.strip() == "hello" and "oops" in result.stderr


def test_timeout_kills_an_infinite_loop():
    start = time.monotonic()
    result = probe("while True:\n    pass\n", wall_seconds=1.5)
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - start < 8


def test_setsid_daemon_does_not_survive():
    token = f"agdaemon{os.getpid() % 100000}"
    code = f"""
    import ctypes, os, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            ctypes.CDLL(None).prctl(15, b"{token}", 0, 0, 0)  # PR_SET_NAME, so the test can find it
            for fd in (0, 1, 2, FD):
                os.close(fd)
            time.sleep(300)
        os._exit(0)
    time.sleep(0.5)
    """
    result = probe(code)
    if MODE == "rlimits":
        assert any("setsid" in item for item in result.isolation.not_enforced)
        for pid in processes_named(token):  # clean up what this mode cannot
            os.kill(pid, 9)
        return
    time.sleep(0.2)
    assert processes_named(token) == [], "a setsid daemon survived the sandbox"
    assert "processes survived the kill" not in result.notes


def test_memory_bomb_is_stopped():
    result = probe("x = bytearray(6 * 2**30)\n", memory_bytes=1 * GiB)
    assert result.exit_code == 1 and "MemoryError" in result.stderr


@ROOT_ONLY
def test_fork_bomb_is_capped():
    code = """
    import os, time
    n = 0
    try:
        for _ in range(500):
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            n += 1
    except OSError as exc:
        os.write(FD, f"{n} {type(exc).__name__}".encode())
    """
    result = probe(code, max_processes=32)
    count, error = reported(result).split()
    assert int(count) < 32 and error == "BlockingIOError"
    assert "processes survived the kill" not in result.notes


@ROOT_ONLY
def test_the_runs_cgroup_is_killed_before_its_uid_is_swept(monkeypatch):
    """As on the warm path (``test_warm``): the cgroup's patient kill first, then the uid's half-second sweep (the
    sweep before the run, of a grader's leftovers, comes first of all)."""
    from autograder.sandbox import cgroups, launch

    if cgroups.cgroup_support() is None:
        pytest.skip("needs cgroup controllers")
    order, kill, sweep = [], cgroups.RunCgroup.kill, launch.kill_uid
    monkeypatch.setattr(cgroups.RunCgroup, "kill", lambda group: order.append("cgroup") or kill(group))
    monkeypatch.setattr(launch, "kill_uid", lambda uid: order.append("uid") or sweep(uid))
    result = probe("pass\n")
    assert result.exit_code == 0 and order[:3] == ["uid", "cgroup", "uid"], (order, result.stderr)  # (then remove)


def test_output_flood_is_capped_and_does_not_block():
    code = "import sys\nfor _ in range(2000):\n    sys.stdout.write('x' * 65536)\nsys.stdout.flush()\n"
    start = time.monotonic()
    result = probe(code, capture_bytes=16 * KiB)
    assert time.monotonic() - start < 8 and "BrokenPipeError" in result.stderr  # told, never blocked
    assert len(result.stdout) < 17 * KiB + 200 and "bytes of output dropped" in result.stdout
    assert any("stdout dropped" in note for note in result.notes)
    assert result.flooded == ["stdout"]  # past what is read: refused, as values (grading/refusals.py)


def test_a_flood_past_the_caps_is_not_read_by_the_grader():
    """What a submission writes past its caps costs the submission, not the grader's process (issue 31: a 15 s
    flood of stdout, stderr and the evidence pipe cost the grader ~10 CPU-s, read and thrown away): the grader
    reads a bounded amount of each pipe, then the writer's writes fail."""
    code = """
    import os
    def offer(fd):
        count, block = 0, b"x" * (1 << 20)
        for _ in range(256):  # 256 MiB
            try:
                count += os.write(fd, block)
            except OSError:
                break
        return count
    os.write(FD, ("|%d,%d|" % (offer(1), offer(2))).encode())
    raise SystemExit(7 if offer(FD) < 256 << 20 else 0)
    """
    result = probe(code, capture_bytes=64 * KiB, evidence_bytes=1 << 20)
    accepted = [int(n) for n in reported(result).split("|")[1].split(",")]
    assert all(n < 10 << 20 for n in accepted), accepted  # 64 KiB kept, 8 MiB read past it, a pipe's buffer
    assert result.exit_code == 7 and result.evidence_overflow  # the evidence pipe too: read to its cap, then shut
    assert [n for n in result.notes if "was not read" in n] == [
        f"{name} past {64 * KiB + (8 << 20)} bytes was not read: the run's later writes to it failed"
        for name in ("stdout", "stderr")
    ]
    assert result.flooded == ["stdout", "stderr", "evidence"]  # the same, as values (grading/refusals.py)


@NAMESPACES
def test_network_is_unreachable():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    code = f"""
    import os, socket
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=2)
        os.write(FD, b"connected")
    except OSError as exc:
        os.write(FD, type(exc).__name__.encode())
    """
    try:
        result = probe(code)
    finally:
        listener.close()
    assert reported(result) in ("ConnectionRefusedError", "OSError", "TimeoutError")


@ROOT_ONLY
def test_kit_is_not_writable():
    target = KIT / "autograder" / "pwned_by_sandbox.txt"
    code = f"""
    import os
    try:
        open({str(target)!r}, "w").write("pwned")
        os.write(FD, b"written")
    except OSError as exc:
        os.write(FD, type(exc).__name__.encode())
    """
    result = probe(code)
    assert not target.exists()
    assert reported(result) in ("PermissionError", "OSError")


@NAMESPACES
def test_hidden_suite_is_unreadable_and_runner_sees_only_itself():
    # Host folders outside the allow-list: the kit's tests (hidden) and /var/lib (never bound).
    outside = [str(KIT / "tests"), "/var/lib"]
    assert all(os.path.isdir(p) for p in outside)
    code = f"""
    import os
    try:
        os.write(FD, repr(os.listdir({str(SUITE)!r})).encode())
    except OSError as exc:
        os.write(FD, type(exc).__name__.encode())
    seen = [str(os.path.exists(p)) for p in {outside!r}]
    os.write(FD, (" " + str(os.getuid()) + " " + ",".join(seen)).encode())
    """
    result = probe(code, hidden=(str(SUITE),))
    what, uid, seen = reported(result).split()
    # Not in the allow-list at all (FileNotFoundError), or covered by an unreadable mount.
    assert what in ("FileNotFoundError", "PermissionError") and int(uid) >= 60000
    assert seen == "False,False", f"the runner sees host folders outside its allow-list: {outside} -> {seen}"


def test_kit_view_is_an_allow_list():
    view = build_view(("autograder.runner", "autograder.protocol"), [])
    kit = os.path.realpath(KIT)
    assert view["kit_mask"] == kit  # the kit is a checkout here, not a package inside the venv
    assert not any(b == kit or b.startswith(kit + "/") for b in view["binds"])
    allowed = {
        os.path.realpath(sys.prefix),
        f"{kit}/dnnlpy",
        f"{kit}/autograder/__init__.py",
        f"{kit}/autograder/runner",
        f"{kit}/autograder/protocol",
    }
    assert set(view["kit_binds"]) <= allowed and f"{kit}/dnnlpy" in view["kit_binds"], view["kit_binds"]


@NAMESPACES
def test_files_planted_anywhere_in_the_kit_are_unreadable_but_imports_work():
    # Instructor files can land anywhere in the kit (a demo's course copy, an nbgrader source folder, a
    # gradebook): the sandbox shows only an allow-list, and hides gradebooks even inside allowed folders.
    token = "PLANTED_" + secrets.token_hex(8)
    output = KIT / "grading-output"
    made_output = not output.exists()
    planted_dirs: list[Path] = []
    try:
        output.mkdir(exist_ok=True)
        for parent, prefix in ((output, "plant-"), (KIT, "plant-"), (KIT / "dnnlpy", ".plant-")):
            planted_dirs.append(Path(tempfile.mkdtemp(dir=parent, prefix=prefix)))
            planted_dirs[-1].chmod(0o755)  # world-readable, like a demo's course copy: only the view can hide it
        files = [
            planted_dirs[0] / "secret.txt",
            planted_dirs[1] / "assignments" / "source" / "weight_tying" / "weight_tying.ipynb",
            planted_dirs[2] / "gradebook.db",
            planted_dirs[2] / "hidden" / "secret.txt",
        ]
        for path in files:
            path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            path.write_text(token)
            path.chmod(0o644)
        code = f"""
        import json, os
        seen = {{}}
        for path in {[str(f) for f in files]!r}:
            try:
                seen[path] = open(path).read()
            except OSError as exc:
                seen[path] = type(exc).__name__
        import coursecheck.notebook, autograder.runner.__main__ as runner
        seen["imports"] = runner.load_submission("py", "x = 6 * 7", "s.py").namespace["x"]
        seen["kit"] = sorted(os.listdir({str(KIT)!r}))
        os.write(FD, json.dumps(seen).encode())
        """
        result = run_sandboxed(
            module="autograder.runner.probe",
            stdin=textwrap.dedent(code).encode(),
            limits=Limits(wall_seconds=30),
            hidden_paths=(str(files[3].parent),),
        )
        seen = json.loads(reported(result))
        assert token not in reported(result) + result.stdout + result.stderr
        for path in files:
            assert seen[str(path)] in ("FileNotFoundError", "PermissionError", ""), (path, seen[str(path)])
        assert seen["imports"] == 42
        assert set(seen["kit"]) <= {".venv", "autograder", "coursecheck", "dnnlpy"}, seen["kit"]
    finally:
        for folder in planted_dirs:
            shutil.rmtree(folder, ignore_errors=True)
        if made_output:
            shutil.rmtree(output, ignore_errors=True)


def test_weakest_mode_still_enforces_time_and_memory():
    # What a student's laptop gets (no root): limits and a process-group kill, nothing more.
    looping = run_sandboxed(
        module="autograder.runner.probe",
        stdin=b"while True:\n    pass\n",
        mode="rlimits",
        limits=Limits(wall_seconds=1.5),
    )
    assert looping.timed_out and looping.isolation.mode == "rlimits"
    bomb = run_sandboxed(
        module="autograder.runner.probe",
        stdin=b"x = bytearray(6 * 2**30)\n",
        mode="rlimits",
        limits=Limits(wall_seconds=10, memory_bytes=1 << 30),
    )
    assert bomb.exit_code == 1 and "MemoryError" in bomb.stderr


def test_sandbox_dies_with_a_killed_grader(tmp_path):
    token = f"agorphan{os.getpid() % 100000}"
    payload = f"import ctypes, time\\nctypes.CDLL(None).prctl(15, b'{token}', 0, 0, 0)\\ntime.sleep(120)\\n"
    grader = tmp_path / "grader.py"
    grader.write_text(
        "from autograder.sandbox import Limits, run_sandboxed\n"
        f"run_sandboxed(module='autograder.runner.probe', stdin=b\"{payload}\", limits=Limits(wall_seconds=100))\n"
    )
    left = left_after_killing(grader, token, start_seconds=10, end_seconds=5)
    assert left == [], "the sandboxed process outlived its grader"
