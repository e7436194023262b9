"""Trusted: the times and durations an instructor writes (``--due``, an extension), read strictly.

A due date read wrong moves every late mark, so a zone is either one the kit knows or the command stops::

    2026-05-04 23:59 Europe/Berlin     a date and time, then an IANA zone (its summer time included)
    2026-05-04 23:59 +02:00            ... or an offset from UTC (+02, +0200 and -05:30 too)
    2026-05-04 23:59 UTC               ... or UTC (Z, GMT); with nothing after the time: UTC
    2026-05-04T23:59:00+02:00          ISO 8601

``Berlin`` or ``Europe/Berln`` is refused, naming the value, the forms above and the zones it may have meant;
so is a local time that a zone's clocks skip or pass twice (the change to and from summer time). nbgrader's
own reading (``grading.handins.parse_stamp``) is kept for the ``timestamp.txt`` files nbgrader writes.

A duration (an extension) is a number and a unit, one or more: ``2d``, ``36h``, ``1d12h``, ``90min``, ``1.5 days``.
"""

from __future__ import annotations

import difflib
import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo

__all__ = ["parse_due", "parse_duration", "DUE_FORMS", "DURATION_FORMS", "shown_duration"]

DUE_FORMS = (
    "give a date and time, then an IANA zone or an offset: '2026-05-04 23:59 Europe/Berlin', "
    "'2026-05-04 23:59 +02:00', '2026-05-04 23:59 UTC' (no zone: UTC) or ISO 8601 '2026-05-04T23:59+02:00'"
)
DURATION_FORMS = "give a number and a unit (w, d, h, min, s), one or more: 2d, 36h, 1d12h, 90min, 1.5 days"
_OFFSET = re.compile(r"([+-])(\d{2}):?(\d{2})?")
_UTC = {"UTC", "Z", "GMT", "UT"}
_UNITS = {
    "w": 604800, "week": 604800, "weeks": 604800,
    "d": 86400, "day": 86400, "days": 86400,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
}  # fmt: skip
_PART = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*")


def _zone(name: str, text: str) -> tzinfo:
    """The zone `name` stands for: UTC, an offset or an IANA zone; ValueError naming `text` otherwise."""
    if name.upper() in _UTC:
        return UTC
    offset = _OFFSET.fullmatch(name)
    if offset:
        sign, hours, minutes = offset.group(1), int(offset.group(2)), int(offset.group(3) or 0)
        if hours > 23 or minutes > 59:
            raise ValueError(f"--due {text!r}: the offset {name!r} is not one a clock has; {DUE_FORMS}")
        delta = timedelta(hours=hours, minutes=minutes)
        return timezone(-delta if sign == "-" else delta)
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        known = available_timezones()
        if not known:
            raise ValueError(
                f"--due {text!r}: this machine has no time zone database to read {name!r} with (pip install "
                "tzdata), or give the offset instead, e.g. '2026-05-04 23:59 +02:00'"
            ) from None
        by_city = sorted(z for z in known if name.lower() in (z.lower(), z.rsplit("/", 1)[-1].lower()))
        close = by_city or difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.75)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise ValueError(f"--due {text!r}: {name!r} is not a time zone{hint}; {DUE_FORMS}") from None


def _local(moment: datetime, zone: tzinfo, text: str) -> datetime:
    """`moment` (naive) on the clocks of `zone`; ValueError when those clocks skip it or show it twice."""
    first, second = moment.replace(tzinfo=zone, fold=0), moment.replace(tzinfo=zone, fold=1)
    if first.utcoffset() != second.utcoffset():
        back = first.astimezone(UTC).astimezone(zone).replace(tzinfo=None)
        if back != moment:
            raise ValueError(
                f"--due {text!r}: {moment:%H:%M} never shows on that date in {zone} (the clocks skip it for "
                "summer time): give the time meant with its offset, e.g. '... +01:00'"
            )
        offsets = " or ".join(_offset(one.utcoffset()) for one in (first, second))
        raise ValueError(
            f"--due {text!r}: {moment:%H:%M} shows twice on that date in {zone} (the clocks go back): give the "
            f"offset meant, {offsets}"
        )
    return first


def _offset(delta: timedelta | None) -> str:
    minutes = int((delta or timedelta(0)).total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def parse_due(text: str) -> datetime:
    """An instructor's due date (the forms in the module's docstring) as an aware UTC time; ValueError naming
    `text`, the forms it takes and, for a misspelt zone, the zones it may have meant."""
    value = " ".join(str(text).split())
    try:
        moment = datetime.fromisoformat(value)
        zone: tzinfo | None = None
    except ValueError:
        head, _, name = value.rpartition(" ")
        try:
            moment = datetime.fromisoformat(head)
        except ValueError:
            raise ValueError(f"--due {text!r} is not a date and time; {DUE_FORMS}") from None
        if moment.tzinfo is not None:
            raise ValueError(f"--due {text!r} gives two zones; {DUE_FORMS}") from None
        zone = _zone(name, text)
    if moment.tzinfo is None:
        moment = _local(moment, zone or UTC, text)
    return moment.astimezone(UTC)


def parse_duration(text: str) -> timedelta:
    """An instructor's duration (``2d``, ``36h``, ``1d12h``, ``90min``): ValueError naming `text` and the forms."""
    value = str(text).strip().lower()
    if value == "0":  # no extension
        return timedelta(0)
    total, at = 0.0, 0
    while at < len(value):
        part = _PART.match(value, at)
        if part is None or part.group(2) not in _UNITS:
            raise ValueError(f"{text!r} is not a duration: {DURATION_FORMS}")
        total += float(part.group(1)) * _UNITS[part.group(2)]
        at = part.end()
    if not value or total > 366 * 86400:
        raise ValueError(f"{text!r} is not a duration (at most a year): {DURATION_FORMS}")
    return timedelta(seconds=total)


def shown_duration(seconds: float) -> str:
    """'2 d 12 h', '90 min', '0 s': a duration as the messages show it, to the second."""
    left, parts = int(round(seconds)), []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        if left >= size:
            parts.append(f"{left // size} {unit}")
            left %= size
    return " ".join(parts) or "0 s"
