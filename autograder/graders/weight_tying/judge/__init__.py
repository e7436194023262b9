"""Trusted: the weight_tying judge: plan, reference computations, diagnosis, hidden suite, calibration."""
