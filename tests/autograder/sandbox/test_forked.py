"""A run forked from the warm zygote ends as a fresh interpreter ends (``forked.exit_steps``): it waits for the
submission's threads and runs its exit handlers, through two private functions of the standard library,
``threading._shutdown`` and ``atexit._run_exitfuncs``. Each is held here to what a fresh interpreter does with the
same script, so a Python whose private functions change behaviour fails here, not in a class's marks."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap

import pytest

# What a submission may leave running or registered when its last line has run. The thread prints after the main
# module has ended; the executor is left open, its idle worker a non-daemon thread that only interpreter exit's
# own hook (``threading._register_atexit``, run by ``threading._shutdown``) lets go; the handlers run last
# registered first, and one that raises is reported without stopping the others.
SCRIPT = textwrap.dedent(
    """
    import atexit, concurrent.futures, threading, time

    def late():
        time.sleep(0.3)
        print("thread done", flush=True)

    threading.Thread(target=late).start()
    executor = concurrent.futures.ThreadPoolExecutor(1)
    executor.submit(print, "task done", flush=True).result()
    atexit.register(print, "registered first, run last", flush=True)
    atexit.register(lambda: 1 / 0)
    atexit.register(print, "registered last, run first", flush=True)
    print("main done", flush=True)
    """
)

# The same script in a forked child, as the zygote runs a submission: then the exit steps, then os._exit.
FORKED = f"""
import os, sys
pid = os.fork()
if pid == 0:
    exec(compile({SCRIPT!r}, "<string>", "exec"), {{"__name__": "__main__"}})
    from autograder.sandbox.forked import exit_steps
    exit_steps()
    os._exit(0)
os.waitpid(pid, 0)
"""


def _ended(code: str) -> tuple[str, str]:
    """(stdout, stderr) of `code` run to its end; a run that hangs is killed with its forked child."""
    with subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as run:
        try:
            out, err = run.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # an executor's idle worker never let go: its hook did not run
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
            pytest.fail("the script did not end within 60 s: a thread was never let go")
    assert run.returncode == 0, err[-2000:]
    return out, re.sub(r" at 0x[0-9a-f]+", "", err)  # a function's address differs run to run


def test_a_forked_run_ends_as_a_fresh_interpreter_ends():
    fresh = _ended(SCRIPT)
    assert fresh[0].split("\n") == [  # the script does what this test says it does, in a fresh interpreter
        "task done",
        "main done",
        "thread done",
        "registered last, run first",
        "registered first, run last",
        "",
    ]
    assert "ZeroDivisionError" in fresh[1]
    assert _ended(FORKED) == fresh
