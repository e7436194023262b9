"""The pool on Dask workers (a LocalCluster of processes on loopback, over the course's mutual TLS) gives the
local pool's scores."""

from __future__ import annotations

import pytest

from autograder.graders import get_assignment
from autograder.grading.executors import grade_batch
from autograder.grading.pool.dask_tls import dask_scheduler
from autograder.sandbox import Limits

distributed = pytest.importorskip("distributed", reason="the kit's dask extra (pip install -e '.[dask]')")

SPEC = get_assignment("selftest")
LIMITS = Limits(wall_seconds=30)


@pytest.mark.e2e
def test_dask_local_cluster_scores_equal_the_local_pool(tmp_path, certs, tls_cluster):
    files = {p.stem: p for p in sorted(SPEC.calibration_dir.glob("*/*.py"))}
    too_big = tmp_path / "huge.py"
    with too_big.open("wb") as fh:  # sparse: rejected before it travels, with its reason
        fh.truncate((64 << 20) + 1)
    files["huge"] = too_big
    local = grade_batch(
        assignment="selftest", submissions=files, seed=7, limits=LIMITS, workers=2, progress=False, executor="pool"
    )
    arrived = []
    with tls_cluster(certs, n_workers=2, threads_per_worker=1, processes=True) as cluster:
        assert cluster.scheduler_address.startswith("tls://")
        remote = grade_batch(
            assignment="selftest",
            submissions=files,
            seed=7,
            limits=LIMITS,
            progress=False,
            executor="dask",
            scheduler=dask_scheduler(cluster.scheduler_address, tls_dir=certs),
            on_result=lambda student, result: arrived.append(student),
        )
    assert sorted(arrived) == sorted(files)
    assert set(remote) == set(local) == set(files)
    for student in files:
        a, b = local[student], remote[student]
        assert (a.score, a.max_score, a.status, a.seed) == (b.score, b.max_score, b.status, b.seed), student
        assert [(t.name, t.passed, t.finding, t.charged) for t in a.tests] == [
            (t.name, t.passed, t.finding, t.charged) for t in b.tests
        ]
    assert remote["plus"].score == 3 and remote["huge"].score == 0 and "not run" in remote["huge"].output


def test_dask_executor_needs_a_scheduler():
    with pytest.raises(ValueError, match="scheduler"):
        grade_batch(assignment="selftest", submissions={}, executor="dask", progress=False)


def test_a_cluster_without_workers_gives_grader_errors_instead_of_hanging(tmp_path, monkeypatch, certs, tls_cluster):
    from autograder.grading.pool import on_dask

    monkeypatch.setattr(on_dask, "_stall_seconds", lambda limits: 2.0)
    path = tmp_path / "plus.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    with tls_cluster(certs, n_workers=0) as cluster:
        results = grade_batch(
            assignment="selftest",
            submissions={"plus": path},
            seed=7,
            limits=LIMITS,
            progress=False,
            executor="dask",
            scheduler=dask_scheduler(cluster.scheduler_address, tls_dir=certs),
        )
    assert results["plus"].status == "grader error"
    assert "no result came back from the dask cluster" in results["plus"].output
    assert cluster.scheduler_address in results["plus"].output and "again" in results["plus"].output
