"""A dask cluster is reached only over the course's mutual TLS: plain TCP is refused unless asked for by name,
and nobody without a course certificate (client or worker) gets in. Clusters here listen on loopback only."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import ssl
import stat

import pytest

from autograder.cli.main import main
from autograder.grading.executors import grade_batch
from autograder.grading.pool import on_dask
from autograder.grading.pool.dask_certs import make_certificates
from autograder.grading.pool.dask_tls import dask_scheduler
from autograder.sandbox import Limits

distributed = pytest.importorskip("distributed", reason="the kit's dask extra (pip install -e '.[dask]')")
pytest.importorskip("cryptography", reason="the kit's dask extra makes certificates with it")

ROLES = ("scheduler", "worker", "client")


@pytest.fixture
def plus(tmp_path):
    path = tmp_path / "plus.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    return path


def test_dask_certs_writes_private_keys_whatever_the_umask_and_keeps_the_ca_key_apart(tmp_path, capsys):
    old = os.umask(0)
    try:
        assert main(["dask-certs", "--out", str(tmp_path / "certs")]) == 0
    finally:
        os.umask(old)
    out = tmp_path / "certs"
    keys = [out / f"{role}.key" for role in ROLES] + [out / "offline" / "ca.key"]
    for key in keys:
        assert stat.S_IMODE(key.stat().st_mode) == 0o600, key
    for folder in (out, out / "offline"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert not (out / "ca.key").exists()  # the CA's key is not among the files that go to machines
    for role in ROLES:  # each certificate is signed by the course CA and matches its key
        context = ssl.create_default_context(cafile=str(out / "ca.pem"))
        context.load_cert_chain(str(out / f"{role}.pem"), str(out / f"{role}.key"))
    said = capsys.readouterr().out
    assert "offline/ca.key" in said and "worker.pem, worker.key" in said and "--tls-dir" in said
    # a second run would replace the CA that every machine trusts: refused, nothing overwritten
    before = (out / "ca.pem").read_bytes()
    assert main(["dask-certs", "--out", str(out)]) == 2
    assert "already holds ca.pem" in capsys.readouterr().err and (out / "ca.pem").read_bytes() == before


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "127.0.0.1:8786", "ws://127.0.0.1:8786"])
def test_a_scheduler_without_tls_is_refused_as_bad_arguments(address, plus, capsys):
    args = ["grade", "--assignment", "selftest", str(plus), "--executor", "dask", "--scheduler", address]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "tls://" in err
    if address.startswith(("tcp", "ws")):
        assert "TLS" in err and "dask-certs" in err and "--insecure-plain-tcp" in err
    with pytest.raises(ValueError, match="tls://"):  # the Python API refuses it too
        grade_batch(assignment="selftest", submissions={"plus": plus}, executor="dask", scheduler=address)


def test_a_tls_scheduler_needs_the_clients_certificate_and_a_private_key(certs, plus, tmp_path, capsys):
    base = ["grade", "--assignment", "selftest", str(plus), "--executor", "dask", "--scheduler", "tls://127.0.0.1:1"]
    assert main(base) == 2 and "--tls-dir" in capsys.readouterr().err
    assert main([*base, "--tls-dir", str(tmp_path / "nowhere")]) == 2 and "not a folder" in capsys.readouterr().err
    (certs / "client.key").chmod(0o644)
    assert main([*base, "--tls-dir", str(certs)]) == 2 and "chmod 600" in capsys.readouterr().err
    (certs / "client.key").chmod(0o600)
    other = make_certificates(tmp_path / "other")  # a key from another run does not go with this certificate
    assert main([*base, "--tls-dir", str(certs), "--tls-key", str(other["client.key"])]) == 2
    assert "do not load together" in capsys.readouterr().err
    assert main(["grade", "--assignment", "selftest", str(plus), "--tls-dir", str(certs)]) == 2
    assert "go with --executor dask" in capsys.readouterr().err


def test_a_tls_scheduler_takes_the_client_files_from_dasks_configuration_too(certs):
    import dask

    files = {
        "distributed.comm.tls.ca-file": str(certs / "ca.pem"),
        "distributed.comm.tls.client.cert": str(certs / "client.pem"),
        "distributed.comm.tls.client.key": str(certs / "client.key"),
    }
    with dask.config.set(files):
        scheduler = dask_scheduler("tls://127.0.0.1:8786")
    assert (scheduler.ca, scheduler.cert, scheduler.key) == tuple(files.values())


def _grade_on(cluster_address: str, extra: list[str], plus, capsys) -> dict:
    """The CLI grades `plus` on a cluster without workers: it connects, submits, and reports no result."""
    args = ["grade", "--assignment", "selftest", str(plus), "--json", "--executor", "dask"]
    status = main([*args, "--scheduler", cluster_address, *extra])
    captured = capsys.readouterr()
    assert status == 1, captured.err  # a grader error (no worker), not bad arguments
    return json.loads(captured.out.strip().splitlines()[-1])


@pytest.mark.parametrize("address", ["ws://127.0.0.1:8786", "wss://127.0.0.1:8786", "udp://127.0.0.1:8786"])
def test_insecure_plain_tcp_allows_tcp_and_no_other_protocol(address, plus, capsys):
    """The flag says plain TCP: a websocket scheduler (ws://, or wss:// without the course's certificates) is
    no more authenticated for it, and stays refused."""
    assert dask_scheduler("tcp://127.0.0.1:8786", insecure_plain_tcp=True).insecure_plain_tcp
    with pytest.raises(ValueError, match="is not a tls:// address"):
        dask_scheduler(address, insecure_plain_tcp=True)
    args = ["grade", "--assignment", "selftest", str(plus), "--executor", "dask", "--scheduler", address]
    assert main([*args, "--insecure-plain-tcp"]) == 2
    assert "is not a tls:// address" in capsys.readouterr().err


def test_plain_tcp_is_accepted_when_asked_for_by_name(plus, capsys, monkeypatch):
    monkeypatch.setattr(on_dask, "_stall_seconds", lambda limits: 2.0)
    with distributed.LocalCluster(n_workers=0, protocol="tcp://", host="127.0.0.1", dashboard_address=None) as cluster:
        result = _grade_on(cluster.scheduler_address, ["--insecure-plain-tcp"], plus, capsys)
    assert "no result came back from the dask cluster" in result["output"]


def test_the_command_line_reaches_a_tls_cluster_with_the_course_certificates(
    certs, tls_cluster, plus, capsys, monkeypatch
):
    monkeypatch.setattr(on_dask, "_stall_seconds", lambda limits: 2.0)
    with tls_cluster(certs, n_workers=0) as cluster:
        result = _grade_on(cluster.scheduler_address, ["--tls-dir", str(certs)], plus, capsys)
    assert "no result came back from the dask cluster" in result["output"]


def _security(ca, certs, role="client"):
    kind = "client" if role == "client" else "worker"
    return distributed.Security(
        tls_ca_file=str(ca),
        **{f"tls_{kind}_cert": str(certs / f"{role}.pem"), f"tls_{kind}_key": str(certs / f"{role}.key")},
        require_encryption=True,
    )


def _gets_a_reply(address: str, ca, cert=None, key=None) -> bool:
    """Whether the scheduler says anything (its handshake) on a raw TLS connection that shows `cert`, if any."""
    host, port = address.removeprefix("tls://").rsplit(":", 1)
    context = ssl.create_default_context(cafile=str(ca))
    context.check_hostname = False
    if cert is not None:
        context.load_cert_chain(str(cert), str(key))
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        try:
            with context.wrap_socket(raw) as tls:
                tls.sendall(b"\0" * 8)
                return tls.recv(1) != b""
        except (ssl.SSLError, ConnectionError):
            return False


async def _join_as_worker(address: str, security) -> None:
    async with distributed.Worker(
        address, security=security, nthreads=1, death_timeout=5, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ):
        pass


def test_only_holders_of_the_course_certificates_reach_the_cluster(certs, tls_cluster, tmp_path):
    """The attack of issue 18: a client that reaches the port runs code on the workers, a machine joins as a
    worker. With the course's TLS, the course's client gets in and nobody else does."""
    forged = make_certificates(tmp_path / "attacker")["ca.pem"].parent  # a CA and certificates of one's own
    with tls_cluster(certs, n_workers=0) as cluster:
        address = cluster.scheduler_address
        with distributed.Client(address, security=_security(certs / "ca.pem", certs), timeout=30) as client:
            assert client.run_on_scheduler(lambda: 6 * 7) == 42  # the course's client can run code: the control
        for ca in (certs / "ca.pem", forged / "ca.pem"):  # the public course CA does not help a forged cert
            with pytest.raises((OSError, TimeoutError)):
                distributed.Client(address, security=_security(ca, forged), timeout=5)
        with pytest.raises((OSError, TimeoutError)):
            distributed.Client(address.replace("tls://", "tcp://"), timeout=5)
        assert _gets_a_reply(address, certs / "ca.pem", certs / "client.pem", certs / "client.key")  # the control
        assert not _gets_a_reply(address, certs / "ca.pem")  # no certificate at all: dropped
        with pytest.raises((OSError, TimeoutError)):
            asyncio.run(_join_as_worker(address, _security(certs / "ca.pem", forged, role="worker")))
        with distributed.Client(address, security=_security(certs / "ca.pem", certs), timeout=30) as client:
            assert client.scheduler_info()["workers"] == {}  # no forged worker joined


def _take_over(marker: str, port: int) -> bool:
    """Run on each worker: what a machine holding a worker's key can do. Its task returns an object whose
    unpickling runs code: it creates `marker` and calls 127.0.0.1:`port` (wherever it runs, even a sandbox)."""
    import importlib

    code = (
        f"open({marker!r}, 'w').close()\n"
        "import socket\n"
        f"socket.create_connection(('127.0.0.1', {port}), timeout=2).close()\n"
    )

    class RunsCode:
        def __reduce__(self):
            return (exec, (code,))

    for name in ("autograder.grading.pool.dask_task", "autograder.grading.pool.on_dask"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "grade_text"):
            module.grade_text = lambda *args, **kwargs: RunsCode()
    return True


def test_a_worker_that_returns_an_object_that_runs_code_runs_nothing_on_the_instructors_machine(
    certs, tls_cluster, plus, tmp_path
):
    """Issue 31: anyone holding a worker's key returned an object that ran code as root in `grade` (the client
    unpickled every result). Results now come back as JSON bytes only: the object is refused unread, and that
    student is a grader error."""
    marker = tmp_path / "ran"
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    with tls_cluster(certs, n_workers=1, threads_per_worker=1, processes=True) as cluster:
        address = cluster.scheduler_address
        # the grading machine's own certificate is enough to reach every worker (dask has no roles)
        taken = distributed.Security(
            tls_ca_file=str(certs / "ca.pem"),
            tls_client_cert=str(certs / "worker.pem"),
            tls_client_key=str(certs / "worker.key"),
            require_encryption=True,
        )
        with distributed.Client(address, security=taken) as machine:
            assert all(machine.run(_take_over, str(marker), port).values())
        results = on_dask.grade_on_dask(
            assignment="selftest",
            submissions={"plus": plus},
            seed=7,
            limits=Limits(wall_seconds=30),
            scheduler=dask_scheduler(address, tls_dir=certs),
        )
    try:
        called = listener.accept()[0]
        called.close()
    except TimeoutError:
        called = None
    finally:
        listener.close()
    assert not marker.exists() and called is None  # neither here nor in the dask client's own process
    assert results["plus"].status == "grader error", results["plus"].output


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a folder to another user")
def test_dask_certs_refuses_a_folder_another_user_owns_or_may_write(tmp_path, capsys):
    """Issue 31: `dask-certs --out` into a folder another user owned was accepted, and that user swapped ca.pem."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, 65534, 65534)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    for out in (theirs, theirs / "certs", shared, shared / "certs"):
        assert main(["dask-certs", "--out", str(out)]) == 2, out
        err = capsys.readouterr().err
        assert "could swap ca.pem" in err or "could replace the certificates' folder" in err, err
        assert "--out" in err and "mkdir -m 700" in err
        assert not (out / "ca.pem").exists()
    sticky = tmp_path / "sticky"  # like /tmp: others may write it, but not replace what is ours in it
    sticky.mkdir()
    sticky.chmod(0o1777)
    assert main(["dask-certs", "--out", str(sticky / "certs")]) == 0
