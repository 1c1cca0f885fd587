#!/usr/bin/env bash
# Cooper's comparison in the paper's regime, at CPU size, from one command: the data, the policy's warm-up
# (harness sft), the static VerifyRM (harness train-rm) and what it pays for before RL, then GRPO with the rule
# reward, the static VerifyRM and Cooper for each seed, then the report (tables, figures, the reading against
# the criteria in docs/cpu_scale/README.md). Runs go to $HARNESS_STORE (default $OUT/runs.sqlite).
#
#   experiments/cooper_regime/run.sh                      # the experiment (about two hours on 2 cores)
#   STEPS=2 SEEDS=0 SMALL=1 experiments/cooper_regime/run.sh   # the pipeline only, in minutes (CI)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-runs/cooper_regime}
SEEDS=${SEEDS:-"0 1 2"}
DOCS=${DOCS:-docs/cpu_scale/cooper_regime}
export HARNESS_STORE=${HARNESS_STORE:-$OUT/runs.sqlite}
CFG=experiments/cooper_regime/config.yaml
if [ -n "${SMALL:-}" ]; then  # the pipeline check: every stage, tiny sizes
  SFT=(--max-steps 2 --batch-size 2); RM=(--epochs 1 --limit 24); TRAIN=(--prompts-per-step 2 --num-generations 2
  --eval-every 1 --eval-limit 2 --probe-limit 4); SEEDS=${SEEDS:-0}
else
  SFT=(--max-steps 60 --batch-size 8); RM=(--epochs 2); TRAIN=()
fi
mkdir -p "$OUT"
python experiments/cooper_regime/make_data.py --out "$OUT" --seed 0
harness sft --data "$OUT/sft.jsonl" --output "$OUT/sft" --learning-rate 5e-5 --seed 0 "${SFT[@]}"
harness train-rm --base minilm-l6 --output "$OUT/verifyrm" --suite processbench --suite mathcheck-gsm \
    --suite verifybench-hard:data=verifier/verifybench_hard_subset_longjudgebench \
    --max-length 256 --max-chars 600 --head-chars 150 --tail-chars 450 --seed 0 "${RM[@]}"
RMSPEC="verifyrm:model=$OUT/verifyrm"
# what the static reward model pays for, before any RL
harness eval --reward "$RMSPEC" --suite jsonl --data "$OUT/probe.jsonl" --format markdown
harness eval --reward "$RMSPEC" --suite jsonl:category=kind --data "$OUT/degenerate.jsonl" --format markdown
harness eval --reward "$RMSPEC" --suite robustness --format markdown
# the three rewards, seed by seed (every reward has a finished seed early)
for seed in $SEEDS; do
  for spec in "rule" "$RMSPEC" "cooper:model=$OUT/verifyrm,negatives=perturb,seed=$seed"; do
    name=${spec%%:*}
    harness train --config "$CFG" --reward "$spec" --seed "$seed" --policy "$OUT/sft/final" \
        --dataset "$OUT/train.jsonl" --eval-suite "$OUT/heldout.jsonl" --probe "jsonl:data=$OUT/probe.jsonl" \
        --output "$OUT/$name-seed$seed" ${STEPS:+--max-steps "$STEPS"} "${TRAIN[@]}"
  done
done
python experiments/cooper_regime/report.py --out "$OUT" --docs "$DOCS"
