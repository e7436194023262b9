"""The grader's warm-up (``AssignmentSpec.warm_up``): called by each fork server before it forks, it leaves nothing a
run could tell apart from a fresh interpreter's state, and imports nothing the server did not."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from autograder.graders import get_assignment
from autograder.sandbox.warm import Zygote

SPEC = get_assignment("weight_tying")

_AS_FOUND = r"""
import json, os, random, sys, warnings
import numpy, torch
import matplotlib.pyplot as plt
import dnnlpy.tokenizers
from autograder.graders.weight_tying.runner.warm import warm_up

def state():
    return {
        "torch": torch.get_rng_state().tolist(),
        "numpy": [a.tolist() if hasattr(a, "tolist") else a for a in numpy.random.get_state()],
        "python": repr(random.getstate()),
        "environ": dict(os.environ),
        "figures": plt.get_fignums(),
        "filters": repr(warnings.filters),
    }

torch.set_num_threads(1)  # as the template does before any server warms: torch's own pool then never starts
torch.manual_seed(3); numpy.random.seed(4); random.seed(5)
before = state()
threads = len(os.listdir("/proc/self/task"))
warm_up()
after = state()
print(json.dumps({k: before[k] == after[k] for k in before}))
print("figure", plt.figure().number)
print("threads", threads, len(os.listdir("/proc/self/task")))
"""

_NOTHING_MORE = r"""
import sys
from autograder.graders.weight_tying.runner.warm import warm_up
warm_up()
print(sorted(m for m in ("matplotlib", "matplotlib.pyplot", "dnnlpy.tokenizers") if m in sys.modules))
"""


def _python(code: str) -> list[str]:
    env = {**os.environ, "MPLBACKEND": "Agg", "MPLCONFIGDIR": os.path.join(os.environ.get("TMPDIR", "/tmp"), "wt-mpl")}
    env.pop("TOKENIZERS_PARALLELISM", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


def test_the_warm_up_leaves_the_process_as_it_found_it():
    same, figure, threads = _python(_AS_FOUND)
    assert json.loads(same) == dict.fromkeys(("torch", "numpy", "python", "environ", "figures", "filters"), True)
    assert figure == "figure 1"  # numbering starts afresh: every warm-up figure is closed
    # no thread started (the tokenizer's pool would be): a fork keeps only the forking thread
    assert threads.split()[1] == threads.split()[2], threads


def test_the_warm_up_imports_nothing_the_server_did_not():
    assert _python(_NOTHING_MORE) == ["[]"]


def test_a_fork_server_calls_the_graders_warm_up_before_it_is_ready():
    zygote = Zygote(("autograder.runner.__main__",), warm_up=f"{SPEC.runner_package}.warm:no_such_warm_up")
    try:
        with pytest.raises(Exception, match="no_such_warm_up"):
            zygote.wait_ready(timeout=120)
    finally:
        zygote.close()


@pytest.mark.parametrize("value", ["os:system", f"{SPEC.runner_package}.warm", "autograder.graders.kit:warm_up"])
def test_a_warm_up_outside_the_runner_package_is_refused_by_name(value):
    with pytest.raises(ValueError, match=f"warm_up={value!r}.*{SPEC.runner_package}"):
        dataclasses.replace(SPEC, warm_up=value)


_NOTEBOOK_TRAINS = r"""
import contextlib, io, json, sys
import dnnlpy.tokenizers
from dnnlpy.tokenizers import bpe
from autograder.graders.weight_tying.runner.warm import warm_up

warm_up()
made = []
real = bpe.trainers.BpeTrainer
bpe.trainers.BpeTrainer = lambda **settings: made.append(1) or real(**settings)
for path in sys.argv[1:]:
    cells = json.load(open(path, encoding="utf-8"))["cells"]
    source = next("".join(c["source"]) for c in cells if "train_from_iterator" in "".join(c["source"]))
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()):  # what the cell prints
        exec(source, namespace)
    print(path, namespace["tokenizer"].vocab_size, len(made))
"""


def test_the_notebooks_tokenizer_cell_reads_what_the_warm_up_trained():
    # Both editions' cell trains on what the warm-up trained on: a run's cell then trains nothing (a copy of the
    # warm-up's tokenizer, ~0.1 ms instead of ~12). A notebook that trained otherwise would count one here.
    from autograder.graders.kit import COURSE_DIR

    editions = ("weight_tying", "weight_tying_zh")
    notebooks = [str(COURSE_DIR / "source" / name / "weight_tying.ipynb") for name in editions]
    command = [sys.executable, "-c", _NOTEBOOK_TRAINS, *notebooks]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert [line.split()[1:] for line in done.stdout.splitlines()] == [["300", "0"], ["300", "0"]]
