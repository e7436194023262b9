"""Trusted, inside the sandbox: the fresh-interpreter path's first process: limits, view, uid drop, the runner.

Started by ``autograder.sandbox.launch`` as ``python -I -B -m autograder.sandbox.jail CONFIG_FD``: its
configuration arrives as JSON on a pipe, never on the command line (``/proc/1/cmdline`` is readable inside
the sandbox). Never imported by the grader itself. It runs no student code: the runner it starts does,
after the uid drop. Three modes (the sandbox picks the strongest that works on this machine):

- ``namespaces`` (root + util-linux ``unshare``): this process is PID 1 of fresh PID/mount/network/IPC/UTS
  namespaces. It joins the run's cgroup, builds a new root (``rootfs.build_root``), forks the runner, which
  chroots there, drops to an unprivileged uid and takes the seccomp profile (``seccomp``); it chroots too
  and stays as root to report the runner's exit. When this process ends, the kernel kills every process left in the PID
  namespace, daemons that called ``setsid`` included.
- ``uid`` (root without namespaces): cgroup, limits, unprivileged uid, seccomp, then exec the runner.
- ``rlimits`` (not root): limits and seccomp only, then exec the runner.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys

from autograder.sandbox import rootfs

__all__ = ["main", "read_config", "report_exit", "reap_until"]

_PR_SET_PDEATHSIG = 1


def read_config(fd: int) -> dict:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return json.loads(b"".join(chunks))


def _exec_runner(cfg: dict) -> None:
    os.chdir(cfg["cwd"])
    os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])


def report_exit(fd: int, status: int) -> None:
    """Write how a process ended (its ``wait`` status) on the status pipe `fd`: "exit N" or "signal N"."""
    text = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
    try:
        os.write(fd, text.encode())
    except OSError:
        pass


def reap_until(pid: int, status_fd: int) -> None:
    """PID 1's job: reap every orphan until `pid` (the runner) ends, then report how it ended and exit."""
    while True:
        try:
            done, status = os.wait()
        except ChildProcessError:
            os._exit(120)
        if done == pid:
            break
    report_exit(status_fd, status)
    os._exit(0)  # the kernel now kills everything left in the PID namespace


def _namespaces(cfg: dict, status_fd: int) -> None:
    root = rootfs.build_root(cfg)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(status_fd)
            os.setsid()
            rootfs.enter_root(root)
            rootfs.set_limits(cfg["rlimits"])
            rootfs.drop_privileges(cfg["uid"], cfg["gid"])
            rootfs.restrict_syscalls(cfg.get("network", False))
            _exec_runner(cfg)
        except BaseException as exc:  # report why the jail could not start, then die
            os.write(2, f"sandbox: could not start the runner: {exc}\n".encode())
        os._exit(121)
    os.close(cfg["evidence_fd"])  # only the runner holds the evidence channel: EOF when it and its children die
    for fd in (0, 1, 2):
        os.close(fd)
    rootfs.enter_root(root)  # so /proc/1/{root,mountinfo} show the runner's view, not the host's
    reap_until(pid, status_fd)


def main(argv: list[str] | None = None) -> None:
    cfg = read_config(int((argv or sys.argv[1:])[0]))
    status_fd = cfg["status_fd"]
    if cfg.get("cgroup_procs"):
        rootfs.join_cgroup(cfg["cgroup_procs"])
    if cfg["mode"] == "namespaces":
        _namespaces(cfg, status_fd)
        return
    os.close(status_fd)  # in the other modes the runner replaces this process: the sandbox reads its exit
    rootfs.set_limits(cfg["rlimits"])
    if cfg["mode"] == "uid":
        rootfs.drop_privileges(cfg["uid"], cfg["gid"])
    rootfs.restrict_syscalls(cfg.get("network", False))
    # Die with the grader (set after the uid change, which clears it; kept across exec).
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)
    _exec_runner(cfg)


if __name__ == "__main__":
    main()
