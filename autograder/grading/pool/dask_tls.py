"""Trusted: the one rule for reaching a dask scheduler: mutual TLS with the course's certificates.

A dask scheduler without TLS authenticates nobody: whoever reaches its port runs code as root in every
grading worker, and any machine may join as a worker and report marks. So the kit reaches a cluster only
over mutual TLS (``tls://``, ``require_encryption``), with certificates signed by a CA that the course made
(``python -m autograder dask-certs --out DIR``: ``dask_certs``). distributed verifies both ends
of every connection against that CA: a client, a scheduler or a worker without a course certificate cannot
talk to the others. A plain ``tcp://`` scheduler is refused unless the caller says ``insecure_plain_tcp``, and
a client key that others can read is refused.
"""

from __future__ import annotations

import ssl
import stat
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.pool.dask_certs import CA_CERT, CERTS_COMMAND

__all__ = ["DaskScheduler", "dask_scheduler"]

INSECURE_FLAG = "--insecure-plain-tcp"


@dataclass(frozen=True)
class DaskScheduler:
    """Where the cluster is and how to reach it: TLS files (the client's), or plain TCP asked for by name."""

    address: str
    ca: str | None = None
    cert: str | None = None
    key: str | None = None
    insecure_plain_tcp: bool = False

    def __str__(self) -> str:
        return self.address


def _refusal(address: str) -> str:
    return (
        f"the dask scheduler {address!r} is not a tls:// address: a plain TCP scheduler lets anyone who reaches "
        f"its port run code as root on every grading machine, and any machine join as a worker. Start the "
        f"cluster with TLS (certificates from `{CERTS_COMMAND}`, see the README) and give "
        f"--scheduler tls://HOST:PORT --tls-dir DIR; only on a network you alone can reach, {INSECURE_FLAG} "
        "allows plain TCP"
    )


def _check_key_private(path: Path) -> None:
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ValueError(
            f"the TLS key {str(path)!r} can be read by other users (mode {stat.S_IMODE(mode):04o}): "
            f"chmod 600 {str(path)!r}"
        )


def dask_scheduler(
    address: str,
    *,
    tls_dir: str | Path | None = None,
    tls_ca: str | Path | None = None,
    tls_cert: str | Path | None = None,
    tls_key: str | Path | None = None,
    insecure_plain_tcp: bool = False,
) -> DaskScheduler:
    """Check `address` and the TLS files (the client's) before anything connects; ValueError says the fix.

    `tls_dir` holds ``ca.pem``, ``client.pem`` and ``client.key`` as ``dask-certs`` writes them; `tls_ca`,
    `tls_cert` and `tls_key` name (or override) each file. Without any, a ``tls://`` address uses dask's own
    configuration (``distributed.comm.tls.ca-file``, ``distributed.comm.tls.client.cert`` / ``.key``).
    """
    address = str(address).strip()
    if "://" not in address:
        raise ValueError(f"the dask scheduler {address!r} has no protocol: give tls://HOST:PORT")
    protocol = address.split("://", 1)[0].lower()
    if protocol == "inproc":  # one process, no network: nothing to authenticate
        return DaskScheduler(address)
    if protocol != "tls":
        if protocol == "tcp" and insecure_plain_tcp:
            return DaskScheduler(address, insecure_plain_tcp=True)
        raise ValueError(_refusal(address))
    folder = Path(tls_dir) if tls_dir is not None else None
    if folder is not None and not folder.is_dir():
        raise ValueError(f"--tls-dir {str(folder)!r} is not a folder: give the folder `{CERTS_COMMAND}` wrote")
    files = {
        "--tls-ca": tls_ca or (folder / CA_CERT if folder else None),
        "--tls-cert": tls_cert or (folder / "client.pem" if folder else None),
        "--tls-key": tls_key or (folder / "client.key" if folder else None),
    }
    if not any(files.values()):
        import dask

        files = {
            "--tls-ca": dask.config.get("distributed.comm.tls.ca-file", None),
            "--tls-cert": dask.config.get("distributed.comm.tls.client.cert", None),
            "--tls-key": dask.config.get("distributed.comm.tls.client.key", None),
        }
        if not all(files.values()):
            raise ValueError(
                f"the dask scheduler {address!r} needs the course's client certificate: give --tls-dir DIR "
                f"(ca.pem, client.pem and client.key, as `{CERTS_COMMAND}` writes them)"
            )
    for flag, path in files.items():
        if not path:
            raise ValueError(f"give {flag} too (or --tls-dir DIR holding ca.pem, client.pem and client.key)")
        if not Path(path).is_file():
            raise ValueError(f"{flag} {str(path)!r} does not exist: give the file `{CERTS_COMMAND}` wrote")
    ca, cert, key = (str(files[flag]) for flag in ("--tls-ca", "--tls-cert", "--tls-key"))
    _check_key_private(Path(key))
    try:  # a mismatched or unreadable file fails here, with its name, not as a timeout on connecting
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=ca)
        context.load_cert_chain(cert, key)
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise ValueError(
            f"the TLS files {ca!r}, {cert!r}, {key!r} do not load together ({exc}): give a CA certificate, and "
            f"a certificate with its own key, from one run of `{CERTS_COMMAND}`"
        ) from None
    return DaskScheduler(address, ca=ca, cert=cert, key=key)
