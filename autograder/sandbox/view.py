"""Trusted: what the runner may see of the file system: an allow-list of the kit, plus a deny-list on top.

In the ``namespaces`` mode the jail builds the runner's root from four lists this module computes:

- ``binds``: the system (``/usr``, ``/lib*``, ``/etc``) and what the runner's ``python -I`` reads code from,
  named by the interpreter's own configuration (``runner_paths``: its prefixes, standard library,
  site-packages and the folders their ``.pth`` files add), read-only, except anything inside the kit. Never
  the grader's working folder, ``PYTHONPATH`` or the rest of its ``sys.path``: ``python -m autograder`` run
  from a course folder would otherwise show the course's solutions and every student's hand-in;
- ``kit_mask``: the kit's root, covered by an empty read-only tmpfs, so nothing of it shows by default
  (``grading-output/``, ``assignments/``, ``solutions/``, ``tests/``, ``.git``, a demo course copy, any file
  an instructor drops there later);
- ``kit_binds``: what is let back in on top of the mask: the interpreter's folders that live in the kit
  (``<kit>/.venv``) and the packages the runner imports, each one's folder whole (``dnnlpy/``, ``coursecheck/``,
  ``autograder/runner/``, a grader's ``runner/``) plus its parent packages' ``__init__.py``. So what a grader
  puts in its ``runner/`` folder is what its experiments may import; its ``judge/`` folder is never shown. When
  the grader withholds part of dnnlpy, the folder of its copy (``library``) is bound instead, read-only, and
  the real ``dnnlpy/`` is not shown anywhere (inside an installed kit's prefix it is covered). The kit root
  stays a real
  (empty) folder, so the editable install's finder, which points at ``<kit>/autograder``, ``<kit>/coursecheck``
  and ``<kit>/dnnlpy``, still resolves the packages;
- ``hides``: the deny-list (``hidden_paths``: every grader's judge folder and solution, the kit's course
  copies, gradebooks, tests and history, and the caller's extra paths such as the submissions being graded)
  plus every ``gradebook.db`` inside an exposed kit folder, kept only where it lies inside an allowed
  folder: there an empty unreadable mount covers it. Anywhere else it is simply not in the view, and gets
  no mount, whose path ``/proc/self/mountinfo`` would show. The weaker modes cannot hide anything; they
  say so in their isolation report.

When the kit is itself installed inside a Python prefix (a non-editable install in site-packages), there
is no separate kit folder to mask: the prefix is needed whole and only ``hides`` apply.
"""

from __future__ import annotations

import importlib.util
import os
import site
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from autograder.graders.kit import COURSE_DIR, KIT_ROOT, SOLUTIONS_DIR

__all__ = [
    "kit_root",
    "module_files",
    "build_view",
    "runner_paths",
    "pth_paths",
    "hidden_paths",
    "extra_hidden",
    "visible_hides",
    "KIT_PACKAGES",
]

KIT_PACKAGES = ("dnnlpy",)  # the library the cells import (unless a copy stands in); no instructor files live there
_SYSTEM = ("/usr", "/etc", "/sys")
_LIBS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_PRIVATE = ("/tmp", "/var/tmp", "/dev/shm", "/proc")  # the sandbox's own folders: never bound from the host


def kit_root() -> str:
    return os.path.realpath(KIT_ROOT)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _minimal(paths: set[str]) -> list[str]:
    """Sorted (parents first), each path once; a path inside another listed one is dropped."""
    kept: list[str] = []
    for path in sorted(paths):
        if not any(_inside(path, k) for k in kept):
            kept.append(path)
    return kept


def _prefixes() -> set[str]:
    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    found.add(os.path.dirname(os.path.realpath(sys.executable)))
    return {os.path.realpath(p) for p in found if os.path.exists(p)} | {p for p in found if os.path.exists(p)}


def pth_paths(site_dir: str) -> list[str]:
    """The folders the ``.pth`` files of `site_dir` add to ``sys.path``, read as ``site`` reads them: one path
    a line, relative to `site_dir`, kept if it exists; comments and ``import`` lines (code, such as an
    editable install's finder, which resolves the kit's packages itself) add no folder here."""
    try:
        names = sorted(n for n in os.listdir(site_dir) if n.endswith(".pth") and not n.startswith("."))
    except OSError:
        return []
    found = []
    for name in names:
        try:
            with open(os.path.join(site_dir, name), encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.rstrip()
            if not line or line.startswith("#") or line.startswith(("import ", "import\t")):
                continue
            path = os.path.join(site_dir, line)
            if os.path.exists(path):
                found.append(os.path.realpath(path))
    return found


def runner_paths() -> set[str]:
    """The folders the runner's ``python -I`` reads code from, named by this interpreter's own configuration:
    its prefixes, standard library and site-packages, and what those ``.pth`` files add. Never the grader's
    working folder, ``PYTHONPATH`` or anything else of the grader's own ``sys.path``: ``python -m`` puts the
    working folder there, and an instructor's working folder is a course folder."""
    named = set(_prefixes())
    scheme = sysconfig.get_paths()
    named |= {scheme[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in scheme}
    sites = set(site.getsitepackages()) if hasattr(site, "getsitepackages") else set()
    named |= sites
    for folder in sorted(sites):
        named |= set(pth_paths(folder))
    named = {os.path.realpath(p) for p in named if os.path.isdir(p)} | {p for p in named if os.path.isdir(p)}
    # Never a folder that holds one of the sandbox's private folders ("/", "/var", "/tmp" itself: a .pth
    # line could name one), whose host contents would then show: the runner's /tmp is its own.
    return {p for p in named if not any(_inside(private, p) for private in _PRIVATE)}


def module_files(name: str, *, whole: bool = False) -> list[str]:
    """The files the import of `name` reads: each parent package's ``__init__.py`` and the module's own file
    (`whole`: the package's whole folder instead). ValueError when the module cannot be found."""
    parts = name.split(".")
    out: list[str] = []
    for depth in range(1, len(parts) + 1):
        dotted = ".".join(parts[:depth])
        try:
            spec = importlib.util.find_spec(dotted)
        except (ImportError, ValueError) as exc:
            raise ValueError(
                f"module {name!r} for the sandbox cannot be found ({exc}): is the kit installed?"
            ) from None
        if spec is None:
            raise ValueError(f"module {dotted!r} for the sandbox cannot be found: is the kit installed?")
        last = depth == len(parts)
        if last and whole and spec.submodule_search_locations:
            out += [os.path.realpath(p) for p in spec.submodule_search_locations]
        elif spec.origin and os.path.exists(spec.origin):
            out.append(os.path.realpath(spec.origin))
    return out


def _gradebooks(folders: list[str]) -> list[str]:
    found = []
    for folder in folders:
        if not os.path.isdir(folder):
            continue
        for here, _dirs, files in os.walk(folder):
            found += [os.path.join(here, f) for f in files if f == "gradebook.db"]
    return found


def build_view(packages: tuple[str, ...], hides: list[str], library: str | None = None) -> dict:
    """The jail's ``binds``, ``kit_mask``, ``kit_binds`` and ``hides`` for a runner importing `packages`
    (each exposed whole, like ``KIT_PACKAGES``). `library`: the folder of the grader's copy of dnnlpy
    (``library.library_copy``), shown in place of the real dnnlpy, which is then not shown at all."""
    kit = kit_root()
    prefixes = _prefixes()
    # A kit inside a prefix (installed into site-packages) cannot be masked without hiding the prefix.
    masked = not any(_inside(kit, p) for p in prefixes)
    wanted = runner_paths() | {p for p in _SYSTEM if os.path.isdir(p)}
    wanted |= {p for p in _LIBS if os.path.isdir(p) and not os.path.islink(p)}
    real_library = module_files("dnnlpy", whole=True) if library else []
    if library:
        wanted.add(os.path.realpath(library))
        hides = [*hides, *real_library]  # kept only where a bound folder holds it (an installed kit)
    if not masked:
        binds = _minimal(wanted)
        return {"binds": binds, "kit_mask": None, "kit_binds": [], "hides": _inside_any(hides, binds)}
    outside = {p for p in wanted if not _inside(p, kit)}
    inside = {p for p in wanted if _inside(p, kit) and p != kit}
    exposed: set[str] = set()
    for name in (*(() if library else KIT_PACKAGES), *packages):
        exposed.update(module_files(name, whole=True))
    inside |= {p for p in exposed if _inside(p, kit) and p != kit}
    kit_binds = _minimal(inside)
    # Folders of our own (dnnlpy/, ...) are walked for stray gradebooks; the interpreter's are not (slow).
    ours = [p for p in kit_binds if os.path.isdir(p) and not any(_inside(p, q) for q in prefixes)]
    binds = _minimal(outside)
    hidden = _inside_any([*hides, *_gradebooks(ours)], binds + kit_binds)
    return {"binds": binds, "kit_mask": kit, "kit_binds": kit_binds, "hides": hidden}


def _inside_any(paths, folders: list[str]) -> list[str]:
    return sorted({p for p in map(str, paths) if any(_inside(p, f) for f in folders)})


def visible_hides(view: dict, extra) -> dict:
    """`view` with the `extra` hidden paths that lie inside its allowed folders added to its ``hides``."""
    real = [os.path.realpath(p) for p in extra if os.path.exists(p)]
    added = _inside_any(real, view["binds"] + view["kit_binds"])
    return {**view, "hides": sorted(set(view["hides"]) | set(added))}


def hidden_paths(specs: Iterable, extra: Iterable[str | Path] = ()) -> tuple[str, ...]:
    """The deny-list: every grader's judge folder and solution, the kit's nbgrader course copies and
    gradebooks, its tests and git history, plus `extra` (e.g. the submissions being graded).

    A folder of `extra` that holds code the runner imports (the kit, the venv, or inside them) is skipped:
    the allow-list already decides what of it shows, and hiding it whole would hide the runner too.
    """
    kit = Path(KIT_ROOT)
    paths: list[Path] = [kit / ".git", SOLUTIONS_DIR, kit / "tests"]
    paths += [COURSE_DIR / sub for sub in ("source", "submitted", "autograded", "feedback", "gradebook.db")]
    paths += [*kit.glob("*/gradebook.db"), kit / "gradebook.db"]
    for spec in specs:
        paths += [Path(spec.judge_dir), Path(spec.solution_path)]
    return tuple(str(p) for p in paths if p.exists()) + extra_hidden(extra)


def extra_hidden(extra: Iterable[str | Path]) -> tuple[str, ...]:
    """``hidden_paths``'s part for `extra` alone (what a warm worker adds to its view for each run: the kit's own
    deny-list is in the view since the worker started)."""
    kit = Path(KIT_ROOT)
    code = [
        kit / "autograder",
        kit / "coursecheck",
        kit / "dnnlpy",
        Path(sys.prefix).resolve(),
        Path(sys.base_prefix).resolve(),
    ]
    paths = []
    for path in (Path(p).resolve() for p in extra):
        if path.is_dir() and any(path == n or path in n.parents or n in path.parents for n in code):
            continue
        paths.append(path)
    return tuple(str(p) for p in paths if p.exists())
