"""autograder.protocol.said on the wire: a message's parameters come back as they went, text as text."""

from __future__ import annotations

import json

from autograder.graders.weight_tying import messages  # noqa: F401 - registers the catalog the messages below are in
from autograder.grading import catalog  # noqa: F401 - registers the engine's catalog
from autograder.grading.findings import Finding, named_in
from autograder.protocol.said import Said, from_wire, render


def test_a_text_parameter_that_spells_a_message_id_stays_text():
    """What a student's code raised is a parameter: spelling a catalog id there makes it no message, so it can
    name no misconception and renders as the words it is."""
    raised = Said("judge.failed_your_code_raised", what="loss", text="diag.tie.copied")
    back = from_wire(json.loads(json.dumps(raised.to_wire())))
    assert back.params["text"] == "diag.tie.copied" and isinstance(back.params["text"], str)
    assert named_in(back) is None
    assert "diag.tie.copied" in render(back, "en")
    assert Finding.from_wire(Finding(back).to_wire()).kind == "plain"


def test_a_nested_message_comes_back_a_message():
    said = Said("judge.what_problem", what="x", problem=Said("diag.tie.copied"))
    back = from_wire(json.loads(json.dumps(said.to_wire())))
    assert isinstance(back.params["problem"], Said) and named_in(back) == "two_tables"
