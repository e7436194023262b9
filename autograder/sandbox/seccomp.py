"""Trusted: the runner's seccomp profile, built with libseccomp: the kernel calls a run never needs are refused.

What is refused, and why a deny-list. Docker's default profile is an allow-list of some 350 calls; for a
container without extra capabilities it amounts to "everything except a few dozen calls that reach kernel
code no ordinary program needs". The runner executes torch, OpenMP, numpy and the tokenizers' Rust code:
an allow-list that misses one call they make on some machine fails a correct submission, and grading must
never do that. So this profile allows by default and refuses a list (``REFUSED``): what Docker refuses to
an unprivileged container, plus what this runner never needs and what has a record of kernel exploits
(io_uring, userfaultfd, bpf, perf_event_open). Each refused call gets ``EPERM`` at the door, before the
kernel looks at its arguments; ``clone3`` gets ``ENOSYS`` instead, so that glibc falls back to ``clone``,
whose flags a filter can read: ``clone`` with a namespace flag is refused. ``personality`` may only query
(``0xffffffff``) or set the default (``PER_LINUX``, 0). Sockets are the one allow-list: ``socket`` and
``socketpair`` create only the families in ``SOCKET_FAMILIES`` (``AF_UNIX``), any other gets
``EAFNOSUPPORT``, as on a kernel without that family: a run has no network in its namespace, and a family a
namespace does not isolate (``AF_VSOCK`` reaches the host of a virtual machine) must not be one it can open.
Calls made through another ABI than the native one (32-bit ``int 0x80`` on x86_64, x32) get ``ENOSYS``
whole: nothing in the runner uses them, and they would bypass the number checks.

libseccomp (``libseccomp.so.2``, Debian/Ubuntu package ``libseccomp2``, 2.5 or newer) writes the BPF
program and knows each architecture's numbers; the thin ctypes binding below is the whole interface. The
library is loaded when this module is imported: the sandbox imports it before the chroot, after which the
library is no longer reachable. Where it is missing, no filter is installed and the isolation report says so
(``status``). Installed after ``PR_SET_NO_NEW_PRIVS`` (which the uid drop sets), so it needs no privilege; a
filter is inherited by every child and cannot be removed. The profile is compiled to the kernel's BPF once per
process (``program``): a warm zygote compiles it before it forks, and each run only installs those bytes
(compiling took ~2.5 ms of a run's CPU, more than any other step of its set-up).
"""

from __future__ import annotations

import ctypes
import errno
import os

__all__ = [
    "REFUSED",
    "ENOSYS_CALLS",
    "CLONE_NAMESPACE_FLAGS",
    "SOCKET_FAMILIES",
    "install_filter",
    "program",
    "available",
    "status",
    "export_pfc",
    "number",
]

# What an unprivileged container does not get from Docker's default profile, plus what this runner never needs.
REFUSED = (
    # io_uring: a second system-call interface, behind a long run of privilege escalations
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    # kernel programs, profiling and page-fault handling from user space
    "bpf",
    "perf_event_open",
    "userfaultfd",
    # other processes' memory and state
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "pidfd_getfd",
    "kcmp",
    "move_pages",
    "migrate_pages",
    # NUMA memory policy (the kernel's page placement) and memory hidden from the kernel itself
    "mbind",
    "set_mempolicy",
    "get_mempolicy",
    "set_mempolicy_home_node",
    "memfd_secret",
    # file systems and mounts
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "name_to_handle_at",
    "open_by_handle_at",
    "quotactl",
    "quotactl_fd",
    "fanotify_init",
    "lookup_dcookie",
    "sysfs",
    "ustat",
    "uselib",
    # namespaces (clone with a namespace flag: see CLONE_NAMESPACE_FLAGS)
    "unshare",
    "setns",
    "sethostname",
    "setdomainname",
    # the kernel keyring: not namespaced, so a key would outlive the run for the next one under the same uid
    "add_key",
    "request_key",
    "keyctl",
    # the kernel itself: modules, kexec, swap, reboot, accounting, the kernel log
    "init_module",
    "finit_module",
    "delete_module",
    "create_module",
    "query_module",
    "get_kernel_syms",
    "kexec_load",
    "kexec_file_load",
    "swapon",
    "swapoff",
    "reboot",
    "acct",
    "syslog",
    "_sysctl",
    "nfsservctl",
    "vhangup",
    # hardware and legacy modes (x86 only; absent elsewhere)
    "iopl",
    "ioperm",
    "vm86",
    "vm86old",
    # the clock
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "stime",
)
ENOSYS_CALLS = ("clone3",)  # glibc then falls back to clone, whose flags the filter can read
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (CLONE_NEWTIME, 0x80, is clone's exit signal
# field and reaches the kernel only through clone3 and unshare, both refused)
CLONE_NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
# The socket families a run may create: AF_UNIX (multiprocessing's pipes, asyncio's self-pipe). Nothing in the
# runner, torch, numpy, matplotlib or the tokenizers needs another; AF_INET and AF_INET6 would reach only the
# run's own loopback (its network namespace has nothing else), which no test and no correct submission uses.
SOCKET_FAMILIES = (1,)  # AF_UNIX
# Calls newer than some libseccomp 2.5 releases: the number every architecture gives them (from 424 on, a new
# call has one number everywhere), used when the library does not know the name.
_UNIFIED = {"memfd_secret": 447, "set_mempolicy_home_node": 450}
_MIN_VERSION = (2, 5, 0)  # io_uring, the new mount API and clone3 are in its tables from 2.5 on

_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_ACT_ALLOW = 0x7FFF0000
_ACT_ERRNO = 0x00050000
_ATTR_ACT_BADARCH = 2
_CMP_NE, _CMP_MASKED_EQ = 1, 7


class _ArgCmp(ctypes.Structure):  # struct scmp_arg_cmp
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]


class _Program(ctypes.Structure):  # struct sock_fprog: a count of 8-byte BPF instructions and where they are
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _Version(ctypes.Structure):  # struct scmp_version
    _fields_ = [("major", ctypes.c_uint), ("minor", ctypes.c_uint), ("micro", ctypes.c_uint)]


def _load() -> tuple[ctypes.CDLL | None, str]:
    """(the library, its version) or (None, why not)."""
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        return None, "libseccomp.so.2 not found (install libseccomp2: apt-get install libseccomp2)"
    lib.seccomp_version.restype = ctypes.POINTER(_Version)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_pfc.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    v = lib.seccomp_version().contents
    version = (v.major, v.minor, v.micro)
    text = ".".join(map(str, version))
    if version < _MIN_VERSION:
        return None, f"libseccomp {text} is older than 2.5.0 and does not know io_uring or clone3 (upgrade libseccomp2)"
    return lib, text


_LIBC = ctypes.CDLL(None, use_errno=True)
# Loaded on import: after the chroot and the uid drop the library may no longer be reachable.
_LIB, _VERSION = _load()


def available() -> bool:
    """Whether this machine can install the profile (``status`` says what it refuses, or why not)."""
    return _LIB is not None


def status() -> tuple[bool, str]:
    """(True, what the filter refuses) when this machine can install it, else (False, why not)."""
    if _LIB is None:
        return False, f"no seccomp filter: {_VERSION}"
    count = sum(number(name) >= 0 for name in (*REFUSED, *ENOSYS_CALLS))  # those this architecture has
    return True, (
        f"seccomp profile (libseccomp {_VERSION}): {count} kernel calls refused "
        "(io_uring, bpf, perf_event_open, userfaultfd, ptrace, mounts, namespaces, keyring, modules, clock, NUMA "
        "memory policy, memfd_secret, ...), sockets of AF_UNIX only"
    )


def number(name: str) -> int:
    """The native number of syscall `name`; negative where this architecture has no such call."""
    if _LIB is None:
        raise OSError(errno.ENOSYS, f"no seccomp filter: {_VERSION}")
    nr = _LIB.seccomp_syscall_resolve_name(name.encode())
    if nr == -1 and name in _UNIFIED:
        return _UNIFIED[name]
    if nr == -1:  # __NR_SCMP_ERROR: libseccomp has never heard of it
        raise ValueError(f"libseccomp {_VERSION} does not know the syscall {name!r}")
    return nr


def _rule(ctx: int, action: int, name: str, *tests: tuple[int, int, int]) -> None:
    """Refuse `name` with `action` when every one of `tests` holds: (comparison, a, b) on its first argument
    (masked equal: arg & a == b; not equal: arg != a)."""
    nr = number(name)
    if nr < 0:  # not a call of this architecture (iopl on aarch64): nothing to refuse
        return
    cmps = (_ArgCmp * max(len(tests), 1))(*(_ArgCmp(0, op, a, b) for op, a, b in tests))
    rc = _LIB.seccomp_rule_add_array(ctx, action, nr, len(tests), cmps if tests else None)
    if rc < 0:
        raise OSError(-rc, f"libseccomp refused the rule for {name}: {os.strerror(-rc)}")


def _build(network: bool = False) -> int:
    """A libseccomp filter context holding the profile (release it with seccomp_release); `network`: sockets of
    any family (a process of the grader's own that reaches the network, never one that runs student code)."""
    if _LIB is None:
        raise OSError(errno.ENOSYS, f"no seccomp filter: {_VERSION}")
    ctx = _LIB.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise OSError(errno.ENOMEM, "seccomp_init failed")
    try:
        rc = _LIB.seccomp_attr_set(ctx, _ATTR_ACT_BADARCH, _ACT_ERRNO | errno.ENOSYS)
        if rc < 0:
            raise OSError(-rc, f"libseccomp: setting the foreign-ABI action failed: {os.strerror(-rc)}")
        eperm, enosys = _ACT_ERRNO | errno.EPERM, _ACT_ERRNO | errno.ENOSYS
        for name in REFUSED:
            _rule(ctx, eperm, name)
        for name in ENOSYS_CALLS:
            _rule(ctx, enosys, name)
        for flag in CLONE_NAMESPACE_FLAGS:  # clone's flags are its first argument on x86_64 and aarch64
            _rule(ctx, eperm, "clone", (_CMP_MASKED_EQ, flag, flag))
        # personality: the kernel reads the low 32 bits; refuse every value but 0 and the query 0xffffffff, as
        # the union of "bit 31 clear and bit i set" and "bit 31 set and bit i clear" over i < 31 (one masked
        # comparison each: libseccomp takes one comparison per argument and rule)
        top = 1 << 31
        for i in range(31):
            _rule(ctx, eperm, "personality", (_CMP_MASKED_EQ, (1 << i) | top, 1 << i))
            _rule(ctx, eperm, "personality", (_CMP_MASKED_EQ, (1 << i) | top, top))
        # the family is the first argument; compared whole (a family with high bits set is refused too)
        (family,) = SOCKET_FAMILIES  # one rule per call: libseccomp takes one comparison per argument and rule
        for name in () if network else ("socket", "socketpair"):
            _rule(ctx, _ACT_ERRNO | errno.EAFNOSUPPORT, name, (_CMP_NE, family, 0))
    except BaseException:
        _LIB.seccomp_release(ctx)
        raise
    return ctx


_PROGRAMS: dict[bool, bytes] = {}  # network -> the compiled profile


def program(network: bool = False) -> bytes:
    """The profile (`network`: see ``_build``) as the BPF program libseccomp writes for the kernel, compiled once per
    process: the bytes ``seccomp_load`` would hand the kernel, exported instead of loaded."""
    network = bool(network)
    if network not in _PROGRAMS:
        _PROGRAMS[network] = _compile(network)
    return _PROGRAMS[network]


def _compile(network: bool) -> bytes:
    ctx = _build(network)
    try:
        fd = os.memfd_create("seccomp-bpf", os.MFD_CLOEXEC)
        try:
            rc = _LIB.seccomp_export_bpf(ctx, fd)
            if rc < 0:
                raise OSError(-rc, f"seccomp_export_bpf failed: {os.strerror(-rc)}")
            size = os.lseek(fd, 0, os.SEEK_END)
            code = os.pread(fd, size, 0)
        finally:
            os.close(fd)
    finally:
        _LIB.seccomp_release(ctx)
    if not code or len(code) % 8:
        raise OSError(errno.EINVAL, f"libseccomp wrote a BPF program of {len(code)} bytes, not whole instructions")
    return code


def install_filter(network: bool = False) -> None:
    """Install the profile on this process and its future descendants (`network`: see ``_build``), as
    ``seccomp_load`` does with libseccomp's default attributes (no thread sync, no logging); OSError when it cannot
    be. Needs ``PR_SET_NO_NEW_PRIVS`` set first (``rootfs.restrict_syscalls`` does)."""
    code = program(network)
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if _LIBC.prctl(_PR_SET_SECCOMP, ctypes.c_ulong(_SECCOMP_MODE_FILTER), ctypes.byref(fprog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"the kernel refused the seccomp filter: {os.strerror(err)}")


def export_pfc(fd: int) -> None:
    """Write the profile as libseccomp's readable pseudo-code to `fd` (for tests and for reading)."""
    ctx = _build()
    try:
        rc = _LIB.seccomp_export_pfc(ctx, fd)
    finally:
        _LIB.seccomp_release(ctx)
    if rc < 0:
        raise OSError(-rc, f"seccomp_export_pfc failed: {os.strerror(-rc)}")
