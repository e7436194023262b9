"""Both sides: whether a cell's code can reach the notebook's names without naming them, read from its syntax
tree.

``coursecheck.cells.unneeded_demos`` leaves a demonstration out only when no cell that runs could need it, and a cell
can need a name it never spells: ``globals()["shown"]``, ``sys.modules["__main__"].shown``,
``inspect.currentframe().f_back.f_locals``, ``gc.get_objects()``. The rule is read from the tree, so an alias
(``import sys as s; s.modules``), a spacing or a line break changes nothing, and it errs one way: what it cannot
rule out counts as reaching, which costs a run its time (the demonstrations run), never a point. A cell reaches
when it uses:

- a builtin that reads or writes names or attributes given as text, or hands out a namespace (``globals``,
  ``getattr``, ``eval``, ...), by its name (as an attribute it is another object's: ``model.eval()``; the
  builtins module itself is reached only through what the next rules count, ``print.__self__``);
- any name or attribute with double underscores, but the few every object answers about itself
  (``__init__``, ``__name__``, ``__class__``, ``__version__``, ...): ``__dict__``, ``__globals__``,
  ``__builtins__``, ``__subclasses__``, ``__code__`` all lead to other objects;
- an attribute kept private by a leading underscore (``sys._getframe``, a library's internals);
- an attribute of a frame, a traceback, a generator or a coroutine (``f_locals``, ``tb_frame``, ``gi_frame``):
  the list comes from Python's own types;
- a module outside the few a notebook's exercises need (``MODULES``: torch, numpy, math, dnnlpy, ...),
  imported under any name, or a module that hands out frames, modules or objects by name reached as another
  module's attribute (``os.sys``, ``torch.serialization.pickle``).

Text counts as naming: the words of a string without spaces count as names the cell uses (a type hint written as
text, ``"Optional[A]"``; a dotted path given to a resolver, ``"__main__.shown"``). A sentence (a docstring, a
message) names nothing.
"""

from __future__ import annotations

import ast
import re
import types

__all__ = ["MODULES", "reaches", "spelled_names"]

# The modules a notebook's exercises need, none of which hands out frames, modules or objects by name. Any other
# import counts as reaching: a module not listed here may.
MODULES = frozenset(
    {
        "__future__",
        "abc",
        "collections",
        "copy",
        "dataclasses",
        "dnnlpy",
        "enum",
        "functools",
        "itertools",
        "math",
        "numbers",
        "numpy",
        "random",
        "re",
        "statistics",
        "string",
        "time",
        "torch",
        "typing",
        "warnings",
    }
)
# Builtins that take a name or an attribute as text, or hand out a namespace.
_NAMESPACE_BUILTINS = frozenset(
    {
        "globals",
        "locals",
        "vars",
        "dir",
        "eval",
        "exec",
        "compile",
        "getattr",
        "setattr",
        "delattr",
        "hasattr",
        "breakpoint",
        "get_ipython",
    }
)
# What an object answers about itself: no other object is reached through these.
_OWN_DUNDERS = frozenset(
    {
        "__init__",
        "__call__",
        "__name__",
        "__qualname__",
        "__doc__",
        "__version__",
        "__class__",
        "__len__",
        "__iter__",
        "__next__",
        "__getitem__",
        "__setitem__",
        "__contains__",
        "__repr__",
        "__str__",
        "__enter__",
        "__exit__",
    }
)
# Frames, tracebacks, generators and coroutines hold a frame or its namespaces: their own attributes.
_FRAME_ATTRIBUTES = frozenset(
    name
    for kind in (
        types.FrameType,
        types.TracebackType,
        types.GeneratorType,
        types.CoroutineType,
        types.AsyncGeneratorType,
    )
    for name in dir(kind)
    if re.match(r"(?:f|tb|gi|cr|ag)_", name)
)
# Modules of the standard library (and IPython's) that hand out frames, modules or objects by name: reached as an
# attribute of a module the cell may import (``os.sys``), they count as imported.
_HANDING_OUT = frozenset(
    {
        "__main__",
        "asyncio",
        "bdb",
        "builtins",
        "code",
        "copyreg",
        "ctypes",
        "gc",
        "importlib",
        "inspect",
        "IPython",
        "logging",
        "marshal",
        "operator",
        "pdb",
        "pickle",
        "pkgutil",
        "pydoc",
        "runpy",
        "site",
        "sys",
        "threading",
        "traceback",
        "types",
        "unittest",
    }
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPACE = re.compile(r"\s")


def _dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__") and name not in _OWN_DUNDERS


def _reaching_attribute(name: str) -> bool:
    return (
        name.startswith("_")  # private, or a dunder: every dunder an object answers about itself is public
        and name not in _OWN_DUNDERS
        or name in _FRAME_ATTRIBUTES
        or name in _HANDING_OUT
    )


def _reaching_import(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name.partition(".")[0] not in MODULES for alias in node.names)
    if node.level or node.module is None or node.module.partition(".")[0] not in MODULES:
        return True  # a relative import: whatever the folder holds
    return any(alias.name == "*" or _reaching_attribute(alias.name) for alias in node.names)


def reaches(tree: ast.AST) -> bool:
    """Whether the code of `tree` (a cell's ``ast.parse``) can reach the notebook's names without naming them."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id in _NAMESPACE_BUILTINS or _dunder(node.id):
                return True
        elif isinstance(node, ast.Attribute):
            if _reaching_attribute(node.attr):
                return True
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if _reaching_import(node):
                return True
    return False


def spelled_names(tree: ast.AST) -> set[str]:
    """The words of the strings of `tree` that hold no space (``"A"``, ``"__main__.shown"``, ``"Optional[A]"``):
    names the cell may use through text."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and not _SPACE.search(node.value):
            found.update(_WORD.findall(node.value))
    return found
