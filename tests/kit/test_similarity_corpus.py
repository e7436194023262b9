"""scripts/similarity_corpus.py: the committed copies are what it makes; each disguise does what it says and no
more (a copy of a correct file still works); a copy in a notebook fills the released stubs as a student does."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import tokenize

import pytest
import torch

from autograder.graders.kit import KIT_ROOT

COPIES = KIT_ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration" / "similarity" / "copies"


@pytest.fixture(scope="module")
def corpus(script):
    return script("similarity_corpus")


def test_the_committed_copies_are_what_the_script_makes(corpus):
    assert corpus.main(["--check"]) == 0
    assert sorted(p.name for p in COPIES.glob("*.py")) == sorted(p.name for p in corpus.copies())


def _original(corpus, copy_name: str) -> str:
    stem, _ = copy_name.removesuffix(".py").split("__")
    rel = next(r for r in corpus.SOURCES if r.endswith(f"/{stem}.py"))
    return re.sub(r"\A(?:#[^\n]*\n)+", "", (corpus.CALIBRATION / rel).read_text(encoding="utf-8"))


def _tokens(source: str) -> list[tuple[int, str]]:
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in skip]


def _methods(source: str) -> list[str]:
    return [f.name for c in ast.parse(source).body if isinstance(c, ast.ClassDef) for f in c.body if hasattr(f, "args")]


def test_renaming_changes_names_only_and_keeps_what_the_grader_calls(corpus):
    for path in COPIES.glob("*__renamed.py"):
        original, copy = _tokens(_original(corpus, path.name)), _tokens(path.read_text(encoding="utf-8"))
        assert [t for t, _ in original] == [t for t, _ in copy]
        changed = [(kind, a) for (kind, a), (_, b) in zip(original, copy, strict=True) if a != b]
        assert changed and {kind for kind, _ in changed} == {tokenize.NAME}
        assert not {a for _, a in changed} & corpus.API, path.name


def test_reordering_moves_methods_and_annotating_adds_comments_and_prints(corpus):
    for path in COPIES.glob("*__reordered.py"):
        original, copy = _methods(_original(corpus, path.name)), _methods(path.read_text(encoding="utf-8"))
        assert sorted(original) == sorted(copy) and original != copy, path.name
    for path in COPIES.glob("*__annotated.py"):
        copy = path.read_text(encoding="utf-8").split("\n", 1)[1]
        added = [line for line in copy.splitlines() if line.strip() not in _original(corpus, path.name)]
        assert added and all(re.fullmatch(r'\s*(#.*|print\("\w+"\))', line) for line in added), path.name
    for path in COPIES.glob("*__padded.py"):  # a print after every statement of every function but the last ones
        lines = path.read_text(encoding="utf-8").splitlines()
        prints = [n for n, line in enumerate(lines) if re.fullmatch(r'\s*print\("\w+"\)', line)]
        assert len(prints) * 2 > len([line for line in lines if line.startswith("        ")]) / 3, path.name


@pytest.mark.parametrize("path", sorted(COPIES.glob("c*__all.py")), ids=lambda p: p.stem)
def test_a_copy_of_a_correct_file_still_works(path):
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
        torch.manual_seed(0)
        model = namespace["MiniGPTWithWeightTying"](vocab_size=11, block_size=4, embed_dim=8, num_layers=1, num_heads=2)
        out = model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3)
        tied = namespace["TiedEmbeddingLM"](vocab_size=7, embed_dim=4)
    assert out.shape == (1, 6) and tied(torch.tensor([[1, 2]])).shape == (1, 2, 7)
    assert model.loss(torch.tensor([[1, 2, 3, 4]])).ndim == 0


def test_a_copy_in_a_notebook_fills_the_released_stubs(corpus):
    code = (COPIES / "c06_custom_init_after_tie__reordered.py").read_text(encoding="utf-8")
    for language in ("en", "zh"):
        nb = json.loads(corpus.in_notebook(code, language))
        cells = [c["source"] for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("solution")]
        assert len(cells) == 2 and not any("YOUR CODE HERE" in c for c in cells)
        docstring = {
            "en": "Token embedding and LM head sharing one (V, D) table",
            "zh": "token embedding 与 LM head 共享",
        }
        assert f'"""{docstring[language]}' in cells[0]  # the released docstring, in the edition's words
        assert _methods(cells[1]) == _methods(code)[2:]  # the copy's order, its own method among them
    assert corpus.in_notebook(code, "en") != corpus.in_notebook(code, "zh")
