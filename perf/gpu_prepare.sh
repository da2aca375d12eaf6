#!/usr/bin/env bash
# Prepares runs/gpu/ here for perf/gpu_throughput.sh and perf/gpu_lm_eval_parity.sh, which run on a GPU machine that
# has torch and transformers only: no datasets, no lm-eval, no weights, no network. Needs the checkout's .venv and
# SmolLM2's GGUF (services/llamacpp/setup.sh fetches it). Idempotent: what is already there is kept.
#   bash perf/gpu_prepare.sh [MIRROR]        # MIRROR: ../shared/data by default
# Writes:
#   runs/gpu/wheels/              lm-eval 0.4.13, gguf and what they import beyond torch and transformers, built for
#                                 the device's Python (DEVICE_PYTHON, 3.12 by default: the H200 machines' so far)
#   runs/gpu/tokenizer/           SmolLM2's tokenizer as a folder (the random-weight models' tokenizer)
#   runs/gpu/requests.jsonl.gz    the seven original benchmarks' requests (perf/gpu_throughput.sh)
#   runs/gpu/requests_all17.jsonl.gz  every exportable benchmark's requests, named (perf/gpu_lm_eval_parity.sh)
#   runs/gpu/smollm2/*.partNN     SmolLM2's GGUF in parts of 42 MiB: a call carries at most 64 MiB with the tree
# and prints each file's size, for the carry lists of docs/performance.md ("The next GPU run").
set -euo pipefail
cd "$(dirname "$0")/.."
mirror="${1:-../shared/data}"
python=.venv/bin/python
gguf="${COREFBIAS_CACHE:-$HOME/.cache/corefbias}/llamacpp/models/SmolLM2-135M-Instruct.Q4_1.gguf"
[ -f "$gguf" ] || { echo "gpu_prepare: no $gguf; run services/llamacpp/setup.sh first" >&2; exit 1; }
mkdir -p runs/gpu/smollm2
export PYTHONPATH="$PWD/src"

[ -d runs/gpu/wheels ] || $python -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version "${DEVICE_PYTHON:-3.12}" --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d runs/gpu/wheels \
    lm_eval==0.4.13 dill requests urllib3 certifi idna charset_normalizer accelerate psutil gguf==0.19.0
[ -d runs/gpu/tokenizer ] || $python -c "import sys, transformers
folder, name = sys.argv[1].rsplit('/', 1)
transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name).save_pretrained('runs/gpu/tokenizer')" "$gguf"
[ -f runs/gpu/requests.jsonl.gz ] || $python perf/cloze_throughput.py --mirror "$mirror" \
    --save-requests runs/gpu/requests.jsonl.gz \
    --benchmarks counter_gap gap winogender winobias sowinobias dawinobias abc
[ -f runs/gpu/requests_all17.jsonl.gz ] || $python perf/lm_eval_parity.py --mirror "$mirror" \
    --save-requests runs/gpu/requests_all17.jsonl.gz
[ -f runs/gpu/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf.part00 ] ||
    split -b 42M -d "$gguf" runs/gpu/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf.part
du -sh runs/gpu/wheels runs/gpu/tokenizer runs/gpu/requests.jsonl.gz runs/gpu/requests_all17.jsonl.gz \
    runs/gpu/smollm2/*
