"""Trusted: ``python -m autograder dask-certs`` (the course's TLS certificates), and the dask options of every
command that grades (``--scheduler``, ``--tls-*``): ``resolve_scheduler`` checks them before grading. The rules
live in ``grading/pool/dask_tls.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["add_dask_options", "add_parser", "run", "resolve_scheduler"]


def add_dask_options(common: argparse.ArgumentParser) -> None:
    """--scheduler and how to reach it (mutual TLS with the course's client certificate)."""
    group = common.add_argument_group("dask cluster (--executor dask)")
    group.add_argument("--scheduler", default=None, metavar="ADDR", help="dask scheduler, e.g. tls://10.0.0.5:8786")
    group.add_argument(
        "--tls-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="the course's TLS files for the client: DIR/ca.pem, DIR/client.pem, DIR/client.key (from dask-certs)",
    )
    group.add_argument("--tls-ca", type=Path, default=None, metavar="FILE", help="the course CA (default DIR/ca.pem)")
    group.add_argument(
        "--tls-cert", type=Path, default=None, metavar="FILE", help="client certificate (DIR/client.pem)"
    )
    group.add_argument("--tls-key", type=Path, default=None, metavar="FILE", help="its key, mode 0600 (DIR/client.key)")
    group.add_argument(
        "--insecure-plain-tcp",
        action="store_true",
        help="allow a tcp:// scheduler: anyone who reaches its port runs code as root on the grading machines",
    )


def resolve_scheduler(args) -> str | None:
    """Replace args.scheduler with a checked ``DaskScheduler``; an error message instead if it cannot be."""
    from autograder.grading.executors import executor_error
    from autograder.grading.pool.dask_tls import dask_scheduler

    tls = any(getattr(args, name) is not None for name in ("tls_dir", "tls_ca", "tls_cert", "tls_key"))
    if args.executor != "dask":
        if args.scheduler or tls or args.insecure_plain_tcp:
            return "--scheduler, --tls-* and --insecure-plain-tcp go with --executor dask"
        return None
    if error := executor_error(args.executor, args.scheduler):
        return error
    try:
        args.scheduler = dask_scheduler(
            args.scheduler,
            tls_dir=args.tls_dir,
            tls_ca=args.tls_ca,
            tls_cert=args.tls_cert,
            tls_key=args.tls_key,
            insecure_plain_tcp=args.insecure_plain_tcp,
        )
    except ValueError as exc:
        return str(exc)
    return None


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
    from autograder.cli.common import fail
    from autograder.grading.pool.dask_tls import make_certificates

    try:
        written = make_certificates(args.out, days=args.days)
    except (ValueError, RuntimeError) as exc:
        return fail(str(exc))
    print(f"wrote the course's dask certificates to {str(args.out)!r} (DIR below):\n")
    print(written["README.txt"].read_text(encoding="utf-8"))
    return 0
