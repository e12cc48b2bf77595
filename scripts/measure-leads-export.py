#!/usr/bin/env python3
"""How much memory the server takes to export many leads.

Starts the real `parley serve` (from $CARGO_TARGET_DIR, default target/; `--release` for the
release build) over a fresh SQLite data directory, signs up, creates a bot, seeds N leads
straight into the database (every field filled), then downloads GET /api/leads/export
(CSV, JSON, then both again) while sampling the server process's resident memory (VmRSS in
/proc/<pid>/status) every 5 ms. Prints the RSS before, the peak during, the growth, the bytes
and the time. Exits non-zero if the growth reaches the limit (50 MB by default).

    python3 scripts/measure-leads-export.py [--leads 100000] [--release] [--limit-mb 50]
"""

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def call(base, method, path, body=None, token=None, form=None):
    headers = {}
    data = None
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if form is not None:
        boundary = uuid.uuid4().hex
        parts = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in form.items())
        data = (parts + f"--{boundary}--\r\n").encode()
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read() or b"null")


def seed(db, bot_id, n):
    """N leads in the format diesel writes (times as 'YYYY-MM-DD HH:MM:SS.ffffff')."""
    con = sqlite3.connect(db, timeout=30)
    start = datetime.now(timezone.utc).replace(tzinfo=None)
    statuses = ["new", "contacted", "qualified", "converted", "lost"]
    priorities = ["low", "medium", "high", "urgent"]
    fmt = "%Y-%m-%d %H:%M:%S.%f"
    rows = (
        (
            str(uuid.uuid4()), bot_id, None, f"Seeded Person {i}", f"person{i}@seed.example", f"+1 555 {i:07d}",
            f"Company {i % 97}", statuses[i % 5], priorities[i % 4], "website_chat",
            f"Asked about pricing, integrations and the trial; lead number {i}.", '["seeded","load"]', i % 101, None,
            (start - timedelta(seconds=i)).strftime(fmt), None, start.strftime(fmt),
        )
        for i in range(n)
    )
    con.executemany("INSERT INTO leads VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    con.commit()
    con.close()


def export(base, token, fmt, pid):
    """Downloads the export, reading and dropping 64 KB at a time; the server's peak RSS."""
    peak = [rss_kb(pid)]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_kb(pid))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.monotonic()
    size = 0
    req = urllib.request.Request(f"{base}/api/leads/export?format={fmt}", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req) as res:
        while chunk := res.read(65536):
            size += len(chunk)
    elapsed = time.monotonic() - started
    done.set()
    sampler.join()
    return peak[0], size, elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--leads", type=int, default=100_000)
    ap.add_argument("--release", action="store_true")
    ap.add_argument("--limit-mb", type=float, default=50)
    args = ap.parse_args()

    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    binary = os.path.join(target, "release" if args.release else "debug", "parley")
    if not os.path.exists(binary):
        sys.exit(f"{binary} is missing: build it first (cargo build --workspace{' --release' if args.release else ''})")
    data = tempfile.mkdtemp(prefix="parley-leads-export-")
    env = dict(os.environ, PARLEY_ADDR="127.0.0.1:0", PARLEY_DATA_DIR=data, PARLEY_LOG="warn",
               PARLEY_BILLING_DEFAULT_PLAN="enterprise", PARLEY_AUTH_IP_ATTEMPTS_PER_MINUTE="0")
    server = subprocess.Popen([binary, "serve"], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    try:
        base = None
        for line in server.stdout:
            if "listening on http://" in line:
                base = line.split("listening on ")[1].split()[0]
                break
        if not base:
            sys.exit("parley did not start")
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        token = call(base, "POST", "/api/auth/signup", {"email": "load@leads.example", "password": "password123",
                                                          "confirmPassword": "password123", "name": "Load"})["token"]
        bot = call(base, "POST", "/api/bots", token=token, form={"name": "Load Bot", "faqMethod": "skip"})["bot"]["_id"]
        t = time.monotonic()
        seed(os.path.join(data, "parley.db"), bot, args.leads)
        print(f"seeded {args.leads} leads in {time.monotonic() - t:.1f} s")
        total = call(base, "GET", "/api/leads?limit=1", token=token)["total"]
        assert total == args.leads, f"the list says {total} leads"

        worst = 0.0
        # Twice each: growth that comes back on the second round is held per export; growth that
        # does not is warm-up (SQLite's page cache, up to 16 MB per pooled connection).
        start_rss = rss_kb(server.pid)
        for fmt in ("csv", "json", "csv", "json"):
            call(base, "GET", "/api/leads/stats", token=token)  # warm: pools, caches
            before = rss_kb(server.pid)
            peak, size, elapsed = export(base, token, fmt, server.pid)
            growth = (peak - before) / 1024
            worst = max(worst, growth)
            print(f"{fmt}: {args.leads} leads, {size / 1e6:.1f} MB in {elapsed:.1f} s; server RSS {before / 1024:.1f} MB before, "
                  f"{peak / 1024:.1f} MB peak: growth {growth:.1f} MB")
        print(f"over all four: {start_rss / 1024:.1f} MB before the first, {rss_kb(server.pid) / 1024:.1f} MB after the last")
        if worst >= args.limit_mb:
            sys.exit(f"RSS growth {worst:.1f} MB reaches the {args.limit_mb} MB limit")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
