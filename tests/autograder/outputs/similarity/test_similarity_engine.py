"""copydetect as the pass uses it: names, strings, comments and layout do not count; a match is drawn where it is
(its class-name offsets mended); the candidate pairs never leave out a pair the comparison would list."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from autograder.graders.kit import KIT_ROOT
from autograder.outputs.similarity import engine

CALIBRATION = KIT_ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration"
FILES = sorted((CALIBRATION / "correct").glob("*.py")) + sorted((CALIBRATION / "wrong").glob("w0*.py"))

ONE = """
class Tied(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.table = nn.Embedding(vocab_size, embed_dim)
        self.head = nn.Linear(embed_dim, vocab_size, bias=False)
        self.head.weight = self.table.weight

    def forward(self, ids):
        hidden = self.table(ids)
        return self.head(hidden)
"""
OTHER = '''
class Renamed(nn.Module):   # a copy: every name changed, comments and a docstring added
    """Ties the head to the table."""
    def __init__(self, v, d=128):
        super().__init__()
        self.emb = nn.Embedding(v, d)   # the table
        self.out = nn.Linear(d, v, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, x):
        h = self.emb(x)
        return self.out(h)
'''


def test_names_strings_comments_and_layout_do_not_count():
    a, b = engine.fingerprint(ONE), engine.fingerprint(OTHER)
    match = engine.compare(a, b)
    assert match.share_a > 0.9 and match.share_b > 0.8  # the docstring splits one run of the copy
    assert a.filtered_code.replace("classO(V.V):", "") in b.filtered_code


def _raw_char_at(found, q: int) -> str:
    """The raw character copydetect's offsets map filtered position `q` to (as compare_files maps a slice)."""
    offsets = found.offsets
    index = np.clip(np.searchsorted(offsets[:, 0], q), 0, len(offsets) - 1)
    return found.raw_code[q + int(offsets[index, 1])]


@pytest.mark.parametrize("path", FILES[:12], ids=lambda p: p.stem)
def test_every_copied_character_maps_back_to_itself_in_the_raw_code(path):
    """Characters the normaliser keeps as they are (punctuation, keywords) land on themselves in the raw text:
    the offsets that place a match's highlight are right, class names (copydetect 0.5 records them wrong) too."""
    found = engine.fingerprint(path.read_text(encoding="utf-8"))
    code = found.filtered_code
    kept = [q for q, ch in enumerate(code) if ch in "()[]:,=.+-*/@" and code[q - 1] != "V"]
    wrong = [q for q in kept if _raw_char_at(found, q) != code[q]]
    assert kept and wrong == []
    classes = [q for q in range(5, len(code)) if code[q - 5 : q + 1] == "classO"]
    assert classes and all(_raw_char_at(found, q).isidentifier() for q in classes)  # a class name's first letter


def test_without_the_mend_class_names_would_move_a_highlight(monkeypatch):
    text = "import torch\n\n\n\nclass Tied(nn.Module):\n    pass\n"
    q = engine.fingerprint(text).filtered_code.index("O")
    assert _raw_char_at(engine.fingerprint(text), q) == "T"
    monkeypatch.setattr(engine, "_mend_class_offsets", lambda found: None)
    assert _raw_char_at(engine.fingerprint(text), q) != "T"


def test_candidates_keep_every_pair_the_comparison_lists():
    prints = [engine.fingerprint(p.read_text(encoding="utf-8")) for p in FILES]
    every = set(itertools.combinations(range(len(prints)), 2))
    matches = {(i, j): engine.compare(prints[i], prints[j]) for i, j in every}
    for threshold in (0.2, engine.DEFAULT_THRESHOLD, 0.95, 1.0):
        listed = {pair for pair, match in matches.items() if engine.flagged(match, threshold)}
        chosen = set(engine.candidates(prints, [False] * len(prints), threshold))
        assert listed and listed <= chosen <= every, threshold


def test_a_pair_sharing_a_line_or_two_is_not_compared():
    shared = "        total = sum(p.numel() for p in self.parameters())\n"
    a = engine.fingerprint(ONE + shared)
    b = engine.fingerprint("def count(self):\n" + shared + "        return total * 2 + len(self.layers)\n")
    assert a.hashes & b.hashes
    assert engine.candidates([a, b], [False, False], engine.DEFAULT_THRESHOLD) == []


def test_two_archived_documents_are_never_a_pair():
    prints = [engine.fingerprint(ONE), engine.fingerprint(OTHER), engine.fingerprint(ONE)]
    assert engine.candidates(prints, [True, True, False], 0.1) == [(0, 2), (1, 2)]


def test_setting_aside_removes_those_fingerprints_and_counts_again():
    a, b = engine.fingerprint(ONE), engine.fingerprint(OTHER)
    before = a.token_coverage
    engine.set_aside([a], engine.hashes_of([ONE.split("def forward")[0]]))
    assert 0 < a.token_coverage < before
    match = engine.compare(a, b)
    assert match.share_a == pytest.approx(1.0) and match.share_b < 0.5  # b's __init__ is no longer shared


def test_what_counts_as_common_grows_with_the_class():
    assert engine.common_limit(10) == engine.COMMON_MIN
    assert engine.common_limit(1081) == 55  # 5 % of a class of 1,000 with the kit's corpus


def test_a_pair_needs_the_threshold_and_enough_shared_code():
    spans = ((0, 1),)
    assert engine.flagged(engine.Match(0.9, 0.1, engine.MIN_MATCH, spans, spans), engine.DEFAULT_THRESHOLD)
    assert not engine.flagged(engine.Match(0.9, 0.9, engine.MIN_MATCH - 1, spans, spans), engine.DEFAULT_THRESHOLD)
    assert not engine.flagged(engine.Match(0.5, 0.5, 400, spans, spans), engine.DEFAULT_THRESHOLD)


def test_a_text_the_tokenizer_cannot_read_costs_only_itself(monkeypatch):
    real = engine.fingerprint
    monkeypatch.setattr(engine, "fingerprint", lambda text: real(text) if text != "bad" else 1 / 0)
    found = engine.fingerprints([ONE, "bad", OTHER])
    assert found[1] == "ZeroDivisionError" and engine.listed([found[0], found[2]], [(0, 1)], 0.5)[0][:2] == (0, 1)
