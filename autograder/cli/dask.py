"""Trusted: ``python -m autograder dask-certs``: the course's TLS certificates for a dask cluster. The CA lives in
``grading/pool/dask_certs.py``; the dask options of every command that grades are in ``cli/common.py``.
"""

from __future__ import annotations

from pathlib import Path

from autograder.cli.common import fail

__all__ = ["add_parser", "run"]


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
