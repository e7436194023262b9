"""The kernel keyring is not namespaced: a sandboxed run may not use it, so no key outlives a run."""

from __future__ import annotations

import textwrap

import pytest

from autograder.sandbox import Limits, run_sandboxed
from autograder.sandbox.seccomp import supported

KEYRING = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, KEYCTL = {add_key}, {keyctl}
KEY_SPEC_USER_KEYRING = -4
found = []
r = libc.syscall(ADD_KEY, b"user", b"wtcal-key", b"left by a run", 13, ctypes.c_int(KEY_SPEC_USER_KEYRING))
found.append(f"add_key {{r}} {{os.strerror(ctypes.get_errno())}}")
r = libc.syscall(KEYCTL, 0, ctypes.c_int(KEY_SPEC_USER_KEYRING), 0)  # KEYCTL_GET_KEYRING_ID
found.append(f"keyctl {{r}} {{os.strerror(ctypes.get_errno())}}")
os.write(FD, "; ".join(found).encode())
"""


def _numbers():
    import platform

    return {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]


@pytest.mark.skipif(not supported(), reason="no seccomp filter for this machine")
def test_keyring_syscalls_are_refused_in_every_run():
    add_key, keyctl = _numbers()
    code = textwrap.dedent(KEYRING.format(add_key=add_key, keyctl=keyctl)).encode()
    for _ in range(2):  # the second run would find the first run's key, if there were one
        result = run_sandboxed(module="autograder.runner.probe", stdin=code, limits=Limits(wall_seconds=20))
        report = result.evidence[2:].decode()
        assert report == "add_key -1 Operation not permitted; keyctl -1 Operation not permitted", report
