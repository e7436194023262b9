"""Disguised copies for calibrating the similarity pass: what a student does to hide that they copied.

    python scripts/similarity_corpus.py            # (re)write the copies under the grader's calibration/similarity/
    python scripts/similarity_corpus.py --check    # exit 1 if a committed copy is not what this script makes

Each copy starts from one file of the weight_tying calibration corpus (a correct file written in its own style,
or a wrong one) and applies disguises, each alone and all together:

- ``renamed``: every name the file binds (variables, arguments with a default the API does not fix, helper
  functions and methods, attributes of ``self``, import aliases) renamed, consistently;
- ``reordered``: the methods of each class in another order (the classes themselves stay in order);
- ``annotated``: a comment above some statements and a ``print`` after others;
- ``all``: the three together;
- ``padded``: methods reordered, a comment above and a ``print`` after every statement of every function (loop
  bodies too), then renamed: as far as this disguise goes.

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
DISGUISES = ("renamed", "reordered", "annotated", "all", "padded")
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
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            attributes |= {m.name for m in node.body if isinstance(m, ast.FunctionDef)}  # called as self.name
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                attributes.add(node.attr)
    # an attribute also read on something else (`module.weight`) is a library's name too: renaming breaks the copy
    foreign = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and not (isinstance(n.value, ast.Name) and n.value.id == "self")
    }
    attributes -= foreign
    keep = API | set(dir(builtins)) | set(keyword.kwlist)
    return {n for n in names if n not in keep and not n.startswith("__")}, {
        a for a in attributes if a not in keep and not a.startswith("__")
    }


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


def padded(source: str, rng: random.Random) -> str:
    """A comment above and a print after every statement inside a function, nested blocks included (a body written
    on its statement's own line aside: nothing fits there)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    inserts: dict[int, list[str]] = {}
    for function in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        for node in ast.walk(function):
            for field in ("body", "orelse", "finalbody"):
                statements = getattr(node, field, None)
                if not isinstance(statements, list):
                    continue
                for statement in statements:
                    if not isinstance(statement, ast.stmt) or statement.lineno == node.lineno:
                        continue
                    pad = " " * statement.col_offset
                    inserts.setdefault(statement.lineno - 1, []).append(f"{pad}{rng.choice(_NOTES)}\n")
                    if not isinstance(statement, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
                        inserts.setdefault(statement.end_lineno, []).append(f'{pad}print("{rng.choice(_WORDS)}")\n')
    for at in sorted(inserts, reverse=True):
        lines[at:at] = sorted(inserts[at], key=lambda line: len(line.lstrip()) - len(line))
    return "".join(lines)


def disguise(source: str, kind: str, name: str) -> str:
    rng = _rng(name, kind)
    body = re.sub(r"\A(?:#[^\n]*\n)+", "", source)  # the corpus's own header says what the original is
    if kind in ("reordered", "all", "padded"):
        body = reordered(body, rng)
    if kind in ("annotated", "all"):
        body = annotated(body, rng)
    if kind == "padded":
        body = padded(body, rng)
    if kind in ("renamed", "all", "padded"):
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


_STUB = re.compile(r"^( *)# YOUR CODE HERE\n *raise NotImplementedError\(\)", re.M)
_SOLUTIONS = ("solution_TiedEmbeddingLM", "solution_MiniGPTWithWeightTying")


def _released(language: str) -> dict:
    """The released notebook of an edition: the built source notebook, its solution regions stubbed as nbgrader
    does (the kit's own reading of it, ``outputs.similarity.starter.cleared``)."""
    from autograder.outputs.similarity.starter import cleared

    edition = {"en": "weight_tying", "zh": "weight_tying_zh"}[language]
    path = ROOT / "assignments" / "source" / edition / "weight_tying.ipynb"
    if not path.is_file():
        raise SystemExit(f"{path} is not built: run python scripts/build_notebook.py first")
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        kit = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] == "code" and kit.get("solution"):
            cell["source"] = cleared("".join(cell["source"]), solution=True)
    return nb


def _filled(skeleton: str, code: str) -> str:
    """`skeleton` (a released solution cell: one class, its methods stubbed) with each stub replaced by the body of
    the method of that name in `code`'s class of that name, and the methods in `code`'s order (its own methods
    among them, where it has them): what a student makes of the cell."""
    tree, lines = ast.parse(code), code.splitlines()
    name = re.search(r"^class (\w+)", skeleton, re.M).group(1)
    mine = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
    if mine is None:
        return skeleton
    methods = [m for m in mine.body if isinstance(m, ast.FunctionDef)]
    # the skeleton's methods, each from its decorator or def line to the next one's
    starts = [m.start() for m in re.finditer(r"^    (?:@|def )", skeleton, re.M)]
    starts = [a for n, a in enumerate(starts) if n == 0 or not skeleton[starts[n - 1] : a].lstrip().startswith("@")]
    header = skeleton[: starts[0]]
    blocks = {
        re.search(r"def (\w+)", skeleton[a:b]).group(1): skeleton[a:b].rstrip("\n")
        for a, b in zip(starts, [*starts[1:], len(skeleton)], strict=True)
    }

    def body(method: ast.FunctionDef, indent: str) -> str:
        first = method.body[0]
        if isinstance(first, ast.Expr) and ast.unparse(first) == "super().__init__()" and len(method.body) > 1:
            first = method.body[1]  # the skeleton says it already
        text = "\n".join(lines[first.lineno - 1 : method.end_lineno])
        pad = len(text) - len(text.lstrip(" "))
        return "\n".join(indent + line[pad:] if line.strip() else "" for line in text.split("\n"))

    out = []
    for method in methods:
        if method.name in blocks:
            out.append(_STUB.sub(lambda stub, m=method: body(m, stub.group(1)), blocks.pop(method.name), count=1))
        else:
            start = (method.decorator_list[0].lineno if method.decorator_list else method.lineno) - 1
            out.append("\n".join(lines[start : method.end_lineno]))
    return header + "\n\n".join([*out, *blocks.values()])


def in_notebook(code: str, language: str = "en") -> str:
    """A hand-in of the edition `language` ("en" or "zh") as a student makes it: the released notebook, each stub of
    its two solution cells filled with the body of `code`'s method of that name; what `code` has beyond its two
    classes (imports, helpers) above the first class."""
    nb = _released(language)
    tree = ast.parse(code)
    lines = code.splitlines()
    classes = {"TiedEmbeddingLM", "MiniGPTWithWeightTying"}
    given = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    preamble = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in classes:
            continue
        start = (node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno) - 1
        text = "\n".join(lines[start : node.end_lineno])
        if not (isinstance(node, (ast.Import, ast.ImportFrom)) and text in given):  # the notebook imports it
            preamble.append(text)
    preamble = "\n\n".join(preamble)
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") in _SOLUTIONS:
            filled = _filled(cell["source"], code)
            first = cell["metadata"]["nbgrader"]["grade_id"] == _SOLUTIONS[0]
            cell["source"] = f"{preamble}\n\n\n{filled}" if first and preamble else filled
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
