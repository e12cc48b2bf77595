#!/usr/bin/env bash
# The API contract run: a fresh `parley serve` (debug build, temp SQLite, free port), an owner
# with one bot, then schemathesis against /api/openapi.json twice, as that owner (bearer token,
# the bot's id in every {bot_id}) and anonymously. Fails on any 5xx, any answer that does not
# match the document, and any request that hangs past the timeout (scripts/schemathesis.toml).
#
#   scripts/contract.sh [extra schemathesis options, e.g. --max-examples 100]
#
# Needs target/debug/parley (cargo build --workspace) and schemathesis (pip install schemathesis).
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
bin="$target/debug/parley"
[ -x "$bin" ] || { echo "contract: $bin is missing; build it first (cargo build --workspace)" >&2; exit 1; }
command -v schemathesis >/dev/null || { echo "contract: schemathesis is missing (pip install schemathesis)" >&2; exit 1; }

work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Budgets off for the sign-in family and new conversations, so the fuzzer reaches the handlers
# instead of the 429 in front of them. Every outside address points at a closed local port: the
# run must not send traffic past this machine.
closed="http://127.0.0.1:9"
env -i PATH="$PATH" HOME="$HOME" \
  PARLEY_ADDR="127.0.0.1:$port" PARLEY_DATA_DIR="$work/data" RUST_LOG="${RUST_LOG:-warn}" \
  PARLEY_AUTH_JWT_SECRET="contract-run-secret-$(date +%s)-0123456789abcdef" \
  PARLEY_AUTH_IP_ATTEMPTS_PER_MINUTE=0 \
  PARLEY_REALTIME_NEW_CONVERSATIONS_PER_IP_PER_HOUR=0 PARLEY_REALTIME_NEW_CONVERSATIONS_PER_BOT_PER_HOUR=0 \
  PARLEY_OAUTH_GOOGLE_CLIENT_ID=contract PARLEY_OAUTH_GOOGLE_CLIENT_SECRET=contract \
  PARLEY_OAUTH_GOOGLE_AUTH_URL="$closed/auth" PARLEY_OAUTH_GOOGLE_TOKEN_URL="$closed/token" PARLEY_OAUTH_GOOGLE_USERINFO_URL="$closed/user" \
  PARLEY_OAUTH_GITHUB_CLIENT_ID=contract PARLEY_OAUTH_GITHUB_CLIENT_SECRET=contract \
  PARLEY_OAUTH_GITHUB_AUTH_URL="$closed/auth" PARLEY_OAUTH_GITHUB_TOKEN_URL="$closed/token" PARLEY_OAUTH_GITHUB_USERINFO_URL="$closed/user" \
  HTTP_PROXY="$closed" HTTPS_PROXY="$closed" ALL_PROXY="$closed" NO_PROXY="" \
  "$bin" serve >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  curl -fsS "$base/api/health" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "contract: the server did not start" >&2; exit 1; }
  sleep 0.2
done

json() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }
token=$(curl -fsS -H 'Content-Type: application/json' "$base/api/auth/signup" \
  -d '{"email":"owner@contract.test","password":"contract-password-1","confirmPassword":"contract-password-1","name":"Owner"}' | json '["token"]')
bot_id=$(curl -fsS -H "Authorization: Bearer $token" -F name=Contract -F faqMethod=text \
  -F "faqText=Parley answers questions about orders, shipping and returns." "$base/api/bots" | json '["bot"]["_id"]')
echo "==> contract: server on $base, owner's bot $bot_id"

checks="not_a_server_error,response_schema_conformance,content_type_conformance"
status=0
run() {
  local name=$1; shift
  echo "==> contract: $name"
  PYTHONUNBUFFERED=1 schemathesis --no-color --config-file scripts/schemathesis.toml run "$base/api/openapi.json" \
    --checks "$checks" "$@" 2>&1 | tee "$work/$name.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}

# The owner's bot goes into every {bot_id} (scripts/schemathesis.toml), so calls reach past the
# 404. Deleting it would leave the rest of the run with nothing to reach: that call is left out.
# Adding a website source makes the server crawl the address given, which is not ours to call.
# Signing out would end the owner's token for every later call (the anonymous run still calls both).
export PARLEY_CONTRACT_BOT_ID="$bot_id"
skip=(--exclude-name "POST /api/bots/{bot_id}/sources/website")
keep_signed_in=(--exclude-name "POST /api/auth/logout" --exclude-name "POST /api/auth/logout-everywhere")
run owner -H "Authorization: Bearer $token" --exclude-name "DELETE /api/bots/{bot_id}" "${keep_signed_in[@]}" "${skip[@]}" "$@"
run anonymous "${skip[@]}" "$@"
echo "==> contract: summary"
for name in owner anonymous; do
  ops=$(grep -A2 '^API Operations:' "$work/$name.log" | sed -n 's/^ *Tested: *\([0-9]*\).*/\1/p')
  cases=$(grep -A1 '^Test cases:' "$work/$name.log" | sed -n 's/^ *\([0-9]*\) generated.*/\1/p')
  echo "contract $name: ${ops:-?} operations, ${cases:-?} test cases"
done
cp "$work/server.log" "$target/contract-server.log" 2>/dev/null || true
if grep -E 'panicked|internal error' "$work/server.log"; then
  echo "contract: the server logged a panic or an internal error (above; log in $target/contract-server.log)" >&2
  status=1
fi
[ "$status" -eq 0 ] && echo "==> contract: passed" || echo "==> contract: FAILED" >&2
exit $status
