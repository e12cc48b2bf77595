#!/usr/bin/env bash
# Installs each given folder's npm packages exactly as its package-lock.json lists them (`npm ci`),
# so a fresh clone, a developer and CI all build with the same versions. Usage: npm-ci.sh DIR...
#
# npm ci always deletes node_modules and installs anew (20 s or more per app); when the folder's
# package.json and package-lock.json are unchanged since its last `npm ci` here, that is skipped.
# The stamp lives inside node_modules, so deleting node_modules forces a fresh install.
set -euo pipefail

for dir in "$@"; do
  [ -f "$dir/package.json" ] || continue
  stamp="$dir/node_modules/.parley-npm-ci"
  want=$(cat "$dir/package.json" "$dir/package-lock.json" | sha256sum | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    continue
  fi
  echo "==> npm ci in $dir"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
done
