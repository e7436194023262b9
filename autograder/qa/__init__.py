"""Trusted: the grader's own quality checks: the calibration corpus (``calibrate``), the seed sweep
(``sweep``, fast ``inprocess`` grading), and mutation testing (``mutants``, ``mutation_score``)."""
