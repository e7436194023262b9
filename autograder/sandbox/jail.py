"""Trusted, inside the sandbox: its first process sets limits, builds the view, drops privileges, starts the runner.

Started by ``autograder.sandbox.launch`` as ``python -I -B -m autograder.sandbox.jail CONFIG_JSON``; never
imported by the grader itself. It runs no student code: the runner it starts does, after the uid drop.
Three modes (the sandbox picks the strongest that works on this machine):

- ``namespaces`` (root + util-linux ``unshare``): this process is PID 1 of fresh PID/mount/network/IPC/UTS
  namespaces. It builds a new root on a tmpfs holding only what Python needs (``/usr``, ``/lib*``, ``/etc``,
  the interpreter, and of the kit only the allow-list ``autograder.sandbox.view`` computes, all read-only; hidden
  paths and gradebooks inside that covered by empty, unreadable mounts; a private ``/tmp``), forks the
  runner, which chroots there and drops to an unprivileged uid, and stays as root to report the runner's
  exit. When this process ends, the kernel kills every process left in the PID namespace, daemons that
  called ``setsid`` included.
- ``uid`` (root without namespaces): limits + unprivileged uid, then exec the runner.
- ``rlimits`` (not root): limits only, then exec the runner.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import sys

__all__ = ["main"]

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_PDEATHSIG = 1

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


def _build_root(cfg: dict) -> str:
    """Assemble the runner's root file system under cfg['root_mount'] and return its path."""
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
    for path in cfg["hides"]:  # empty, unreadable stand-ins over the hidden suites, solutions, ...
        target = root + path
        if os.path.isdir(target):
            _mount("tmpfs", target, "tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "mode=000,size=4k")
        elif os.path.exists(target):
            _bind("/dev/null", target)
    for tmp in ("/tmp", "/dev/shm", "/var/tmp"):
        os.makedirs(root + tmp, exist_ok=True)
        os.chmod(root + tmp, 0o1777)
    os.makedirs(root + "/proc", exist_ok=True)
    # A proc of the new PID namespace: the runner sees only its own processes.
    _mount("proc", root + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    return root


def _set_limits(limits: dict) -> None:
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


def _drop_privileges(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def _exec_runner(cfg: dict) -> None:
    os.chdir(cfg["cwd"])
    os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])


def _report(fd: int, text: str) -> None:
    try:
        os.write(fd, text.encode())
    except OSError:
        pass


def _namespaces(cfg: dict, status_fd: int) -> None:
    root = _build_root(cfg)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(status_fd)
            os.setsid()
            os.chroot(root)
            os.chdir("/")
            _set_limits(cfg["rlimits"])
            _drop_privileges(cfg["uid"], cfg["gid"])
            _exec_runner(cfg)
        except BaseException as exc:  # report why the jail could not start, then die
            os.write(2, f"sandbox: could not start the runner: {exc}\n".encode())
        os._exit(121)
    os.close(cfg["evidence_fd"])  # only the runner holds the evidence channel: EOF when it and its children die
    for fd in (0, 1, 2):
        os.close(fd)
    while True:  # PID 1 reaps every orphan until the runner itself ends
        try:
            done, status = os.wait()
        except ChildProcessError:
            os._exit(120)
        if done == pid:
            break
    if os.WIFSIGNALED(status):
        _report(status_fd, f"signal {os.WTERMSIG(status)}")
    else:
        _report(status_fd, f"exit {os.WEXITSTATUS(status)}")
    os._exit(0)  # the kernel now kills everything left in the PID namespace


def main(argv: list[str] | None = None) -> None:
    cfg = json.loads((argv or sys.argv[1:])[0])
    status_fd = cfg["status_fd"]
    if cfg["mode"] == "namespaces":
        _namespaces(cfg, status_fd)
        return
    os.close(status_fd)  # in the other modes the runner replaces this process: the sandbox reads its exit
    _set_limits(cfg["rlimits"])
    if cfg["mode"] == "uid":
        _drop_privileges(cfg["uid"], cfg["gid"])
    # Die with the grader (set after the uid change, which clears it; kept across exec).
    _libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)
    _exec_runner(cfg)


if __name__ == "__main__":
    main()
