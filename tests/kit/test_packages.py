"""The kit's packages form layers: at most eight top-level entries under ``autograder/``, and no package
imports another that imports it back, nor any module inside ``autograder/`` or ``coursecheck/`` one that imports it
back, counting imports inside functions (a lazy import is still a dependency: it only hides the cycle until the
call). ``coursecheck`` ships in the students' wheel: it imports nothing of the grader nor of the book's library.

A *package* here is a top-level entry of ``autograder/`` (``autograder.grading``, ``autograder.sandbox``,
...), except that each grader under ``autograder/graders/`` is one of its own: the registry
(``autograder.graders``) imports a grader by name when asked, never with an import statement, and a grader
is written against the kit's packages (``grading.judge.suite_api``, ``grading.marking``, ``qa.mutants``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from autograder.graders.kit import KIT_ROOT

PACKAGE = KIT_ROOT / "autograder"
SHARED = KIT_ROOT / "coursecheck"  # the notebook reader and self-check: the grader's and the students' wheel's
MAX_TOP_LEVEL = 8
# The package itself and its ``python -m`` entry point are not modules of their own job.
NOT_COUNTED = {"__init__.py", "__main__.py", "__pycache__"}


def top_level_entries() -> list[str]:
    return sorted(
        p.name
        for p in PACKAGE.iterdir()
        if p.name not in NOT_COUNTED and (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))
    )


def package_of(module: str) -> str | None:
    """The package node a dotted module name belongs to (None: outside the kit, or the root package)."""
    parts = module.split(".")
    if parts[0] != "autograder" or len(parts) < 2 or parts[1] in ("__init__", "__main__"):
        return None
    if parts[1] == "graders" and len(parts) >= 3 and (PACKAGE / "graders" / parts[2]).is_dir():
        return f"graders.{parts[2]}"
    return parts[1]


def module_name(path: Path) -> str:
    rel = path.relative_to(KIT_ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports, at any depth (functions, classes, conditionals), resolved to dotted names."""
    return imports_in(path.read_text(encoding="utf-8"), module_name(path), is_package=path.name == "__init__.py")


def imports_in(source: str, module: str, *, is_package: bool = False) -> set[str]:
    tree = ast.parse(source)
    here = module.split(".")
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_package else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            found |= {f"{prefix}.{alias.name}" for alias in node.names}  # `from pkg import module`
    return found


def package_graph() -> dict[str, dict[str, list[str]]]:
    """package -> {package it imports: [where, ...]}."""
    graph: dict[str, dict[str, list[str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts or "calibration" in path.parts:
            continue
        source = package_of(module_name(path))
        if source is None:
            continue
        for name in imports_of(path):
            target = package_of(name)
            if target is not None and target != source:
                graph.setdefault(source, {}).setdefault(target, []).append(str(path.relative_to(KIT_ROOT)))
    return graph


def module_graph(imports: dict[str, set[str]] | None = None) -> dict[str, dict[str, list[str]]]:
    """module -> {kit module it imports: []}, from each module's imports (default: every module of
    ``autograder/`` and ``coursecheck/`` but the calibration files, which are submissions): ``from pkg import name``
    is the module ``pkg.name`` when there is one, else ``pkg`` (whose ``__init__`` defines the name)."""
    if imports is None:
        imports = {
            module_name(path): imports_of(path)
            for path in sorted([*PACKAGE.rglob("*.py"), *SHARED.rglob("*.py")])
            if "__pycache__" not in path.parts and "calibration" not in path.parts
        }

    def resolve(name: str) -> str | None:
        while name and name not in imports:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, list[str]]] = {}
    for module, names in imports.items():
        for target in {resolve(name) for name in names} - {None, module}:
            graph.setdefault(module, {})[target] = []
    return graph


def cycles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """Every strongly connected group of two or more packages (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(set(graph) | {t for targets in graph.values() for t in targets}):
        if node not in index:
            visit(node)
    return groups


def test_autograder_has_at_most_eight_top_level_modules_or_packages():
    entries = top_level_entries()
    assert len(entries) <= MAX_TOP_LEVEL, (
        f"autograder/ holds {len(entries)} top-level modules or packages (at most {MAX_TOP_LEVEL}): {entries}; "
        "put the new module in the package whose job it does"
    )


def test_no_package_imports_one_that_imports_it_back():
    graph = package_graph()
    found = cycles(graph)
    detail = []
    for group in found:
        for a in group:
            for b in group:
                if b in graph.get(a, {}):
                    detail.append(f"{a} -> {b} ({', '.join(sorted(set(graph[a][b]))[:3])})")
    assert found == [], f"import cycles between packages {found}:\n" + "\n".join(detail)


def test_no_module_imports_one_that_imports_it_back():
    graph = module_graph()
    found = cycles(graph)
    detail = [f"{a} -> {b}" for group in found for a in group for b in group if b in graph.get(a, {})]
    assert found == [], f"import cycles between modules of autograder/ {found}:\n" + "\n".join(detail)


def test_coursecheck_imports_nothing_of_the_grader_nor_of_the_book():
    """The students' wheel carries coursecheck without autograder; the grader's runner reads notebooks with it
    inside the sandbox, where dnnlpy is the grader's copy: it needs neither."""
    found = {
        f"{path.relative_to(KIT_ROOT)}: {name}"
        for path in sorted(SHARED.rglob("*.py"))
        if "__pycache__" not in path.parts
        for name in imports_of(path)
        if name.split(".")[0] in ("autograder", "dnnlpy")
    }
    assert found == set(), f"coursecheck modules importing the grader or the book's library: {sorted(found)}"


def test_the_module_graph_finds_a_cycle_through_a_lazy_from_import_of_a_module():
    imports = {
        "autograder.cli": set(),
        "autograder.cli.common": imports_in("from autograder.cli import dask\n", "autograder.cli.common"),
        "autograder.cli.dask": imports_in("def run():\n    from .common import fail\n", "autograder.cli.dask"),
        "autograder.cli.grade": imports_in("from autograder.cli import common\n", "autograder.cli.grade"),
    }
    graph = module_graph(imports)
    assert cycles(graph) == [["autograder.cli.common", "autograder.cli.dask"]]
    imports["autograder.cli.dask"] = imports_in("from autograder.cli import fail\n", "autograder.cli.dask")
    assert cycles(module_graph(imports)) == []  # `fail` is no module: the package's, which imports neither


def test_the_cycle_finder_counts_imports_inside_functions_and_relative_ones():
    lazy = "def grade():\n    from autograder.grading.pipeline import run_facts\n"
    relative = "class A:\n    def f(self):\n        from ..grading import judge\n"
    assert package_of(max(imports_in(lazy, "autograder.sandbox.view"))) == "grading"
    assert "autograder.grading.judge" in imports_in(relative, "autograder.sandbox.view")
    assert cycles({"sandbox": {"grading": ["x"]}, "grading": {"sandbox": ["y"]}}) == [["grading", "sandbox"]]
    assert cycles({"sandbox": {"grading": ["x"]}, "grading": {}}) == []
