"""Trusted: the course's own certificates for a dask cluster, and the one rule for reaching a scheduler.

A dask scheduler without TLS authenticates nobody: whoever reaches its port runs code as root in every
grading worker, and any machine may join as a worker and report marks. So the kit reaches a cluster only
over mutual TLS (``tls://``, ``require_encryption``), with certificates signed by a CA that the course made
(``python -m autograder dask-certs --out DIR``, ``make_certificates`` below). distributed verifies both ends
of every connection against that CA: a client, a scheduler or a worker without a course certificate cannot
talk to the others. A plain ``tcp://`` scheduler is refused unless the caller says ``insecure_plain_tcp``.

Every holder of a course certificate is trusted alike (distributed has no roles): the keys are written
mode 0600, and the CA's own key sits apart (``offline/ca.key``) for the instructor to keep off the cluster.
"""

from __future__ import annotations

import datetime
import os
import secrets
import ssl
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ROLES", "DaskScheduler", "dask_scheduler", "make_certificates"]

ROLES = ("scheduler", "worker", "client")  # one certificate and key each, signed by the course CA
CA_CERT, CA_KEY = "ca.pem", "offline/ca.key"
CERTS_COMMAND = "python -m autograder dask-certs --out DIR"
INSECURE_FLAG = "--insecure-plain-tcp"

_WHERE = f"""\
Certificates of one course's dask cluster (made by `{CERTS_COMMAND}`).
Every key is private (mode 0600); copy each file only to the machines named here, as root, keeping the mode.

  ca.pem                         every machine (public: it names the course's CA)
  scheduler.pem, scheduler.key   the scheduler's machine:  dask scheduler --tls-ca-file ca.pem \\
                                   --tls-cert scheduler.pem --tls-key scheduler.key \\
                                   --dashboard-address 127.0.0.1:8787
  worker.pem, worker.key         each grading machine:     dask worker tls://HOST:8786 --tls-ca-file ca.pem \\
                                   --tls-cert worker.pem --tls-key worker.key \\
                                   --dashboard-address 127.0.0.1:0 --nworkers 2 --nthreads 1
  client.pem, client.key         the instructor's machine: python -m autograder grade ... --executor dask \\
                                   --scheduler tls://HOST:8786 --tls-dir DIR (DIR holding ca.pem, client.*)
  offline/ca.key                 no machine of the cluster: it signs certificates, and whoever holds it can
                                   make new ones. Keep it offline; delete it if you will not need more.
"""


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


def _write(path: Path, data: bytes, mode: int) -> None:
    """A new file (never through a link, never over an old one) with `mode` whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        os.fchmod(fd, mode)
        os.write(fd, data)
    finally:
        os.close(fd)


def _refuse_unless_private(out: Path) -> None:
    """ValueError unless `out` (if it exists) is a real folder of the caller's that nobody else may write, in a
    folder (its nearest existing one) that only the caller or root may write (or a sticky one, like /tmp): a
    user who can write either could swap ca.pem, and every machine would then trust that user's CA."""
    me = os.geteuid()
    fix = "give --out a new folder inside one you own (e.g. ~/dask-certs), or mkdir -m 700 it yourself"
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ValueError(f"--out {str(out)!r} is not a folder (a link?): {fix}")
    if out.exists():
        info = out.stat()
        if info.st_uid != me or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise ValueError(
                f"--out {str(out)!r} belongs to uid {info.st_uid} with mode {stat.S_IMODE(info.st_mode):04o}: whoever "
                f"else can write it could swap ca.pem for their own CA: {fix}"
            )
    parent = out.absolute().parent
    while not parent.exists():
        parent = parent.parent
    info = parent.stat()
    sticky = info.st_mode & stat.S_ISVTX
    if info.st_uid not in (me, 0) or (info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not sticky):
        raise ValueError(
            f"--out {str(out)!r} is inside {str(parent)!r}, which uid {info.st_uid} owns with mode "
            f"{stat.S_IMODE(info.st_mode):04o}: whoever else can write it could replace the certificates' folder: {fix}"
        )


def make_certificates(out: str | Path, *, days: int = 365) -> dict[str, Path]:
    """Write a course CA and a certificate + key per role into `out` (created mode 0700); {name: path}.

    Refuses a folder that already holds them (a new CA locks out every machine holding the old files), and one
    that anyone but the caller (or root, above it) may write.
    """
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        raise RuntimeError("dask-certs needs the cryptography package: pip install -e '.[dask]'") from None
    if days < 1:
        raise ValueError(f"days={days}: certificates must be valid for at least 1 day")
    out = Path(out)
    _refuse_unless_private(out)
    names = [CA_CERT, CA_KEY, "README.txt"] + [f"{role}.{ext}" for role in ROLES for ext in ("pem", "key")]
    present = [name for name in names if (out / name).exists() or (out / name).is_symlink()]
    if present:
        raise ValueError(
            f"{str(out)!r} already holds {', '.join(present)}: a new CA would lock out every machine that has "
            "the old certificates. Give another --out, or delete those files first"
        )
    (out / "offline").mkdir(mode=0o700, parents=True, exist_ok=True)
    for folder in (out, out / "offline"):
        folder.chmod(0o700)
    _refuse_unless_private(out)  # as made: a folder someone slipped in meanwhile is refused too
    course = secrets.token_hex(4)  # tells one course's CA from another's in error messages
    now = datetime.datetime.now(datetime.UTC)
    start, end = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=days)

    def name(common: str) -> x509.Name:
        return x509.Name(
            [
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, f"autograder course {course}"),
                x509.NameAttribute(NameOID.COMMON_NAME, common),
            ]
        )

    def pem_key(key) -> bytes:
        return key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_id = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    usage = dict(content_commitment=False, data_encipherment=False, key_agreement=False)
    usage.update(encipher_only=False, decipher_only=False, key_encipherment=False)
    ca = (
        x509.CertificateBuilder()
        .subject_name(name(f"dask course CA {course}"))
        .issuer_name(name(f"dask course CA {course}"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=False, key_cert_sign=True, crl_sign=True, **usage), True)
        .add_extension(ca_id, critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    written = {"ca.pem": out / CA_CERT, "ca.key": out / CA_KEY}
    _write(written["ca.key"], pem_key(ca_key), 0o600)
    _write(written["ca.pem"], ca.public_bytes(serialization.Encoding.PEM), 0o644)
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder()
            .subject_name(name(f"dask {role}"))
            .issuer_name(ca.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start)
            .not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False, **usage), True)
            # every dask process both listens and connects (workers talk to each other)
            .add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), False
            )
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_id), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        written[f"{role}.key"] = out / f"{role}.key"
        written[f"{role}.pem"] = out / f"{role}.pem"
        _write(written[f"{role}.key"], pem_key(key), 0o600)
        _write(written[f"{role}.pem"], cert.public_bytes(serialization.Encoding.PEM), 0o644)
    written["README.txt"] = out / "README.txt"
    _write(written["README.txt"], _WHERE.encode(), 0o644)
    return written
