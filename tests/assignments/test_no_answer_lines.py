"""Nothing a student receives gives an exercise's answer line away (issue 19 item 6): not the checks' reference
decoder, not a message of the diagnosis or its translation, not dnnlpy's own errors.

What nbgrader releases is each edition's source folder with the solution regions of the notebook replaced by
stubs; tests/assignments/test_release.py makes the real release and runs the same scan on it (e2e).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import torch

from autograder.graders.kit import COURSE_DIR
from dnnlpy.models import gpt

EDITIONS = ("weight_tying", "weight_tying_zh")
REGION = re.compile(r"### BEGIN SOLUTION\n.*?### END SOLUTION", re.S)
# The lines the exercises ask for, spelled in any spacing: the tie, the crop to the last block_size tokens, the
# argmax of the last position.
ANSWERS = {
    "the tie": re.compile(r"lm_head\.weight=(self\.)?token_embed\.weight\b"),
    "the crop": re.compile(r"\[:,-\(?[\w.]*(block_size|block|[2-9]|\d{2,})\)?:\]"),
    "the argmax of the last position": re.compile(r"\[:,-1(,:)?\]\.argmax\(|logits\.argmax\(-1\)"),
}


def answer_lines(text: str) -> list[str]:
    """The answer lines in `text` (whitespace ignored), named."""
    found = []
    for line in text.splitlines():
        squeezed = re.sub(r"\s+", "", line)
        found += [f"{what}: {line.strip()}" for what, pattern in ANSWERS.items() if pattern.search(squeezed)]
    return found


def released_text(folder: Path) -> dict[str, str]:
    """{file: what a student gets of it}: every file, the notebook without its solution regions."""
    out = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        name = path.relative_to(folder).as_posix()
        if path.suffix == ".ipynb":
            cells = nbformat.read(path, as_version=4).cells
            out[name] = "\n".join(REGION.sub("", c.source) for c in cells)
        else:
            out[name] = path.read_text(encoding="utf-8")
    return out


def test_the_patterns_find_each_answer_line():
    assert answer_lines("        self.lm_head.weight = self.token_embed.weight")
    assert answer_lines("            context = ids[:, -block_size:]")
    assert answer_lines("context[:, -self.minigpt.block_size :]") and answer_lines("(input_ids[:, -16:])")
    assert answer_lines("next_id = logits[:, -1, :].argmax(dim=-1, keepdim=True)")
    assert not answer_lines("context = ids[:, :block_size]  # a wrong crop") and not answer_lines("ids[:, 1:]")


@pytest.mark.parametrize("edition", EDITIONS)
def test_no_file_of_a_release_holds_an_answer_line(edition):
    found = {
        name: lines
        for name, text in released_text(COURSE_DIR / "source" / edition).items()
        if (lines := answer_lines(text))
    }
    assert found == {}


def test_dnnlpy_does_not_print_the_crop_for_a_too_long_context():
    model = gpt.MiniGPT(10, 16, embed_dim=8, num_layers=0, num_heads=2)
    with pytest.raises(ValueError) as info:
        model(torch.zeros(1, 20, dtype=torch.long))
    assert "block_size is 16" in str(info.value) and answer_lines(str(info.value)) == []
