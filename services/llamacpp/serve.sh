#!/usr/bin/env bash
# Serves one of setup.sh's models with llama-server on 127.0.0.1:PORT, OpenAI-style:
# /v1/chat/completions, /v1/completions, /v1/models (its id is the GGUF file's stem) and /health.
# Runs in the foreground until stopped; extra arguments go to llama-server as they are.
set -euo pipefail

usage="usage: $0 smollm2|gemma3 PORT [llama-server flags...]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
cache="${COREFBIAS_CACHE:-$HOME/.cache/corefbias}/llamacpp"
server="$cache/11434.0.0/bin/llama-server"
case "$1" in
  smollm2) name=SmolLM2-135M-Instruct.Q4_1 ;;
  gemma3) name=gemma-3-270m-q4_k_m ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
model="$cache/models/$name.gguf"
[ -x "$server" ] && [ -f "$model" ] || { echo "llamacpp service: not set up; run bash $here/setup.sh" >&2; exit 1; }

# One slot and no prompt cache, so every request is computed from scratch the same way and its
# logprobs do not depend on what was asked before. Sampling is deterministic per request at
# temperature 0; --seed fixes it otherwise.
exec "$server" --model "$model" --alias "$name" --host 127.0.0.1 --port "$2" \
  --ctx-size 2048 --threads 2 --threads-batch 2 --parallel 1 --no-cache-prompt --cache-ram 0 \
  --seed 0 --no-webui "${@:3}"
