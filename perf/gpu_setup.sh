# Sourced by perf/gpu_throughput.sh and perf/gpu_lm_eval_parity.sh on a GPU machine that has torch and transformers
# only: prints the card and the versions, installs the wheels carried in runs/gpu/wheels (lm-eval and what it
# imports beyond torch and transformers, and gguf: perf/gpu_prepare.sh downloads them), and puts corefbias's source
# on the path.
python3 -c "import sys, torch, transformers; print(sys.version.split()[0], torch.__version__, transformers.__version__)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -m pip install -q --no-index --find-links runs/gpu/wheels --no-deps lm_eval dill requests urllib3 certifi idna \
    charset_normalizer gguf 2>&1 | tail -1
python3 -c "import accelerate, psutil" 2>/dev/null ||
    python3 -m pip install -q --no-index --find-links runs/gpu/wheels --no-deps accelerate psutil 2>&1 | tail -1
export PYTHONPATH="$PWD/src"
