#!/usr/bin/env bash
# CPU-scale run of the three rewards with one config. Needs the VerifyRM trained by the train-rm command in
# docs/results.md at $RM (default runs/verifyrm-minilm). Writes runs to $HARNESS_STORE and figures to docs/.
set -euo pipefail
cd "$(dirname "$0")/../.."
RM=${RM:-runs/verifyrm-minilm}
OUT=${OUT:-runs/cpu_scale}
CFG=experiments/cpu_scale/config.yaml
for spec in "rule" "verifyrm:model=$RM" "cooper:model=$RM,negatives=perturb,probe=sample,probe_limit=42"; do
  name=${spec%%:*}
  /usr/bin/time -f "$name wall %e s" harness train --config "$CFG" --reward "$spec" --output "$OUT/$name"
done
