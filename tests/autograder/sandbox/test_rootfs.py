"""What a run leaves in kernel-global state, and what its /proc says about the grader: nothing, in both cases."""

from __future__ import annotations

import json
import os
import socket
import tempfile
import textwrap

import pytest

from autograder.graders import get_assignment
from autograder.sandbox import Limits, probe_isolation, run_sandboxed

SPEC = get_assignment("weight_tying")
NAMESPACES = pytest.mark.skipif(probe_isolation().mode != "namespaces", reason="needs root and util-linux unshare")


def probe(code: str, hidden: tuple[str, ...] = ()):
    result = run_sandboxed(
        module="autograder.runner.probe",
        stdin=textwrap.dedent(code).encode(),
        limits=Limits(wall_seconds=20),
        hidden_paths=hidden,
    )
    assert result.evidence.startswith(b"ok"), result.stderr[-2000:]
    return json.loads(result.evidence[2:])


LEAVE_STATE = """
import ctypes, json, os, socket
rt = ctypes.CDLL("librt.so.1", use_errno=True)
rt.mq_open.restype = ctypes.c_int
seen = {}
flags = os.O_RDWR | (os.O_CREAT if CREATE else 0)
q = rt.mq_open(b"/wtcal-queue", flags, 0o600, None)
seen["queue"] = "opened" if q >= 0 else os.strerror(ctypes.get_errno())
seen["shm_before"] = os.path.exists("/dev/shm/wtcal-shm")
if CREATE:
    open("/dev/shm/wtcal-shm", "w").write("left behind")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(ABSTRACT)
    seen["abstract"] = "connected"
except OSError as exc:
    seen["abstract"] = type(exc).__name__
os.write(FD, json.dumps(seen).encode())
"""


@NAMESPACES
def test_message_queues_shared_memory_and_abstract_sockets_do_not_cross_runs():
    name = f"\\0wtcal-abstract-{os.getpid()}".encode().decode("unicode_escape")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(name)  # an abstract socket of the grader's (as another worker's run could make)
    listener.listen(1)
    try:
        first = probe(f"CREATE = True\nABSTRACT = {name!r}\n" + textwrap.dedent(LEAVE_STATE))
        second = probe(f"CREATE = False\nABSTRACT = {name!r}\n" + textwrap.dedent(LEAVE_STATE))
    finally:
        listener.close()
    assert first["queue"] == "opened" and first["abstract"] != "connected"
    assert second["queue"] == "No such file or directory", second  # the first run's queue died with it
    assert second["shm_before"] is False and second["abstract"] != "connected"


@NAMESPACES
def test_proc_shows_no_configuration_and_no_hidden_path():
    class_folder = tempfile.mkdtemp(prefix="wtcal-class-")
    try:
        hidden = (str(SPEC.judge_dir), str(SPEC.solution_path), class_folder)
        seen = probe(
            """
            import json, os
            out = {}
            for path in ("/proc/1/cmdline", "/proc/1/mountinfo", "/proc/self/mountinfo", "/proc/self/cmdline",
                         "/proc/1/environ", "/proc/self/environ"):
                try:
                    out[path] = open(path, "rb").read().decode(errors="replace")
                except OSError as exc:
                    out[path] = type(exc).__name__
            os.write(FD, json.dumps(out).encode())
            """,
            hidden=hidden,
        )
    finally:
        os.rmdir(class_folder)
    text = json.dumps(seen)
    for path in hidden:
        assert path not in text, f"{path} is visible in the sandbox's /proc"
    assert "{" not in seen["/proc/1/cmdline"], seen["/proc/1/cmdline"]  # no JSON configuration on argv
    assert seen["/proc/1/environ"] == "PermissionError"  # PID 1 is root's: its memory is not the runner's
    assert "/mnt" not in seen["/proc/1/mountinfo"]  # PID 1 is chrooted too: the host's layout does not show
