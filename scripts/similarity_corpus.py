"""Disguised copies for calibrating the similarity pass: what a student does to hide that they copied.

    python scripts/similarity_corpus.py            # (re)write the copies under the grader's calibration/similarity/
    python scripts/similarity_corpus.py --check    # exit 1 if a committed copy is not what this script makes

Each copy starts from one file of the weight_tying calibration corpus (a correct file written in its own style,
or a wrong one) and applies disguises, each alone and all together:

- ``renamed``: every name the file binds (variables, arguments with a default the API does not fix, helper
  functions and methods, attributes of ``self``, import aliases) renamed, consistently;
- ``reordered``: the methods of each class in another order (the classes themselves stay in order);
- ``annotated``: a comment above some statements and a ``print`` after others;
- ``all``: the three together.

Moving between editions is not a text change: ``in_notebook(code, language)`` puts any file's code into the
released notebook of either edition (its two solution cells), which is how the tests hand the copies in.
Everything is drawn from a seed made of the file's name, so the copies are the same on every run.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import hashlib
import io
import json
import keyword
import random
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CALIBRATION = ROOT / "autograder" / "graders" / "weight_tying" / "judge" / "calibration"
OUT = CALIBRATION / "similarity"
# The originals: correct files with code of their own beyond the chapter's way, and one wrong file with a loop of
# its own (a copy of the chapter's way cannot be told from the chapter's way: README, "Similar hand-ins").
SOURCES = (
    "correct/c02_reverse_tie.py",
    "correct/c04_einsum_manual_loss.py",
    "correct/c06_custom_init_after_tie.py",
    "correct/c10_forward_by_parts.py",
    "wrong/w47_skips_blocks_zero_norm.py",
)
DISGUISES = ("renamed", "reordered", "annotated", "all")
# What the assignment fixes: the grader calls these by name.
API = {
    "TiedEmbeddingLM",
    "MiniGPTWithWeightTying",
    "forward",
    "loss",
    "generate",
    "vocab_size",
    "block_size",
    "embed_dim",
    "num_layers",
    "num_heads",
    "hidden_dim",
    "dropout",
    "input_ids",
    "targets",
    "max_new_tokens",
    "token_embed",
    "lm_head",
    "self",
    "cls",
}
_WORDS = ("alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega", "theta", "zeta", "rho")
_NOTES = ("# step", "# keep this", "# as in the lecture", "# checked", "# TODO tidy", "# the shapes work out")


def _rng(name: str, disguise: str) -> random.Random:
    return random.Random(int(hashlib.sha256(f"{name}/{disguise}".encode()).hexdigest()[:12], 16))


def _bound_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(names the file binds, attributes it sets on self), the API and dunders left out."""
    names, attributes = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                attributes.add(node.attr)
    keep = API | set(dir(builtins)) | set(keyword.kwlist)
    return {n for n in names if n not in keep and not n.startswith("__")}, {a for a in attributes if a not in keep}


def renamed(source: str, rng: random.Random) -> str:
    """Every bound name renamed consistently: plain names where they are names, attributes of self after a dot."""
    tree = ast.parse(source)
    names, attributes = _bound_names(tree)
    new = {}
    for old in sorted(names | attributes):
        new[old] = f"{rng.choice(_WORDS)}_{old[:1]}{rng.randrange(10, 99)}"
    # a call's keyword (`f(dim=dim)`: the first `dim`) is the callee's name, not the file's
    keywords = {(k.lineno, k.col_offset) for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg}
    out, previous = [], None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        text = token.string
        if token.type == tokenize.NAME and text in new and token.start not in keywords:
            after_dot = previous is not None and previous.string == "."
            if (after_dot and text in attributes) or (not after_dot and text in names):
                text = new[text]
        out.append((token.type, text, token.start, token.end, token.line))
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous = token
    return _untokenize(source, out)


def _untokenize(source: str, tokens: list) -> str:
    """`source` with each token's text replaced, layout kept (tokens in order, on their own lines)."""
    lines = source.splitlines(keepends=True)
    for kind, text, (row, col), (end_row, end_col), _ in reversed(tokens):
        if kind == tokenize.NAME and row == end_row:
            line = lines[row - 1]
            lines[row - 1] = line[:col] + text + line[end_col:]
    return "".join(lines)


def reordered(source: str, rng: random.Random) -> str:
    """Each class's methods (with their decorators) in another order; everything else where it was."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    for node in sorted((n for n in tree.body if isinstance(n, ast.ClassDef)), key=lambda n: -n.lineno):
        methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if len(methods) < 2:
            continue
        first = min(m.decorator_list[0].lineno if m.decorator_list else m.lineno for m in methods) - 1
        last = max(m.end_lineno for m in methods)
        blocks = []
        for m in methods:
            start = (m.decorator_list[0].lineno if m.decorator_list else m.lineno) - 1
            blocks.append("".join(lines[start : m.end_lineno]).rstrip("\n") + "\n")
        order = list(range(len(blocks)))
        while order == sorted(order):
            rng.shuffle(order)
        body = "\n".join(blocks[i] for i in order)
        lines[first:last] = [body]
    return "".join(lines)


def annotated(source: str, rng: random.Random) -> str:
    """A comment above some statements inside functions and a print after others, at their indentation."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    inserts: dict[int, list[str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for statement in node.body:
            if isinstance(statement, ast.Return) or not isinstance(statement, ast.stmt):
                continue
            pad = " " * statement.col_offset
            if rng.random() < 0.5:
                inserts.setdefault(statement.lineno - 1, []).append(f"{pad}{rng.choice(_NOTES)}\n")
            elif rng.random() < 0.5 and statement.end_lineno is not None:
                inserts.setdefault(statement.end_lineno, []).append(f'{pad}print("{rng.choice(_WORDS)}")\n')
    for at in sorted(inserts, reverse=True):  # a nested function's lines first: it ends where its parent does
        lines[at:at] = sorted(inserts[at], key=lambda line: len(line.lstrip()) - len(line))
    return "".join(lines)


def disguise(source: str, kind: str, name: str) -> str:
    rng = _rng(name, kind)
    body = re.sub(r"\A(?:#[^\n]*\n)+", "", source)  # the corpus's own header says what the original is
    if kind in ("reordered", "all"):
        body = reordered(body, rng)
    if kind in ("annotated", "all"):
        body = annotated(body, rng)
    if kind in ("renamed", "all"):
        body = renamed(body, rng)
    ast.parse(body)  # a copy is still Python
    return f"# a disguised copy ({kind}) of {name}: made by scripts/similarity_corpus.py\n{body}"


def copies() -> dict[Path, str]:
    """file -> text of every copy."""
    made = {}
    for rel in SOURCES:
        source = (CALIBRATION / rel).read_text(encoding="utf-8")
        stem = Path(rel).stem
        for kind in DISGUISES:
            made[OUT / "copies" / f"{stem}__{kind}.py"] = disguise(source, kind, rel)
    return made


def in_notebook(code: str, language: str = "en") -> str:
    """A hand-in of the edition `language` ("en" or "zh"): its released notebook as built, with the solution cells
    holding `code` (what precedes ``class MiniGPTWithWeightTying`` in the first, the rest in the second)."""
    edition = {"en": "weight_tying", "zh": "weight_tying_zh"}[language]
    path = ROOT / "assignments" / "source" / edition / "weight_tying.ipynb"
    if not path.is_file():
        raise SystemExit(f"{path} is not built: run python scripts/build_notebook.py first")
    nb = json.loads(path.read_text(encoding="utf-8"))
    cut = code.find("class MiniGPTWithWeightTying")
    parts = {
        "solution_TiedEmbeddingLM": code[:cut] if cut > 0 else code,
        "solution_MiniGPTWithWeightTying": code[cut:] if cut > 0 else "",
    }
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in parts:
            cell["source"] = parts[grade_id]
    return json.dumps(nb, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed copy differs from a fresh one")
    args = parser.parse_args(argv)
    made = copies()
    if args.check:
        stale = [p for p, text in made.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)}: missing or not what the script makes", file=sys.stderr)
        return 1 if stale else 0
    for path, text in made.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
