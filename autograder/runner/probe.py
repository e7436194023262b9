"""Untrusted: a minimal sandbox payload, ``python -m autograder.runner.probe FD``.

Writes ``ok`` to the evidence fd (proof that Python starts in a sandbox mode), then runs the Python code it
was given on stdin, if any, with ``FD`` bound to the evidence fd. The sandbox's own tests use it to attack
the sandbox without the runner in between.
"""

import os
import sys

__all__: list[str] = []

if __name__ == "__main__":
    FD = int(sys.argv[1])
    os.write(FD, b"ok")
    code = sys.stdin.read()
    if code:
        exec(compile(code, "<probe>", "exec"), {"FD": FD, "__name__": "__probe__"})
