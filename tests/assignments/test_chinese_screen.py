"""A Chinese class run, end to end, scanned for English: what reaches a Chinese student's screen.

The Chinese edition as ``nbgrader generate_assignment`` releases it, handed in by a small class: ann (correct),
bo (exercise 1's head a copied table), cy (``generate`` neither crops nor switches dropout off), dan (exercise 2's
cell does not compile) and eve (the release as it came: every method a stub). Through the documented commands,
every screen a Chinese student reads:

- the notebook: its markdown, and what its cells print when ann's copy runs in a Jupyter kernel;
- ``pytest`` in the release folder (the self-check) on cy's notebook;
- ``python -m autograder grade`` on dan's notebook (the terminal table), on bo's with ``--json`` (Gradescope's
  ``output`` and each test's ``name`` and ``output``: its ``tags`` and ``extra_data`` are ids and run facts for
  the course, which Gradescope does not show), and on the class (every student's feedback page, as text).

Each is scanned with ``zh_text.english``: an English word outside code, the book's kept terms and the glossary's
allow-list (``glossary.ENGLISH_ALLOWED``) fails, naming the screen and the line. Set aside besides, each with
its reason (``SET_ASIDE``): the student's own file path and name, pytest's own frame around the self-check, and
the Python values a demo prints as data (the tokenizer's tokens, the untrained model's text).
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.graders.kit import KIT_ROOT
from autograder.graders.weight_tying.zh_text import english

pytestmark = pytest.mark.e2e

COPY_LINE = "self.lm_head.weight = self.token_embed.weight"
CROP_LINE = "context = ids[:, -block_size:]"
EVAL_LINE = "self.eval()"
FORWARD_LINE = "return self.minigpt(input_ids)  # (B, T) -> (B, T, V)"

# What stays English on a Chinese screen besides code and the book's terms: pattern -> why.
SET_ASIDE = {
    # pytest's frame around the self-check: the tool's words, the same in every course
    r"^=+ (test session starts|short test summary info|FAILURES) =+$": "pytest's own section headings",
    r"^=+ (\d+ \w+(, )?)+ in [\d.]+s =+$": "pytest's count of passed and failed tests",
    r"^(platform|rootdir|configfile|cachedir|plugins|collected)\b.*$": "pytest's session header",
    r"^test_weight_tying\.py [.FEsx]+.*$": "pytest's progress line",
    r"^FAILED \S+ - .*$": "pytest's summary line: the first characters of a failure shown in full above",
    # data a demo cell prints, not words: Python's repr of strings
    r"'(?:[^'\\\n]|\\.)*'": "a Python string the code printed as a value (the tokenizer's tokens, the generated text)",
}


def _screen(text: str, *, data: tuple[str, ...] = ()) -> list[str]:
    """'line: [words]' for each line of `text` with English left once `data` (the student's own path and
    name) and ``SET_ASIDE`` are taken out."""
    for value in data:
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", text)
    found = []
    for line in text.splitlines():
        rest = line
        for pattern in SET_ASIDE:
            rest = re.sub(pattern, " ", rest)
        if words := english(rest):
            found.append(f"{line.strip()[:160]!r}: {words}")
    return found


def _page_text(page: str) -> str:
    """What a browser shows of a page: no style or script, tags as line breaks, entities decoded."""
    page = re.sub(r"<(style|script)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "\n", page))


def _handed_in(release: Path, answers: dict[str, str], changes: dict[str, list[tuple[str, str]]]):
    nb = nbformat.read(release / "weight_tying.ipynb", as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            text = answers[grade_id]
            for old, new in changes.get(grade_id, []):
                assert old in text, f"the solution no longer holds {old!r}: update this test's student"
                text = text.replace(old, new, 1)
            cell.source = text
    return nb


@pytest.fixture(scope="module")
def screens(course, env, run_ok, tmp_path_factory, answers) -> dict[str, str]:
    """screen -> its text, from the commands a Chinese class and its course run."""
    run_ok(["nbgrader", "generate_assignment", "weight_tying_zh", "--force"], course, env)
    release = course / "release" / "weight_tying_zh"
    ex1, ex2 = "solution_TiedEmbeddingLM", "solution_MiniGPTWithWeightTying"
    copied = "self.lm_head.weight = nn.Parameter(self.token_embed.weight.detach().clone())"
    class_ = {
        "ann": {},
        "bo": {ex1: [(COPY_LINE, copied)]},
        "cy": {ex2: [(CROP_LINE, "context = ids"), (EVAL_LINE, "pass")]},
        "dan": {ex2: [(FORWARD_LINE, FORWARD_LINE.replace("(input_ids)", "(input_ids))"))]},
    }
    submitted = tmp_path_factory.mktemp("zh_class") / "submitted"
    notebooks = {}
    for student, changes in class_.items():
        notebooks[student] = submitted / student / "weight_tying_zh" / "weight_tying.ipynb"
        notebooks[student].parent.mkdir(parents=True)
        nbformat.write(_handed_in(release, answers, changes), notebooks[student])
    notebooks["eve"] = submitted / "eve" / "weight_tying_zh" / "weight_tying.ipynb"
    notebooks["eve"].parent.mkdir(parents=True)
    notebooks["eve"].write_bytes((release / "weight_tying.ipynb").read_bytes())

    # The commands run side by side while ann's notebook runs in a kernel here.
    out = submitted.parent / "graded"
    kit = [sys.executable, "-m", "autograder", "grade", "--assignment", "weight_tying", "--seed", "7"]
    commands = {
        "class": ([*kit, str(submitted), "--out", str(out), "--workers", "2"], KIT_ROOT),
        "table": ([*kit, str(notebooks["dan"])], KIT_ROOT),
        "json": ([*kit, str(notebooks["bo"]), "--json"], KIT_ROOT),
        "self-check": ([sys.executable, "-m", "pytest"], release),
    }
    student_env = {**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "WEIGHT_TYING_SUBMISSION": str(notebooks["cy"])}
    running = {
        name: subprocess.Popen(
            args,
            cwd=cwd,
            env=student_env if name == "self-check" else env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (args, cwd) in commands.items()
    }
    executed = nbformat.read(notebooks["ann"], as_version=4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", env["PATH"])  # the python3 kernel from the venv
        patch.setenv("MPLBACKEND", "Agg")
        patch.delenv("WEIGHT_TYING_LANG", raising=False)
        client = NotebookClient(executed, kernel_name="python3", timeout=300, resources={"metadata": {"path": release}})
        client.execute()
    done = {}
    for name, proc in running.items():
        stdout, stderr = proc.communicate(timeout=900)
        expected = 1 if name == "self-check" else 0  # cy's self-check fails
        assert proc.returncode == expected, f"{name}: {stdout[-2000:]}{stderr[-3000:]}"
        done[name] = stdout

    shown = {
        "notebook markdown": "\n".join(c.source for c in executed.cells if c.cell_type == "markdown"),
        "notebook output": "\n".join(
            out.get("text", "") for c in executed.cells for out in c.get("outputs", []) if out.get("name") == "stdout"
        ),
        "self-check": done["self-check"],
        "grade table": done["table"],
    }
    result = json.loads(done["json"].strip().splitlines()[-1])
    shown["gradescope output"] = result["output"]
    shown["gradescope tests"] = "\n".join(f"{t['name']}\n{t.get('output', '')}" for t in result["tests"])
    for page in sorted((out / "feedback").glob("*.html")):
        shown[f"page of {page.stem}"] = _page_text(page.read_text(encoding="utf-8"))
    paths = tuple(str(p) for p in notebooks.values())
    return {name: (text, paths + tuple(class_) + ("eve",)) for name, text in shown.items()}


def test_every_screen_was_seen(screens):
    """The scan reads what it means to: each screen holds what the run is known to show."""
    assert {f"page of {s}" for s in ("ann", "bo", "cy", "dan", "eve")} <= set(screens)
    assert (
        "练习 1" in screens["notebook markdown"][0] and "两种做法得到的向量相同：True" in screens["notebook output"][0]
    )
    assert "没有截断上下文" in screens["self-check"][0] and "2 failed, 15 passed" in screens["self-check"][0]
    assert "语法错误" in screens["grade table"][0] and "复制了一份表" in screens["gradescope tests"][0]
    assert "得分" in screens["page of ann"][0] and "初始代码" in screens["page of eve"][0]


@pytest.mark.parametrize(
    "screen",
    [
        "notebook markdown",
        "notebook output",
        "self-check",
        "grade table",
        "gradescope output",
        "gradescope tests",
        *(f"page of {s}" for s in ("ann", "bo", "cy", "dan", "eve")),
    ],
)
def test_no_english_reaches_a_chinese_screen(screens, screen):
    text, data = screens[screen]
    assert _screen(text, data=data) == []


def test_the_scan_catches_an_english_sentence():
    """The scan is not vacuous: a sentence slipped in among the Chinese is caught, code and the kept terms are
    not."""
    assert _screen("得分：78 / 100\nYour code ran to the end.") == [
        "'Your code ran to the end.': ['Your', 'code', 'ran', 'to', 'the', 'end']"
    ]
    assert _screen("token：['w', 'ing']\n见 `lm_head.weight`，LM head 与 token embedding") == []
    assert _screen("=== 2 failed, 15 passed in 2.85s ===\nFAILED t.py::test_x - Failed: in...") == []
