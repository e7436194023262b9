"""dnnlpy's property tests under each of torch's CPU kernels that this machine can run.

torch chooses its vectorised kernels once, when it is imported, by the instruction sets of the CPU; the
environment variable ATEN_CPU_CAPABILITY forces a lower one (on x86-64: default, avx2, avx512). A student's
or a TA's machine may run any of them, and torch's answers at the float limits differ between them, so the
float-limit contract and the comparisons with torch must hold under each. Each capability runs the property
files in a process of its own, with fewer cases than the run under this machine's own kernel.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
PROPERTY_FILES = ("test_nn_float_limits.py", "test_nn_functional_properties.py", "test_nn_attention_properties.py")
EXAMPLES = 25  # cases a test draws under each capability (the run under this machine's own kernel draws 200)
# What torch needs of the CPU for each capability beyond the default (aten/src/ATen/cpu/Utils.cpp)
NEEDS = {"avx2": {"avx2", "fma"}, "avx512": {"avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"}}


def offered() -> list[str]:
    """The capabilities this CPU can run: default always, and those whose instruction sets /proc/cpuinfo lists."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ["default"]
    flags = next((set(line.split(":", 1)[1].split()) for line in text.splitlines() if line.startswith("flags")), set())
    return ["default", *(name for name, needs in NEEDS.items() if needs <= flags)]


@pytest.mark.parametrize("capability", offered())
def test_the_property_tests_pass_under_each_cpu_kernel(capability, request):
    seed = request.config.getoption("hypothesis_seed", None)  # DNNLPY_HYPOTHESIS=random with a seed: the same one
    env = {
        **os.environ,
        "ATEN_CPU_CAPABILITY": capability,
        "DNNLPY_HYPOTHESIS_EXAMPLES": str(EXAMPLES),
        "OMP_NUM_THREADS": "1",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *PROPERTY_FILES, "-p", "no:cacheprovider", "-p", "no:xdist"]
        + ([f"--hypothesis-seed={seed}"] if seed is not None else []),
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    said = proc.stdout[-4000:] + proc.stderr[-2000:]
    assert f"torch CPU capability: {capability.upper()}" in proc.stdout, said  # the kernel asked for ran
    assert proc.returncode == 0, said
