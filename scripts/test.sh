#!/usr/bin/env bash
# README command 2: every test. Rust (both database backends), the web apps' unit tests, and
# the end-to-end tests that drive the real server with real clients and a real browser.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/test-env.sh

echo "==> lints (no unwrap/expect outside tests, no warnings)"
cargo clippy --workspace --lib --bins --examples -- -D warnings

echo "==> Rust tests (SQLite and PostgreSQL)"
cargo build --workspace --all-targets --examples
cargo nextest run --workspace --no-fail-fast

echo "==> API contract: schemathesis against /api/openapi.json, as an owner and anonymously"
scripts/contract.sh

for app in dashboard widget; do
  if [ -f "$app/package.json" ]; then
    echo "==> $app tests and build"
    (cd "$app" && npm test && npm run build)
  fi
done

if [ -f e2e/package.json ]; then
  echo "==> end-to-end tests"
  # They run target/debug/parley, built above with the workspace (building the one package again
  # here would rebuild its dependencies with other features, minutes for nothing).
  (cd e2e && npm test)
fi
echo "==> load harness smoke run (relay against Parley and the Node peer: nothing lost or duplicated)"
target="${CARGO_TARGET_DIR:-target}"
"$target/debug/parley-bench" relay --sessions 20 --rate 20 --duration 3 --compare node \
  --parley-bin "$target/debug/parley" --json "$target/bench-smoke-relay.json" --assert-clean

echo "==> all tests passed"
