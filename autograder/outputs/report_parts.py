"""Trusted: the class report's analysis sections: charts, pass rates per area and per test, misconceptions,
and the slowest submissions. Each function takes a ``ClassView`` and returns an HTML fragment.

Pass rates and misconceptions count judged submissions only (blank and unreadable ones are counted apart).
Charts are PNGs drawn with matplotlib's Agg renderer (no pyplot global state) and embedded as base64.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict

from autograder.outputs.classview import ClassView, Row, misconception_of, raised_type
from autograder.outputs.html import bar, escape, img, number, png, table
from autograder.outputs.wording import clean_message, readable_test

__all__ = ["charts", "area_rates", "test_rates", "misconceptions", "slowest", "student_link"]

_EXAMPLES = 3  # students named per misconception
_SLOWEST = 10


def student_link(row: Row) -> str:
    return f'<a href="{escape(row.feedback_href)}">{escape(row.name)}</a>'


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


# ---------------------------------------------------------------- charts


def _histogram(scores: list[float], top: float) -> str:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(5.5, 3.2))
    ax = fig.subplots()
    ax.hist(scores, bins=min(20, max(5, len(scores))), range=(0, top or 1), color="#4477aa", edgecolor="white")
    ax.set_xlabel(f"score (points out of {number(top)})")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("students")
    ax.set_title("Score distribution (judged submissions)")
    return png(fig)


def _area_chart(means: dict[str, float]) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 0.8 + 0.45 * len(means)))
    ax = fig.subplots()
    names = list(means)[::-1]  # barh draws bottom-up; keep the table's order top-down
    ax.barh(names, [means[n] for n in names], color="#66aa55")
    ax.set_xlim(0, 100)
    ax.set_xlabel("mean % of the area's points")
    ax.set_title("Mean score per area")
    return png(fig)


def _area_means(view: ClassView) -> dict[str, float]:
    sums: dict[str, list[float]] = defaultdict(list)
    for row in view.judged:
        for area, (got, total) in row.result.areas.items():
            if total > 0:
                sums[area].append(100 * got / total)
    return {area: statistics.fmean(values) for area, values in sums.items()}


def charts(view: ClassView) -> str:
    judged = view.judged
    parts = []
    if judged:
        top = max(r.result.max_score for r in judged)
        parts.append(img("histogram of scores", _histogram([r.result.score for r in judged], top)))
    means = _area_means(view)
    if means:
        parts.append(img("mean percent per area", _area_chart(means)))
    return f'<div class="charts">{"".join(parts)}</div>' if parts else ""


# ---------------------------------------------------------------- pass rates


def area_rates(view: ClassView) -> str:
    judged = view.judged
    if not judged:
        return "<p>No judged submissions.</p>"
    means = _area_means(view)
    rows = []
    for area, mean in means.items():
        full = sum(1 for r in judged if area in r.result.areas and r.result.areas[area][0] >= r.result.areas[area][1])
        total = max(r.result.areas.get(area, (0, 0))[1] for r in judged)
        rows.append(
            f'<tr><td>{escape(area)}</td><td class="num">{number(total)}</td><td class="num">{mean:.1f}%</td>'
            f'<td>{bar(mean / 100)}</td><td class="num">{full} of {len(judged)} ({_pct(full, len(judged))})</td></tr>'
        )
    return table(["area", "points", "mean", "", "full marks"], rows, numeric=(1, 2, 4))


def test_rates(view: ClassView) -> str:
    """Every test with its pass rate among judged submissions, the least passed first."""
    passed: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    info: dict[str, tuple[str, float]] = {}
    for row in view.judged:
        for test in row.result.tests:
            seen[test.name] += 1
            passed[test.name] += test.passed
            info.setdefault(test.name, (test.area, test.points))
    if not seen:
        return "<p>No judged submissions.</p>"
    rows = []
    for name in sorted(seen, key=lambda n: (passed[n] / seen[n], info[n][0], n)):
        rate = passed[name] / seen[name]
        rows.append(
            f"<tr><td>{escape(readable_test(name))}</td><td>{escape(info[name][0])}</td>"
            f'<td class="num">{number(info[name][1])}</td><td class="num">{rate * 100:.0f}%</td><td>{bar(rate)}</td>'
            f'<td class="num">{seen[name] - passed[name]}</td></tr>'
        )
    return table(["test", "area", "points", "passed", "", "students failing"], rows, numeric=(2, 3, 5))


# ---------------------------------------------------------------- misconceptions


def _student_misconceptions(row: Row, keywords: list[str]) -> dict[str, tuple[str, set[str]]]:
    """name -> (a message showing it, the tests that showed it) for one student.

    A message naming several keywords ("copied table, untied head or .data sharing") is split evenly
    between them; a keyword is kept when it carries at least one test's worth of evidence, or as much as
    the best one. Failures no keyword names are filed under the exception the code raised, else under
    their test, and only for a student with no named misconception (otherwise they are its consequences).
    """
    weight: dict[str, float] = defaultdict(float)
    sample: dict[str, str] = {}
    tests: dict[str, set[str]] = defaultdict(set)
    unnamed: dict[str, tuple[str, set[str]]] = {}
    for test in row.result.failing():
        message = clean_message(test.output)
        names = misconception_of(message, keywords)
        if not names:
            raised = raised_type(message)
            name = f"your code raised {raised}" if raised else f"fails “{readable_test(test.name)}” (unnamed)"
            unnamed.setdefault(name, (message, set()))[1].add(readable_test(test.name))
            continue
        for name in names:
            weight[name] += 1 / len(names)
            sample.setdefault(name, message)
            tests[name].add(readable_test(test.name))
    if not weight:
        return unnamed
    best = max(weight.values())
    return {n: (sample[n], tests[n]) for n, w in weight.items() if w >= min(1.0, best) - 1e-9}


def misconceptions(view: ClassView, keywords: list[str]) -> str:
    """Misconceptions ranked by how many judged students show them, with a sample message and examples."""
    students: dict[str, list[Row]] = defaultdict(list)
    sample: dict[str, str] = {}
    tests: dict[str, set[str]] = defaultdict(set)
    for row in view.judged:
        for name, (message, named_by) in _student_misconceptions(row, keywords).items():
            students[name].append(row)
            sample.setdefault(name, message)
            tests[name] |= named_by
    if not students:
        return "<p>No failing tests among graded submissions.</p>"
    rows = []
    for name in sorted(students, key=lambda n: (-len(students[n]), n)):
        who = students[name]
        examples = ", ".join(student_link(r) for r in who[:_EXAMPLES]) + (" …" if len(who) > _EXAMPLES else "")
        message = sample[name] if len(sample[name]) <= 400 else sample[name][:400] + " …"
        rows.append(
            f'<tr><td><b>{escape(name)}</b></td><td class="num">{len(who)}</td><td>{examples}</td>'
            f'<td><p class="msg">{escape(message)}</p><small>{escape(", ".join(sorted(tests[name])[:6]))}'
            f"</small></td></tr>"
        )
    header = ["misconception", "students", "for example", "sample message (and the tests that fail)"]
    return table(header, rows, numeric=(1,))


def slowest(view: ClassView) -> str:
    timed = [r for r in view.rows if r.result is not None and r.result.execution_time > 0]
    if not timed:
        return "<p>No timings recorded.</p>"
    timed.sort(key=lambda r: -r.result.execution_time)
    rows = [
        f'<tr><td>{student_link(r)}</td><td class="num">{r.result.execution_time:.1f} s</td>'
        f"<td>{escape(r.result.status)}</td></tr>"
        for r in timed[:_SLOWEST]
    ]
    median = statistics.median(r.result.execution_time for r in timed)
    return f"<p>Median {median:.1f} s per submission; a submission near the time limit is worth a look.</p>" + table(
        ["student", "grading time", "status"], rows, numeric=(1,)
    )
