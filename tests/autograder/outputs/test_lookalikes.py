"""Names drawn alike ("аlice" in Cyrillic beside "alice") are flagged in grades.csv and the report, never merged."""

from __future__ import annotations

import csv
import json

from autograder.outputs.classview import load_class
from autograder.outputs.lookalikes import lookalikes, skeleton
from autograder.outputs.report import write_report


def test_names_a_reader_cannot_tell_apart_share_a_skeleton_and_others_do_not():
    latin = "alice"
    for twin in ("\u0430lice", "ALICE", "a\u200blice", "\uff41\uff4c\uff49\uff43\uff45", "\u0410LICE", "\u03b1lice"):
        assert skeleton(twin) == skeleton(latin), twin
    assert skeleton("b0b") == skeleton("bob") and skeleton("corn") == skeleton("com")
    for other in ("alicia", "josé", "张伟", "bobby"):
        assert skeleton(other) != skeleton(latin if other != "bobby" else "bob")
    assert lookalikes(["alice", "\u0430lice", "bob", "carol"]) == {"alice": ["\u0430lice"], "\u0430lice": ["alice"]}


def test_look_alikes_are_flagged_in_grades_csv_and_under_needs_a_look(batch_folder, area_result):
    out = batch_folder({"alice": area_result(), "\u0430lice": area_result(), "bob": area_result()})
    manifest = json.loads((out / "manifest.json").read_text())
    bob = next(s for s in manifest["students"] if s["name"] == "bob")
    bob["note"] = "also in the folder, not graded: zz_attempt2.ipynb"  # as the roster writes it
    (out / "manifest.json").write_text(json.dumps(manifest))
    from autograder.outputs.grades import write_grades

    rows = {r["student"]: r for r in csv.DictReader(write_grades(out, load_class(out).rows).open(encoding="utf-8"))}
    assert rows["alice"]["confusable_with"] == "\u0430lice" and rows["\u0430lice"]["confusable_with"] == "alice"
    assert rows["bob"]["confusable_with"] == "" and "zz_attempt2.ipynb" in rows["bob"]["note"]
    page = write_report(out).read_text(encoding="utf-8")
    attention = page[page.index("<h2>Needs a look") : page.index("<h2>Class summary")]
    assert "look-alike name" in attention and "\u0430lice" in attention
    assert "other files in the folder" in attention and ">bob<" in attention
