#!/usr/bin/env bash
# README command 1: build everything (both web apps, the embedding model, the Rust server)
# and run `parley serve` on PARLEY_ADDR (default 127.0.0.1:8080) with SQLite in ./data.
set -euo pipefail
cd "$(dirname "$0")/.."

# npm ci: exactly the versions in each app's package-lock.json (see scripts/npm-ci.sh).
bash scripts/npm-ci.sh dashboard widget
for app in dashboard widget; do
  if [ -f "$app/package.json" ]; then
    echo "==> building $app"
    (cd "$app" && npm run build)
  fi
done
if [ -x scripts/fetch-model.sh ]; then
  echo "==> sentence-embedding model"
  scripts/fetch-model.sh || echo "warning: no embedding model; Parley will answer with keyword search only"
fi
echo "==> building parley"
cargo build --release -p parley-http --bin parley
exec cargo run --release -q -p parley-http --bin parley -- serve
