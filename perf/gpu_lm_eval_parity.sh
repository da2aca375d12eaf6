#!/usr/bin/env bash
# perf/lm_eval_parity.py --model on a GPU machine that has torch and transformers only: SmolLM2-135M-Instruct, float32,
# every request of every exportable benchmark scored by corefbias's backend and by lm-eval's HFLM on one model object.
# Prepare runs/gpu/ here with perf/gpu_prepare.sh.
# The GGUF (94 MiB) travels in parts, as a call carries at most 64 MiB with the working tree: carry
# runs/gpu/smollm2/*.part00 with perf/gpu_throughput.sh's files in one call, and the other parts with
# runs/gpu/requests_all17.jsonl.gz in the next, which runs this script. Output: $OUT/lm_eval_parity.txt.
set -uo pipefail
out="${OUT:-/tmp/gpu-out}"; mkdir -p "$out"
source "$(dirname "$0")/gpu_setup.sh"
model=/tmp/SmolLM2-135M-Instruct.Q4_1.gguf
cat runs/gpu/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf.part* > "$model"
sha256sum "$model"  # b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53 is the file setup.sh fetches
workers=$(( $(nproc) > 3 ? $(nproc) - 2 : 1 ))
PYTHONUNBUFFERED=1 timeout "${EACH_TIMEOUT:-560}" python3 perf/lm_eval_parity.py \
    --requests "${REQUESTS:-runs/gpu/requests_all17.jsonl.gz}" --model "$model" --device "${DEVICE:-cuda}" \
    --dtype float32 --workers "$workers" --lm-eval-batch-size "${LM_EVAL_BATCH:-64}" "$@" 2>&1 |
    grep -v "Warning\|warn(\|Converting and de-quantizing\|Loading weights" | tee "$out/lm_eval_parity.txt"
