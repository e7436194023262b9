"""Trusted: the kit's guarded behaviours, each with the smallest edit that breaks it and the first-tier tests that
claim to guard it (``scripts/audit_mutations.py`` applies each edit alone and runs its guards).

Each entry is one behaviour's statement and the edit that makes it false: a call dropped from the seccomp
profile, ``|safe`` on a report field, ``>`` for ``>=`` at a bound, ``eval`` for ``json.loads``. The list holds
the mutations an audit found surviving once their tests were written, each guarded by the test that now kills
it; issue 45's (the dask relay, the warm path's reading, the release, links, the self-check's budget,
Gradescope's visibility) are last.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Mutation", "MUTATIONS"]


@dataclass(frozen=True)
class Mutation:
    name: str
    breaks: str  # the behaviour's statement, which the edit makes false
    path: str  # the file edited, from the kit's root
    edits: tuple[tuple[str, str], ...]  # (text found exactly once, its replacement)
    guards: tuple[str, ...]  # pytest node ids or files of the first tier


_SECCOMP = ("autograder/sandbox/seccomp.py",)
_SECCOMP_GUARDS = ("tests/autograder/sandbox/test_seccomp.py",)
_REPORT = "autograder/outputs/templates/report.html.j2"
_PAGES = ("tests/autograder/outputs/test_hostile_pages.py",)
_TENSORS = "autograder/protocol/tensors.py"
_TENSOR_GUARDS = ("tests/autograder/protocol/test_tensors.py",)
_CLASSRUN_GUARDS = ("tests/autograder/outputs/test_classrun.py", "tests/autograder/outputs/test_options.py")

EARLIER = (
    Mutation(
        "seccomp-bpf",
        "the sandbox refuses bpf, as Docker's default profile does",
        *_SECCOMP,
        (('    "bpf",\n', ""),),
        _SECCOMP_GUARDS,
    ),
    Mutation(
        "seccomp-perf_event_open",
        "the sandbox refuses perf_event_open, as Docker's default profile does",
        *_SECCOMP,
        (('    "perf_event_open",\n', ""),),
        _SECCOMP_GUARDS,
    ),
    Mutation(
        "report-escapes-the-slowest-status",
        "a run status reaches report.html escaped (slowest submissions)",
        _REPORT,
        (
            (
                "<td data-label=\"{{ w['col.status'] }}\">{{ status_of(row.result) }}</td>",
                "<td data-label=\"{{ w['col.status'] }}\">{{ status_of(row.result)|safe }}</td>",
            ),
        ),
        _PAGES,
    ),
    Mutation(
        "report-escapes-the-students-status",
        "a run status reaches report.html escaped (the students' table)",
        _REPORT,
        ((">{{ s.status }}</td>", ">{{ s.status|safe }}</td>"),),
        _PAGES,
    ),
    Mutation(
        "report-escapes-the-sample-language",
        "the language of a misconception's sample reaches report.html escaped",
        _REPORT,
        (
            (
                "{{ w.other_edition.format(edition=edition_of(s.language)) }}",
                "{{ w.other_edition.format(edition=edition_of(s.language))|safe }}",
            ),
        ),
        _PAGES,
    ),
    Mutation(
        "report-escapes-why-a-page-was-not-written",
        "why a feedback page could not be written reaches report.html escaped",
        _REPORT,
        (('<td class="bad">{{ why }}</td>', '<td class="bad">{{ why|safe }}</td>'),),
        _PAGES,
    ),
    Mutation(
        "report-escapes-an-unwritten-pages-id",
        "the id of a feedback page that could not be written reaches report.html escaped",
        _REPORT,
        (('<tr><td>{{ uid }}</td><td class="bad">', '<tr><td>{{ uid|safe }}</td><td class="bad">'),),
        _PAGES,
    ),
    Mutation(
        "cachekey-reads-to-the-bound",
        "the grading key reads a file no further than its bound + 1, even one that grew after fstat",
        "autograder/outputs/cachekey.py",
        (("fh.read(min(_CHUNK, left))", "fh.read(_CHUNK)"),),
        ("tests/autograder/outputs/test_cachekey.py",),
    ),
    Mutation(
        "cachekey-keys-a-grown-file-by-the-reason",
        "a file that grew past the bound while read is keyed by the reason, not by its first bytes",
        "autograder/outputs/cachekey.py",
        (("return too_large if left <= 0 else digest.hexdigest()", "return digest.hexdigest()"),),
        ("tests/autograder/outputs/test_cachekey.py",),
    ),
    Mutation(
        "reader-refuses-a-huge-file-unread",
        "a hand-in over 64 MiB is refused unread: not even its first 64 MiB are read",
        "autograder/grading/safe_files.py",
        (
            (
                "        if after.st_size > limit:  # a sparse terabyte costs this fstat, "
                "not `limit` bytes of reading\n"
                '            raise OSError(errno.EFBIG, f"{shown} is over {limit} bytes")\n',
                "",
            ),
        ),
        (
            "tests/autograder/outputs/test_classrun.py::test_a_sparse_terabyte_hand_in_is_refused_unread_and_the_class_is_graded",
            "tests/autograder/grading/test_safe_files.py",
        ),
    ),
    Mutation(
        "tensors-table-length-bound",
        "a tensor table exactly at header_bytes is read",
        _TENSORS,
        (("if size > bounds.header_bytes:", "if size >= bounds.header_bytes:"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "tensors-table-fills-the-file",
        "a tensor table may fill the file exactly",
        _TENSORS,
        (("if _LENGTH.size + size > len(data):", "if _LENGTH.size + size >= len(data):"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "tensors-count-bound",
        "a frame of exactly `tensors` tensors is read",
        _TENSORS,
        (("if len(table) > bounds.tensors:", "if len(table) >= bounds.tensors:"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "tensors-dims-bound",
        "a tensor of exactly `tensor_dims` dimensions is read",
        _TENSORS,
        (("if len(shape) > bounds.tensor_dims:", "if len(shape) >= bounds.tensor_dims:"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "tensors-bytes-bound",
        "a frame of exactly `tensor_bytes` bytes of tensors is read",
        _TENSORS,
        (("if facts.tensor_bytes > bounds.tensor_bytes:", "if facts.tensor_bytes >= bounds.tensor_bytes:"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "dask-insecure-flag-is-tcp-only",
        "--insecure-plain-tcp allows tcp:// and no other protocol (ws:// stays refused)",
        "autograder/grading/pool/dask_tls.py",
        (('if protocol == "tcp" and insecure_plain_tcp:', "if insecure_plain_tcp:"),),
        ("tests/autograder/grading/pool/test_dask_tls.py",),
    ),
    Mutation(
        "seal-sees-rewritten-code",
        "a runner function whose __code__ was rewritten while student code ran marks the seal tampered",
        "autograder/graders/weight_tying/runner/seal.py",
        (("if now is not value or (code is not None and target.__code__ is not code):", "if now is not value:"),),
        ("tests/autograder/graders/weight_tying/test_seal.py",),
    ),
    Mutation(
        "lookalikes-maps-before-folding-case",
        'a capital drawn as a small letter of another script is seen as drawn: "Ьob" beside "bob" is flagged',
        "autograder/outputs/lookalikes.py",
        (
            (
                "return _skeleton(visible).casefold(), _skeleton(visible.casefold()).casefold()",
                "return _skeleton(visible.casefold()).casefold(), _skeleton(visible.casefold()).casefold()",
            ),
        ),
        ("tests/autograder/outputs/test_lookalikes.py",),
    ),
    Mutation(
        "selfcheck-leaves-out-the-graders-demos",
        "the self-check runs the cells the grader runs: a demo the grader leaves out is never run nor reported",
        "coursecheck/demos.py",
        (("        skip_cell=lambda index, *_: index in left_out,\n", "        skip_cell=None,\n"),),
        (
            "tests/assignments/test_selfcheck_demos.py::"
            "test_a_demo_that_fails_on_the_students_code_is_reported_by_neither",
        ),
    ),
    Mutation(
        "classrun-writes-each-result-as-it-arrives",
        "a class run writes each result the moment it arrives (a kill loses nothing graded)",
        "autograder/outputs/classrun.py",
        (
            (
                "        outcome.graded.append(uid)\n        folder.save_result(\n"
                "            todo[uid], result, grading_key=keys[uid], assignment=job.assignment, "
                "unreadable=unreadable[uid]\n        )\n",
                "        outcome.graded.append(uid)\n\n    def save_all() -> None:\n"
                "        for uid in outcome.graded:\n            folder.save_result(\n"
                "                todo[uid], outcome.results[uid], grading_key=keys[uid], assignment=job.assignment,\n"
                "                unreadable=unreadable[uid],\n            )\n",
            ),
            (
                '        outcome.batch_error = f"{type(exc).__name__}: {exc}"\n',
                '        outcome.batch_error = f"{type(exc).__name__}: {exc}"\n    save_all()\n',
            ),
        ),
        _CLASSRUN_GUARDS,
    ),
    Mutation(
        "classrun-writes-the-manifest-before-grading",
        "a class run's manifest, with its seed and every option that shapes a mark, is on disk before the first "
        "submission is graded",
        "autograder/outputs/classrun.py",
        (
            (
                "        folder.write_manifest(manifest)  # every option that shapes a mark is on disk before anything "
                "is graded\n",
                "",
            ),
        ),
        _CLASSRUN_GUARDS,
    ),
)

_DASK = "tests/autograder/grading/pool/test_dask_relay.py"
_WARM_FLOOD = (
    "tests/autograder/sandbox/test_warm.py::test_a_flood_past_the_caps_is_read_to_a_bound_on_the_warm_path_too",
)
_RELEASE = ("tests/assignments/test_source_notebook.py::test_the_release_carries_no_hidden_test_and_no_judge_message",)
_VISIBILITY = ("tests/autograder/grading/gradescope/test_results.py",)

ISSUE_45 = (
    Mutation(
        "dask-relay-deserialises-msgpack-alone",
        "the dask relay's client deserialises msgpack alone: a pickled result is refused unread",
        "autograder/grading/pool/dask_relay.py",
        (('deserializers=["msgpack"]', 'deserializers=["msgpack", "pickle"]'),),
        (f"{_DASK}::test_the_relays_client_deserialises_msgpack_alone_so_a_pickled_result_is_refused_unread",),
    ),
    Mutation(
        "dask-relay-lines-read-as-json",
        "grade reads the relay's lines as JSON and nothing else",
        "autograder/grading/pool/on_dask.py",
        (("message = json.loads(line)", "message = eval(line)"),),
        (f"{_DASK}::test_the_relays_lines_are_read_as_json_and_nothing_else",),
    ),
    Mutation(
        "dask-results-for-the-class-only",
        "a result the relay sends for a student not in the class is dropped",
        "autograder/grading/pool/on_dask.py",
        (("student in submissions and student not in results", "student not in results"),),
        (f"{_DASK}::test_a_result_is_taken_once_and_for_a_student_of_the_class_only",),
    ),
    Mutation(
        "dask-results-taken-once",
        "a second result for a student does not replace the first",
        "autograder/grading/pool/on_dask.py",
        (("student in submissions and student not in results", "student in submissions"),),
        (f"{_DASK}::test_a_result_is_taken_once_and_for_a_student_of_the_class_only",),
    ),
    Mutation(
        "warm-reads-stdout-to-a-bound",
        "the warm path reads a flood of stdout only so far, then the run's writes fail",
        "autograder/sandbox/warm.py",
        (("Sink(out_r, limits.capture_bytes),", "Sink(out_r, limits.capture_bytes, most=1 << 62),"),),
        _WARM_FLOOD,
    ),
    Mutation(
        "warm-reads-stderr-to-a-bound",
        "the warm path reads a flood of stderr only so far, then the run's writes fail",
        "autograder/sandbox/warm.py",
        (("Sink(err_r, limits.capture_bytes),", "Sink(err_r, limits.capture_bytes, most=1 << 62),"),),
        _WARM_FLOOD,
    ),
    Mutation(
        "warm-reads-evidence-to-its-cap",
        "the warm path reads the evidence pipe to one byte past its cap, never to its end",
        "autograder/sandbox/warm.py",
        (
            (
                "Sink(ev_r, limits.evidence_bytes, keep_all=True),",
                "Sink(ev_r, limits.evidence_bytes, keep_all=True, most=1 << 62),",
            ),
        ),
        _WARM_FLOOD,
    ),
    Mutation(
        "release-names-no-hidden-title-with-spaces",
        "no hidden test's title, written with spaces, is in the release",
        "assignments/source/weight_tying/weight_tying_checks/self_check.py",
        (("SELF_CHECK = SelfCheck(", "# wrapper counts untied minus vd\nSELF_CHECK = SelfCheck("),),
        _RELEASE,
    ),
    Mutation(
        "release-holds-no-hidden-tests-def",
        "no hidden test's def is in a file the release shares",
        "assignments/source/weight_tying/test_weight_tying.py",
        (
            (
                "globals().update(as_tests(SELF_CHECK))",
                "def test_wrapper_counts_untied_minus_vd():\n    pass\n\n\nglobals().update(as_tests(SELF_CHECK))",
            ),
        ),
        _RELEASE,
    ),
    Mutation(
        "timestamp-never-read-through-a-link",
        "a timestamp.txt that is a link is a problem, never its target's time",
        "autograder/grading/handins.py",
        (("if not stat.S_ISREG(info.st_mode):", "if stat.S_ISDIR(info.st_mode):"),),
        ("tests/autograder/grading/test_handins.py::test_a_timestamp_that_is_a_link_is_never_read_through",),
    ),
    Mutation(
        "secret-never-read-through-a-link",
        "a submission_secret.txt or timestamp.txt that is a link is neither read through nor copied to feedback/",
        "autograder/outputs/nbrelease.py",
        (("if path.is_symlink() or not path.is_file()", "if not path.is_file()"),),
        (
            "tests/autograder/outputs/test_nbrelease.py::"
            "test_a_secret_or_timestamp_that_is_a_link_is_never_read_through_nor_copied",
        ),
    ),
    Mutation(
        "selfcheck-keeps-the-whole-runs-budget",
        "each step of the self-check gets at most what is left of the whole run's budget",
        "coursecheck/budget.py",
        (("return max(FLOOR_SECONDS, min(self.step_limit, left))", "return self.step_limit"),),
        (
            "tests/assignments/test_selfcheck_budget.py::"
            "test_the_whole_runs_budget_shrinks_each_step_left_down_to_the_floor",
        ),
    ),
    Mutation(
        "gradescope-holds-back-the-score",
        "a result held back (after_published) holds back its top level: score and summary",
        "autograder/grading/gradescope/results.py",
        (
            (
                '        "visibility": visibility,\n        "stdout_visibility"',
                '        "visibility": "visible",\n        "stdout_visibility"',
            ),
        ),
        _VISIBILITY,
    ),
    Mutation(
        "gradescope-holds-back-passing-tests",
        "a result held back holds back its passing tests' names too",
        "autograder/grading/gradescope/results.py",
        (
            (
                '            "tags": [t.area],\n            "visibility": visibility,',
                '            "tags": [t.area],\n            "visibility": "visible",',
            ),
        ),
        _VISIBILITY,
    ),
)


def _marking():
    """scripts/audit_guards_marking.py's list (the marking rule and findings as values), loaded by its path."""
    import importlib.util
    import sys
    from pathlib import Path

    name = "audit_guards_marking"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name].MARKING


MUTATIONS = (*EARLIER, *_marking(), *ISSUE_45)
