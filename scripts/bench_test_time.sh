#!/usr/bin/env bash
# The README's test command (`bash scripts/test.sh`) timed in fresh clones of two commits, one after the other on
# this machine, each with its own empty package caches (so set-up downloads and unpacks everything, as on a new
# machine). Prints both wall times and their ratio.
#
#   bash scripts/bench_test_time.sh [BASE [HEAD]]
#
# BASE defaults to 5c33c27, the tree before the restructure (issue 7: "at most half of today's time"); HEAD to
# the current commit. Takes as long as both runs (about 14 minutes on 2 cores). The clones and caches go to a
# temporary folder that is removed at the end; KEEP=1 keeps it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${1:-5c33c27}"
head="${2:-$(git -C "$repo" rev-parse --short HEAD)}"
for rev in "$base" "$head"; do
    if ! git -C "$repo" rev-parse --verify --quiet "$rev^{commit}" >/dev/null; then
        echo "bench_test_time: $rev is not a commit of $repo: give a commit id or branch name" >&2
        exit 2
    fi
done
# Not /tmp: the sandbox keeps its own /tmp, and a kit cloned beneath it cannot be shown to the runner.
work="$(mktemp -d "${BENCH_DIR:-$repo/..}/bench-test-time.XXXXXX")"
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$work"' EXIT; fi

run() {  # run LABEL REV: prints "seconds exit-code summary-line"
    local label="$1" rev="$2" clone="$work/$1" log="$work/$1.log" start end code
    git clone --quiet --no-checkout "$repo" "$clone"
    git -C "$clone" checkout --quiet "$rev"
    start=$(date +%s%N)
    code=0
    (
        cd "$clone"
        unset VIRTUAL_ENV
        export UV_CACHE_DIR="$work/$label-uv-cache" PIP_NO_CACHE_DIR=1
        bash scripts/test.sh -q
    ) >"$log" 2>&1 || code=$?
    end=$(date +%s%N)
    printf '%s %s %s\n' "$(((end - start) / 1000000))" "$code" "$(grep -E '[0-9]+ (passed|failed)' "$log" | tail -1)"
}

echo "timing bash scripts/test.sh in fresh clones of $base (base) and $head (head), one after the other..." >&2
read -r base_ms base_code base_summary < <(run base "$base")
echo "  base done: $((base_ms / 1000)) s" >&2
read -r head_ms head_code head_summary < <(run head "$head")
printf '%-6s %-10s %10s %5s  %s\n' "tree" "commit" "wall" "exit" "pytest's summary"
printf '%-6s %-10s %8d s %5s  %s\n' base "$base" "$((base_ms / 1000))" "$base_code" "$base_summary"
printf '%-6s %-10s %8d s %5s  %s\n' head "$head" "$((head_ms / 1000))" "$head_code" "$head_summary"
ratio=$(((head_ms * 100 + base_ms / 2) / base_ms))  # rounded to 0.01
printf 'head / base = %d.%02d (the target is at most 0.50)\n' "$((ratio / 100))" "$((ratio % 100))"
if [ "$base_code" != 0 ] || [ "$head_code" != 0 ]; then
    if [ -n "${KEEP:-}" ]; then where="its log is in $work"; else where="run again with KEEP=1 to keep its log"; fi
    echo "a run failed: $where" >&2
    exit 1
fi
