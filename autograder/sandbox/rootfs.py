"""Trusted: the steps that turn a root process into a sandbox: cgroup, namespaces, private root, limits, uid drop.

Shared by the two ways a run starts: ``jail`` (a fresh interpreter, started through util-linux ``unshare``)
and ``forked`` (a child of the warm ``zygote``, which calls unshare(2) itself). Each function is one step;
the order is the caller's, and it matters:

    join_cgroup           before any fork: every descendant is then counted
    unshare               (forked path) the zygote a new PID namespace for its next two children
                          (``pid_namespace_for_children``, then back: ``own_pid_namespace_for_children``):
                          a small PID 1 and the runner, which unshares new mount, UTS, IPC and network ones
    build_root            in the new namespaces, still root: the private root file system
    enter_root            chroot there
    set_limits            rlimits, while still root (RLIMIT_NPROC counts the target uid's processes)
    drop_privileges       unprivileged uid/gid, no new privileges
    restrict_syscalls     the seccomp profile (needs no_new_privs, set by the step before)
"""

from __future__ import annotations

import ctypes
import os
import resource

# Imported now: after the chroot and the uid drop, the kit's sandbox package is no longer readable.
# seccomp loads libseccomp on import, for the same reason.
from autograder.sandbox import seccomp

__all__ = [
    "join_cgroup",
    "unshare",
    "pid_namespace_for_children",
    "own_pid_namespace_for_children",
    "build_root",
    "enter_root",
    "set_limits",
    "drop_privileges",
    "restrict_syscalls",
    "close_fds_except",
    "NAMESPACE_FLAGS",
]

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
# Mount, UTS, IPC (SysV IPC and POSIX message queues), PID and network (abstract unix sockets too).
NAMESPACE_FLAGS = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET
# What the forked path's runner unshares itself: it was born in its PID namespace (``pid_namespace_for_children``).
RUNNER_NAMESPACE_FLAGS = NAMESPACE_FLAGS & ~CLONE_NEWPID

_libc = ctypes.CDLL(None, use_errno=True)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:
        return None if s is None else s.encode()

    if _libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {source!r} on {target!r} ({fstype}): {os.strerror(err)}")


def _bind(source: str, target: str, *, readonly: bool = True) -> None:
    _mount(source, target, None, _MS_BIND)
    if readonly:
        _mount(None, target, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)


def _make_target(target: str, like: str) -> None:
    """Create the mount point `target` as a directory or an empty file, whichever `like` is."""
    if os.path.isdir(like):
        os.makedirs(target, mode=0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        if not os.path.exists(target):
            with open(target, "w"):
                pass


def join_cgroup(procs_files: list[str]) -> None:
    """Move this process into the run's cgroup ("0" means the writer itself)."""
    for path in procs_files:
        with open(path, "w") as fh:
            fh.write("0")


def unshare(flags: int = NAMESPACE_FLAGS) -> None:
    if _libc.unshare(flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare(2) of the sandbox's namespaces failed: {os.strerror(err)}")


def pid_namespace_for_children() -> None:
    """A new PID namespace for the caller's next child, which is its PID 1; the caller stays where it is. Unlike
    the other namespaces this one can be left by a process with threads (the zygote) without any effect on them."""
    unshare(CLONE_NEWPID)


def own_pid_namespace_for_children(own: int) -> None:
    """Back onto the caller's own PID namespace (`own`: a descriptor of its ``/proc/self/ns/pid``) for the
    children it forks next, so that the next ``pid_namespace_for_children`` makes a new one again."""
    if _libc.setns(own, CLONE_NEWPID) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns(2) back onto the fork server's PID namespace failed: {os.strerror(err)}")


def build_root(cfg: dict, *, hide_others: bool = False) -> str:
    """Assemble the runner's root file system under cfg['root_mount'] and return its path; `hide_others`: its
    /proc shows the runner no process of another user (``hidepid=2``: the PID 1 a forked run spawns is root's,
    and lives in the host's mount namespace, whose layout its ``mountinfo`` would show).

    Only the allow-list is mounted (``view``): what is not bound does not exist in there, so hidden paths
    need no mount of their own unless they lie inside an allowed folder (``cfg['hides']`` holds only those:
    every extra mount would show its path in ``/proc/self/mountinfo``).
    """
    root = cfg["root_mount"]
    # Nothing we mount may leak back to the host (unshare already does this; cheap to be sure).
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode=0755,size={cfg['tmp_bytes']}")
    for link, dest in cfg["symlinks"]:  # merged-/usr systems: /bin -> usr/bin, ...
        os.symlink(dest, root + link)
    for path in cfg["binds"]:  # parents before children (sorted by the sandbox)
        _make_target(root + path, path)
        _bind(path, root + path)
    if cfg.get("kit_mask"):  # allow-list: the kit shows only what is bound back on top of an empty folder
        mask = root + cfg["kit_mask"]
        os.makedirs(mask, mode=0o755, exist_ok=True)
        _mount("tmpfs", mask, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=64k")
        for path in cfg["kit_binds"]:  # parents before children
            _make_target(root + path, path)
            _bind(path, root + path)
        _mount(None, mask, None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
    for dev in ("null", "zero", "full", "random", "urandom"):
        _make_target(f"{root}/dev/{dev}", f"/dev/{dev}")
        _bind(f"/dev/{dev}", f"{root}/dev/{dev}", readonly=False)
    for path in cfg["hides"]:  # empty, unreadable stand-ins over hidden files inside allowed folders
        target = root + path
        if os.path.isdir(target):
            _mount("tmpfs", target, "tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "mode=000,size=4k")
        elif os.path.exists(target):
            _bind("/dev/null", target)
    # Private /tmp, /dev/shm (POSIX shared memory) and /var/tmp: folders of this run's own tmpfs.
    for tmp in ("/tmp", "/dev/shm", "/var/tmp"):
        os.makedirs(root + tmp, exist_ok=True)
        os.chmod(root + tmp, 0o1777)
    os.makedirs(root + "/proc", exist_ok=True)
    # A proc of the new PID namespace: the runner sees only its own processes.
    _mount("proc", root + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "hidepid=2" if hide_others else None)
    return root


def enter_root(root: str) -> None:
    os.chroot(root)
    os.chdir("/")


def set_limits(limits: dict[str, int]) -> None:
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


def drop_privileges(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def restrict_syscalls(network: bool = False) -> None:
    """The seccomp profile for this process tree (see ``seccomp``; `network`: sockets of any family), where
    libseccomp is installed.

    Without libseccomp nothing is installed, and the isolation report says so (``seccomp.status``); with it,
    a filter the kernel refuses stops the run (OSError), as any other step that fails.
    """
    _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if seccomp.available():
        seccomp.install_filter(network)


def close_fds_except(keep: set[int]) -> None:
    """Close every file descriptor of this process but `keep`."""
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 1024))
    for fd in fds:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
