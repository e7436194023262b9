"""Trusted: the configuration a run's first process needs, the same for both ways a run starts.

``jail_config`` gathers it (mode, uid, rlimits, the runner's environment, the view's mounts, the run's
cgroup) as plain JSON-able data; ``launch`` hands it to a fresh jail through a pipe, ``warm`` to a child of
the zygote through its socket. It names no hidden path except those that lie inside an allowed folder
(``view.build_view``), so what a sandbox could read of it says nothing about the judge or the class.
"""

from __future__ import annotations

import os
import sys

from autograder.runner.budget import RUN_SECONDS_ENV
from autograder.runner.library import LIBRARY_ENV
from autograder.sandbox.limits import Limits, MiB

__all__ = ["jail_config", "runner_env", "rlimits", "TMP_BYTES"]

TMP_BYTES = 256 * MiB  # the sandbox's private root (and its /tmp) is a tmpfs of this size


def runner_env(home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "TMPDIR": home,
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "MPLBACKEND": "Agg",
    }


def rlimits(limits: Limits, mode: str) -> dict[str, int]:
    out = {
        "RLIMIT_AS": limits.memory_bytes,
        "RLIMIT_CPU": limits.cpu_seconds,
        "RLIMIT_FSIZE": limits.max_file_bytes,
        "RLIMIT_CORE": 0,
    }
    if mode != "rlimits":  # as ourselves, RLIMIT_NPROC would count every process we own
        out["RLIMIT_NPROC"] = limits.max_processes
    return out


def _symlinks() -> list[list[str]]:
    tops = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
    return [[top, os.readlink(top)] for top in tops if os.path.islink(top)]


def _root_mount_point(binds: list[str]) -> str:
    for cand in ("/mnt", "/media", "/srv", "/opt", "/run", "/var/tmp", "/tmp"):
        if os.path.isdir(cand) and not any(b == cand or b.startswith(cand + "/") for b in binds):
            return cand
    raise RuntimeError("no directory is free to build the sandbox's root on; tried /mnt, /media, /srv, ...")


def jail_config(
    *,
    mode: str,
    limits: Limits,
    uid: int,
    workdir: str,
    view: dict | None,
    module: str = "autograder.runner",
    evidence_fd: int = 3,
    status_fd: int = 4,
    cgroup_procs: list[str] | None = None,
    library: str | None = None,
    network: bool = False,
) -> dict:
    """Everything the run's first process needs; `view` is ``build_view``'s (namespaces mode only); `library`
    the folder of the grader's copy of dnnlpy (``library.library_copy``), which the runner imports first;
    `network`: the host's network and sockets of any family (the grader's own dask client, never a
    submission's run)."""
    root = {}  # the private root's part, first: the host's top-level links and a free mount point
    if mode == "namespaces":
        if view is None:
            raise ValueError("mode 'namespaces' needs the view (build_view) to build the private root")
        root = {**view, "symlinks": _symlinks(), "tmp_bytes": TMP_BYTES}
        root["root_mount"] = _root_mount_point(view["binds"] + view["kit_binds"])
    home = "/tmp" if mode == "namespaces" else workdir
    env = {**runner_env(home), RUN_SECONDS_ENV: f"{limits.wall_seconds:g}"}
    if library:
        env[LIBRARY_ENV] = library
    return {
        "mode": mode,
        "uid": uid,
        "gid": uid,
        "rlimits": rlimits(limits, mode),
        "argv": [sys.executable, "-I", "-B", "-m", module, str(evidence_fd)],
        "evidence_fd": evidence_fd,
        "status_fd": status_fd,
        # the run's limit, so that the runner can give its cells and experiments budgets inside it
        "env": env,
        "cwd": home,
        "cgroup_procs": list(cgroup_procs or []),
        "network": network,
        **root,
    }
