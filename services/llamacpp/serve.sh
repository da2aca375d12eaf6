#!/usr/bin/env bash
# Serves one of setup.sh's models with llama-server on 127.0.0.1:PORT, OpenAI-style:
# /v1/chat/completions, /v1/completions, /v1/models (its id is the GGUF file's stem) and /health.
# Runs in the foreground until stopped; extra arguments go to llama-server as they are.
set -euo pipefail

usage="usage: $0 smollm2|gemma3 PORT [llama-server flags...]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
cache="${COREFBIAS_CACHE:-$HOME/.cache/corefbias}/llamacpp"
source "$here/build.env"
server="$cache/$build_name/bin/llama-server"
case "$1" in
  smollm2) name=SmolLM2-135M-Instruct.Q4_1 template=() ;;
  # This GGUF (base google/gemma-3-270m) has no chat template, and llama-server would fall back to
  # ChatML, whose <|im_start|> markers Gemma's tokenizer splits into plain-text pieces; use Gemma's
  # own turn format (<start_of_turn>user ... <start_of_turn>model), built in to llama.cpp (not Jinja).
  gemma3) name=gemma-3-270m-q4_k_m template=(--no-jinja --chat-template gemma) ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
model="$cache/models/$name.gguf"
[ -x "$server" ] && [ -f "$model" ] || { echo "llamacpp service: not set up; run bash $here/setup.sh" >&2; exit 1; }

# llama-server is built with OpenMP, whose threads spin while they wait: on a 2-core machine shared
# with other jobs that made a request 6x slower (4.7 s against 0.7 s with PASSIVE, same logprobs).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
# One slot and no prompt cache, so every request is computed from scratch the same way and its
# logprobs do not depend on what was asked before. Sampling is deterministic per request at
# temperature 0; --seed fixes it otherwise.
exec "$server" --model "$model" --alias "$name" --host 127.0.0.1 --port "$2" \
  --ctx-size 2048 --threads 2 --threads-batch 2 --parallel 1 --no-cache-prompt --cache-ram 0 \
  --seed 0 --no-webui "${template[@]}" "${@:3}"
