"""Trusted: run untrusted code in the strongest isolation this machine allows.

Both paths:
- ``limits``: what a run may use, and what each isolation mode enforces;
- ``runs``: what both paths share: a run's cgroup, and its end (``finish_run``: its ``SandboxResult``);
- ``config``: the jail's configuration (sent on a pipe, never argv) and the runner's environment;
- ``rootfs``: the steps both paths take (cgroup, unshare, private root, limits, uid drop);
- ``view``: what the runner may see of the file system (allow-list and deny-list in one place);
- ``library``: the grader's copy of dnnlpy that runs import, without what the grader withholds (its stubs:
  ``library_stub``);
- ``seccomp``: the system calls refused to the runner;
- ``cgroups``: limits per process tree (cgroup v1 and v2);
- ``capture``: capped draining of the runner's pipes, and a pipe written whole;
- ``scratch``: per-run work folders and the sweep of stale ones;
- ``slots``: the unprivileged uids runs use, one per concurrent run;
- ``pidfd``: a kill that reaches only the process meant.

The fresh path (a new interpreter per run): ``launch`` (start, feed, watch and kill one tree: ``run_sandboxed``;
the isolation probe, whose trivial runs take this path: ``probe_isolation``)
and ``jail`` (the sandbox's first process). The warm path (a fork server per worker): ``warm`` (the grader's
side: start a zygote, run one submission from it), ``zygote`` (the fork server) and ``forked`` (what each
child does).
"""

import importlib

# Each name from the module that holds it, imported when first asked for: the jail, the first process of every
# fresh run (and of the isolation probe), imports ``rootfs`` alone, not the grader's side of a run (``launch``:
# subprocess, threads, the view; ~15 ms of every fresh run's start-up).
_FROM = {
    "SandboxUnavailable": "launch",
    "probe_isolation": "launch",
    "run_sandboxed": "launch",
    "GiB": "limits",
    "Isolation": "limits",
    "KiB": "limits",
    "Limits": "limits",
    "MiB": "limits",
    "parse_size": "limits",
    "RUNNER_PACKAGES": "runs",
    "SandboxResult": "runs",
}

__all__ = sorted(_FROM)


def __getattr__(name: str):
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
