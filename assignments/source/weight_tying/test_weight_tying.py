"""Public self-check for the weight-tying assignment: run `pytest` in this folder.

First, that every cell ran within the self-check's time budget; then one test per check of weight_tying_checks
(the checks the notebook's practice cells run too), in the order the notebook teaches them. A failing test
names the misconception and the notebook section to reread; a test that needs an earlier one to pass first is
reported as not checked yet, so one mistake is reported once. The graded suite is larger and hidden (see the
summary at the end of the run).
"""

from __future__ import annotations

from weight_tying_checks import SELF_CHECK

from coursecheck.plugin import as_tests

globals().update(as_tests(SELF_CHECK))
