"""The dask cluster on the command line: its options in the grading commands' --help, refused without
``--executor dask``, and nothing of a cluster loaded by a command that grades on this machine: neither dask nor
distributed nor the kit's modules that reach a cluster, from the parser to the results."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from autograder.cli.main import main
from autograder.graders import get_assignment

SELFTEST = get_assignment("selftest")

# The steps named on its command line run in one fresh interpreter, in order; after each, the modules of a cluster
# that it left behind.
_STEPS = r"""
import contextlib, io, json, sys
from pathlib import Path
from autograder.cli.main import main
from autograder.grading.gradescope.run import main as run_autograder

def cluster_modules():
    return sorted(
        m for m in sys.modules
        if m.split(".")[0] in ("dask", "distributed")
        or m.startswith(("autograder.grading.pool.dask_", "autograder.grading.pool.on_dask"))
    )

def quiet(command, argv):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return command(argv)
        except SystemExit as exc:
            return exc.code

work = Path(sys.argv[1])
plus = str(work / "class" / "plus.py")
steps = {
    "grade --help": (main, ["grade", "--help"]),
    "grade FILE": (main, ["grade", "--assignment", "selftest", "--seed", "7", plus]),
    "grade CLASS": (main, ["grade", "--assignment", "selftest", "--seed", "7", str(work / "class"),
                           "--out", str(work / "out")]),
    "calibrate": (main, ["calibrate", "--assignment", "selftest", "--seed", "7",
                         "--calibration-dir", str(work / "corpus")]),
    "run_autograder": (run_autograder, ["--assignment", "selftest", "--root", str(work / "gs")]),
    # the probe sees what the dask executor loads: the check of its scheduler's address
    "--executor dask": (main, ["grade", "--assignment", "selftest", plus, "--executor", "dask",
                               "--scheduler", "tcp://127.0.0.1:1"]),
}
left = {}
for step in sys.argv[2:]:
    left[step] = (quiet(*steps[step]), cluster_modules())
print(json.dumps(left))
"""


def _left_after(work, *steps: str) -> dict[str, tuple[int, list[str]]]:
    """{step: (its exit status, the cluster's modules loaded after it)}, the steps run in order in one interpreter,
    on a class of a correct and a wrong file (also a calibration corpus, and an upload for Gradescope)."""
    corpus = SELFTEST.calibration_dir
    for kind, name in (("correct", "plus.py"), ("wrong", "minus.py")):
        (work / "corpus" / kind).mkdir(parents=True)
        shutil.copy(corpus / kind / name, work / "corpus" / kind / name)
    (work / "class").mkdir()
    (work / "gs" / "submission").mkdir(parents=True)
    for folder in (work / "class", work / "gs" / "submission"):
        shutil.copy(corpus / "correct" / "plus.py", folder / "plus.py")
    shutil.copy(corpus / "wrong" / "minus.py", work / "class" / "minus.py")
    run = subprocess.run(
        [sys.executable, "-c", _STEPS, str(work), *steps], capture_output=True, text=True, timeout=300, cwd="/"
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return {step: tuple(outcome) for step, outcome in json.loads(run.stdout.strip().splitlines()[-1]).items()}


def test_a_grade_on_this_machine_loads_nothing_of_a_dask_cluster(tmp_path):
    """From the parser to the result, `grade FILE` imports no dask, no distributed and none of the kit's modules
    that reach a cluster; asking for the dask executor is what loads them (here, the check of its address)."""
    left = _left_after(tmp_path, "grade --help", "grade FILE", "--executor dask")
    assert left["grade --help"] == (0, [])
    assert left["grade FILE"] == (0, [])
    status, loaded = left["--executor dask"]
    assert status == 2 and "autograder.grading.pool.dask_tls" in loaded  # plain TCP refused: bad arguments


@pytest.mark.e2e
def test_a_class_calibration_and_gradescope_load_nothing_of_a_dask_cluster(tmp_path):
    """A class with the default executor, `calibrate` and Gradescope's `run_autograder`, one after the other."""
    left = _left_after(tmp_path, "grade CLASS", "calibrate", "run_autograder")
    assert left == {"grade CLASS": (0, []), "calibrate": (0, []), "run_autograder": (0, [])}


def test_grade_and_calibrate_show_the_clusters_options_in_their_help(capsys):
    for command in ("grade", "calibrate"):
        with pytest.raises(SystemExit) as exc:
            main([command, "--help"])
        assert exc.value.code == 0
        text = capsys.readouterr().out
        assert "dask cluster (--executor dask)" in text, command
        for option in ("--scheduler ADDR", "--tls-dir DIR", "--tls-ca FILE", "--tls-cert FILE", "--tls-key FILE"):
            assert option in text, (command, option)
        assert "--insecure-plain-tcp" in text


@pytest.mark.parametrize(
    "extra, named",
    [
        (["--scheduler", "tls://10.0.0.5:8786"], "--scheduler"),
        (["--tls-dir", "certs", "--insecure-plain-tcp"], "--tls-dir, --insecure-plain-tcp"),
        (["--executor", "fresh", "--tls-key", "client.key"], "--tls-key"),
    ],
)
def test_a_clusters_option_without_the_dask_executor_is_refused_naming_it(extra, named, tmp_path, capsys):
    plus = tmp_path / "plus.py"
    plus.write_text("def add(a, b):\n    return a + b\n")
    assert main(["grade", "--assignment", "selftest", str(plus), *extra]) == 2
    err = capsys.readouterr().err
    assert f"error: {named}: the dask cluster's options go with --executor dask" in err, err
