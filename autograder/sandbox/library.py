"""Trusted: the teaching library a graded run sees: a copy of dnnlpy without what its grader withholds.

A grader may withhold part of dnnlpy from the runs it grades (``AssignmentSpec.withheld``): weight_tying
withholds the decoder (``MiniGPT.generate``, ``dnnlpy.models.sampling``), since writing that loop is its
exercise. A watch inside the process that runs the student's code loses to that code; here there is nothing
to call. ``library_copy`` writes a copy of dnnlpy in which each withheld function keeps its name, parameters
and decorators but its body is ``dnnlpy._withheld.withheld(name)`` (``library_stub``): the call is recorded
and raises ``NotAvailableWhileGrading``. A withheld module keeps its names, each function a stub, so
``from dnnlpy.models.sampling import greedy`` still imports and only a call fails.

Every graded run imports dnnlpy from the copy, on both paths and in every isolation mode: its folder is the
first entry of the runner's ``sys.path`` (``autograder.runner.library``; the warm zygote puts it there before
it imports anything), and with namespaces the view shows the copy's folder and never the real dnnlpy
(``view.build_view``), so a submission that reads the library's source from disk and runs it finds the stubs
too. The in-process grader of the kit's own files (``qa.inprocess``) imports the same copy under dnnlpy's name
while a file runs (``imported``).

The copy is built once per content (its folder is named by a hash of dnnlpy's files, the withheld list, the
stub and this module) in the grader's cache: ``/var/cache/autograder`` as root, else
``$XDG_CACHE_HOME/autograder`` (``~/.cache``), never in the kit. The warm zygote imports it before any
sandbox exists, so the cache must be the caller's and writable by nobody else: anything else is refused.
"""

from __future__ import annotations

import ast
import compileall
import contextlib
import functools
import hashlib
import importlib
import importlib.util
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

__all__ = ["PACKAGE", "STUB_MODULE", "library_copy", "imported", "package_dir", "cache_root"]

PACKAGE = "dnnlpy"
STUB_MODULE = f"{PACKAGE}._withheld"
_STUB_SOURCE = Path(__file__).with_name("library_stub.py")
_CALL = "_dnnlpy_withheld"  # the name a stubbed module binds ``withheld`` to (no clash with the library's names)


@functools.cache
def package_dir() -> Path:
    """The real dnnlpy's folder (the grader's own install)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"{PACKAGE} is not installed in this interpreter: run bash scripts/setup.sh")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def _parse(withheld: tuple[str, ...]) -> dict[str, list[str] | None]:
    """{module: the qualified names withheld in it, or None for every function of it}; ValueError names a bad
    entry and the form it should take."""
    out: dict[str, list[str] | None] = {}
    for entry in withheld:
        module, _, qualname = str(entry).partition(":")
        if module != PACKAGE and not module.startswith(f"{PACKAGE}."):
            raise ValueError(
                f"withheld entry {entry!r}: only {PACKAGE}'s own functions can be withheld; write "
                f"'{PACKAGE}.module:Class.method', '{PACKAGE}.module:function' or '{PACKAGE}.module'"
            )
        if not qualname:
            out[module] = None
        elif out.get(module, []) is not None:
            out.setdefault(module, []).append(qualname)
    return out


def _module_file(package: Path, module: str) -> Path:
    parts = module.split(".")[1:]
    places = [package.joinpath(*parts).with_suffix(".py")] if parts else []
    for path in [*places, package.joinpath(*parts, "__init__.py")]:
        if path.is_file():
            return path
    raise ValueError(f"withheld module {module!r} is not a module of {PACKAGE} ({package}): check its spelling")


def _stub(node: ast.FunctionDef | ast.AsyncFunctionDef, qualified: str) -> None:
    """`node`'s body replaced by the stub call (its decorators stay: a property stays a property)."""
    call = ast.Call(func=ast.Name(id=_CALL, ctx=ast.Load()), args=[ast.Constant(qualified)], keywords=[])
    node.body = [ast.Expr(ast.Constant("Withheld while grading (dnnlpy._withheld).")), ast.Return(call)]


def _stubbed(source: str, module: str, names: list[str] | None, filename: str) -> str:
    """`source` of `module` with the functions `names` (every function, for None) stubbed."""
    tree = ast.parse(source, filename)
    found: set[str] = set()

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = prefix + node.name
                if names is None or qualname in names:
                    _stub(node, f"{module}.{qualname}")
                    found.add(qualname)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")

    walk(tree.body, "")
    missing = sorted(set(names or ()) - found)
    if missing:
        raise ValueError(f"withheld {', '.join(missing)} of {module!r}: {module} defines no such function")
    # after the docstring and any `from __future__` import, which must come first
    at = 0
    while at < len(tree.body) and (
        isinstance(tree.body[at], ast.ImportFrom)
        and tree.body[at].module == "__future__"
        or at == 0
        and isinstance(tree.body[0], ast.Expr)
        and isinstance(tree.body[0].value, ast.Constant)
    ):
        at += 1
    tree.body.insert(at, ast.ImportFrom(module=STUB_MODULE, names=[ast.alias("withheld", _CALL)], level=0))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _files(package: Path) -> list[Path]:
    out = []
    for here, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out += [Path(here) / f for f in sorted(files) if not f.endswith(".pyc")]
    return out


def _digest(package: Path, withheld: tuple[str, ...]) -> str:
    h = hashlib.sha256(f"{sys.implementation.cache_tag}\0{sys.version}\0{withheld!r}\0".encode())
    for path in (_STUB_SOURCE, Path(__file__)):
        h.update(path.read_bytes())
    for path in _files(package):
        data = path.read_bytes()
        h.update(f"{path.relative_to(package).as_posix()}\0{len(data)}\0".encode() + data)
    return h.hexdigest()[:24]


def _refuse_unless_ours(path: Path, *, owners: tuple[int, ...]) -> None:
    """RuntimeError unless `path` is a real folder owned by one of `owners` that no one else may write."""
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimeError(f"the library cache {str(path)!r} is not a folder (a link?): remove it and grade again")
    if info.st_uid not in owners or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise RuntimeError(
            f"the library cache {str(path)!r} belongs to uid {info.st_uid} with mode "
            f"{stat.S_IMODE(info.st_mode):04o}: the grader imports code from it before any sandbox exists, so only "
            f"you may write it (chown {os.geteuid()} and chmod go-w it, or remove it)"
        )


def cache_root(root: Path | None = None) -> Path:
    """The grader's cache folder (`root`, default the one for this user), created if need be, refused unless
    only the caller may write it (and its parent is the caller's or root's, writable by nobody else)."""
    if root is None and os.geteuid() == 0:
        root = Path("/var/cache/autograder")
    elif root is None:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autograder"
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    _refuse_unless_ours(root.parent, owners=(os.geteuid(), 0))
    _refuse_unless_ours(root, owners=(os.geteuid(),))
    return root


def _build(package: Path, withheld: tuple[str, ...], target: Path) -> None:
    """Write the copy into `target` (a new folder, renamed into place whole: a grader that starts at the same
    time either finds it complete or builds its own)."""
    work = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        shutil.copytree(package, work / PACKAGE, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for module, names in _parse(withheld).items():
            path = _module_file(work / PACKAGE, module)
            path.write_text(_stubbed(path.read_text("utf-8"), module, names, str(path)), "utf-8")
        shutil.copyfile(_STUB_SOURCE, work / PACKAGE / "_withheld.py")
        # bytecode now: a graded run (python -B) never writes any, and would compile the copy every time
        if not compileall.compile_dir(str(work / PACKAGE), quiet=1):
            raise RuntimeError(f"the library copy in {work} does not compile: a withheld entry broke it")
        for here, _dirs, files in os.walk(work):
            os.chmod(here, 0o755)
            for name in files:
                os.chmod(os.path.join(here, name), 0o644)
        try:
            os.rename(work, target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


@functools.cache
def library_copy(withheld: tuple[str, ...], cache: Path | None = None) -> str | None:
    """The folder holding the copy's ``dnnlpy/`` (first on a graded run's ``sys.path``), built if need be in
    `cache` (default ``cache_root()``); None when nothing is withheld (the runs import the real dnnlpy)."""
    if not withheld:
        return None
    package = package_dir()
    _parse(withheld)
    target = cache_root(cache) / f"{PACKAGE}-{_digest(package, tuple(withheld))}"
    if not target.exists():
        _build(package, tuple(withheld), target)
    _refuse_unless_ours(target, owners=(os.geteuid(),))
    return str(target)


_IMPORTED: dict[str, dict[str, ModuleType]] = {}  # copy folder -> its modules, as imported in this process


def _take_package() -> dict[str, ModuleType]:
    """dnnlpy's modules, taken out of sys.modules."""
    names = [n for n in list(sys.modules) if isinstance(n, str) and (n == PACKAGE or n.startswith(f"{PACKAGE}."))]
    return {n: sys.modules.pop(n) for n in names}


@contextlib.contextmanager
def imported(folder: str | None) -> Iterator[None]:
    """dnnlpy's modules in this process are the copy's in `folder` (``library_copy``) for the time of the block,
    then the real ones again; None: the real ones throughout. Only for the in-process grader, which runs the
    kit's own files: a graded run imports nothing else from the start."""
    if folder is None:
        yield
        return
    real = _take_package()
    modules = _IMPORTED.setdefault(folder, {})
    try:
        if modules:
            sys.modules.update(modules)
        else:
            sys.path.insert(0, folder)
            try:
                importlib.import_module(PACKAGE)
            finally:
                sys.path.remove(folder)
        yield
    finally:
        modules.update(_take_package())  # with what the block imported lazily (the tokenizer)
        sys.modules.update(real)
