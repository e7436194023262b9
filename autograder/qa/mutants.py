"""Trusted: mutants of a correct submission, generated mechanically from its syntax tree.

Each mutant changes one thing a student could get wrong: an operator, a slice bound or an index, a
dropped or swapped argument, a keyword argument of a layer's constructor (embedding, linear, layer norm,
dropout, the model, the loss), a dtype or a device, a `.detach()` or a `.clone()` inserted. A grader that
is seed-proof catches every mutant on every seed, or the mutant is equivalent and shown to be so (see
``autograder.qa.mutation_score``). Only the functions `Scope` selects are mutated.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = ["Mutant", "Scope", "LAYER_KEYWORDS", "generate"]

# Keyword arguments added to (or changed in) a constructor call, by the called name's last part. The values
# are the ones students write; each one is a mutant of its own.
LAYER_KEYWORDS: dict[str, list[tuple[str, str]]] = {
    "Embedding": [
        ("padding_idx", "0"),
        ("max_norm", "1.0"),
        ("scale_grad_by_freq", "True"),
        ("sparse", "True"),
        ("dtype", "torch.float64"),
        ("device", "'cpu'"),
    ],
    "Linear": [("bias", "True"), ("bias", "False"), ("dtype", "torch.float64"), ("device", "'cpu'")],
    "LayerNorm": [("eps", "1e-06"), ("eps", "0.001"), ("elementwise_affine", "False"), ("bias", "False")],
    "Dropout": [("p", "0.0"), ("p", "0.1"), ("p", "0.5"), ("inplace", "True")],
    "MiniGPT": [("bias", "False"), ("dropout", "0.1"), ("weight_tying", "False")],
    "cross_entropy": [("ignore_index", "0"), ("label_smoothing", "0.1"), ("reduction", "'sum'")],
}
_BINOP_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.MatMult: ast.Mult}


@dataclass(frozen=True)
class Mutant:
    id: str  # "<source>:<line>:<operator>:<n>", stable while the source does not change
    source: str  # the name of the file it came from
    operator: str  # the family: operator, constant, slice, argument, keyword, layer, dtype, device, detach, clone
    line: int
    before: str  # the changed statement, as written
    after: str  # the same statement in the mutant
    code: str  # the whole mutated source
    function: str = ""  # "Class.method" the change is in


@dataclass(frozen=True)
class Scope:
    """Which functions of a source are mutated: 'Class.method' names (empty: every method of every class);
    `skip`: statements (source text, stripped) left alone, each with the reason why."""

    functions: tuple[str, ...] = ()
    skip: dict[str, str] = field(default_factory=dict)


def _functions(tree: ast.Module, scope: Scope) -> Iterator[tuple[str, ast.FunctionDef]]:
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for fn in cls.body:
            name = f"{cls.name}.{fn.name}" if isinstance(fn, ast.FunctionDef) else ""
            if name and (not scope.functions or name in scope.functions):
                yield name, fn


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _method(value: ast.expr, name: str) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=value, attr=name, ctx=ast.Load()), args=[], keywords=[])


def _edits(node: ast.AST) -> Iterator[tuple[str, Callable[[ast.AST], ast.AST | None]]]:
    """(operator family, edit) pairs for one node; an edit returns the replacement node (or None: no-op)."""
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
        yield "operator", lambda n: ast.BinOp(n.left, _BINOP_SWAPS[type(n.op)](), n.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield "operator", lambda n: n.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        for delta in (1, -1):
            yield "constant", lambda n, d=delta: ast.Constant(n.value + d)
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        yield "constant", lambda n: ast.Constant(not n.value)
    if isinstance(node, ast.Slice):
        yield "slice", lambda n: ast.Slice(n.upper, n.lower, n.step) if (n.lower or n.upper) else None
        if node.lower is not None:
            yield "slice", lambda n: ast.Slice(None, n.upper, n.step)
            for delta in (ast.Add, ast.Sub):
                yield "slice", lambda n, op=delta: ast.Slice(ast.BinOp(n.lower, op(), ast.Constant(1)), n.upper, n.step)
        if node.upper is not None:
            yield "slice", lambda n: ast.Slice(n.lower, None, n.step)
            for delta in (ast.Add, ast.Sub):
                yield "slice", lambda n, op=delta: ast.Slice(n.lower, ast.BinOp(n.upper, op(), ast.Constant(1)), n.step)
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) > 1 and isinstance(node.ctx, ast.Load):
        for i in range(len(node.elts) - 1):  # e.g. torch.cat([new, ids]): the order of the parts
            yield "argument", lambda n, i=i: type(n)(n.elts[:i] + [n.elts[i + 1], n.elts[i]] + n.elts[i + 2 :], n.ctx)
    if isinstance(node, ast.Call):
        yield from _call_edits(node)


def _call_edits(call: ast.Call) -> Iterator[tuple[str, Callable[[ast.AST], ast.AST | None]]]:
    def copy_call(n: ast.Call, args=None, keywords=None) -> ast.Call:
        return ast.Call(
            n.func, list(n.args) if args is None else args, list(n.keywords) if keywords is None else keywords
        )

    for i in range(len(call.args)):
        if not isinstance(call.args[i], ast.Starred):
            yield "argument", lambda n, i=i: copy_call(n, args=n.args[:i] + n.args[i + 1 :])
    for i in range(len(call.args) - 1):
        yield "argument", lambda n, i=i: copy_call(n, args=n.args[:i] + [n.args[i + 1], n.args[i]] + n.args[i + 2 :])
    for i in range(len(call.keywords)):
        if call.keywords[i].arg is not None:
            yield "keyword", lambda n, i=i: copy_call(n, keywords=n.keywords[:i] + n.keywords[i + 1 :])
    name = _called_name(call)
    for key, value in LAYER_KEYWORDS.get(name, []):
        family = "dtype" if key == "dtype" else "device" if key == "device" else "layer"

        def add(n: ast.Call, key=key, value=value) -> ast.Call | None:
            kept = [k for k in n.keywords if k.arg != key]
            args = list(n.args)
            if key == "p" and name == "Dropout" and args:  # Dropout(p) written positionally
                args = args[1:]
            new = copy_call(n, args=args, keywords=[*kept, ast.keyword(key, _expr(value))])
            return None if ast.dump(new) == ast.dump(n) else new

        yield family, add


def _statement_edits(stmt: ast.stmt) -> Iterator[tuple[str, Callable[[ast.stmt], ast.stmt | None]]]:
    """Whole-value edits of an assignment or a return: detach, clone, a dtype change."""
    if not isinstance(stmt, (ast.Assign, ast.Return)) or stmt.value is None:
        return
    value = stmt.value
    if isinstance(value, (ast.Constant, ast.Tuple, ast.List)) or (
        isinstance(value, ast.Call) and _called_name(value)[:1].isupper()
    ):
        return  # a constant, a tuple or a freshly built module: no tensor to detach, clone or convert
    if isinstance(value, ast.Attribute) and (
        value.attr == "shape" or isinstance(value.value, ast.Name) and value.value.id == "self"
    ):
        return  # a size, or a module of the model
    for family, method in (("detach", "detach"), ("clone", "clone"), ("dtype", "double")):

        def wrap(s: ast.stmt, method=method) -> ast.stmt:
            new = copy.copy(s)
            new.value = _method(s.value, method)
            return new

        yield family, wrap


def _parents(tree: ast.AST) -> dict[int, tuple[ast.AST, str, int | None]]:
    """id(child) -> (parent, field name, index in the field's list or None)."""
    out = {}
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        out[id(child)] = (parent, name, i)
            elif isinstance(value, ast.AST):
                out[id(value)] = (parent, name, None)
    return out


def _sites(tree: ast.Module, scope: Scope, lines: list[str]) -> list[tuple[int, str, Callable, ast.stmt, str]]:
    """(index of the node in ast.walk order, family, edit, enclosing statement, function) for every site."""
    order = {id(node): k for k, node in enumerate(ast.walk(tree))}
    sites = []
    for function, fn in _functions(tree, scope):
        for stmt in ast.walk(fn):
            if not isinstance(stmt, ast.stmt) or isinstance(stmt, ast.FunctionDef):
                continue
            text = lines[stmt.lineno - 1].strip()
            if any(text.startswith(skip) for skip in scope.skip):
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # a docstring
            # A compound statement is mutated in its header only (its body's statements are sites of their own).
            header = {ast.For: ["iter"], ast.While: ["test"], ast.If: ["test"], ast.With: ["items"]}
            if type(stmt) in header:
                roots = [getattr(stmt, f) for f in header[type(stmt)]]
                roots = [r for root in roots for r in (root if isinstance(root, list) else [root])]
            else:
                roots = [stmt]
                for family, edit in _statement_edits(stmt):
                    sites.append((order[id(stmt)], family, edit, stmt, function))
            for root in roots:
                for node in ast.walk(root):
                    if node is not stmt and isinstance(node, ast.stmt):
                        continue
                    for family, edit in _edits(node):
                        sites.append((order[id(node)], family, edit, stmt, function))
    return sites


def _header(stmt: ast.stmt) -> str:
    """A statement as one line (a compound statement: its first line)."""
    return ast.unparse(stmt).splitlines()[0]


def generate(source: str, name: str, scope: Scope = Scope()) -> list[Mutant]:
    """Every mutant of `source` within `scope`, one change each; no two with the same code, none equal to it."""
    tree = ast.parse(source)
    lines = source.splitlines()
    original = ast.unparse(tree)
    seen = {original}
    mutants = []
    counts: dict[tuple[int, str], int] = {}
    order = {id(node): k for k, node in enumerate(ast.walk(tree))}
    for index, family, edit, stmt, function in _sites(tree, scope, lines):
        copy_tree = copy.deepcopy(tree)
        nodes = list(ast.walk(copy_tree))
        target = nodes[index]
        stmt_copy = nodes[order[id(stmt)]]
        replacement = edit(target)
        if replacement is None:
            continue
        parents = _parents(copy_tree)
        parent, field_name, position = parents[id(target)]
        if position is None:
            setattr(parent, field_name, replacement)
        else:
            getattr(parent, field_name)[position] = replacement
        ast.fix_missing_locations(copy_tree)
        try:
            code = ast.unparse(copy_tree)
            compile(code, name, "exec")
        except (SyntaxError, ValueError, TypeError):
            continue
        if code in seen:
            continue
        seen.add(code)
        before = _header(stmt)
        after = _header(replacement if target is stmt_copy else stmt_copy)
        key = (stmt.lineno, family)
        counts[key] = counts.get(key, 0) + 1
        mutants.append(
            Mutant(
                f"{name}:{stmt.lineno}:{family}:{counts[key]}", name, family, stmt.lineno, before, after, code, function
            )
        )
    return mutants
