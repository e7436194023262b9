"""Untrusted: load one submission and run its grader's experiments on it, writing evidence frames.

Started inside the sandbox as ``python -m autograder.runner EVIDENCE_FD``. Reads the job (one ``torch.save``
blob) from stdin, so it never opens the submission or any grader file, and writes evidence frames to
EVIDENCE_FD (see ``autograder.protocol.frames``). Student code shares this process and may forge or break
anything here; the judge trusts none of it beyond plain, re-checked data.
"""

from __future__ import annotations

import importlib
import io
import sys
import traceback

from autograder.protocol.frames import Done, ExperimentsError, FrameWriter, Load

__all__ = ["load_submission", "main"]


def load_submission(kind: str, source: str, filename: str):
    """Run the submission's code the way a kernel would; returns an object with .namespace and .errors."""
    from dnnlpy.notebook import exec_source, load_notebook

    if kind == "ipynb":
        try:
            return load_notebook(source)
        except (ValueError, TypeError) as exc:  # not a notebook at all: record it, define nothing
            return _Failed(f"{type(exc).__name__}: {exc}")
    return exec_source(source, filename)


class _Failed:
    def __init__(self, message: str) -> None:
        self.namespace: dict = {}
        self.errors = [(0, message)]


def _errors(result) -> list[list]:
    out = []
    for item in list(getattr(result, "errors", []))[:50]:
        try:
            index, message = item
        except (TypeError, ValueError):
            index, message = -1, item
        out.append([int(index) if isinstance(index, int) else -1, str(message)[:2000]])
    return out


def _resolve(target: str):
    module_name, _, func_name = target.partition(":")
    if not module_name or not func_name:
        raise ValueError(f"experiments target {target!r} must look like 'package.module:function'")
    return getattr(importlib.import_module(module_name), func_name)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    emit = FrameWriter(int(args[0]))
    import torch

    torch.set_num_threads(1)  # one thread per submission: workers run side by side
    job = torch.load(io.BytesIO(sys.stdin.buffer.read()), weights_only=True)
    # Resolve before student code runs, so a submission cannot swap the experiments module.
    experiments = _resolve(job["experiments"])
    result = load_submission(job["kind"], job["source"], job["filename"])
    namespace = getattr(result, "namespace", {}) or {}
    defined = [n for n in job["required_names"] if n in namespace]
    emit(Load.NAME, Load.make(errors=_errors(result), defined=defined))
    try:
        experiments(namespace, job["plan"], emit)
    except Exception as exc:  # experiments should catch their own; report what escaped
        tail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        emit(ExperimentsError.NAME, ExperimentsError.make(error=tail[:2000]))
    emit(Done.NAME, Done.make())
    return 0


if __name__ == "__main__":
    sys.exit(main())
