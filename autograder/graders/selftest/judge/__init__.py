"""Trusted: the toy grader's suite, solution and calibration files."""
