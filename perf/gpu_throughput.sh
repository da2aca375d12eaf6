#!/usr/bin/env bash
# perf/cloze_throughput.py on a GPU machine that has torch and transformers only. Prepare runs/gpu/ where the
# exports and the GGUF are, then carry it to the machine:
#   .venv/bin/python perf/cloze_throughput.py --mirror ../shared/data --save-requests runs/gpu/requests.jsonl.gz \
#       --benchmarks counter_gap gap winogender winobias sowinobias dawinobias abc
#   .venv/bin/python -c "import transformers; transformers.AutoTokenizer.from_pretrained('<models folder>',
#       gguf_file='SmolLM2-135M-Instruct.Q4_1.gguf').save_pretrained('runs/gpu/tokenizer')"
#   .venv/bin/pip download --no-deps -d runs/gpu/wheels lm_eval==0.4.13 dill requests urllib3 certifi idna \
#       charset_normalizer accelerate psutil
# There: ARCHS="llama-1b:64 llama-8b" bash perf/gpu_throughput.sh (an architecture, then lm-eval's batch sizes);
# both of corefbias's layouts unless OURS_LAYOUTS names one.
set -uo pipefail
requests="${REQUESTS:-runs/gpu/requests.jsonl.gz}"
device="${DEVICE:-cuda}"
out="${OUT:-/tmp/gpu-out}"; mkdir -p "$out"
python3 -c "import sys, torch, transformers; print(sys.version.split()[0], torch.__version__, transformers.__version__)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -m pip install -q --no-index --find-links runs/gpu/wheels --no-deps lm_eval dill requests urllib3 certifi idna charset_normalizer 2>&1 | tail -1
python3 -c "import accelerate, psutil" 2>/dev/null ||
    python3 -m pip install -q --no-index --find-links runs/gpu/wheels --no-deps accelerate psutil 2>&1 | tail -1
export PYTHONPATH="$PWD/src"
common=(--requests "$requests" --tokenizer runs/gpu/tokenizer --device "$device")
for spec in $ARCHS; do
    arch="${spec%%:*}"; lm_eval_batches="${spec#*:}"; [ "$lm_eval_batches" = "$spec" ] && lm_eval_batches=""
    echo "=== $arch (lm-eval batch sizes: ${lm_eval_batches:-none})"
    timeout "${EACH_TIMEOUT:-400}" python3 perf/cloze_throughput.py "${common[@]}" --architecture "$arch" \
        --lm-eval-batch-sizes ${lm_eval_batches//,/ } ${OURS_TOKENS:+--ours-batch-tokens $OURS_TOKENS} \
        --ours-layouts ${OURS_LAYOUTS:-right-padded prefix-sharing} "$@" 2>&1 |
        grep -v "Warning\|warn(" | tee "$out/$arch.txt"
done
