#!/usr/bin/env bash
# perf/cloze_throughput.py on a GPU machine that has torch and transformers only. Prepare runs/gpu/ here with
# perf/gpu_prepare.sh, then carry runs/gpu/wheels, runs/gpu/tokenizer and runs/gpu/requests.jsonl.gz to the machine.
# There: ARCHS="llama-1b:64 llama-8b" bash perf/gpu_throughput.sh (an architecture, then lm-eval's batch sizes);
# every corefbias layout unless OURS_LAYOUTS names some. Output: $OUT/<architecture>.txt.
set -uo pipefail
requests="${REQUESTS:-runs/gpu/requests.jsonl.gz}"
device="${DEVICE:-cuda}"
out="${OUT:-/tmp/gpu-out}"; mkdir -p "$out"
source "$(dirname "$0")/gpu_setup.sh"
common=(--requests "$requests" --tokenizer runs/gpu/tokenizer --device "$device")
for spec in $ARCHS; do
    arch="${spec%%:*}"; lm_eval_batches="${spec#*:}"; [ "$lm_eval_batches" = "$spec" ] && lm_eval_batches=""
    echo "=== $arch (lm-eval batch sizes: ${lm_eval_batches:-none})"
    timeout "${EACH_TIMEOUT:-400}" python3 perf/cloze_throughput.py "${common[@]}" --architecture "$arch" \
        --lm-eval-batch-sizes ${lm_eval_batches//,/ } ${OURS_TOKENS:+--ours-batch-tokens $OURS_TOKENS} \
        --ours-layouts ${OURS_LAYOUTS:-right-padded prefix-sharing prefix-tree} "$@" 2>&1 |
        grep -v "Warning\|warn(" | tee "$out/$arch.txt"
done
