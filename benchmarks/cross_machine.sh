#!/usr/bin/env bash
# The seed-0 cells of the README's figures and of docs/models.md's trained models on this
# machine, each model on each task in a process of its own (one training each), so a machine
# with 16 cores computes them in about 6 minutes. Compare the run folders with those of
# another machine: python benchmarks/cross_machine.py HERE_RUNS THERE_RUNS [SEED_RUNS]
# (docs/benchmarks.md, "A second CPU").
#
#     bash benchmarks/cross_machine.sh OUT [goyal|chao|all]
#
# OUT/<task>/results/runs/ gets the run folders, OUT/status.txt each group's exit code.
# Needs the harness importable as `python3 -m vqa_harness_cli` (installed, or
# scripts/uninstalled_env.py on PYTHONPATH) and its NLP resources (`harness resources install`).
set -u
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
WHICH=${2:-all}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITES=$ROOT/benchmarks/suites/by-task
T0=$(date +%s)
export TQDM_DISABLE=1

run() {  # NAME MODELS...: every model through suite NAME, side by side, on the CPU
  local name=$1; shift
  local args=(); for m in "$@"; do args+=(--model "$m"); done
  mkdir -p "$OUT/$name" && cd "$OUT/$name" || return
  timeout "${LIMIT:-3600}" python3 -m vqa_harness_cli run "${args[@]}" --suite "$SUITES/$name.yaml" --device cpu \
    --jobs $# --no-leaderboard > log.txt 2>&1
  echo "$name rc $? after $(( $(date +%s) - T0 )) s" >> "$OUT/status.txt"
}

# The toy data once, before the processes that read it start side by side.
python3 -c "
from vqa_harness_plugins.datasets.toyvqa import ToyVQA
for variant in ('unbalanced', 'balanced'):
    ToyVQA(variant=variant, seed=0).examples('train')
" || exit 1
if [ "$WHICH" != chao ]; then
  OPEN=(prior qonly cnn-lstm hiecoatt mcb counterexample-explainer)
  run goyal-uu-ub "${OPEN[@]}" &
  run goyal-half "${OPEN[@]}" &
  run goyal-bb "${OPEN[@]}" &
fi
if [ "$WHICH" != goyal ]; then
  for set in orig iou qou all; do
    run chao-$set mlp-iqa:hidden=1024 attention-mc hiecoatt-mc &
  done
  run chao-iou-qou mlp-iqa:hidden=1024 attention-mc hiecoatt-mc cnn-lstm &  # + the README's decoy figure
fi
wait
cat "$OUT/status.txt"
