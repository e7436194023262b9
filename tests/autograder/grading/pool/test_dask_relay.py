"""The dask client's sandboxed relay and what grade reads of it, without a cluster: the client deserialises
msgpack alone, the relay's lines are read as JSON and nothing else, and a result is taken once, for a student of
the class only."""

from __future__ import annotations

import json

import pytest

from autograder.grading.pool import dask_relay, on_dask
from autograder.grading.pool.dask_tls import dask_scheduler
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.sandbox.limits import Limits, isolation_for
from autograder.sandbox.runs import SandboxResult

distributed = pytest.importorskip("distributed", reason="the kit's dask extra (pip install -e '.[dask]')")


class _Ran:
    """What unpickling this runs: a flag the test reads (a pickled result may name any callable)."""

    ran = False

    def __reduce__(self):
        return (_mark, ())


def _mark():
    _Ran.ran = True
    return "unpickled"


def test_the_relays_client_deserialises_msgpack_alone_so_a_pickled_result_is_refused_unread(monkeypatch):
    made = {}

    def client(*args, **kwargs):  # the cluster refuses: the relay says so; what it asked for is kept
        made.update(kwargs)
        raise OSError("connection refused")

    monkeypatch.setattr(distributed, "Client", client)
    said = []
    dask_relay._relay({"address": "tls://127.0.0.1:1", "tls": None}, said.append)
    assert said == [{"failed": "OSError: connection refused"}]
    header, frames = distributed.protocol.serialize(_Ran(), serializers=["pickle"])
    with pytest.raises(TypeError, match="pickle"):
        distributed.protocol.deserialize(header, frames, deserializers=made["deserializers"])
    assert not _Ran.ran


def test_the_relays_lines_are_read_as_json_and_nothing_else():
    handled = []
    messages = on_dask._Messages(handled.append)
    messages(b'{"student": "ann", "result": str(1 + 1)}\n')  # Python, not JSON: never evaluated
    messages(b"{'student': 'bo'}\n[1, 2]\n")
    messages(b'{"student": "cy", "error": "x"}\n{"student": "dee"')  # the second line not yet whole
    assert handled == [{"student": "cy", "error": "x"}]


def _result(score: float) -> str:
    """A result worth `score` points: tests of a point each, all passed."""
    tests = [TestOutcome(f"t.py::test_{n}", 1.0, "a", True) for n in range(int(score))]
    return json.dumps(Result(tests=tests, run=RunFacts(status="ok"), seed=7).to_wire())


def test_a_result_is_taken_once_and_for_a_student_of_the_class_only(tmp_path, monkeypatch):
    """A relay (or a cluster behind it) that sends a result for someone else, or a second one for a student,
    changes nothing: the first result of each student in the class is the one kept."""
    lines = [
        {"student": "mallory", "result": _result(2)},  # not in the class
        {"student": "ann", "result": _result(1)},
        {"student": "ann", "result": _result(2)},  # again, better
    ]

    def relay(*, on_evidence, **_):
        on_evidence(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        return SandboxResult(0, None, False, 0.1, "", "", b"", False, isolation_for("uid"))

    monkeypatch.setattr(on_dask, "run_sandboxed", relay)
    (tmp_path / "ann.py").write_text("x = 1\n")
    delivered = []
    results = on_dask.grade_on_dask(
        assignment="selftest",
        submissions={"ann": tmp_path / "ann.py"},
        seed=7,
        limits=Limits(),
        scheduler=dask_scheduler("tcp://127.0.0.1:1", insecure_plain_tcp=True),
        roots=(tmp_path,),
        on_result=lambda student, result: delivered.append((student, result.score)),
    )
    assert set(results) == {"ann"} and results["ann"].score == 1.0
    assert delivered == [("ann", 1.0)]
