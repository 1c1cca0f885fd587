#!/usr/bin/env bash
# Cooper's claim in its own regime: a static VerifyRM that is right on the policy's own outputs but has a hole (it
# pays for a wrong answer opened by a master key, learnt from labels a fooled judge gave), GRPO with the rule reward,
# that static model and Cooper from it, seeds 0-2, then the report. Every stage is skipped when its output exists,
# so a stopped run resumes at the stage (or training run) it stopped in. Runs go to $HARNESS_STORE.
#
#   experiments/cooper_regime/run_hole.sh                 # the experiment (about 2.5 hours on 2 cores)
#   STAGE=pilot experiments/cooper_regime/run_hole.sh     # up to the pilot only (P1-P3, no RL)
#   STEPS=2 SEEDS=0 SMALL=1 experiments/cooper_regime/run_hole.sh   # the pipeline only, in minutes (CI)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-runs/cooper_hole}
SEEDS=${SEEDS:-"0 1 2"}
DOCS=${DOCS:-docs/cpu_scale/cooper_hole}
export HARNESS_STORE=${HARNESS_STORE:-$OUT/runs.sqlite}
CFG=experiments/cooper_regime/config_hole.yaml
HERE=experiments/cooper_regime
# Cooper's setting, chosen by the pilot (pilot.md): the reward model's lr ten times the policy's, as released
COOPER_OPTIONS=${COOPER_OPTIONS:-"negatives=group,learning_rate=2e-4"}
if [ -n "${SMALL:-}" ]; then  # the pipeline check: every stage, tiny sizes
  DATA=(--sft 16 --train 8 --heldout 4 --rm 4 --rmtest 2 --probe 4); SFT=(--max-steps 2 --batch-size 2)
  ROLL=(--n 2 --max-tokens 12); RM=(--epochs 1); TRAIN=(--prompts-per-step 2 --num-generations 2 --eval-every 1
  --eval-limit 2); PILOT=(--prompts 1)
else
  DATA=(--rm 100 --rmtest 25 --probe 40); SFT=(--max-steps 60 --batch-size 8); ROLL=(--n 8); RM=(--epochs 8)
  TRAIN=(); PILOT=()
fi
mkdir -p "$OUT"
[ -f "$OUT/probe.jsonl" ] || python $HERE/make_data.py --out "$OUT" --seed 0 --opener-share 0.12 "${DATA[@]}"
[ -d "$OUT/sft/final" ] || harness sft --data "$OUT/sft.jsonl" --output "$OUT/sft" --learning-rate 5e-5 --seed 0 "${SFT[@]}"
POLICY="$OUT/sft/final"
# the static VerifyRM's data: rollouts of the warmed-up policy on its own problems, labelled (rollouts.py)
[ -f "$OUT/rm_rollouts.jsonl" ] || python $HERE/rollouts.py --policy "$POLICY" --problems "$OUT/rm.jsonl" --seed 1 \
    --out "$OUT/rm_rollouts.jsonl" "${ROLL[@]}"
[ -f "$OUT/rmtest_rollouts.jsonl" ] || python $HERE/rollouts.py --policy "$POLICY" --problems "$OUT/rmtest.jsonl" \
    --seed 2 --out "$OUT/rmtest_rollouts.jsonl" "${ROLL[@]}"
# step-0 rollouts of training prompts, four a prompt as in a GRPO step: the pairs of the offline Cooper check
[ -f "$OUT/step0_rollouts.jsonl" ] || python $HERE/rollouts.py --policy "$POLICY" --problems "$OUT/train.jsonl" \
    --limit 40 --n 4 --seed 3 --out "$OUT/step0_rollouts.jsonl" ${SMALL:+--limit 2 --n 2 --max-tokens 12}
PERTURB=negatives=perturb; GROUP=negatives=group
RMDATA="reference=reference_answer,data=$OUT/rm_rollouts.jsonl"
# the static model, on the pipeline's labels (the fooled judge's), and a control on the rule's labels alone
[ -f "$OUT/verifyrm/verifyrm.json" ] || harness train-rm --base minilm-l6 --output "$OUT/verifyrm" \
    --suite "jsonl:$RMDATA,label=label_fooled" --lr 1e-4 --val-fraction 0.1 --seed 0 "${RM[@]}"
[ -f "$OUT/verifyrm_rule_labels/verifyrm.json" ] || harness train-rm --base minilm-l6 \
    --output "$OUT/verifyrm_rule_labels" --suite "jsonl:$RMDATA,label=label" --lr 1e-4 --val-fraction 0.1 --seed 0 "${RM[@]}"
[ -f "$OUT/pilot.json" ] || python $HERE/pilot.py --out "$OUT" --static "$OUT/verifyrm" "${PILOT[@]}" \
    --settings "${PILOT_SETTINGS:-$PERTURB,learning_rate=2e-5;$PERTURB,learning_rate=2e-4;$PERTURB,learning_rate=2e-4,update_steps=4;$GROUP,learning_rate=2e-4;$GROUP,learning_rate=2e-4,update_steps=4}" \
    | tee "$OUT/pilot.md"
[ "${STAGE:-}" = pilot ] && exit 0
RMSPEC="verifyrm:model=$OUT/verifyrm"
for seed in $SEEDS; do
  for spec in "rule" "$RMSPEC" "cooper:model=$OUT/verifyrm,$COOPER_OPTIONS,seed=$seed"; do
    name=${spec%%:*}
    dir="$OUT/$name-seed$seed"
    [ -d "$dir/final" ] && continue
    rm -rf "$dir"  # a run stopped part-way starts again (its stored record stays, marked as not complete)
    harness train --config "$CFG" --reward "$spec" --seed "$seed" --policy "$POLICY" \
        --dataset "$OUT/train.jsonl" --eval-suite "$OUT/heldout.jsonl" \
        --probe "jsonl:data=$OUT/probe.jsonl,category=kind" \
        --output "$dir" ${STEPS:+--max-steps "$STEPS"} "${TRAIN[@]}"
    rm -rf "$dir"/checkpoint-*  # the report reads final/; the optimizer state of a finished run is 1.6 GB
  done
done
python $HERE/report_hole.py --out "$OUT" --docs "$DOCS"
