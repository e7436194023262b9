"""Trusted: a seccomp filter that refuses the kernel keyring to the runner (``add_key``, ``request_key``, ``keyctl``).

The keyring is not namespaced: a key a run adds to its uid's user keyring outlives the run, and the next run
under the same sandbox uid reads it. No Python library the runner needs uses the keyring, so the runner's
process (and everything it starts: a filter is inherited and cannot be removed) gets ``EPERM`` for all
three calls. Syscalls made through another ABI than the native one (32-bit ``int 0x80`` on x86_64, x32) are
refused whole: nothing legitimate in the runner uses them, and they would bypass the number checks.

Installed after ``PR_SET_NO_NEW_PRIVS`` (which the uid drop sets), so it needs no privilege.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

__all__ = ["KEYRING_SYSCALLS", "install_keyring_filter", "supported"]

# machine -> (AUDIT_ARCH_*, {name: number})
_ARCHES = {
    "x86_64": (0xC000003E, {"add_key": 248, "request_key": 249, "keyctl": 250}),
    "aarch64": (0xC00000B7, {"add_key": 217, "request_key": 218, "keyctl": 219}),
}
KEYRING_SYSCALLS = ("add_key", "request_key", "keyctl")
_X32_BIT = 0x40000000

# classic BPF opcodes
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2


_MACHINE = platform.machine()  # read once: after the uid drop the platform module may not be importable


def supported() -> bool:
    return _MACHINE in _ARCHES


def _program(arch: int, numbers: list[int], x86: bool) -> bytes:
    refuse = _SECCOMP_RET_ERRNO | errno.EPERM
    n = len(numbers)
    ins: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),  # native ABI: go on; anything else: refused
        (_RET_K, 0, 0, _SECCOMP_RET_ERRNO | errno.ENOSYS),
        (_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if x86:  # x32 numbers carry bit 30 under the x86_64 arch value
        ins.append((_JGE_K, n + 1, 0, _X32_BIT))
    for i, number in enumerate(numbers):
        ins.append((_JEQ_K, n - i, 0, number))  # jump to the final "refuse"
    ins += [(_RET_K, 0, 0, _SECCOMP_RET_ALLOW), (_RET_K, 0, 0, refuse)]
    return b"".join(struct.pack("HBBI", *i) for i in ins)


def install_keyring_filter() -> None:
    """Refuse the keyring syscalls to this process and its descendants; OSError when the kernel refuses."""
    machine = _MACHINE
    if machine not in _ARCHES:
        raise OSError(errno.ENOSYS, f"no seccomp filter for machine {machine!r}")
    arch, table = _ARCHES[machine]
    code = _program(arch, [table[name] for name in KEYRING_SYSCALLS], machine == "x86_64")

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    prog = _Prog(len(code) // 8, code)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp filter refused: {errno.errorcode.get(err, err)}")
