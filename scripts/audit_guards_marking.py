"""Trusted: the guarded behaviours of the marking rule and of findings as values (issue 44), each with the edit
that breaks it and the first-tier tests that kill it: the cap at a test's points, a knock-on free only behind a
misconception of its exercise charged at least its points, a charge of nothing freeing nothing, the budget once
per exercise, names read from ids never from words, and text parameters staying text on the wire.
``scripts/audit_guards.py`` adds them to the list ``scripts/audit_mutations.py`` runs.
"""

from __future__ import annotations

from audit_guards import Mutation

__all__ = ["MARKING"]

MARKING = (
    Mutation(
        "marking-cap-at-the-area",
        "an area's mark is never below 0: no test is charged beyond its points",
        "autograder/grading/marking.py",
        (("take = min(left.get(area, 0.0), room) if room > 0 else 0.0", "take = left.get(area, 0.0)"),),
        ("tests/autograder/grading/test_marking.py",),
    ),
    Mutation(
        "marking-knock-on-stays-in-its-exercise",
        "a knock-on is free only behind a charged misconception of its own exercise",
        "autograder/grading/marking.py",
        (
            (
                "if after is None or after in seen or self.exercise(after) != self.exercise(name):",
                "if after is None or after in seen:",
            ),
        ),
        ("tests/autograder/grading/test_marking.py",),
    ),
    Mutation(
        "marking-knock-on-free-only-behind-its-points",
        "a knock-on is free only behind a misconception charged at least its points",
        "autograder/grading/marking.py",
        (("causes = [m for m in causes if charged[m] >= points]", "causes = list(causes)"),),
        ("tests/autograder/grading/test_marking.py",),
    ),
    Mutation(
        "marking-a-charge-of-nothing-frees-nothing",
        "a misconception charged nothing frees nothing: its tests pay their own points",
        "autograder/grading/marking.py",
        (
            (
                "if not any(charged[root[s]] > 0 for s in shown(name)):\n                    taken[name] = {}",
                "if not any(charged[root[s]] > 0 for s in shown(name)):\n                    pass",
            ),
            ("if charged[m] > 0]", "]"),
        ),
        ("tests/autograder/grading/test_marking.py",),
    ),
    Mutation(
        "marking-budget-once-per-exercise",
        "a misconception's cost in an area is charged once per exercise, not once per test that shows it",
        "autograder/grading/marking.py",
        (("            left[area] -= take\n", "            pass\n"),),
        ("tests/autograder/grading/test_marking.py",),
    ),
    Mutation(
        "marking-names-from-ids-never-words",
        "a misconception is named by the message ids a finding holds, never by its English words",
        "autograder/grading/findings.py",
        (
            (
                "        names = catalog.message(part.key).names\n",
                '        english = catalog.render(said, "en")\n'
                "        names = next((m.names for m in catalog.registered().values()"
                ' if m.names and m.en.split("{")[0] in english), None)\n',
            ),
        ),
        ("tests/autograder/grading/test_marking.py",),
    ),
    Mutation(
        "said-parameters-stay-text",
        "a message's text parameter stays text on the wire, even when it spells a message id",
        "autograder/protocol/said.py",
        (
            (
                "said.params[name] = value if isinstance(value, str) else from_wire(value, depth + 1)",
                "said.params[name] = (Said(value) if value in _REGISTRY else value) if isinstance(value, str)"
                " else from_wire(value, depth + 1)",
            ),
        ),
        ("tests/autograder/protocol/test_said.py",),
    ),
)
