#!/usr/bin/env bash
# The kit's main job, end to end: set up .venv, release the assignment with nbgrader, hand in a small
# class of submissions (reference notebook, correct and buggy variants, one that never stops), grade them
# in the sandbox in parallel, and write grades.csv + report.html.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
cd "$root"
# Both editions' source folders are built, never committed (the notebooks, the release's catalog).
"$root/.venv/bin/python" scripts/build_notebook.py >/dev/null
export PATH="$root/.venv/bin:$PATH"  # nbgrader runs `alembic` and `jupyter` from PATH
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"

demo="$root/grading-output/demo"
rm -rf "$demo"
mkdir -p "$demo"
cp -r assignments "$demo/course"
rm -rf "$demo/course/release" "$demo/course/submitted" "$demo/course/gradebook.db"

echo "== 1. release the assignment with nbgrader"
# From the course folder, where nbgrader finds the course's nbgrader_config.py (elsewhere it warns that it
# found none, and runs without the course's settings).
(cd "$demo/course" && nbgrader generate_assignment weight_tying --force --log-level=WARN)
ls "$demo/course/release/weight_tying"

echo "== 2. a small class hands in (nbgrader's submitted/<student>/weight_tying/ layout)"
cal=autograder/graders/weight_tying/judge/calibration
hand_in() {  # student, source file
    local dest="$demo/course/submitted/$1/weight_tying"
    mkdir -p "$dest"
    case "$2" in
        *.ipynb) cp "$2" "$dest/weight_tying.ipynb" ;;
        *) cp "$2" "$dest/weight_tying.py" ;;
    esac
    echo "  $1 <- $2"
}
hand_in ada      assignments/source/weight_tying/weight_tying.ipynb
hand_in bo       "$cal/correct/c02_reverse_tie.py"
hand_in chen     "$cal/correct/c08_notebook_with_magics.ipynb"
hand_in dara     "$cal/wrong/w01_deepcopy_head.py"
hand_in emeka    "$cal/wrong/w05_head_bias.py"
hand_in farah    "$cal/wrong/w21_generate_sampling.py"
hand_in gus      "$cal/wrong/w27_loss_no_shift.py"
hand_in hana     "$cal/attacks/a09_busy_loop_at_import.py"

echo "== 3. grade every submission in the sandbox"
python -m autograder grade --assignment weight_tying "$demo/course/submitted" \
    --out "$demo/graded" --timeout 20 --workers 2

echo "== 4. one student's Gradescope-style JSON (last line of stdout)"
python -m autograder grade --assignment weight_tying "$demo/course/submitted/dara/weight_tying/weight_tying.py" \
    --json | tail -n 1 | python -c 'import json, sys; r = json.load(sys.stdin); print({k: r[k] for k in ("score", "max_score")}, [t["name"] for t in r["tests"] if t["status"] == "failed"][:3])'

echo
echo "grades:  $demo/graded/grades.csv"
echo "report:  $demo/graded/report.html"
