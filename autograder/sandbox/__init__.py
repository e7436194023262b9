"""Trusted: run untrusted code in the strongest isolation this machine allows.

- ``limits``: what a run may use, and what each isolation mode enforces;
- ``launch``: start, feed, watch and kill one sandboxed process tree (``run_sandboxed``);
- ``jail``: the sandbox's first process (namespaces, private root, uid drop), started by ``launch``;
- ``view``: what the runner may see of the file system (allow-list and deny-list in one place);
- ``capture``: capped draining of the runner's pipes;
- ``scratch``: per-run work folders and the sweep of stale ones;
- ``slots``: the unprivileged uids runs use, one per concurrent run.
"""

from autograder.sandbox.launch import (
    RUNNER_PACKAGES,
    SandboxResult,
    SandboxUnavailable,
    probe_isolation,
    run_sandboxed,
)
from autograder.sandbox.limits import GiB, Isolation, KiB, Limits, MiB, parse_size

__all__ = [
    "GiB",
    "Isolation",
    "KiB",
    "Limits",
    "MiB",
    "RUNNER_PACKAGES",
    "SandboxResult",
    "SandboxUnavailable",
    "parse_size",
    "probe_isolation",
    "run_sandboxed",
]
