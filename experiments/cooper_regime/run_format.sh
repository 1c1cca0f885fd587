#!/usr/bin/env bash
# Cooper's claim, fourth test (docs/cpu_scale/cooper_format): the third test's design with the reward model trained,
# checked, probed and scored in one input format, the text the GRPO trainer scores (trainers.rm_data.policy_item).
# The second experiment's committed data and warm-up (checked against its SHA256SUMS), a static VerifyRM rebuilt on
# that data with `train-rm --questions policy` (pinned in $DOCS/SHA256SUMS by the first `STAGE=prepare`), the
# static checks P1 to P3 in that format, then nine runs: static, Cooper with group negatives and the rule at seeds
# 0, 1 and 2. Every stage is skipped when its output exists and every finished run is skipped; a run stopped
# part-way resumes from its last checkpoint (every 5 steps); the store is exported to $DOCS after each run.
#
#   STAGE=prepare experiments/cooper_regime/run_format.sh    # data, warm-up, static model, checksums, static checks
#   experiments/cooper_regime/run_format.sh                  # everything (about five hours on 2 cores)
#   RUNS="static:0" experiments/cooper_regime/run_format.sh  # some runs only
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-runs/cooper_format}
RUNS=${RUNS:-"static:0 cooper_group:0 rule:0 static:1 cooper_group:1 rule:1 static:2 cooper_group:2 rule:2"}
DOCS=${DOCS:-docs/cpu_scale/cooper_format}
SECOND=${SECOND:-docs/cpu_scale/cooper_released}  # the second experiment's committed data and pilot (its arms)
export HARNESS_STORE=${HARNESS_STORE:-$OUT/runs.sqlite}
CFG=experiments/cooper_regime/config_ratio.yaml    # the third test's settings, unchanged
mkdir -p "$OUT" "$DOCS"
for f in "$SECOND"/data/*.jsonl "$SECOND/pilot.json"; do
  [ -f "$OUT/$(basename "$f")" ] || cp "$f" "$OUT/"
done
[ -d "$OUT/sft/final" ] || harness sft --data "$OUT/sft.jsonl" --output "$OUT/sft" --learning-rate 5e-5 --seed 0 \
    --max-steps 60 --batch-size 8
# the static model: the third test's recipe, each question as the policy is asked it, 16 epochs (the README's amendment)
[ -f "$OUT/verifyrm/verifyrm.json" ] || harness train-rm --base minilm-l6 --output "$OUT/verifyrm" \
    --suite "jsonl:reference=reference_answer,data=$OUT/rm_rollouts.jsonl,label=label_fooled" --lr 1e-4 \
    --val-fraction 0.1 --seed 0 --epochs 16 --questions policy
SUMS="$(cd "$SECOND/data" && pwd)/SHA256SUMS"
(cd "$OUT" && grep -v "verifyrm/model.safetensors" "$SUMS" | sha256sum --check --quiet -) || {
  echo "the data or the warm-up differ from $SUMS: no run started" >&2; exit 1; }
if [ ! -f "$DOCS/SHA256SUMS" ]; then
  (cd "$OUT" && grep -v "verifyrm/model.safetensors" "$SUMS" && sha256sum verifyrm/model.safetensors) > "$DOCS/SHA256SUMS"
fi
(cd "$OUT" && sha256sum --check --quiet "$(cd "$DOCS" && pwd)/SHA256SUMS") || {
  echo "the static model differs from $DOCS/SHA256SUMS: no run started" >&2; exit 1; }
# P1 and P2 on the static model, P3 for Cooper with group negatives, all in the trainer's text; P1 or P2 failing stops
PILOT="$OUT/static_pilot"
mkdir -p "$PILOT"
for f in rmtest_rollouts.jsonl step0_rollouts.jsonl probe.jsonl; do ln -sf "../$f" "$PILOT/$f"; done
if [ ! -f "$PILOT/pilot.json" ]; then
  python experiments/cooper_regime/pilot_released.py --out "$PILOT" --static "$OUT/verifyrm" --only group \
      > "$PILOT/pilot.md.tmp"
  mv "$PILOT/pilot.md.tmp" "$PILOT/pilot.md"
  cp "$PILOT/pilot.json" "$DOCS/static_pilot.json"; cp "$PILOT/pilot.md" "$DOCS/static_pilot.md"
fi
python -c "import json, sys; p = json.load(open(sys.argv[1])); sys.exit(0 if p['P1'] and p['P2'] else 1)" \
    "$PILOT/pilot.json" || { echo "the static model fails P1 or P2 ($DOCS/static_pilot.md): no run started" >&2; exit 1; }
[ "${STAGE:-}" = prepare ] && exit 0
export_store() { python -c "import sys; from harness.core.store import RunStore; RunStore(sys.argv[1]).export(sys.argv[2])" \
    "$HARNESS_STORE" "$DOCS/runs.sqlite"; }
arm_options() { python -c "import json, sys; print(json.load(open(sys.argv[1]))['arms'][sys.argv[2]])" "$OUT/pilot.json" "$1"; }
POLICY="$OUT/sft/final"
for run in $RUNS; do
  arm=${run%%:*}; seed=${run##*:}
  dir="$OUT/$arm-seed$seed"
  [ -d "$dir/final" ] && continue
  case $arm in
    rule) spec=rule ;;
    static) spec="verifyrm:model=$OUT/verifyrm" ;;
    cooper_group) spec="cooper:model=$OUT/verifyrm,$(arm_options cooper_group),seed=$seed,snapshot_dir=$dir-rm,snapshot_every=5,checkpoint_dir=$dir-rmstate,checkpoint_every=5" ;;
    *) echo "unknown arm $arm" >&2; exit 2 ;;
  esac
  harness train --config "$CFG" --reward "$spec" --seed "$seed" --policy "$POLICY" \
      --dataset "$OUT/train.jsonl" --eval-suite "$OUT/heldout.jsonl" \
      --probe "jsonl:data=$OUT/probe.jsonl,category=kind" --output "$dir" ${STEPS:+--max-steps "$STEPS"}
  rm -rf "$dir"/checkpoint-*  # the report reads the store; the optimizer state of a finished run is 1.6 GB
  export_store
done
