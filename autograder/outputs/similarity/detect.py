"""Trusted: the similarity pass over a class: which hand-ins share code beyond the starter and what many share.

    hand-ins (the class's, then each archive's) -> what each wrote (``written``: text only, never run)
    -> copydetect's fingerprints (``engine``) -> the starter code and the reference set aside (``starter``)
    -> what many documents share set aside (the class, the archive and the kit's corpus counted together)
    -> candidate pairs from an index of what is left -> copydetect's comparison of each candidate
    -> pairs at the threshold -> side-by-side pages, ``similarity.html`` -> ``similarity.json`` last

Ordering rules: the pass runs after the grades are written and reads only the hand-ins' text, so nothing it does
can move or lose a mark; ``similarity.json`` is written last, so a pass that stops half-way leaves the previous
one whole. The threshold and the archives, when not given, are the folder's last ones (as the seed is).
An archived hand-in is compared with the class, never with another archived one, and is never a student.
"""

from __future__ import annotations

import functools
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.graders import ASSIGNMENTS, get_assignment
from autograder.outputs.similarity import engine, store
from autograder.outputs.similarity.starter import Starter, expected_code, released_cells, same_cell
from autograder.outputs.similarity.written import COMMON_ONLY, SYNTAX_ERROR, Written, read_written
from autograder.protocol.said import Said

__all__ = ["HandIn", "SimilarityOptions", "class_hand_ins", "run_similarity", "archive_hand_ins", "pair_page"]


@dataclass(frozen=True)
class HandIn:
    id: str  # a student's uid, or an archived hand-in's id ("archive1-bob")
    name: str  # as people read it
    path: Path
    root: Path | None  # the folder it must sit beneath (None: its own folder)
    archived: bool = False
    compile_failed: bool = False  # its grading run met a syntax error (RunFacts.compile_failed)


@dataclass(frozen=True)
class SimilarityOptions:
    threshold: float | None = None  # None: the folder's last, else engine.DEFAULT_THRESHOLD
    archives: tuple[Path, ...] | None = None  # earlier years' hand-ins; None: the folder's last
    courses: tuple[Path, ...] = ()  # nbgrader courses holding the released notebooks (the kit's own is added)
    language: str = "en"  # the instructor's: similarity.html and the side-by-side pages in it


def class_hand_ins(roster: list, roots: tuple[Path, ...], broken: frozenset[str] = frozenset()) -> list[HandIn]:
    """The hand-ins of a class's roster (``outputs.roster.Student``), each beneath the folder it was found in;
    `broken`: the uids whose grading run met a syntax error."""
    from autograder.grading.submissions import submission_root

    return [HandIn(s.uid, s.name, Path(s.path), submission_root(s.path, roots), False, s.uid in broken) for s in roster]


def pair_page(a: str, b: str) -> str:
    """The side-by-side page of a pair, relative to the output folder (ids may be long: a digest names it)."""
    digest = hashlib.sha256("\0".join((a, b)).encode("utf-8", "backslashreplace")).hexdigest()
    return f"similar/{digest[:16]}.html"


def archive_hand_ins(archives: tuple[Path, ...], assignment: str) -> tuple[list[HandIn], list[str]]:
    """The hand-ins of each archive folder (either layout), and what could not be read."""
    from autograder.graders import editions_of, get_assignment
    from autograder.grading.submissions import find_submissions
    from autograder.outputs.roster import display_name, file_id

    found, problems = [], []
    editions, notebook = editions_of(assignment), get_assignment(assignment).name
    for number, folder in enumerate(archives, start=1):
        if not Path(folder).is_dir():
            problems.append(f"archive {str(folder)!r} is not a folder: left out (give an existing --archive DIR)")
            continue
        files = find_submissions([Path(folder)], assignment=editions[0], also=editions[1:], notebook=notebook)
        label = display_name(Path(folder).name or str(folder))
        for key, path in sorted(files.items()):
            found.append(HandIn(f"archive{number}-{file_id(key)}", f"{label}/{display_name(key)}", path, folder, True))
        if not files:
            problems.append(f"archive {str(folder)!r} holds no .py or .ipynb hand-in: nothing of it was compared")
    return found, problems


def _read(hand_in: HandIn, released: set[str], language: str) -> Written:
    try:
        return read_written(hand_in.path, root=hand_in.root, released=released, language=language)
    except Exception as exc:  # one odd file must never cost the class its pass
        return Written("", "unreadable", Said("report.similar.detail.unreadable", error=type(exc).__name__).to_wire())


def _settings(options: SimilarityOptions, previous: store.Outcome | None) -> tuple[float, tuple[Path, ...]]:
    threshold = options.threshold
    if threshold is None:
        threshold = previous.threshold if previous is not None else engine.DEFAULT_THRESHOLD
    archives = options.archives
    if archives is None:
        archives = tuple(Path(a) for a in previous.archives) if previous is not None else ()
    return float(threshold), tuple(archives)


@functools.lru_cache(maxsize=4)
def _material(assignment: str, courses: tuple[Path, ...]) -> tuple[Starter, frozenset, frozenset, list[frozenset]]:
    """What a pass over `assignment` sets aside: (the starter, its cells as compared, the fingerprints of the starter
    and the reference, those of each document of the kit's corpus). Kept for the process: a fingerprint is a hash
    of this process's own (Python's string hash), so nothing of it is stored."""
    from autograder.graders import editions_of, get_assignment

    spec = get_assignment(assignment)
    starter = released_cells(editions_of(assignment), spec.name, list(courses))
    reference = Path(spec.solution_path).read_text(encoding="utf-8", errors="replace")
    boilerplate = frozenset(engine.hashes_of([*starter.cells, reference]))
    background = [frozenset(engine.fingerprint(text).hashes - boilerplate) for text in expected_code(spec)[1:]]
    return starter, frozenset(same_cell(cell) for cell in starter.cells), boilerplate, background


def run_similarity(
    assignment: str, out: Path, hand_ins: list[HandIn], options: SimilarityOptions = SimilarityOptions()
) -> store.Outcome:
    """Compare the class's `hand_ins` (and the archives') into the folder `out`: its pages, then
    ``similarity.json``; the outcome."""
    from autograder.graders.kit import COURSE_DIR
    from autograder.outputs.folder import now
    from autograder.outputs.lookalikes import lookalikes
    from autograder.outputs.similarity.pages import prune, write_index, write_pages

    started = time.perf_counter()
    out = Path(out)
    threshold, archives = _settings(options, store.load(out))
    # the course given, the one whose submitted/ folder holds the class, the kit's own
    theirs = [h.root.parent for h in hand_ins if h.root is not None and Path(h.root).name == "submitted"]
    courses = tuple(dict.fromkeys([*(Path(c) for c in options.courses), *theirs, COURSE_DIR]))
    starter, released, boilerplate, background = _material(assignment, courses)
    outcome = store.Outcome(threshold=threshold, archives=[str(a) for a in archives], problems=list(starter.problems))
    archived, problems = archive_hand_ins(archives, assignment)
    outcome.problems += problems

    everyone = [*hand_ins, *archived]
    texts: dict[str, Written] = {}
    compared, prints = [], []
    read = {hand_in.id: _read(hand_in, released, options.language) for hand_in in everyone}
    readable = [h for h in everyone if read[h.id].compared]
    found = dict(zip([h.id for h in readable], engine.fingerprints([read[h.id].code for h in readable]), strict=True))
    for hand_in in everyone:
        written = read[hand_in.id]
        if isinstance(found.get(hand_in.id), str):  # the tokenizer met something it cannot read: say so, go on
            why = Said("report.similar.detail.untokenized", error=found[hand_in.id])
            written = Written("", "unreadable", why.to_wire())
        elif hand_in.id in found:
            prints.append(found[hand_in.id])
            compared.append(hand_in)
        texts[hand_in.id] = written
        if hand_in.archived:
            continue
        entry = {"uid": hand_in.id, "name": hand_in.name, "detail": written.detail}
        if not written.compared:
            outcome.not_compared.append({**entry, "problem": written.problem})
        elif written.notes:
            outcome.notes.append({**entry, "notes": list(written.notes)})

    engine.set_aside(prints, boilerplate)
    engine.set_aside(prints, engine.common_hashes(prints, background))
    for n in [n for n, found in enumerate(prints) if not found.hashes]:  # no code of its own is left to compare
        if not compared[n].archived:
            broken = compared[n].compile_failed  # then too little is left, and it did not compile: both are said
            why = Said("report.similar.detail.syntax_error" if broken else "report.similar.detail.common_only")
            problem = SYNTAX_ERROR if broken else COMMON_ONLY
            outcome.not_compared.append(
                {"uid": compared[n].id, "name": compared[n].name, "problem": problem, "detail": why.to_wire()}
            )
    kept = [n for n, found in enumerate(prints) if found.hashes]
    compared, prints = [compared[n] for n in kept], [prints[n] for n in kept]

    candidates = engine.candidates(prints, [h.archived for h in compared], threshold)
    before = time.perf_counter()
    ordered = [(j, i) if compared[i].archived else (i, j) for i, j in candidates]  # a student first
    listed = engine.listed(prints, ordered, threshold)
    outcome.candidates, outcome.compare_seconds = len(candidates), round(time.perf_counter() - before, 3)
    for first, second, match in listed:
        a, b = compared[first], compared[second]
        page = pair_page(a.id, b.id)
        pair = store.Pair(a.id, a.name, b.id, b.name, b.archived, match.share_a, match.share_b, match.chars, page)
        outcome.pairs.append(pair)
        places = {**texts[b.id].places, **texts[a.id].places}  # the first student's first, as the page reads
        write_pages(out, pair, match, texts[a.id].text, texts[b.id].text, options.language, places=places)
    outcome.pairs.sort(key=lambda p: (-p.share, p.a_name, p.b_name))
    outcome.hand_ins = sum(1 for h in compared if not h.archived)
    outcome.archived = sum(1 for h in compared if h.archived)
    outcome.alike_names = lookalikes([h.name for h in hand_ins])
    outcome.when, outcome.seconds = now(), round(time.perf_counter() - started, 3)
    prune(out, {p.page for p in outcome.pairs})  # a pair an earlier pass listed and this one does not
    spec = get_assignment(assignment) if assignment in ASSIGNMENTS else None
    write_index(out, outcome, spec.shown_title if spec is not None else assignment, options.language)
    store.save(out, outcome)
    return outcome
