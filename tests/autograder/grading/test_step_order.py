"""The steps of grading one submission are strung together in one place, ``pipeline.grade``: an executor only
says where a step runs, so no function outside ``pipeline.py`` calls two of its steps, and the steps this
process runs after the judge (``judged``, ``finish``) are called from ``pipeline.py`` alone. The submission's
file is read once per grading."""

from __future__ import annotations

import ast
from pathlib import Path

from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT
from autograder.grading import pipeline
from autograder.grading.executors import grade_file
from autograder.grading.pool.worker import ForkedSandbox, Worker
from autograder.sandbox.limits import Limits

PIPELINE = "autograder.grading.pipeline"
# Every step function of the pipeline but ``grade`` (the sequence itself) and ``read`` (step 1, where the
# executor has the file): each public function whose docstring names the step(s) it is.
STEPS = {
    name
    for name in pipeline.__all__
    if callable(getattr(pipeline, name))
    and (getattr(pipeline, name).__doc__ or "").lstrip().startswith(("Step", "Steps"))
} - {"read"}
THIS_PROCESS_AFTER_THE_JUDGE = {"judged", "finish"}


def steps_called(source: str) -> dict[str, set[str]]:
    """Each module-level function or method ('Class.method') -> the pipeline steps it calls, nested
    functions included, through ``pipeline.X`` or a name imported from the pipeline."""
    tree = ast.parse(source)
    modules, names = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == PIPELINE:
            names |= {alias.asname or alias.name: alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "autograder.grading":
            modules |= {alias.asname or alias.name for alias in node.names if alias.name == "pipeline"}
        elif isinstance(node, ast.Import):
            modules |= {alias.asname for alias in node.names if alias.name == PIPELINE and alias.asname}

    def called(fn: ast.AST) -> set[str]:
        found = set()
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in modules:
                found.add(f.attr)
            elif isinstance(f, ast.Name) and f.id in names:
                found.add(names[f.id])
        return found & STEPS

    out: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out[node.name] = called(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    out[f"{node.name}.{item.name}"] = called(item)
    return out


def _kit_callers() -> dict[str, set[str]]:
    found = {}
    for path in sorted((KIT_ROOT / "autograder").rglob("*.py")):
        if "__pycache__" in path.parts or "calibration" in path.parts or path.name == "pipeline.py":
            continue
        where = path.relative_to(KIT_ROOT)
        for function, steps in steps_called(path.read_text(encoding="utf-8")).items():
            if steps:
                found[f"{where}::{function}"] = steps
    return found


def test_the_steps_are_the_pipelines_own():
    assert {"job", "decode", "facts", "judged", "finish", "mark"} <= STEPS


def test_no_function_outside_the_pipeline_strings_two_steps_together():
    callers = _kit_callers()
    assert callers, "nothing calls a step of the pipeline: the check below would hold vacuously"
    several = {where: sorted(steps) for where, steps in callers.items() if len(steps) > 1}
    assert several == {}, f"these string the pipeline's steps together themselves (use pipeline.grade): {several}"
    after = {where: sorted(s & THIS_PROCESS_AFTER_THE_JUDGE) for where, s in callers.items()}
    assert {w: s for w, s in after.items() if s} == {}, "only pipeline.grade runs the steps after the judge"


def test_the_check_sees_steps_through_the_module_and_through_imported_names():
    executor = (
        "from autograder.grading import pipeline\n"
        "from autograder.grading.pipeline import finish as done\n"
        "class Pool:\n"
        "    def grade(self, box):\n"
        "        def inner():\n"
        "            return pipeline.judged(box)\n"
        "        return done(inner())\n"
        "def alone(box):\n"
        "    return pipeline.decode(box)\n"
    )
    assert steps_called(executor) == {"Pool.grade": {"judged", "finish"}, "alone": {"decode"}}


def test_a_class_of_one_on_the_pool_reads_its_file_once(tmp_path, monkeypatch):
    reads = []
    real = pipeline.read_submission

    def counted(path, **kwargs):
        reads.append(Path(path).name)
        return real(path, **kwargs)

    monkeypatch.setattr(pipeline, "read_submission", counted)
    path = tmp_path / "plus.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    result = grade_file(assignment="selftest", path=path, seed=1, limits=Limits(wall_seconds=20))
    assert (result.score, reads) == (3, ["plus.py"])


def test_a_class_of_ones_worker_waits_for_its_file_and_warms_what_it_names():
    worker = Worker("weight_tying", Limits(wall_seconds=20), warm_named=True)
    try:
        worker.start()
        assert worker.zygote is None  # the judge warms up meanwhile; the zygote waits for the file
        plots = pipeline.Submission("py", "import torch\nimport matplotlib.pyplot as plt\n", "a.py")
        ForkedSandbox(worker, plots, ()).warm()
        assert worker.zygote.alive() and worker.warm_imports == ("matplotlib", "matplotlib.pyplot")
        assert set(worker.warm_imports) < set(get_assignment("weight_tying").warm_imports)
    finally:
        worker.close()
