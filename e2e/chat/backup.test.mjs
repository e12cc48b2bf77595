// `parley backup DIR` (the real binary) while the real server runs and visitors chat: a server
// started on the copy has every message saved before the backup, the bot's icon, and the same
// sign-in secret (the owner's token still works); a second backup into the same place is
// refused and leaves it as it was.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startParley, api, signup, binary, repo } from "../parley.mjs";

const PNG_1PX = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

let server;
let restored;
before(async () => {
  server = await startParley({ env: { PARLEY_REALTIME_VISITOR_MESSAGES_PER_MINUTE: "1000" } });
});
after(async () => {
  await restored?.stop();
  await server?.stop();
});

function runBackup(dest) {
  return spawnSync(binary(), ["backup", dest], { cwd: repo, env: { ...process.env, PARLEY_DATA_DIR: server.dataDir }, encoding: "utf8" });
}

test("a backup taken while visitors chat restores every saved message, the uploads and the sign-in secret", async () => {
  const owner = await signup(server.base, "backup@shop.example", "Bo");
  const form = new FormData();
  form.set("name", "Kept");
  form.set("faqMethod", "text");
  form.set("faqText", "Our office is open from 9 to 5. Returns are accepted within 30 days.");
  form.set("icon", new Blob([PNG_1PX], { type: "image/png" }), "icon.png");
  const created = await api(server.base, "POST", "/api/bots", { token: owner.token, body: form });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const botId = created.body.bot._id;
  const icon = created.body.bot.icon;
  assert.match(icon ?? "", /^\/uploads\/public\//);

  // Conversations saved before the backup, and more arriving while it runs.
  const sessions = [];
  for (let i = 0; i < 5; i++) {
    let sessionId, visitorToken;
    for (const message of [`When are you open? (${i})`, `Can I return a gift? (${i})`]) {
      const r = await api(server.base, "POST", "/api/chat", { body: { botId, message, sessionId, visitorToken } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      ({ sessionId, visitorToken } = r.body);
    }
    sessions.push({ sessionId, visitorToken });
  }
  const history = async (base, { sessionId, visitorToken }) => {
    const r = await api(base, "GET", `/api/chat/get-chat-session/${sessionId}`, { headers: { "x-visitor-token": visitorToken } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.session.messages.map((m) => [m.seq, m.role, m.content]);
  };
  const savedBefore = await Promise.all(sessions.map((s) => history(server.base, s)));
  // Saved last, right before the backup. (That the copy keeps messages still only in the
  // message journal is checked where it can be made certain: store/tests/store.rs.)
  const savedLast = [];
  for (const [i, s] of sessions.entries()) {
    const r = await api(server.base, "POST", "/api/chat", { body: { botId, message: `one more (${i})`, ...s } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    savedLast.push([r.body.message.seq, r.body.message.role, r.body.message.content]);
  }
  let chatting = true;
  const alongside = (async () => {
    for (let i = 0; chatting; i++) {
      await api(server.base, "POST", "/api/chat", { body: { botId, message: `still here ${i}`, ...sessions[i % sessions.length] } });
    }
  })();

  const dest = join(mkdtempSync(join(tmpdir(), "parley-backup-")), "copy");
  const done = runBackup(dest);
  chatting = false;
  await alongside;
  assert.equal(done.status, 0, done.stderr);
  assert.match(done.stdout, /Backed up .* to .*copy: the database \([\d.]+ MB\) with \d+ message-journal segments?, 1 uploaded file, the sign-in secret\./);
  assert.match(done.stdout, /PARLEY_DATA_DIR=.*copy/);

  // Into the same place again: refused, nothing changed.
  const listing = readdirSync(dest).sort();
  const again = runBackup(dest);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /is not empty; choose a new or empty directory/);
  assert.deepEqual(readdirSync(dest).sort(), listing);
  const bad = spawnSync(binary(), ["backup"], { cwd: repo, encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /usage: parley backup DIR/);
  // A data directory without a database: refused, and the destination is not created.
  const nowhere = mkdtempSync(join(tmpdir(), "parley-empty-"));
  const elsewhere = join(nowhere, "..", `${nowhere.split("/").pop()}-copy`);
  const none = spawnSync(binary(), ["backup", elsewhere], { cwd: repo, env: { ...process.env, PARLEY_DATA_DIR: nowhere }, encoding: "utf8" });
  assert.equal(none.status, 1);
  assert.match(none.stderr, /There is no database at .*parley\.db/);
  assert.equal(existsSync(elsewhere), false);

  // The copy, served: every message saved before the backup began, in order, and the rest of
  // the product as it was.
  restored = await startParley({ dataDir: dest });
  for (const [i, s] of sessions.entries()) {
    const now = await history(restored.base, s);
    assert.deepEqual(now.slice(0, savedBefore[i].length), savedBefore[i], `session ${i}`);
    assert.deepEqual(now[savedLast[i][0] - 1], savedLast[i], `session ${i}: the message saved last before the backup`);
    assert.deepEqual(now.map(([seq]) => seq), now.map((_, k) => k + 1), `session ${i} numbered without gaps`);
  }
  const bot = await api(restored.base, "GET", `/api/bots/${botId}`, { token: owner.token });
  assert.equal(bot.status, 200, "the owner's token is still valid: the same secret");
  assert.equal(bot.body.bot.icon, icon);
  const image = await fetch(restored.base + icon);
  assert.equal(image.status, 200);
  assert.deepEqual(Buffer.from(await image.arrayBuffer()), PNG_1PX);
  const next = await api(restored.base, "POST", "/api/chat", { body: { botId, message: "thanks", ...sessions[0] } });
  assert.equal(next.status, 200);
  const later = await history(restored.base, sessions[0]);
  assert.equal(later.find(([, , content]) => content === "thanks")?.[0], next.body.message.seq, "numbering goes on where the copy stopped");
  assert.deepEqual(later.map(([seq]) => seq), later.map((_, k) => k + 1));
});
