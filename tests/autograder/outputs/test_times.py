"""An instructor's times and durations, read strictly: an IANA zone or an offset read right (summer time
included), a misspelt zone or a local time the clocks skip or show twice refused by name, never taken as UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from autograder.outputs.times import parse_due, parse_duration, shown_duration


@pytest.mark.parametrize(
    "text, utc",
    [
        ("2026-12-01 23:59 Europe/Berlin", datetime(2026, 12, 1, 22, 59, tzinfo=UTC)),  # winter: +01:00
        ("2026-05-04 23:59 Europe/Berlin", datetime(2026, 5, 4, 21, 59, tzinfo=UTC)),  # summer: +02:00
        ("2026-12-01 23:59 +01:00", datetime(2026, 12, 1, 22, 59, tzinfo=UTC)),
        ("2026-12-01 23:59 -0530", datetime(2026, 12, 2, 5, 29, tzinfo=UTC)),  # nbgrader's reading: -530 seconds
        ("2026-12-01 23:59 +01", datetime(2026, 12, 1, 22, 59, tzinfo=UTC)),
        ("2026-12-01 23:59 UTC", datetime(2026, 12, 1, 23, 59, tzinfo=UTC)),
        ("2026-12-01 23:59:30", datetime(2026, 12, 1, 23, 59, 30, tzinfo=UTC)),  # no zone: UTC, as documented
        ("2026-12-01T23:59+01:00", datetime(2026, 12, 1, 22, 59, tzinfo=UTC)),
        ("2026-12-01T23:59:00Z", datetime(2026, 12, 1, 23, 59, tzinfo=UTC)),
        ("2026-11-20  12:00   America/New_York", datetime(2026, 11, 20, 17, 0, tzinfo=UTC)),
    ],
)
def test_a_due_date_reads_its_zone_or_offset_right(text, utc):
    assert parse_due(text) == utc


@pytest.mark.parametrize(
    "text, named",
    [
        ("2026-12-01 23:59 Berlin", "'Berlin' is not a time zone (did you mean Europe/Berlin?)"),
        ("2026-12-01 23:59 Europe/Berln", "'Europe/Berln' is not a time zone (did you mean Europe/Berlin"),
        ("2026-12-01 23:59 europe/berlin", "did you mean Europe/Berlin?"),
        ("2026-12-01 23:59 Mars/Olympus", "'Mars/Olympus' is not a time zone;"),
        ("2026-12-01 23:59 +25:00", "the offset '+25:00' is not one a clock has"),
        ("next friday", "--due 'next friday' is not a date and time"),
        ("2026-12-01T23:59+01:00 Europe/Berlin", "gives two zones"),
        ("2026-03-29 02:30 Europe/Berlin", "02:30 never shows on that date in Europe/Berlin"),
        ("2026-10-25 02:30 Europe/Berlin", "shows twice on that date in Europe/Berlin (the clocks go back): give the "),
    ],
)
def test_a_zone_the_kit_cannot_read_stops_naming_the_value_and_the_forms(text, named):
    with pytest.raises(ValueError) as caught:
        parse_due(text)
    said = str(caught.value)
    assert named in said and repr(text) in said
    if "never" not in said and "twice" not in said:
        assert "'2026-05-04 23:59 Europe/Berlin', '2026-05-04 23:59 +02:00'" in said  # the forms it takes


@pytest.mark.parametrize(
    "text, delta",
    [
        ("2d", timedelta(days=2)),
        ("36h", timedelta(hours=36)),
        ("1d12h", timedelta(days=1, hours=12)),
        ("1d 2h 30min", timedelta(days=1, hours=2, minutes=30)),
        ("90min", timedelta(minutes=90)),
        ("1.5 days", timedelta(hours=36)),
        ("1w", timedelta(weeks=1)),
        ("0", timedelta(0)),
    ],
)
def test_a_duration_is_numbers_with_units(text, delta):
    assert parse_duration(text) == delta


@pytest.mark.parametrize("text", ["2", "-1d", "two days", "1d2", "", "400d"])
def test_a_duration_without_a_unit_or_past_a_year_is_refused_by_name(text):
    with pytest.raises(ValueError, match=f"{text!r} is not a duration.*2d, 36h, 1d12h"):
        parse_duration(text)


def test_a_duration_is_shown_to_the_second():
    assert shown_duration(2 * 86400 + 3600 + 61) == "2 d 1 h 1 min 1 s"
    assert shown_duration(0) == "0 s"
