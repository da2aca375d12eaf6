#!/usr/bin/env bash
# Where corefbias's scoring spends its time on a GPU: torch.profiler over perf/cloze_throughput.py's timed scoring
# (lm-eval left out), runs/gpu/ prepared as perf/gpu_throughput.sh says. Prints the operators that took the most
# device time and the most host time, and the device's kernel seconds in all, to set against the scoring's seconds in
# cloze_throughput's table (what is left is the device waiting for the host). Output: $OUT/profile.txt.
#   ARCH=llama-1b LAYOUT=right-padded SAMPLE=8000 DEVICE=cuda bash perf/gpu_profile.sh
set -uo pipefail
out="${OUT:-/tmp/gpu-out}"; mkdir -p "$out"
source "$(dirname "$0")/gpu_setup.sh"
python3 - "${ARCH:-llama-1b}" "${LAYOUT:-right-padded}" "${SAMPLE:-8000}" "${DEVICE:-cuda}" "${REQUESTS:-runs/gpu/requests.jsonl.gz}" <<'PY' 2>&1 |
import sys
from torch.profiler import ProfilerActivity, profile

architecture, layout, sample, device, requests = sys.argv[1:]
sys.path.insert(0, "perf")
import cloze_throughput

activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
arguments = ["--requests", requests, "--tokenizer", "runs/gpu/tokenizer", "--device", device, "--architecture",
             architecture, "--ours-layouts", layout, "--sample", sample, "--lm-eval-batch-sizes", "--count-requests", "20"]
with profile(activities=activities) as profiled:
    cloze_throughput.main(arguments)
averages = profiled.key_averages()
kernels = sum(event.self_device_time_total for event in averages) / 1e6
print(f"\ndevice kernels: {kernels:.1f} s in all (model built and host bytes counted included)")
if device == "cuda":
    print(averages.table(sort_by="self_cuda_time_total", row_limit=30, max_name_column_width=60))
print(averages.table(sort_by="self_cpu_time_total", row_limit=30, max_name_column_width=60))
PY
    grep -v "Warning\|warn(" | tee "$out/profile.txt"
