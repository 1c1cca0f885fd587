#!/usr/bin/env bash
# CPU-scale run of the three rewards with one config, then each final policy (and the untrained one) through
# harness eval-policy on the held-out arithmetic set. Needs the VerifyRM trained by the train-rm command in
# docs/results.md at $RM (default runs/verifyrm-minilm). Writes runs to $HARNESS_STORE and models under $OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."
RM=${RM:-runs/verifyrm-minilm}
OUT=${OUT:-runs/cpu_scale}
CFG=experiments/cpu_scale/config.yaml
python experiments/cpu_scale/make_arithmetic.py --out "$OUT" --seed 0
for spec in "rule" "verifyrm:model=$RM" "cooper:model=$RM,negatives=group"; do
  name=${spec%%:*}
  /usr/bin/time -f "$name wall %e s" harness train --config "$CFG" --reward "$spec" --output "$OUT/$name" \
      --probe sample --probe-limit 42
done
EVAL="--suites $OUT/arithmetic_test.jsonl,svamp --preset greedy --limit 40 --max-gen-toks 64"
harness eval-policy --model smollm2-135m $EVAL
for name in rule verifyrm cooper; do
  harness eval-policy --model "$OUT/$name/final" $EVAL
done
