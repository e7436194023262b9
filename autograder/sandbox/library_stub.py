"""Untrusted: the source of ``dnnlpy._withheld`` in a graded run's copy of dnnlpy (``sandbox.library`` copies it
there): what a function the grader withholds does instead of its work.

A grader withholds the part of the library its exercise asks students to write (weight_tying: the decoder,
``MiniGPT.generate`` and ``dnnlpy.models.sampling``). In the copy every graded run imports, each withheld
function keeps its name and parameters, and its body is ``withheld(name)``: the call is added to ``REACHED``
and raises ``NotAvailableWhileGrading``. While a grader's check calls the student's code (``checking``), a
withheld function reached on another thread also raises that exception in the check's own thread: handing the
work to a thread ends the call as handing it over directly does, instead of leaving the call waiting for a
thread that died.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Iterator

__all__ = ["NotAvailableWhileGrading", "REACHED", "withheld", "checking"]

REACHED: list[str] = []  # the withheld functions called in this process, in call order
_CHECKING: list[int] = []  # the threads of the grader's checks that are calling student code now


class NotAvailableWhileGrading(RuntimeError):
    """A function of dnnlpy that the grader withholds was called while grading."""


def withheld(name: str):
    REACHED.append(name)
    check = _CHECKING[-1] if _CHECKING else None
    if check is not None and check != threading.get_ident():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(check), ctypes.py_object(NotAvailableWhileGrading))
    raise NotAvailableWhileGrading(
        f"{name} is not available while grading: the grader runs your own code for this exercise, so write the "
        "loop yourself (at home the library's version still runs)"
    )


@contextlib.contextmanager
def checking() -> Iterator[None]:
    """The calling thread is a grader's check calling student code, for the time of the block."""
    _CHECKING.append(threading.get_ident())
    try:
        yield
    finally:
        _CHECKING.pop()
