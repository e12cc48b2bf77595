#!/usr/bin/env bash
# Makes this machine ready for the tests: PostgreSQL up (and old test databases dropped),
# Debian's chromium for the browser tests, npm packages, localstripe. Idempotent; safe to run
# every time.
set -euo pipefail
cd "$(dirname "$0")/.."

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
if ! pg_up; then
  echo "==> starting PostgreSQL"
  if command -v pg_ctlcluster >/dev/null; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  pg_up || { echo "PostgreSQL is not running on 127.0.0.1:5432 and could not be started" >&2; exit 1; }
fi
admin="${PARLEY_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
stale=$(psql "$admin" -Atc "select datname from pg_database where datname like 'parley_test_%'" 2>/dev/null || true)
for db in $stale; do psql "$admin" -qc "drop database if exists $db" >/dev/null 2>&1 || true; done

if [ -d e2e ] && grep -q playwright e2e/package.json 2>/dev/null && [ ! -x /usr/bin/chromium ]; then
  echo "==> installing Debian's chromium for the browser tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# npm ci: exactly the versions in each package-lock.json; it fails rather than drift when a
# lockfile is out of date (see scripts/npm-ci.sh).
bash scripts/npm-ci.sh dashboard widget e2e benches/peers/socketio-node
# The API contract run (scripts/contract.sh); pinned, since a new release may add checks.
if ! command -v schemathesis >/dev/null || ! schemathesis --version 2>/dev/null | grep -q '4\.32\.5'; then
  echo "==> installing schemathesis for the API contract run"
  python3 -m pip install --quiet --disable-pip-version-check 'schemathesis==4.32.5'
fi
# A local Stripe for the billing tests (scripts/localstripe-server.py starts it per test and
# patches this version's internals: pinned).
if ! python3 -c 'import importlib.metadata as m; assert m.version("localstripe") == "1.15.10"' 2>/dev/null; then
  echo "==> installing localstripe for the billing tests"
  python3 -m pip install --quiet --disable-pip-version-check 'localstripe==1.15.10'
fi
if [ -x scripts/fetch-model.sh ]; then
  scripts/fetch-model.sh || echo "warning: no embedding model; embedding tests will say so"
fi
