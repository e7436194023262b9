"""Self-check plumbing: loads your notebook (without its demonstration cells when it can), hands its classes to the
checks, and sums up the run.

By default it checks weight_tying.ipynb next to this file. To check another file (a copy of the notebook, or
a .py with the two classes):  WEIGHT_TYING_SUBMISSION=path/to/file.ipynb pytest
Messages follow this edition's language; WEIGHT_TYING_LANG=en or WEIGHT_TYING_LANG=zh chooses one.
Each cell and each check runs within a time budget, and so does the whole run (coursecheck/budget.py, in the
course's wheel); on a slow machine WEIGHT_TYING_SECONDS=240 pytest gives the run more (each cell and check a
quarter of it). What runs is the course's self-check for any assignment (coursecheck/plugin.py); what it checks
is weight_tying_checks/.
"""

from __future__ import annotations

import gc
from pathlib import Path

# torch's import makes hundreds of thousands of objects that live to the end of the run and no garbage worth
# collecting: the collector's full passes over them cost ~0.3-0.5 s of CPU, so it pauses while the checks'
# imports run, and what they made is then frozen out of its later passes (gc.freeze).
gc.disable()
try:
    from weight_tying_checks import SELF_CHECK

    from coursecheck.plugin import Run
finally:
    gc.enable()
gc.freeze()

RUN = Run(SELF_CHECK, Path(__file__).resolve().parent)  # the submission is found and run once, at configure time
pytest_configure = RUN.pytest_configure
pytest_report_header = RUN.pytest_report_header
pytest_terminal_summary = RUN.pytest_terminal_summary
checks = RUN.checks_fixture  # the checks' session on your classes: each check runs once
stopped = RUN.stopped_fixture  # the cells stopped at their time budget, named
