"""Limits: sizes in words, validation that names the value and the fix."""

from __future__ import annotations

import pytest

from autograder.sandbox.limits import GiB, Limits, isolation_for, parse_size


def test_parse_size_and_limits_validation():
    assert parse_size("2GiB") == 2 * GiB and parse_size("512MiB") == 512 << 20 and parse_size(4096) == 4096
    with pytest.raises(ValueError, match="'two gigs'"):
        parse_size("two gigs")
    with pytest.raises(ValueError, match="wall_seconds"):
        Limits(wall_seconds=0)
    with pytest.raises(ValueError, match="256 MiB"):
        Limits(memory_bytes=1 << 20)


def test_every_mode_says_what_it_does_not_enforce():
    assert isolation_for("namespaces").not_enforced == ()
    assert any("setsid" in item for item in isolation_for("rlimits").not_enforced)
    with pytest.raises(ValueError, match="'jail'"):
        isolation_for("jail")
