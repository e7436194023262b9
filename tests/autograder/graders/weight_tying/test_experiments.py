"""The weight_tying experiments: records match their schema, EVIDENCE.md is the schema, no slow imports."""

from __future__ import annotations

import subprocess
import sys

from autograder.graders.kit import KIT_ROOT, SOLUTIONS_DIR
from autograder.graders.weight_tying.runner.evidence import RECORDS
from autograder.graders.weight_tying.runner.experiments import EXPERIMENTS
from autograder.protocol.schema import render_markdown

EVIDENCE_DOC = KIT_ROOT / "autograder" / "graders" / "weight_tying" / "EVIDENCE.md"


def test_every_experiment_has_one_record_class_in_order():
    assert list(EXPERIMENTS) == [r.NAME for r in RECORDS]


def test_the_solutions_records_match_the_schema(plan, collect_evidence):
    evidence = collect_evidence(SOLUTIONS_DIR / "weight_tying.py", plan)
    problems = [p for record in RECORDS for p in record.problems(evidence.get(record.NAME))]
    assert problems == []


def test_evidence_doc_is_generated_from_the_schema():
    text = EVIDENCE_DOC.read_text(encoding="utf-8")
    marker = "<!-- generated from runner/evidence.py: python -m autograder.protocol.schema "
    assert marker in text, f"{EVIDENCE_DOC.name} lost its generated section"
    generated = text.split(marker, 1)[1].split("-->", 1)[1].lstrip("\n")
    assert generated == render_markdown(list(RECORDS)), (
        f"{EVIDENCE_DOC} is out of date: python -m autograder.protocol.schema "
        "autograder.graders.weight_tying.runner.evidence"
    )


def test_experiments_never_import_torch_dynamo():
    """torch.optim's first use imports torch._dynamo (~1 s of CPU per grading run); the runner must not pay it."""
    code = (
        "import sys, torch\n"
        "from autograder.graders import get_assignment\n"
        "from autograder.graders.weight_tying.runner.experiments import run\n"
        "from coursecheck.notebook import exec_source\n"
        "ns = exec_source(open(sys.argv[1]).read(), 'submission.py')\n"
        "names = []\n"
        "plan = get_assignment('weight_tying').make_plan(3)\n"
        "run(ns, plan, lambda name, record: names.append(name) if 'error' not in record else None)\n"
        "print(len(names), 'torch._dynamo' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(SOLUTIONS_DIR / "weight_tying.py")],
        capture_output=True,
        text=True,
        timeout=120,
        env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == ["15", "False"], out.stdout


def test_experiments_seed_only_the_cpu_generator(plan, collect_evidence, monkeypatch):
    """torch.manual_seed also seeds CUDA, XPU and MTIA lazily, each recording a stack trace (most of what
    seeding cost a run); the experiments seed the CPU generator they draw from, and nothing else."""
    import torch

    calls = []
    manual_seed = torch.manual_seed
    monkeypatch.setattr(torch, "manual_seed", lambda seed: calls.append(seed) or manual_seed(seed))
    evidence = collect_evidence(SOLUTIONS_DIR / "weight_tying.py", plan)
    assert all("error" not in evidence[r.NAME] for r in RECORDS)
    assert calls == [], f"the experiments called torch.manual_seed {len(calls)} times"
