"""Trusted: ``<out>/similarity.json``: what the similarity pass found, for the report, ``grades.csv`` and a rerun.

    {"format": 1, "when": ..., "threshold": 0.6, "archives": ["/courses/2025/submitted"], "hand_ins": 48,
     "pairs": [{"a": uid, "b": uid or archive id, "b_name": ..., "archived": false, "share_a": 0.93,
                "share_b": 0.88, "chars": 412, "page": "similar/<digest>.html"}, ...],
     "not_compared": [{"uid": ..., "name": ..., "problem": "empty", "detail": ...}],
     "notes": [{"uid": ..., "name": ..., "notes": ["huge"], "detail": ...}], "problems": [...], ...}

Written whole or not at all (``atomic``) after the grades; read back by ``load`` (None when the file is missing or
not one of ours: the class then simply has no similarity section). It names students by uid and name only: no
student's code is kept here, and nothing of it reaches a student's page or the Gradescope JSON.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from autograder.outputs.atomic import write_text

__all__ = ["SIMILARITY", "Pair", "Outcome", "load", "save", "similar_to"]

SIMILARITY = "similarity.json"
_FORMAT = 1


@dataclass(frozen=True)
class Pair:
    a: str  # a student's uid
    a_name: str
    b: str  # another student's uid, or an archived hand-in's id
    b_name: str
    archived: bool  # b is an earlier year's hand-in (--archive): never a student of this class
    share_a: float  # of what a wrote (beyond the starter and the common code), the share b has too
    share_b: float
    chars: int  # normalised characters shared
    page: str  # the side-by-side page, relative to the output folder

    @property
    def share(self) -> float:
        return max(self.share_a, self.share_b)


@dataclass
class Outcome:
    threshold: float
    archives: list[str] = field(default_factory=list)
    hand_ins: int = 0  # compared hand-ins of this class
    archived: int = 0  # compared hand-ins of the archive
    pairs: list[Pair] = field(default_factory=list)
    not_compared: list[dict] = field(default_factory=list)  # {uid, name, problem, detail}
    notes: list[dict] = field(default_factory=list)  # {uid, name, notes, detail}: compared, with this said
    alike_names: dict[str, list[str]] = field(default_factory=dict)  # name -> the names drawn like it
    problems: list[str] = field(default_factory=list)  # starter code not found, an archive not read, ...
    when: str = ""
    seconds: float = 0.0
    candidates: int = 0  # pairs compared (of n(n-1)/2): the ones sharing enough fingerprints (engine.candidates)
    compare_seconds: float = 0.0  # the time copydetect's comparison of those took

    def to_json(self) -> str:
        data = {"format": _FORMAT, **asdict(self)}
        return json.dumps(data, indent=1, ensure_ascii=True) + "\n"

    @classmethod
    def from_dict(cls, data: object) -> Outcome | None:
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return None
        try:
            pairs = [Pair(**p) for p in data.get("pairs", [])]
            return cls(
                threshold=float(data["threshold"]),
                archives=[str(a) for a in data.get("archives", [])],
                hand_ins=int(data.get("hand_ins", 0)),
                archived=int(data.get("archived", 0)),
                pairs=pairs,
                not_compared=[e for e in data.get("not_compared", []) if isinstance(e, dict)],
                notes=[e for e in data.get("notes", []) if isinstance(e, dict)],
                alike_names={str(k): list(v) for k, v in dict(data.get("alike_names", {})).items()},
                problems=[str(p) for p in data.get("problems", [])],
                when=str(data.get("when", "")),
                seconds=float(data.get("seconds", 0.0)),
                candidates=int(data.get("candidates", 0)),
                compare_seconds=float(data.get("compare_seconds", 0.0)),
            )
        except (KeyError, TypeError, ValueError):
            return None


def save(out: Path, outcome: Outcome) -> Path:
    return write_text(Path(out) / SIMILARITY, outcome.to_json())


def load(out: Path) -> Outcome | None:
    """The folder's similarity outcome, or None (no pass yet, or a file that is not one of ours)."""
    try:
        return Outcome.from_dict(json.loads((Path(out) / SIMILARITY).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def _percent(share: float) -> str:
    return f"{share * 100:.0f}%"


def similar_to(outcome: Outcome | None) -> dict[str, list[str]]:
    """uid -> "bob (93% of this hand-in, 88% of bob's)" for every pair it is in, highest share first."""
    found: dict[str, list[tuple[float, str]]] = {}

    def add(uid: str, other: str, mine: float, theirs: float) -> None:
        words = f"{other} ({_percent(mine)} of this hand-in, {_percent(theirs)} of theirs)"
        found.setdefault(uid, []).append((max(mine, theirs), words))

    for pair in outcome.pairs if outcome is not None else []:
        add(pair.a, f"archive {pair.b_name}" if pair.archived else pair.b_name, pair.share_a, pair.share_b)
        if not pair.archived:
            add(pair.b, pair.a_name, pair.share_b, pair.share_a)
    return {uid: [text for _, text in sorted(items, key=lambda t: -t[0])] for uid, items in found.items()}
