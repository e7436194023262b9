"""Trusted code that talks to the cluster for ``grade``, sandboxed as if it were not: the dask client of
``--executor dask``.

distributed unpickles what its peers send it (a result's type, a task's exception, a frame marked as pickled),
and dask has no roles: whoever holds a course certificate can take the scheduler over and, through it, any
client. So the instructor's ``grade`` process never talks to the cluster: ``on_dask`` runs this module in the
sandbox (``sandbox.launch.run_sandboxed``: an unprivileged uid, its own mount, PID, IPC and UTS namespaces, a
view of the interpreter and these two modules of the kit only, the seccomp profile, cgroup limits), with the
host's network, which it needs. The job comes on stdin; the relay submits each submission (text) to the
workers, takes each result back as bytes only (its client deserialises msgpack alone, so a result that is
anything else is refused unread) and writes it on the evidence pipe as one JSON line, which ``grade`` reads
as JSON and nothing else. Whatever a cluster might make distributed run here runs in that sandbox, holding
only the client's certificate (which a grading machine's own certificate is already worth) and the class's
submissions, which the workers see anyway.

On the pipes, JSON::

    grade -> relay   stdin, one object: {"address", "tls": {"ca", "cert", "key"} (PEM text) or null,
                     "assignment", "seed", "limits", "stall" (seconds), "submissions": {student: Submission}}
    relay -> grade   the evidence pipe, one object a line: {"student", "result": Result.to_wire() as JSON text}
                     or {"student", "error"}; {"stalled": [student, ...]}; {"failed": why} (no cluster)
"""

from __future__ import annotations

import json
import os
import sys

__all__ = ["main"]


def _security(tls: dict | None):
    if not tls:  # plain tcp://, asked for by name
        return None
    from distributed import Security

    return Security(
        tls_ca_file=tls["ca"], tls_client_cert=tls["cert"], tls_client_key=tls["key"], require_encryption=True
    )


def _relay(job: dict, say) -> None:
    from distributed import Client, wait

    from autograder.grading.pool.dask_task import grade_text

    try:
        # msgpack alone: a result is bytes (JSON), and anything a worker sends otherwise is refused unread
        client = Client(job["address"], security=_security(job["tls"]), deserializers=["msgpack"], timeout=30)
    except (OSError, TimeoutError) as exc:  # refused, or a TLS handshake that failed (a foreign certificate)
        say({"failed": f"{type(exc).__name__}: {exc}"[:2000]})
        return
    with client:
        for topic in ("print", "warn"):  # a worker's words for the client's terminal: not shown anywhere
            client.unsubscribe_topic(topic)
        futures = {}
        for student, submission in job["submissions"].items():
            args = (job["assignment"], submission, job["seed"], job["limits"])
            futures[client.submit(grade_text, *args, pure=False)] = student
        pending = set(futures)
        while pending:
            try:
                done, pending = wait(pending, timeout=job["stall"], return_when="FIRST_COMPLETED")
            except TimeoutError:
                done = set()
            if not done:  # a cluster whose workers died (or never came) must not hang the batch
                say({"stalled": sorted(futures[f] for f in pending)})
                return
            for future in done:
                try:
                    data = future.result()
                    if not isinstance(data, bytes):
                        raise TypeError(f"the worker sent a {type(data).__name__}, not the result's JSON")
                    say({"student": futures[future], "result": data.decode("utf-8")})
                except Exception as exc:  # a lost worker, a task that could not run: this student only
                    say({"student": futures[future], "error": f"{type(exc).__name__}: {exc}"[:2000]})


def main(argv: list[str] | None = None) -> None:
    fd = int((sys.argv[1:] if argv is None else argv)[0])
    job = json.loads(sys.stdin.buffer.read())

    def say(message: dict) -> None:
        data = json.dumps(message).encode() + b"\n"
        while data:
            data = data[os.write(fd, data) :]

    _relay(job, say)


if __name__ == "__main__":
    main()
