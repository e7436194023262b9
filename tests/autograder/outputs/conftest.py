"""Fixtures for the output tests: batch folders as a grading run leaves them (manifest + results), and a
headless Chromium to look at the pages."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from autograder.graders import get_assignment
from autograder.grading.findings import Finding
from autograder.grading.rendering import rendered
from autograder.grading.result import Result, RunFacts, TestOutcome
from autograder.outputs.folder import Manifest, OutputFolder
from autograder.outputs.roster import build_roster
from autograder.protocol.said import Said

AREAS = {
    "parameter identity": 24,
    "shape flow": 20,
    "parameter counts": 18,
    "gradient accumulation": 20,
    "argmax generation": 18,
}


def finding(text: str | Finding) -> Finding:
    """A failure as the suite reports it: `text` is what the student's code raised (a plain failure), or a
    Finding already."""
    if isinstance(text, Finding):
        return text
    if "NotImplementedError" in text:  # as the judge says it (judge/suite_api.entry): the starter code's own
        return Finding(Said("judge.starter_code", what="X", at=""))
    return Finding(Said("judge.failed_your_code_raised", what="X", text=text))


def charged(outcome: TestOutcome) -> TestOutcome:
    """The outcome as marking leaves it (a misconception's charge, or the test's own points)."""
    if outcome.passed:
        return TestOutcome(outcome.name, outcome.points, outcome.area, True, None, 0.0, "")
    names = outcome.finding.names
    to = f"misconception:{names}" if names else "test"
    return TestOutcome(outcome.name, outcome.points, outcome.area, False, outcome.finding, outcome.points, to)


def _area_result(
    failing: dict[str, str | Finding] | None = None, *, status: str = "ok", seconds: float = 3.0, defined: bool = True
) -> Result:
    """One test per area worth the area's points, marked and rendered as step 8 leaves it; `failing` maps area ->
    the failing test's finding (or what the student's code raised, a plain failure)."""
    failing = failing or {}
    tests = [
        charged(
            TestOutcome(
                f"test_{a.split()[0]}.py::test_{a.replace(' ', '_')}",
                float(p),
                a,
                a not in failing,
                finding(failing[a]) if a in failing else None,
            )
        )
        for a, p in AREAS.items()
    ]
    run = RunFacts(status=status, required_names=["TiedEmbeddingLM"], defined=["TiedEmbeddingLM"] if defined else [])
    return rendered(Result(tests=tests, run=run, seed=5, execution_time=seconds), get_assignment("weight_tying"))


@pytest.fixture
def area_result() -> Callable[..., Result]:
    """make(failing={area: finding or raised text}, status=, seconds=, defined=) -> a Result, one test per area."""
    return _area_result


@pytest.fixture
def batch_folder(tmp_path) -> Callable[..., Path]:
    """make(results: {key: Result | None}, unreadable={key: why}, suffix="py") -> an --out folder; None: no result
    file; each result is rendered as it is (``grading.rendering``), as the pipeline's step 8 leaves every one."""

    def make(
        results: dict[str, Result | None],
        *,
        unreadable: dict[str, str] | None = None,
        seed: int = 42,
        suffix: str = "ipynb",
    ) -> Path:
        spec = get_assignment("weight_tying")
        # as a grading run leaves them: each result rendered at step 8, once its facts are all set (a test may have
        # changed one since it made the result)
        results = {k: r if r is None else rendered(r, spec) for k, r in results.items()}
        out = tmp_path / "graded"
        folder = OutputFolder(out)
        roster = build_roster(
            {k: tmp_path / "submitted" / f"{i}.{suffix}" for i, k in enumerate(results)},
            roots=[],
            assignment="weight_tying",
        )
        manifest = Manifest(assignment="weight_tying", seed=seed, kit_version="0.1.0", started="2026-05-04T09:30:00Z")
        manifest.finished = "2026-05-04T09:41:00Z"
        for student in roster:
            why = (unreadable or {}).get(student.key, "")
            manifest.students.append(folder.entry(student, "key", "graded", why))
            if results[student.key] is not None:
                folder.save_result(
                    student, results[student.key], grading_key="key", assignment="weight_tying", unreadable=why
                )
        folder.write_manifest(manifest)
        return out

    return make


# ---------------------------------------------------------------- a headless Chromium, driven over a pipe


def _high(fd: int) -> int:
    """`fd` moved to a number of 10 or more (closing the original)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


class Chromium:
    """Headless Chromium spoken to over the DevTools protocol on a pipe (--remote-debugging-pipe: fd 3 in,
    fd 4 out, NUL-terminated JSON), so there is no port, no websocket and no extra package."""

    def __init__(self, binary: str, profile: Path) -> None:
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
        flags += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]
        flags += ["--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"]
        to_browser, self._in = os.pipe()  # we write commands into _in; Chromium reads them on its fd 3
        self._out, from_browser = os.pipe()  # Chromium writes on its fd 4; we read _out
        to_browser, from_browser = (_high(fd) for fd in (to_browser, from_browser))  # never 3 or 4 themselves
        # bash puts the pipe ends on fds 3 and 4 and execs Chromium (dash takes one-digit fds only).
        wire = f'exec "$@" 3<&{to_browser} 4>&{from_browser} {to_browser}<&- {from_browser}>&-'
        self.proc = subprocess.Popen(
            ["bash", "-c", wire, "bash", binary, *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(to_browser, from_browser),
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next, self._events = b"", 0, []
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Page.enable", session=True)

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer within the time limit")
            chunk = os.read(self._out, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe (did it crash?)")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, *, session: bool = False, timeout: float = 60, **params) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._in, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def open(self, url: str, *, width: int, height: int = 900, timeout: float = 60) -> None:
        """Load `url` in a window `width` CSS pixels wide and wait for its load event."""
        self.send(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=width < 600,
        )
        self._events.clear()
        self.send("Page.navigate", session=True, url=url)
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self._events):
            self._events.append(self._read(deadline))

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"JavaScript failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        """The whole page (not only the window) as a PNG at `path`."""
        size = self.send("Page.getLayoutMetrics", session=True)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 16000), "scale": 1}
        data = self.send("Page.captureScreenshot", session=True, format="png", captureBeyondViewport=True, clip=clip)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data["data"]))
        return path

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # the browser this fixture started, by its own handle
            self.proc.wait(timeout=20)
        os.close(self._in)
        os.close(self._out)


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    """A headless Chromium for the module; a missing browser FAILS the test (CI installs it in .ci/run)."""
    binary = os.environ.get("CHROMIUM") or next(
        (found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))), None
    )
    if binary is None:
        pytest.fail("Chromium is not installed: `apt-get install chromium` (as root; .ci/run does it), or set CHROMIUM")
    browser = Chromium(binary, tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield browser
    finally:
        browser.close()
