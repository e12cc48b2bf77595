// Starts the real `parley serve` on a random port over a fresh data directory (SQLite), and
// small HTTP helpers for the tests. The binary comes from CARGO_TARGET_DIR (default target/).
// Mail goes to a real SMTP server on loopback: maildev (from npm), started once per test file
// and read through its HTTP API, so the tests follow the links people would click.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The `parley` binary the tests run (built if missing). */
export function binary() {
  const target = resolve(repo, process.env.CARGO_TARGET_DIR || "target");
  const bin = join(target, "debug", "parley");
  if (!existsSync(bin)) {
    const built = spawnSync("cargo", ["build", "-p", "parley-http", "--bin", "parley"], { cwd: repo, stdio: "inherit" });
    if (built.status !== 0) throw new Error("cargo build of parley failed");
  }
  return bin;
}

/** A port nobody listens on right now. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

let mailDev;

/** The maildev of this test file: `{ smtpPort, web }` (started on first use). */
export function mailServer() {
  mailDev ??= startMailDev();
  return mailDev;
}

// The two ports are free when chosen but not held: another process (a server, or an outgoing
// connection given that port) may take one before maildev binds it, and maildev then exits. It
// is started again on new ports; its error output says why when every attempt fails.
async function startMailDev(attempts = 4) {
  const bin = join(repo, "e2e", "node_modules", "maildev", "bin", "maildev");
  if (!existsSync(bin)) throw new Error("maildev is missing: run `npm install` in e2e/ (scripts/test-env.sh does)");
  const failures = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const smtpPort = await freePort();
    const webPort = await freePort();
    if (smtpPort === webPort) continue;
    const child = spawn(
      process.execPath,
      [bin, "--smtp", String(smtpPort), "--web", String(webPort), "--ip", "127.0.0.1", "--web-ip", "127.0.0.1", "--silent"],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    let exited = null;
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code, signal) => (exited = signal ?? code));
    // The test process may end while maildev runs; it goes with it.
    child.unref();
    child.stderr.unref();
    process.once("exit", () => child.kill());
    const web = `http://127.0.0.1:${webPort}`;
    const up = await until(async () => {
      if (exited !== null) return "exited";
      try {
        return (await fetch(`${web}/email`)).ok && (await greets(smtpPort)) && "up";
      } catch {
        return false;
      }
    }, "maildev to start", 30000);
    if (up === "up") return { smtpPort, web };
    const errorLine = stderr.split("\n").find((line) => /^\w*Error\b/.test(line)) ?? stderr.trim().split("\n").at(-1);
    failures.push(`attempt ${attempt} (smtp ${smtpPort}, web ${webPort}) exited with ${exited}: ${errorLine}`);
  }
  throw new Error(`maildev did not start:\n${failures.join("\n")}`);
}

/** Whether an SMTP server greets on loopback `port` (it is then told QUIT, so it sees a clean end). */
function greets(port) {
  return new Promise((resolveGreets) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let heard = "";
    socket.setEncoding("utf8");
    socket.setTimeout(2000, () => socket.destroy());
    socket.on("data", (chunk) => {
      const greeted = heard.includes("\n");
      heard += chunk;
      if (!greeted && heard.startsWith("220") && heard.includes("\n")) socket.end("QUIT\r\n");
    });
    socket.once("close", () => resolveGreets(heard.startsWith("220")));
    socket.once("error", () => resolveGreets(false));
  });
}

/** Every mail maildev holds to `address` (case-insensitive), oldest first. */
export async function mailsTo(address) {
  const { web } = await mailServer();
  const all = await (await fetch(`${web}/email`)).json();
  const want = address.toLowerCase();
  return all.filter((m) => (m.to ?? []).some((t) => (t.address ?? "").toLowerCase() === want));
}

/**
 * Waits for a mail to `address` sent by the server at `base` whose subject matches `subject`
 * and whose text matches `text` (both optional); the newest such mail.
 */
export async function waitForMail(address, { base, subject, text } = {}, ms = 20000) {
  return until(async () => {
    const found = (await mailsTo(address)).filter(
      (m) =>
        (!base || (m.text ?? "").includes(base)) &&
        (!subject || (typeof subject === "string" ? m.subject.includes(subject) : subject.test(m.subject))) &&
        (!text || (m.text ?? "").includes(text)),
    );
    return found.at(-1);
  }, `a mail to ${address}${subject ? ` (${subject})` : ""}`, ms);
}

/** The first link in a mail's text that starts with `prefix`, as a URL. */
export function linkIn(mail, prefix) {
  const text = mail.text ?? "";
  const at = text.indexOf(prefix);
  if (at < 0) throw new Error(`no link starting with ${prefix} in: ${text}`);
  return new URL(text.slice(at).split(/\s/)[0]);
}

/** Starts Parley; `dataDir` reuses a directory (a restart); `bin` runs another binary than binary(). */
export async function startParley({ dataDir, env = {}, bin = binary() } = {}) {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "parley-e2e-"));
  const mail = await mailServer();
  const child = spawn(bin, ["serve"], {
    cwd: repo,
    env: {
      ...process.env,
      PARLEY_ADDR: "127.0.0.1:0",
      PARLEY_DATA_DIR: dir,
      PARLEY_BILLING_DEFAULT_PLAN: "enterprise",
      PARLEY_LOG: "warn",
      PARLEY_SMTP_URL: `smtp://127.0.0.1:${mail.smtpPort}`,
      PARLEY_SMTP_TLS: "none",
      // Every browser and client of a suite comes from loopback: no per-address budgets for
      // sign-ins and new conversations unless a test sets them (the http tests cover them).
      PARLEY_AUTH_IP_ATTEMPTS_PER_MINUTE: "0",
      PARLEY_REALTIME_NEW_CONVERSATIONS_PER_IP_PER_HOUR: "0",
      PARLEY_REALTIME_NEW_CONVERSATIONS_PER_BOT_PER_HOUR: "0",
      // The landing page's demo bot (and its training) only where a test asks for it.
      PARLEY_DEMO_BOT: "off",
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

/**
 * Signs up and, unless `verify` is false, follows the verification link mailed to the address
 * (only a verified account may accept invitations).
 */
export async function signup(base, email, name, { verify = true } = {}) {
  const r = await api(base, "POST", "/api/auth/signup", {
    body: { email, password: "password123", confirmPassword: "password123", name },
  });
  if (r.status !== 201) throw new Error(`signup ${email}: ${JSON.stringify(r.body)}`);
  const user = { token: r.body.token, id: r.body.user._id, name, email };
  if (verify) await verifyEmail(base, email);
  return user;
}

/** Follows the newest verification link mailed to `email` by the server at `base`. */
export async function verifyEmail(base, email) {
  const mail = await waitForMail(email, { base, subject: "Verify your email address" });
  const token = linkIn(mail, `${base}/verify-email?token=`).searchParams.get("token");
  const r = await api(base, "POST", "/api/auth/verify-email", { body: { token } });
  if (r.status !== 200) throw new Error(`verify ${email}: ${JSON.stringify(r.body)}`);
}

/** The acceptance link of the invitation to `botId` mailed to `email`: { botId, memberId, token }. */
export async function invitationLink(base, email, botId) {
  const mail = await waitForMail(email, { base, subject: "invited you", text: `botId=${botId}` });
  const url = linkIn(mail, `${base}/teams?action=accept`);
  return { botId: url.searchParams.get("botId"), memberId: url.searchParams.get("memberId"), token: url.searchParams.get("token") };
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

/** Invites `member` to the bot with `role`; the member follows the mailed link and accepts. */
export async function addToTeam(base, ownerToken, botId, member, email, role) {
  const inv = await api(base, "POST", `/api/bots/${botId}/team/invite`, { token: ownerToken, body: { email, role } });
  if (inv.status !== 201) throw new Error(`invite: ${JSON.stringify(inv.body)}`);
  const link = await invitationLink(base, email, botId);
  const ok = await api(base, "POST", "/api/team/accept-invitation", { token: member.token, body: link });
  if (ok.status !== 200) throw new Error(`accept: ${JSON.stringify(ok.body)}`);
  return link;
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
