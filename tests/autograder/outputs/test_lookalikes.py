"""Names drawn alike ("аlice" in Cyrillic beside "alice") are flagged in grades.csv and the report, never merged."""

from __future__ import annotations

import csv
import json

from autograder.outputs.classview import load_class
from autograder.outputs.lookalikes import lookalikes, skeletons
from autograder.outputs.report import write_report

# Names a reader could take for the first of each row, whatever the script they are typed in: Cyrillic,
# Greek (the lunate sigma ϲ is a c), full width, capitals (case folded, as on a case-insensitive disk),
# invisible characters, digits drawn as letters, two letters drawn as one, and several scripts in one name.
TWINS = {
    "alice": [
        "\u0430lice",
        "ALICE",
        "a\u200blice",
        "\uff41\uff4c\uff49\uff43\uff45",
        "\u0410LICE",
        "\u03b1lice",
        "\u0251lice",
    ],
    "bob": ["\u042cob", "b0b", "BOB", "b\u043eb", "\u0432ob".upper()],
    "carol": ["\u03f2arol", "\u0441arol", "Carol", "\u03f9AROL", "car\u043el"],
    "paypal": ["\u0440\u0430ypal", "p\u0430yp\u0430l", "\uff50\uff41\uff59\uff50\uff41\uff4c"],
    "com": ["corn"],
    "lan": ["Ian", "\u0406an", "\u04c0an"],
    "eve": ["\u0435v\u0435", "\u0435ve", "EVE"],
}
# ... and names a reader tells apart from it.
OTHERS = {
    "alice": ["alicia", "alace", "josé", "张伟"],
    "bob": ["bobby", "rob"],
    "carol": ["karol"],
    "lan": ["ian", "jan"],
}


def test_names_a_reader_could_take_for_one_another_are_flagged_and_others_are_not():
    for name, twins in TWINS.items():
        for twin in twins:
            assert lookalikes([name, twin]) == {name: [twin], twin: [name]}, (name, twin, skeletons(twin))
        for other in OTHERS.get(name, []):
            assert lookalikes([name, other]) == {}, (name, other)
    assert lookalikes(["alice", "\u0430lice", "bob", "carol"]) == {"alice": ["\u0430lice"], "\u0430lice": ["alice"]}
    assert lookalikes(["alice", "alice"]) == {}  # one name twice is one student's, not a look-alike


def test_the_greek_lunate_sigma_reads_as_c_not_as_the_sigma_it_folds_to():
    """NFKC turns ϲ (lunate sigma) into σ, which is drawn as an o: the look-alike table must see ϲ first."""
    assert skeletons("\u03f2arol")[0] == skeletons("carol")[0]
    assert lookalikes(["\u03f2arol", "carol", "\u03c3arol"]) == {"\u03f2arol": ["carol"], "carol": ["\u03f2arol"]}


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
