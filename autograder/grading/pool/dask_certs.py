"""Trusted: the course's certificate authority for a dask cluster (``python -m autograder dask-certs --out DIR``).

One CA that the course makes, and a certificate and key signed by it for the scheduler, the workers and the
instructor's client (``ROLES``); ``dask_tls`` holds every connection to the files written here. Every holder
of a course certificate is trusted alike (distributed has no roles): the keys are written mode 0600, into a
new folder only its owner may write, and the CA's own key sits apart (``offline/ca.key``) for the instructor
to keep off the cluster.
"""

from __future__ import annotations

import datetime
import os
import secrets
import stat
from pathlib import Path

__all__ = ["ROLES", "CA_CERT", "CERTS_COMMAND", "make_certificates"]

ROLES = ("scheduler", "worker", "client")  # one certificate and key each, signed by the course CA
CA_CERT, CA_KEY = "ca.pem", "offline/ca.key"
CERTS_COMMAND = "python -m autograder dask-certs --out DIR"

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
