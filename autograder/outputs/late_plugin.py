"""Trusted: a late policy for nbgrader's config: P points off per hour late, or part of one.

nbgrader's own ``LateSubmissionPlugin`` knows ``none`` and ``zero``; its documentation asks for a plugin class to
take points off per hour. This is that class, so that the course's ``nbgrader_config.py`` states one policy for
the kit's ``grade`` and for nbgrader's ``autograde`` alike::

    c.AssignLatePenalties.plugin_class = "autograder.outputs.late_plugin.PerHourPenalty"
    c.PerHourPenalty.points_per_hour = 5

(``--late-penalty 5/hour`` on the command line is the same rule: ``lateness.per_hour``.)
"""

from __future__ import annotations

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float

from autograder.outputs.lateness import per_hour

__all__ = ["PerHourPenalty"]


class PerHourPenalty(LateSubmissionPlugin):
    """``points_per_hour`` off for each hour late or part of one (nbgrader keeps the total within the score)."""

    points_per_hour = Float(0.0, help="Points taken off for each hour late, or part of one").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        return per_hour(self.points_per_hour, total_seconds_late)
