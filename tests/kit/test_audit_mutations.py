"""scripts/audit_mutations.py: each mutation still applies to the code as it is now and names guards that exist;
a mutation is applied alone, judged by its guards, and the file put back as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def audit(script):
    return script("audit_mutations")


def test_every_mutation_changes_its_file_once_per_edit_and_its_guards_exist(audit):
    names = [m.name for m in audit.MUTATIONS]
    assert len(names) == len(set(names)) and len(names) >= 20
    for m in audit.MUTATIONS:
        text = (ROOT / m.path).read_text(encoding="utf-8")
        assert audit.applied(m, text) != text, m.name  # raises when an edit's text is not there exactly once
        for guard in m.guards:
            file, _, test = guard.partition("::")
            assert (ROOT / file).is_file(), (m.name, guard)
            assert not test or f"def {test}(" in (ROOT / file).read_text(encoding="utf-8"), (m.name, guard)


def test_a_mutation_is_killed_or_survives_by_its_guards_and_its_file_is_put_back(audit, tmp_path):
    (tmp_path / "toy.py").write_text("def add(a, b):\n    return a + b\n\n\ndef unused():\n    return 1\n")
    (tmp_path / "test_toy.py").write_text("from toy import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n")
    before = (tmp_path / "toy.py").read_bytes()
    os.utime(tmp_path / "toy.py", ns=(1_000_000_000, 1_000_000_000))

    def toy(old, new):
        return audit.Mutation("toy", "add adds", "toy.py", ((old, new),), ("test_toy.py",))

    verdict, detail = audit.run(toy("return a + b", "return a - b"), root=tmp_path)
    assert (verdict, detail) == ("killed", "test_toy.py::test_adds")
    assert audit.run(toy("return 1", "return 2"), root=tmp_path)[0] == "survived"  # no test reads unused()
    verdict, detail = audit.run(toy("return a * b", "return a - b"), root=tmp_path)
    assert verdict == "error" and "0 times, not once" in detail
    assert (tmp_path / "toy.py").read_bytes() == before
    assert (tmp_path / "toy.py").stat().st_mtime_ns == 1_000_000_000  # no stale bytecode is trusted after
