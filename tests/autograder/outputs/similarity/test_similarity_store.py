"""similarity.json: written whole, read back the same, anything else read as no pass; similar_to names the others."""

from __future__ import annotations

from autograder.outputs.similarity.store import SIMILARITY, Outcome, Pair, load, save, similar_to

PAIR = Pair("alice", "alice", "bob", "bob", False, 0.93, 0.88, 412, "similar/0123456789abcdef.html")
ARCHIVED = Pair("alice", "alice", "archive1-olga", "2025/olga", True, 0.7, 0.9, 300, "similar/fedcba9876543210.html")


def test_an_outcome_is_read_back_as_written(tmp_path):
    outcome = Outcome(threshold=0.55, archives=["/courses/2025"], hand_ins=3, archived=1, pairs=[PAIR, ARCHIVED])
    outcome.not_compared = [{"uid": "cy", "name": "cy", "problem": "empty", "detail": "nothing"}]
    outcome.alike_names = {"alice": ["аlice"]}
    save(tmp_path, outcome)
    assert load(tmp_path) == outcome


def test_a_file_that_is_not_one_of_ours_is_no_pass(tmp_path):
    assert load(tmp_path) is None
    for text in ("{", "[]", '{"format": 1}', '{"format": 2, "threshold": 0.5}', '{"format": 1, "threshold": "x"}'):
        (tmp_path / SIMILARITY).write_text(text)
        assert load(tmp_path) is None, text


def test_similar_to_names_each_other_hand_in_with_both_shares_and_an_archive_only_on_the_student():
    found = similar_to(Outcome(threshold=0.55, pairs=[ARCHIVED, PAIR]))
    assert found == {
        "alice": ["bob (93% of this hand-in, 88% of theirs)", "archive 2025/olga (70% of this hand-in, 90% of theirs)"],
        "bob": ["alice (88% of this hand-in, 93% of theirs)"],
    }
    assert similar_to(None) == {}
