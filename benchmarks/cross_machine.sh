#!/usr/bin/env bash
# The seed-0 cells of the README's figures and of docs/models.md's trained models on this
# machine, each model on each task in a process of its own (one training each): on a machine
# with 16 cores the groups run side by side. Then compare with another machine's folder:
#
#     bash benchmarks/cross_machine.sh OUT [goyal|chao|all]
#     python benchmarks/cross_machine.py THERE_OUT HERE_SEED_RUNS [HERE_MAIN_JOB_RUNS ...]
#
# (docs/benchmarks.md, "A second CPU"). OUT/<group>/results/runs/ gets the run folders and
# OUT/status.txt each group's exit code; the script exits non-zero when a group failed. Needs
# the harness importable as `python3 -m vqa_harness_cli` (installed, or scripts/uninstalled_env.py
# on PYTHONPATH: the project root is added to PYTHONPATH here) and its NLP resources
# (`harness resources install`). LIMIT=SECONDS bounds each group (default 3600);
# MODELS="hiecoatt mcb ..." keeps only those models (names before any ':') in every group.
set -u
[ $# -ge 1 ] || { echo "usage: bash benchmarks/cross_machine.sh OUT [goyal|chao|all]" >&2; exit 2; }
mkdir -p "$1" || exit 2
OUT=$(cd "$1" && pwd) || exit 2
WHICH=${2:-all}
case "$WHICH" in goyal|chao|all) ;; *) echo "error: group '$WHICH' is not goyal, chao or all" >&2; exit 2;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITES=$ROOT/benchmarks/suites/by-task
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" TQDM_DISABLE=1
T0=$(date +%s)
: > "$OUT/status.txt"

run() {  # NAME MODELS...: every model through suite NAME, side by side, on the CPU
  local name=$1; shift
  local args=() m rc
  for m in "$@"; do
    if [ -z "${MODELS:-}" ] || [[ " $MODELS " == *" ${m%%:*} "* ]]; then args+=(--model "$m"); fi
  done
  [ ${#args[@]} -gt 0 ] || { echo "$name skipped (no model of MODELS)" >> "$OUT/status.txt"; return 0; }
  if ! mkdir -p "$OUT/$name" || ! cd "$OUT/$name"; then
    echo "$name rc 1 (cannot use $OUT/$name)" >> "$OUT/status.txt"; return 1
  fi
  timeout "${LIMIT:-3600}" python3 -m vqa_harness_cli run "${args[@]}" --suite "$SUITES/$name.yaml" --device cpu \
    --jobs $(( ${#args[@]} / 2 )) --no-leaderboard > log.txt 2>&1
  rc=$?
  echo "$name rc $rc after $(( $(date +%s) - T0 )) s" >> "$OUT/status.txt"
  return $rc
}

# The toy data once, before the processes that read it start side by side.
python3 -c "
from vqa_harness_plugins.datasets.toyvqa import ToyVQA
for variant in ('unbalanced', 'balanced'):
    ToyVQA(variant=variant, seed=0).examples('train')
" || exit 1
pids=()
if [ "$WHICH" != chao ]; then
  OPEN=(prior qonly cnn-lstm hiecoatt mcb counterexample-explainer)
  for task in goyal-uu-ub goyal-half goyal-bb; do run "$task" "${OPEN[@]}" & pids+=($!); done
fi
if [ "$WHICH" != goyal ]; then
  for set in orig iou qou all; do run "chao-$set" mlp-iqa:hidden=1024 attention-mc hiecoatt-mc & pids+=($!); done
  run chao-iou-qou mlp-iqa:hidden=1024 attention-mc hiecoatt-mc cnn-lstm & pids+=($!)  # + the README's decoy figure
fi
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
cat "$OUT/status.txt"
exit $failed
