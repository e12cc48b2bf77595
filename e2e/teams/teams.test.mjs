// Teams and identity through real mail on loopback (maildev), against the real server and the
// real socket.io-client: invite → mail → link → accept → role changed → removed → live access
// gone; the hijacks of the security review refused (unverified same email, email switch,
// OAuth to an unverified account); password reset end to end; sessions ended by a password
// change.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { io } from "socket.io-client";
import {
  startParley,
  api,
  signup,
  createBot,
  invitationLink,
  waitForMail,
  linkIn,
  mailsTo,
  until,
} from "../parley.mjs";

let server;
let provider;
before(async () => {
  provider = await startProvider();
  const env = {};
  for (const [key, path] of [["AUTH_URL", "/authorize"], ["TOKEN_URL", "/token"], ["USERINFO_URL", "/userinfo"]]) {
    env[`PARLEY_OAUTH_GOOGLE_${key}`] = `${provider.base}${path}`;
  }
  env.PARLEY_OAUTH_GOOGLE_CLIENT_ID = "client-1";
  env.PARLEY_OAUTH_GOOGLE_CLIENT_SECRET = "secret-1";
  server = await startParley({ env });
});
after(async () => {
  await server?.stop();
  provider?.close();
});

/**
 * A stand-in Google: authorizes at once (redirecting back with a code), trades any code for a
 * token, and says the signed-in person is `provider.person`.
 */
async function startProvider() {
  const state = { person: null };
  const http = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/authorize") {
      const back = new URL(url.searchParams.get("redirect_uri"));
      back.searchParams.set("code", "code-1");
      back.searchParams.set("state", url.searchParams.get("state"));
      res.writeHead(302, { location: back.toString() }).end();
    } else if (url.pathname === "/token") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: "tok", token_type: "bearer" }));
    } else if (url.pathname === "/userinfo") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(state.person));
    } else {
      res.writeHead(404).end();
    }
  });
  // Port 0: the kernel picks a free port and holds it from the start (no window to lose it in).
  await new Promise((r) => http.listen(0, "127.0.0.1", r));
  const { port } = http.address();
  return {
    base: `http://127.0.0.1:${port}`,
    set person(p) {
      state.person = p;
    },
    close: () => http.close(),
  };
}

/** Walks a Google sign-in like a browser; returns where Parley finally sends the person. */
async function googleSignIn() {
  const start = await fetch(`${server.base}/api/auth/google`, { redirect: "manual" });
  assert.equal(start.status, 302);
  // The flow cookie binds the sign-in to this "browser" (login CSRF); bring it back.
  const cookie = start.headers.get("set-cookie").split(";")[0];
  const atProvider = await fetch(start.headers.get("location"), { redirect: "manual" });
  // The callback names the configured public address (port 0 here); reach the real one.
  const callback = new URL(atProvider.headers.get("location"));
  const done = await fetch(`${server.base}${callback.pathname}${callback.search}`, { redirect: "manual", headers: { cookie } });
  assert.equal(done.status, 302, await done.text());
  return done.headers.get("location");
}

function connect(auth) {
  const socket = io(server.base, { auth, transports: ["websocket"], reconnection: false });
  socket.log = [];
  socket.onAny((event, payload) => socket.log.push({ event, payload }));
  return socket;
}
const ack = (socket, event, payload) => socket.timeout(8000).emitWithAck(event, payload);

test("invite by mail, accept, change the role, remove: live access ends at once", async () => {
  const base = server.base;
  const owner = await signup(base, "olive@team.example", "Olive");
  const ann = await signup(base, "ann@team.example", "Ann");
  const botId = await createBot(base, owner.token, "Team helper");

  const inv = await api(base, "POST", `/api/bots/${botId}/team/invite`, { token: owner.token, body: { email: "ann@team.example", role: "agent" } });
  assert.equal(inv.status, 201, JSON.stringify(inv.body));
  const mail = await waitForMail("ann@team.example", { base, subject: "invited you" });
  assert.match(mail.subject, /Olive invited you to Team helper/);
  assert.match(mail.html, /Accept invitation/);
  const link = await invitationLink(base, "ann@team.example", botId);
  assert.equal(link.memberId, inv.body.member._id);

  // The confirmation step, then accepting.
  const q = new URLSearchParams(link).toString();
  const preview = await api(base, "GET", `/api/team/accept-invitation?${q}`);
  assert.equal(preview.status, 200, JSON.stringify(preview.body));
  assert.equal(preview.body.invitation.botName, "Team helper");
  assert.equal(preview.body.invitation.invitedBy.name, "Olive");
  const accepted = await api(base, "POST", "/api/team/accept-invitation", { token: ann.token, body: link });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  assert.equal(accepted.body.message, "Invitation accepted successfully!");

  const team = await api(base, "GET", `/api/bots/${botId}/team`, { token: owner.token });
  const row = team.body.members.find((m) => m._id === link.memberId);
  assert.deepEqual([row.role, row.status, row.email, row.name], ["agent", "active", "ann@team.example", "Ann"]);
  assert.deepEqual(row.chips, ["Handle Support", "Join Sessions"]);
  assert.equal(team.body.members[0].isOwner, true);

  // Ann works live on the bot.
  const a = connect({ token: ann.token });
  await until(() => a.connected, "ann's socket");
  assert.equal((await ack(a, "join-as-agent", { botId })).success, true);

  // A role change applies to her next event.
  const changed = await api(base, "PUT", `/api/bots/${botId}/team/${link.memberId}`, { token: owner.token, body: { role: "viewer" } });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  const bot = await api(base, "GET", `/api/bots/${botId}`, { token: ann.token });
  assert.equal(bot.body.bot.role, "viewer");
  await api(base, "PUT", `/api/bots/${botId}/team/${link.memberId}`, { token: owner.token, body: { role: "agent" } });

  // Removed: her socket leaves the bot at once and her next event is refused.
  const removed = await api(base, "DELETE", `/api/bots/${botId}/team/${link.memberId}`, { token: owner.token });
  assert.equal(removed.status, 200, JSON.stringify(removed.body));
  const refused = await ack(a, "get-all-sessions", { botId });
  assert.equal(refused.success, false, JSON.stringify(refused));
  const rejoin = await ack(a, "join-as-agent", { botId });
  assert.equal(rejoin.success, false, JSON.stringify(rejoin));
  // A visitor asking for a person now is not announced to her.
  const chat = await api(base, "POST", "/api/chat", { body: { botId, message: "Hello" } });
  const v = connect({ visitorToken: chat.body.visitorToken });
  await until(() => v.connected, "visitor socket");
  await ack(v, "join-session", { sessionId: chat.body.sessionId, botId });
  const asked = await ack(v, "request-human-support", { sessionId: chat.body.sessionId, message: "A person please" });
  assert.equal(asked.success, true, JSON.stringify(asked));
  // No agent online: the owner hears of it by mail instead.
  const notice = await waitForMail("olive@team.example", { base, subject: "New support request on Team helper" });
  assert.match(notice.text, /A person please/);
  assert.equal(a.log.filter((e) => e.event === "support-request").length, 0, "a removed agent hears no support requests");
  const gone = await api(base, "GET", `/api/bots/${botId}`, { token: ann.token });
  assert.equal(gone.status, 404);
  a.close();
  v.close();
});

test("hijack: an unverified account with the invitee's address cannot see or take the invitation", async () => {
  const base = server.base;
  const owner = await signup(base, "owner-a@team.example", "Owen");
  const botId = await createBot(base, owner.token, "Admin bot");
  const squatter = await signup(base, "boss@team.example", "Mallory", { verify: false });
  const inv = await api(base, "POST", `/api/bots/${botId}/team/invite`, { token: owner.token, body: { email: "boss@team.example", role: "admin" } });
  assert.equal(inv.status, 201);
  const list = await api(base, "GET", "/api/invitations", { token: squatter.token });
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.invitations, [], "an unverified address is shown no invitation");
  assert.equal(list.body.emailUnverified, true);
  const respond = await api(base, "POST", `/api/invitations/${inv.body.member._id}/respond`, { token: squatter.token, body: { accept: true } });
  assert.equal(respond.status, 403);
  const accept = await api(base, "POST", "/api/team/accept-invitation", { token: squatter.token, body: { botId, memberId: inv.body.member._id } });
  assert.equal(accept.status, 403);
  assert.match(accept.body.error.message, /Verify your email address/);
  const me = await api(base, "GET", "/api/me", { token: squatter.token });
  assert.equal(me.body.user.emailVerified, false);
  const bot = await api(base, "GET", `/api/bots/${botId}`, { token: squatter.token });
  assert.equal(bot.status, 404);
});

test("hijack: switching one's email to the invitee's changes nothing until the new address confirms", async () => {
  const base = server.base;
  const owner = await signup(base, "owner-b@team.example", "Owen");
  const botId = await createBot(base, owner.token, "Admin bot B");
  const mallory = await signup(base, "mallory@evil.example", "Mallory");
  const inv = await api(base, "POST", `/api/bots/${botId}/team/invite`, { token: owner.token, body: { email: "ceo@team.example", role: "admin" } });
  assert.equal(inv.status, 201);
  const noPassword = await api(base, "PUT", "/api/me", { token: mallory.token, body: { email: "ceo@team.example" } });
  assert.equal(noPassword.status, 422);
  const switched = await api(base, "PUT", "/api/me", { token: mallory.token, body: { email: "ceo@team.example", currentPassword: "password123" } });
  assert.equal(switched.status, 200, JSON.stringify(switched.body));
  assert.equal(switched.body.user.email, "mallory@evil.example");
  assert.equal(switched.body.pendingEmail, "ceo@team.example");
  // The confirmation went to the invitee's mailbox, not the attacker's.
  await waitForMail("ceo@team.example", { base, subject: "Confirm your new email address" });
  const list = await api(base, "GET", "/api/invitations", { token: mallory.token });
  assert.deepEqual(list.body.invitations, []);
  const accept = await api(base, "POST", "/api/team/accept-invitation", { token: mallory.token, body: { botId, memberId: inv.body.member._id } });
  assert.equal(accept.status, 403);
  const bot = await api(base, "GET", `/api/bots/${botId}`, { token: mallory.token });
  assert.equal(bot.status, 404);
});

test("hijack: Google sign-in does not link to an account whose email is unverified", async () => {
  const base = server.base;
  await signup(base, "victim@team.example", "Squatter", { verify: false });
  provider.person = { sub: "g-victim", email: "victim@team.example", email_verified: true, name: "Victim" };
  const refused = await googleSignIn();
  assert.match(refused, /^\/login\?error=/);
  const said = new URL(refused, base).searchParams.get("error");
  assert.match(said, /not verified/);
  assert.match(said, /Forgot password\?/);

  // Once the address is verified (here through a password reset, which proves the mailbox),
  // Google links to the account.
  await api(base, "POST", "/api/auth/forgot-password", { body: { email: "victim@team.example" } });
  const mail = await waitForMail("victim@team.example", { base, subject: "Reset your Parley password" });
  const token = linkIn(mail, `${base}/reset-password?token=`).searchParams.get("token");
  const reset = await api(base, "POST", "/api/auth/reset-password", { body: { token, password: "victim-owns-it", confirmPassword: "victim-owns-it" } });
  assert.equal(reset.status, 200, JSON.stringify(reset.body));
  const linked = await googleSignIn();
  assert.match(linked, /^\/auth-success#token=/);
  const session = new URLSearchParams(new URL(linked, base).hash.slice(1)).get("token");
  const me = await api(base, "GET", "/api/me", { token: session });
  assert.equal(me.body.user.email, "victim@team.example");
  assert.equal(me.body.user.emailVerified, true);
});

test("password reset by email, and a password change ends the other sessions", async () => {
  const base = server.base;
  const pat = await signup(base, "pat@team.example", "Pat");
  const before = await mailsTo("pat@team.example");
  const forgot = await api(base, "POST", "/api/auth/forgot-password", { body: { email: "pat@team.example" } });
  assert.equal(forgot.status, 200);
  const mail = await waitForMail("pat@team.example", { base, subject: "Reset your Parley password" });
  assert.ok((await mailsTo("pat@team.example")).length > before.length);
  const token = linkIn(mail, `${base}/reset-password?token=`).searchParams.get("token");
  const reset = await api(base, "POST", "/api/auth/reset-password", { body: { token, password: "new-secret-1", confirmPassword: "new-secret-1" } });
  assert.equal(reset.status, 200, JSON.stringify(reset.body));
  const again = await api(base, "POST", "/api/auth/reset-password", { body: { token, password: "new-secret-2", confirmPassword: "new-secret-2" } });
  assert.equal(again.status, 400, "the link works once");

  assert.equal((await api(base, "GET", "/api/me", { token: pat.token })).status, 401, "the old session is over");
  const stale = connect({ token: pat.token });
  const [err] = await new Promise((r) => stale.once("connect_error", (...args) => r(args)));
  assert.match(err.message, /session has expired/);
  stale.close();
  assert.equal((await api(base, "POST", "/api/auth/login", { body: { email: "pat@team.example", password: "password123" } })).status, 401);
  const login = await api(base, "POST", "/api/auth/login", { body: { email: "pat@team.example", password: "new-secret-1" } });
  assert.equal(login.status, 200);
  const other = await api(base, "POST", "/api/auth/login", { body: { email: "pat@team.example", password: "new-secret-1" } });
  const live = connect({ token: other.body.token });
  await until(() => live.connected, "a live session");

  const changed = await api(base, "PUT", "/api/me/password", {
    token: login.body.token,
    body: { currentPassword: "new-secret-1", newPassword: "new-secret-3", confirmPassword: "new-secret-3" },
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assert.equal((await api(base, "GET", "/api/me", { token: other.body.token })).status, 401, "another session from before the change is refused");
  await until(() => !live.connected, "the live session from before the change to end");
  live.close();
  assert.equal((await api(base, "GET", "/api/me", { token: changed.body.token })).status, 200, "the fresh token works");
  await waitForMail("pat@team.example", { subject: "Security alert" });
});
