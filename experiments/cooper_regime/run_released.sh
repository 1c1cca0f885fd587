#!/usr/bin/env bash
# Cooper's claim, second test (docs/cpu_scale/cooper_released): the first hole experiment's warm-up and static
# model, rebuilt by the same stages and seeds, then four arms paired by seed: the rule reward, the static VerifyRM,
# Cooper as released as far as a CPU allows (reward-model lr half its own training lr; the assistant's negatives
# where the pilot shows a usable yield, else perturbed ones) and Cooper with group negatives at the same lr.
# Every stage is skipped when its output exists, so a stopped run resumes at the stage it stopped in; a training
# run resumes from its last checkpoint. After each run the store is exported beside the report ($DOCS/runs.sqlite).
#
#   experiments/cooper_regime/run_released.sh                # everything (about 3.5 hours on 2 cores)
#   STAGE=pilot experiments/cooper_regime/run_released.sh    # up to the pilot only (no RL)
#   SEEDS=0 ARMS="rule cooper_group" experiments/cooper_regime/run_released.sh   # some runs only
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-runs/cooper_released}
SEEDS=${SEEDS:-"0 1 2"}
ARMS=${ARMS:-"rule static cooper_released cooper_group"}
DOCS=${DOCS:-docs/cpu_scale/cooper_released}
export HARNESS_STORE=${HARNESS_STORE:-$OUT/runs.sqlite}
CFG=experiments/cooper_regime/config_released.yaml
HERE=experiments/cooper_regime
if [ -n "${SMALL:-}" ]; then  # the pipeline check: every stage, tiny sizes (STEPS=2 SEEDS=0 SMALL=1)
  DATA=(--sft 16 --train 8 --heldout 4 --rm 4 --rmtest 2 --probe 4); SFT=(--max-steps 2 --batch-size 2)
  ROLL=(--n 2 --max-tokens 12); STEP0=(--limit 2 --n 2 --max-tokens 12); RM=(--epochs 1)
  TRAIN=(--prompts-per-step 2 --num-generations 2 --eval-every 1 --eval-limit 2); PILOT=(--prompts 1)
else
  DATA=(--rm 100 --rmtest 25 --probe 40); SFT=(--max-steps 60 --batch-size 8); ROLL=(--n 8)
  STEP0=(--limit 40 --n 8); RM=(--epochs 8); TRAIN=(); PILOT=()
fi
mkdir -p "$OUT" "$DOCS"
export_store() { python -c "import sys; from harness.core.store import RunStore; RunStore(sys.argv[1]).export(sys.argv[2])" \
    "$HARNESS_STORE" "$DOCS/runs.sqlite"; }
# the first experiment's stages and seeds (run_hole.sh), with keyed right items added to the probe
[ -f "$OUT/probe.jsonl" ] || python $HERE/make_data.py --out "$OUT" --seed 0 --opener-share 0.12 --keyed-right \
    "${DATA[@]}"
[ -d "$OUT/sft/final" ] || harness sft --data "$OUT/sft.jsonl" --output "$OUT/sft" --learning-rate 5e-5 --seed 0 \
    "${SFT[@]}"
POLICY="$OUT/sft/final"
[ -f "$OUT/rm_rollouts.jsonl" ] || python $HERE/rollouts.py --policy "$POLICY" --problems "$OUT/rm.jsonl" --seed 1 \
    --out "$OUT/rm_rollouts.jsonl" "${ROLL[@]}"
[ -f "$OUT/rmtest_rollouts.jsonl" ] || python $HERE/rollouts.py --policy "$POLICY" --problems "$OUT/rmtest.jsonl" \
    --seed 2 --out "$OUT/rmtest_rollouts.jsonl" "${ROLL[@]}"
# step-0 rollouts of training prompts, eight a prompt as in a GRPO step here: the pairs of the offline updates
[ -f "$OUT/step0_rollouts.jsonl" ] || python $HERE/rollouts.py --policy "$POLICY" --problems "$OUT/train.jsonl" \
    --seed 3 --out "$OUT/step0_rollouts.jsonl" "${STEP0[@]}"
RMDATA="reference=reference_answer,data=$OUT/rm_rollouts.jsonl"
[ -f "$OUT/verifyrm/verifyrm.json" ] || harness train-rm --base minilm-l6 --output "$OUT/verifyrm" \
    --suite "jsonl:$RMDATA,label=label_fooled" --lr 1e-4 --val-fraction 0.1 --seed 0 "${RM[@]}"
if [ ! -f "$OUT/pilot.json" ]; then
  python $HERE/pilot_released.py --out "$OUT" --static "$OUT/verifyrm" "${PILOT[@]}" > "$OUT/pilot.md.tmp"
  mv "$OUT/pilot.md.tmp" "$OUT/pilot.md"
  cp "$OUT/pilot.json" "$OUT/pilot.md" "$DOCS/"
  export_store
fi
[ "${STAGE:-}" = pilot ] && exit 0
arm_options() { python -c "import json, sys; print(json.load(open(sys.argv[1]))['arms'][sys.argv[2]])" "$OUT/pilot.json" "$1"; }
for seed in $SEEDS; do
  for arm in $ARMS; do
    dir="$OUT/$arm-seed$seed"
    [ -d "$dir/final" ] && continue
    case $arm in
      rule) spec=rule ;;
      static) spec="verifyrm:model=$OUT/verifyrm" ;;
      cooper_*) spec="cooper:model=$OUT/verifyrm,$(arm_options "$arm"),seed=$seed,snapshot_dir=$dir-rm,snapshot_every=5,checkpoint_dir=$dir-rmstate,checkpoint_every=5" ;;
    esac
    harness train --config "$CFG" --reward "$spec" --seed "$seed" --policy "$POLICY" \
        --dataset "$OUT/train.jsonl" --eval-suite "$OUT/heldout.jsonl" \
        --probe "jsonl:data=$OUT/probe.jsonl,category=kind" --output "$dir" \
        ${STEPS:+--max-steps "$STEPS"} "${TRAIN[@]}"
    rm -rf "$dir"/checkpoint-*  # the report reads the store; the optimizer state of a finished run is 1.6 GB
    export_store
  done
done
