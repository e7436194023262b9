"""Trusted: ``python -m autograder <command>``: the parser, and each subcommand dispatched to its module
(``grade``, ``status``, ``calibrate``, ``mutate``, ``gradescope``, ``dask``, ``similarity``, ``misconceptions``),
a thin layer over keyword-only functions.

Exit status: 0 whenever grading ran, whatever the students scored; 1 when calibration finds a wrong
verdict or the grader itself failed; 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import sys

from autograder.cli import calibrate, dask, grade, gradescope, misconceptions, mutate, similarity, status
from autograder.cli.common import common_options, guarded

__all__ = ["main", "build_parser"]

_EPILOG = """\
examples:
  python -m autograder grade --assignment weight_tying submitted/alice/weight_tying/weight_tying.ipynb
  python -m autograder grade --assignment weight_tying alice.ipynb --json      # Gradescope results JSON
  python -m autograder grade --assignment weight_tying assignments/submitted --out graded --workers 4
  python -m autograder grade --assignment weight_tying --nbgrader-course assignments   # -> gradebook.db
  python -m autograder status graded       # one line on the class run in graded/, from another terminal
  python -m autograder calibrate --assignment weight_tying
  python -m autograder calibrate --assignment weight_tying --seeds 25 --in-process   # the seed sweep
  python -m autograder mutate --assignment weight_tying --seeds 25                    # mutation testing
  python -m autograder gradescope-package --assignment weight_tying   # -> dist/weight_tying-gradescope.zip
  python -m autograder dask-certs --out ~/dask-certs     # TLS files for --executor dask (README: several machines)
  python -m autograder similarity --assignment weight_tying assignments/submitted --out graded  # shared code
  python -m autograder misconceptions --assignment weight_tying    # the table of its MISCONCEPTIONS.md

batch folders (--out): results/<id>.json is written as each submission is graded, with a grading key
(a hash of the submission, the grader's code, the kit version, the seed and the limits); the folder's
manifest.json records the students and the seed. Running the same command again grades only what is
missing or changed (after a crash or kill -9 too) and reuses the folder's options (seed, limits, --due,
--late-penalty, extensions, course or gradebook); one that gives other options stops, naming both, unless
--accept-new-options. --force regrades everyone, --student S regrades S. grades.csv, report.html and
feedback/<id>.html are rebuilt each time; regrades.jsonl records whose marks each run moved, and why.
A class run ends with the similarity pass (--no-similarity skips it): which hand-ins share code beyond the
starter code and what many hand-ins share, on the instructor's side only (similarity.html, the report's
"Similar hand-ins", similar_to in grades.csv; never on a student's page).

nbgrader gradebook (--gradebook DB or --nbgrader-course COURSE): each student's points go into the
edition they handed in (the --assignment name, or another edition such as weight_tying_zh; with
--gradebook-assignment NAME, everyone's go into NAME), one task cell per area of the hidden suite: a
markdown cell "autograder_<area>" (e.g. autograder_shape_flow, points = that area's points) that
the source notebook carries, so `nbgrader export` shows one row per
student and `nbgrader generate_assignment --force` still works after grading. nbgrader never awards these
cells itself; a TA's manual score in the formgrader overrides the kit's. If the assignment lacks them,
nothing is written and the error says which cells to add. An assignment with no nbgrader source gets a
notebook "autograder" holding them.

isolation: each submission runs in its own process tree with a wall-time limit, CPU-time, memory
(RLIMIT_AS), file-size and process limits, capped stdout/stderr, and is killed afterwards. As root with
util-linux `unshare` it also gets no network, a PID namespace (children that call setsid die too), an
unprivileged uid, a read-only view of the kit, and no view of hidden suites, solutions, other
submissions or the gradebook. Without root those last protections are NOT enforced (the run info in
each result says which mode was used): grade untrusted work as root or in a container.
"""

# subcommand -> its module's run(args)
_COMMANDS = {
    "grade": grade.run,
    "status": status.run,
    "calibrate": calibrate.run,
    "mutate": mutate.run,
    "gradescope-package": gradescope.run,
    "dask-certs": dask.run,
    "similarity": similarity.run,
    "misconceptions": misconceptions.run,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Grade notebook/script submissions against hidden suites, safely.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{" + ",".join(_COMMANDS) + "}")
    common = common_options()
    dask.add_cluster_options(common)  # --executor dask's: --scheduler tls://HOST:PORT, --tls-dir DIR, ...
    grade.add_parser(sub, common, _EPILOG)
    status.add_parser(sub)
    calibrate.add_parser(sub, common)
    mutate.add_parser(sub)
    gradescope.add_parser(sub)
    dask.add_parser(sub)
    similarity.add_parser(sub)
    misconceptions.add_parser(sub)
    return parser


# The commands that grade: run guarded (``common.guarded``: Ctrl-C exits 130, the grader's own failure is said and
# exits 1), their checks of the arguments included.
_GRADING = ("grade", "calibrate", "mutate")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = _COMMANDS[args.command]
    return guarded(lambda: command(args)) if args.command in _GRADING else command(args)


if __name__ == "__main__":
    sys.exit(main())
