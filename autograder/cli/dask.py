"""Trusted: the dask cluster on the command line: ``python -m autograder dask-certs`` (the course's TLS
certificates), and the options that point ``--executor dask`` at a cluster.

The options are a group of ``grade --help`` and ``calibrate --help`` (``add_cluster_options``: argparse alone).
They are read and checked by ``scheduler`` only for a command that asked for the dask executor or gave one of
them, and only then is the check's code imported (``grading.pool.dask_tls``): a grade on this machine loads
nothing of a cluster. The CA lives in ``grading/pool/dask_certs.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli.common import fail

__all__ = ["add_parser", "run", "add_cluster_options", "scheduler", "CLUSTER"]

# The one attribute every cluster option writes into, {flag: value}: None when no cluster option was given, so
# that a command that grades here needs no cluster option's name to know there are none.
CLUSTER = "cluster"


def add_parser(sub) -> None:
    certs = sub.add_parser(
        "dask-certs",
        help="make the course's TLS certificates for a dask cluster (CA, scheduler, worker, client)",
        description="Write a course CA and a certificate + key (mode 0600) for the scheduler, the workers and "
        "the instructor's client into a new folder; its README.txt says which file goes to which machine.",
    )
    certs.add_argument("--out", type=Path, required=True, metavar="DIR", help="the folder to create (mode 0700)")
    certs.add_argument("--days", type=int, default=365, help="how long the certificates are valid (365)")


def run(args) -> int:
    """0 when written; 2 (bad arguments) when the folder already holds certificates, someone else may write it
    (or the folder it is in), or --days is wrong."""
    from autograder.grading.pool.dask_certs import make_certificates

    try:
        written = make_certificates(args.out, days=args.days)
    except (ValueError, RuntimeError) as exc:
        return fail(str(exc))
    print(f"wrote the course's dask certificates to {str(args.out)!r} (DIR below):\n")
    print(written["README.txt"].read_text(encoding="utf-8"))
    return 0


class _Cluster(argparse.Action):
    """Keep a cluster option's value in ``args.cluster`` under its flag."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = dict(getattr(namespace, CLUSTER) or {})
        given[self.option_strings[0]] = True if self.nargs == 0 else values
        setattr(namespace, CLUSTER, given)


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """--scheduler and how to reach it (mutual TLS with the course's client certificate), for --executor dask."""
    group = parser.add_argument_group("dask cluster (--executor dask)")
    keep = {"dest": CLUSTER, "action": _Cluster, "default": None}
    group.add_argument("--scheduler", metavar="ADDR", help="dask scheduler, e.g. tls://10.0.0.5:8786", **keep)
    group.add_argument(
        "--tls-dir",
        type=Path,
        metavar="DIR",
        help="the course's TLS files for the client: DIR/ca.pem, DIR/client.pem, DIR/client.key (from dask-certs)",
        **keep,
    )
    group.add_argument("--tls-ca", type=Path, metavar="FILE", help="the course CA (default DIR/ca.pem)", **keep)
    group.add_argument("--tls-cert", type=Path, metavar="FILE", help="client certificate (DIR/client.pem)", **keep)
    group.add_argument("--tls-key", type=Path, metavar="FILE", help="its key, mode 0600 (DIR/client.key)", **keep)
    group.add_argument(
        "--insecure-plain-tcp",
        nargs=0,
        help="allow a tcp:// scheduler: anyone who reaches its port runs code as root on the grading machines",
        **keep,
    )


def scheduler(args) -> object | None | str:
    """Where a command that grades runs its submissions: the checked cluster (``DaskScheduler``) for
    ``--executor dask``, None for this machine; or the error message (exit 2): a scheduler not reached over the
    course's mutual TLS, or a cluster option without that executor."""
    given = getattr(args, CLUSTER) or {}
    if args.executor != "dask":
        if not given:
            return None  # this machine
        return (
            f"{', '.join(given)}: the dask cluster's options go with --executor dask (add it to grade on the "
            "cluster, or leave them out to grade on this machine)"
        )
    from autograder.grading.executors import executor_error
    from autograder.grading.pool.dask_tls import dask_scheduler  # here: ssl is for a cluster only

    if error := executor_error(args.executor, given.get("--scheduler")):
        return error
    try:
        return dask_scheduler(
            given["--scheduler"],
            tls_dir=given.get("--tls-dir"),
            tls_ca=given.get("--tls-ca"),
            tls_cert=given.get("--tls-cert"),
            tls_key=given.get("--tls-key"),
            insecure_plain_tcp=bool(given.get("--insecure-plain-tcp")),
        )
    except ValueError as exc:
        return str(exc)
