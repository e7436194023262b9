"""Dask clusters on loopback over the course's mutual TLS, with certificates made by `dask-certs`."""

from __future__ import annotations

import pytest


@pytest.fixture
def certs(tmp_path):
    """A folder of course certificates, made as an instructor makes them: `python -m autograder dask-certs`."""
    pytest.importorskip("cryptography", reason="the kit's dask extra makes certificates with it")
    from autograder.cli.main import main

    assert main(["dask-certs", "--out", str(tmp_path / "certs")]) == 0
    return tmp_path / "certs"


@pytest.fixture
def tls_cluster():
    """tls_cluster(certs, n_workers, **kw): a LocalCluster on 127.0.0.1 whose scheduler, workers and client
    use the certificates in `certs` (require_encryption)."""
    distributed = pytest.importorskip("distributed", reason="the kit's dask extra (pip install -e '.[dask]')")

    def start(certs, n_workers: int, **kwargs):
        files = {
            f"tls_{role}_{part}": str(certs / f"{role}.{ext}")
            for role in ("scheduler", "worker", "client")
            for part, ext in (("cert", "pem"), ("key", "key"))
        }
        security = distributed.Security(tls_ca_file=str(certs / "ca.pem"), require_encryption=True, **files)
        return distributed.LocalCluster(
            n_workers=n_workers,
            protocol="tls://",
            host="127.0.0.1",
            security=security,
            dashboard_address=None,
            **kwargs,
        )

    return start
