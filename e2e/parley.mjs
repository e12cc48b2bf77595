// Starts the real `parley serve` on a random port over a fresh data directory (SQLite), and
// small HTTP helpers for the tests. The binary comes from CARGO_TARGET_DIR (default target/).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function binary() {
  const target = resolve(repo, process.env.CARGO_TARGET_DIR || "target");
  const bin = join(target, "debug", "parley");
  if (!existsSync(bin)) {
    const built = spawnSync("cargo", ["build", "-p", "parley-http", "--bin", "parley"], { cwd: repo, stdio: "inherit" });
    if (built.status !== 0) throw new Error("cargo build of parley failed");
  }
  return bin;
}

/** Starts Parley; `dataDir` reuses a directory (a restart). */
export async function startParley({ dataDir, env = {} } = {}) {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "parley-e2e-"));
  const child = spawn(binary(), ["serve"], {
    cwd: repo,
    env: {
      ...process.env,
      PARLEY_ADDR: "127.0.0.1:0",
      PARLEY_DATA_DIR: dir,
      PARLEY_BILLING_DEFAULT_PLAN: "enterprise",
      PARLEY_LOG: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const base = await new Promise((resolveBase, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("parley did not start")), 60000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/listening on (http:\/\/[\d.]+:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolveBase(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`parley exited with ${code}`)));
  });
  const stopped = new Promise((r) => child.on("exit", r));
  return {
    base,
    dataDir: dir,
    stop: async () => {
      child.kill("SIGTERM");
      await stopped;
    },
  };
}

export async function api(base, method, path, { token, body, headers = {} } = {}) {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(body !== undefined && !(body instanceof FormData) ? { "content-type": "application/json" } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function signup(base, email, name) {
  const r = await api(base, "POST", "/api/auth/signup", {
    body: { email, password: "password123", confirmPassword: "password123", name },
  });
  if (r.status !== 201) throw new Error(`signup ${email}: ${JSON.stringify(r.body)}`);
  return { token: r.body.token, id: r.body.user._id, name };
}

export async function createBot(base, token, name, faqText) {
  const form = new FormData();
  form.set("name", name);
  if (faqText) {
    form.set("faqMethod", "text");
    form.set("faqText", faqText);
  }
  const r = await api(base, "POST", "/api/bots", { token, body: form });
  if (r.status !== 201) throw new Error(`create bot: ${JSON.stringify(r.body)}`);
  return r.body.bot._id;
}

/** Invites `member` to the bot with `role`; the member accepts. */
export async function addToTeam(base, ownerToken, botId, member, email, role) {
  const inv = await api(base, "POST", `/api/bots/${botId}/team/invite`, { token: ownerToken, body: { email, role } });
  if (inv.status !== 201) throw new Error(`invite: ${JSON.stringify(inv.body)}`);
  const list = await api(base, "GET", "/api/invitations", { token: member.token });
  const mine = list.body.invitations.find((i) => i.botId === botId);
  const ok = await api(base, "POST", `/api/invitations/${mine._id}/respond`, { token: member.token, body: { accept: true } });
  if (ok.status !== 200) throw new Error(`accept: ${JSON.stringify(ok.body)}`);
}

/** Waits until `fn()` is truthy. */
export async function until(fn, what, ms = 8000) {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
