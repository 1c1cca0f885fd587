#!/usr/bin/env bash
# Cooper's claim, third test (docs/cpu_scale/cooper_ratio): the second experiment's committed data, warm-up and
# static model (rebuilt from that data and checked against its data/SHA256SUMS before any run), then seven runs:
# static and Cooper with group negatives at seeds 0, 1 and 2, and the rule reward at seed 0, with the policy's lr
# at 5e-6 (config_ratio.yaml) and the reward model's online lr at 5e-5 (the second experiment's pilot.json), so
# that it is both half the reward model's training lr and ten times the policy's, as in the released run.
# Every stage is skipped when its output exists; a finished run is skipped; the store is exported to $DOCS after
# each run. A run stopped part-way: remove its folders (ARM-seedN, ARM-seedN-rm, ARM-seedN-rmstate) and start
# again; it runs from step 0.
#
#   STAGE=prepare experiments/cooper_regime/run_ratio.sh         # models, checksums and the static pilot only
#   experiments/cooper_regime/run_ratio.sh                       # everything (about five hours on 2 cores)
#   SEEDS=0 ARMS="static" experiments/cooper_regime/run_ratio.sh # some runs only
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-runs/cooper_ratio}
RUNS=${RUNS:-"static:0 cooper_group:0 rule:0 static:1 cooper_group:1 static:2 cooper_group:2"}
DOCS=${DOCS:-docs/cpu_scale/cooper_ratio}
SECOND=${SECOND:-docs/cpu_scale/cooper_released}  # the second experiment's committed data and pilot
export HARNESS_STORE=${HARNESS_STORE:-$OUT/runs.sqlite}
CFG=experiments/cooper_regime/config_ratio.yaml
mkdir -p "$OUT" "$DOCS"
for f in "$SECOND"/data/*.jsonl "$SECOND/pilot.json"; do
  [ -f "$OUT/$(basename "$f")" ] || cp "$f" "$OUT/"
done
# the warm-up and the static model, rebuilt from the committed data by the second experiment's own commands
[ -d "$OUT/sft/final" ] || harness sft --data "$OUT/sft.jsonl" --output "$OUT/sft" --learning-rate 5e-5 --seed 0 \
    --max-steps 60 --batch-size 8
[ -f "$OUT/verifyrm/verifyrm.json" ] || harness train-rm --base minilm-l6 --output "$OUT/verifyrm" \
    --suite "jsonl:reference=reference_answer,data=$OUT/rm_rollouts.jsonl,label=label_fooled" --lr 1e-4 \
    --val-fraction 0.1 --seed 0 --epochs 8
# the data and the warm-up are the second experiment's, byte for byte; the static model cannot be (see README:
# its head was not drawn from the seed before 06f1771), so it is this experiment's own, rebuilt to the same bytes
# by the fixed train-rm and pinned in $DOCS/SHA256SUMS, which `STAGE=prepare` writes once and which is committed
SUMS="$(cd "$SECOND/data" && pwd)/SHA256SUMS"
(cd "$OUT" && grep -v "verifyrm/model.safetensors" "$SUMS" | sha256sum --check --quiet -) || {
  echo "the data or the warm-up differ from $SUMS: no run started" >&2; exit 1; }
if [ ! -f "$DOCS/SHA256SUMS" ]; then
  (cd "$OUT" && grep -v "verifyrm/model.safetensors" "$SUMS" && sha256sum verifyrm/model.safetensors) > "$DOCS/SHA256SUMS"
fi
(cd "$OUT" && sha256sum --check --quiet "$(cd "$DOCS" && pwd)/SHA256SUMS") || {
  echo "the rebuilt static model differs from $DOCS/SHA256SUMS: no run started" >&2; exit 1; }
# the second experiment's static checks on this static model (P1 and P2), before any run; either failing stops it
PILOT="$OUT/static_pilot"
mkdir -p "$PILOT"
for f in rmtest_rollouts.jsonl step0_rollouts.jsonl probe.jsonl; do ln -sf "../$f" "$PILOT/$f"; done
if [ ! -f "$PILOT/pilot.json" ]; then
  python experiments/cooper_regime/pilot_released.py --out "$PILOT" --static "$OUT/verifyrm" --only none \
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
