"""Trusted: a dry run of a class: whose marks a regrade would move, and by how much, with nothing written.

After a change to the marking scheme (``marking.toml``), the grader or the kit, every stored result's grading key
is stale and the next ``grade`` regrades the class. ``grade ... --dry-run`` grades those students (all of them
with ``--force``, the named ones with ``--student``) in memory, on the folder's own seed, and compares each new
mark with the stored one: the manifest, the results, ``grades.csv``, the report, the pages and the gradebook are
left as they are (the folder's lock is not even taken). A student graded for the first time is listed as new.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.grading.result import GRADER_ERROR, Result
from autograder.outputs.cachekey import grading_key
from autograder.outputs.classrun import ClassJob, ClassRunError, run_batch, selected
from autograder.outputs.folder import OutputFolder
from autograder.outputs.roster import build_roster

__all__ = ["Move", "Preview", "preview_class"]


@dataclass(frozen=True)
class Move:
    name: str
    uid: str
    before: float | None  # the stored mark (None: never graded in this folder)
    after: float | None  # the mark a regrade gives (None: the grader failed on it)
    max_score: float
    areas: dict[str, float]  # area -> points moved (only the areas that move)

    @property
    def change(self) -> float | None:
        return None if self.before is None or self.after is None else round(self.after - self.before, 6)


@dataclass
class Preview:
    seed: int
    regraded: int  # students graded for the preview
    moves: list[Move] = field(default_factory=list)  # whose mark moves, the largest change first, new ones last
    unchanged: int = 0

    def lines(self) -> list[str]:
        """The preview as a plain table for the terminal."""
        head = (
            f"dry run (nothing written): {len(self.moves)} of {self.regraded} regraded students' marks would move "
            f"(seed {self.seed}; {self.unchanged} unchanged)"
        )
        if not self.moves:
            return [head]
        width = max(len("student"), *(len(m.name) for m in self.moves))
        lines = [head, f"  {'student':<{width}}  {'now':>7}  {'after':>7}  {'change':>7}  areas"]
        for m in self.moves:
            before = f"{m.before:g}" if m.before is not None else "new"
            after = f"{m.after:g}" if m.after is not None else "error"
            change = f"{m.change:+g}" if m.change is not None else ""
            areas = ", ".join(f"{a} {d:+g}" for a, d in m.areas.items())
            lines.append(f"  {m.name:<{width}}  {before:>7}  {after:>7}  {change:>7}  {areas}")
        return lines

    def to_json(self) -> dict:
        moves = [{**m.__dict__, "change": m.change} for m in self.moves]
        return {"dry_run": True, "seed": self.seed, "regraded": self.regraded, "unchanged": self.unchanged,
                "moves": moves}  # fmt: skip


def _areas(before: Result | None, after: Result | None) -> dict[str, float]:
    old = {a: got for a, (got, _) in before.areas.items()} if before is not None else {}
    new = {a: got for a, (got, _) in after.areas.items()} if after is not None else {}
    moved = {a: round(new.get(a, 0.0) - old.get(a, 0.0), 6) for a in {**old, **new}}
    return {a: d for a, d in moved.items() if abs(d) > 1e-9}


def preview_class(job: ClassJob, *, submissions: dict) -> Preview:
    """Grade in memory what ``grade_class`` would grade (see the module's docstring) and compare."""
    from autograder.graders import editions_of, get_assignment

    spec = get_assignment(job.assignment)
    folder = OutputFolder(job.out)
    previous = folder.read_manifest()
    if previous is None:
        raise ClassRunError(
            f"{str(job.out)!r} holds no graded class: a dry run compares with the marks there (grade it first)"
        )
    if previous.assignment != job.assignment:
        raise ClassRunError(
            f"{str(job.out)!r} holds grades of assignment {previous.assignment!r}, not {job.assignment!r}"
        )
    seed = previous.seed if job.seed is None else int(job.seed)
    roster = build_roster(
        submissions,
        roots=list(job.paths),
        assignment=job.assignment,
        known=previous.known_uids(),
        editions=editions_of(job.assignment)[1:],
        notebook=spec.name,
    )
    forced = {s.uid for s in roster} if job.force else selected(roster, job.only)
    stored: dict[str, Result | None] = {}
    todo = {}
    for student in roster:
        key = grading_key(submission=student.path, spec=spec, seed=seed, limits=job.limits)
        result, batch, _ = folder.load_result(student.uid)
        stored[student.uid] = result
        if student.uid in forced or result is None or batch.get("grading_key") != key:
            todo[student.uid] = student
    fresh: dict[str, Result] = {}
    run_batch(job, todo, seed, lambda uid, result: fresh.__setitem__(uid, result))
    preview = Preview(seed=seed, regraded=len(todo))
    for uid, student in todo.items():
        before, after = stored[uid], fresh.get(uid)
        old = before.score if before is not None and before.status != GRADER_ERROR else None
        new = after.score if after is not None and after.status != GRADER_ERROR else None
        if old is not None and new is not None and abs(new - old) <= 1e-9:
            preview.unchanged += 1
            continue
        top = (after or before).max_score if (after or before) is not None else 0.0
        preview.moves.append(Move(student.name, uid, old, new, top, _areas(before, after)))
    preview.moves.sort(key=lambda m: (m.change is None, -abs(m.change or 0.0), m.name))  # new ones last
    return preview
