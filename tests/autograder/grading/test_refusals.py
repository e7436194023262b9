"""What a run tried that its sandbox refused, as values (``RunFacts.refused``): kept from what the sandbox and the
runner saw, only what the sandbox did refuse, and said to the TA and (without paths) to the student."""

from __future__ import annotations

from autograder.graders import get_assignment
from autograder.graders.kit import KIT_ROOT
from autograder.grading.pipeline import facts
from autograder.grading.refusals import refused, refused_lines
from autograder.grading.result import RunFacts
from autograder.protocol.frames import Done, Load, Refused
from autograder.sandbox.limits import Limits, isolation_for
from autograder.sandbox.runs import SandboxResult

HIDDEN = str(KIT_ROOT / "solutions" / "weight_tying.py")  # on this machine, never in a run's view


def test_a_file_of_this_machine_is_kept_and_a_file_of_nowhere_or_of_the_runs_own_folders_is_not():
    record = {"files": [HIDDEN, "/no/such/file", "/tmp/x", "/proc/1/environ", "relative.txt", "/" * 600]}
    assert refused([], record) == [["files", HIDDEN]]


def test_a_refused_call_and_a_foreign_socket_are_kept_and_an_allowed_call_is_not():
    record = {"calls": ["ptrace", "printf", "socket:AF_INET", "socket:", "add_key", "ptrace"]}
    assert refused([], record) == [["call", "ptrace"], ["call", "socket:AF_INET"], ["call", "add_key"]]


def test_a_flooded_channel_is_the_sandboxs_own_word_and_a_malformed_record_is_nothing():
    assert refused(["stdout", "evidence", "elsewhere"], {"files": "/etc", "calls": [3, None]}) == [
        ["output", "stdout"],
        ["output", "evidence"],
    ]
    assert refused([], ["not", "a", "dict"]) == [] and refused([], None) == []


def _box(flooded: list[str]) -> SandboxResult:
    return SandboxResult(0, None, False, 0.5, "", "", b"", False, isolation_for("uid"), flooded=flooded)


def test_the_facts_step_carries_them_and_the_summary_says_them_without_the_paths():
    spec = get_assignment("weight_tying")
    evidence = {Load.NAME: {"errors": [], "defined": []}, Done.NAME: {}, Refused.NAME: {"files": [HIDDEN]}}
    run = facts(_box(["stdout"]), evidence, [], spec, Limits())
    assert run.refused == [["output", "stdout"], ["files", HIDDEN]]
    assert RunFacts.from_dict(run.to_dict()).refused == run.refused  # in results/<id>.json as it was
    for language, words in (("en", "tried to reach files"), ("zh", "试图读取")):
        summary = run.summary(language)
        assert words in summary and HIDDEN not in summary and "stdout" in summary
    assert "refused" not in RunFacts(status="ok").to_dict()  # only runs that have it
    assert refused_lines([["files"], 3, ["call", "ptrace"]], "en") == [
        "Your code made calls the grader's sandbox refuses: ptrace. Your instructor sees this attempt."
    ]  # a results file's own entries, any shape
