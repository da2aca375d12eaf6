#!/usr/bin/env bash
# Where corefbias's 1B-shaped GPU run spends its time: cProfile of the timed scoring, lm-eval left out; runs/gpu/
# prepared as perf/gpu_throughput.sh says.
set -uo pipefail
export PYTHONPATH="$PWD/src" TOKENIZERS_PARALLELISM=false
python3 - <<'PY' 2>&1 | grep -v "Warning\|warn(" | tee "${OUT:-/tmp}/profile.txt"
import cProfile, pstats, sys, time, torch
sys.argv = ["cloze_throughput", "--requests", "runs/gpu/requests.jsonl.gz", "--tokenizer", "runs/gpu/tokenizer",
            "--device", "cuda", "--architecture", "llama-1b", "--lm-eval-batch-sizes", "--count-requests", "50"]
sys.path.insert(0, "perf")
import cloze_throughput
profile = cProfile.Profile()
profile.enable()
cloze_throughput.main()
profile.disable()
stats = pstats.Stats(profile).sort_stats("cumulative")
stats.print_stats(45)
stats.sort_stats("tottime").print_stats(25)
PY
