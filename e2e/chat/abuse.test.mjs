// The live channel and the chat call against strangers, with the real socket.io-client: a
// flooding socket is refused then disconnected while other visitors chat on; oversized text is
// refused; a stranger cannot leave-as-agent; Engine.IO handshakes are capped per IP (the
// client a trusted proxy names) and overall; the visitor rate limit keys on the verified conversation; a join racing its
// disconnect leaves no phantom agent behind.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { io } from "socket.io-client";
import WebSocket from "ws";
import { startParley, api, signup, createBot, addToTeam, until } from "../parley.mjs";

let server;
before(async () => {
  server = await startParley({
    env: {
      // Small limits, so a test reaches them quickly.
      PARLEY_REALTIME_SOCKET_EVENTS_PER_SEC: "20",
      PARLEY_REALTIME_SOCKET_BURST: "20",
      PARLEY_REALTIME_SOCKET_MAX_REFUSALS: "40",
      PARLEY_REALTIME_VISITOR_MESSAGES_PER_MINUTE: "5",
    },
  });
});
after(async () => {
  await server?.stop();
});

function connect(base, auth) {
  const socket = io(base, { auth, transports: ["websocket"], reconnection: false });
  socket.log = [];
  socket.onAny((event, payload) => socket.log.push({ event, payload }));
  return socket;
}

const ack = (socket, event, payload) => socket.timeout(8000).emitWithAck(event, payload);
const connected = (socket) => until(() => socket.connected, "socket connection");

/** A bot with handover on, and a conversation on it (the visitor's session and token). */
async function conversation(tag) {
  const owner = await signup(server.base, `owner-${tag}@abuse.example`, "Olive");
  const botId = await createBot(server.base, owner.token, `Bot ${tag}`);
  const r = await api(server.base, "POST", "/api/chat", { body: { botId, message: "Hello there" } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { owner, botId, sessionId: r.body.sessionId, visitorToken: r.body.visitorToken };
}

test("a flooding socket is refused, then disconnected; other visitors chat on", async () => {
  const flood = await conversation("flood");
  const calm = await conversation("calm");
  const flooder = connect(server.base, { visitorToken: flood.visitorToken });
  const visitor = connect(server.base, { visitorToken: calm.visitorToken });
  await connected(flooder);
  await connected(visitor);
  assert.equal((await ack(visitor, "join-session", { sessionId: calm.sessionId })).success, true);

  const gone = new Promise((resolve) => flooder.on("disconnect", resolve));
  for (let i = 0; i < 2000 && flooder.connected; i++) {
    flooder.emit("typing", { sessionId: flood.sessionId, isTyping: i % 2 === 0 });
    flooder.emit("leave-as-agent", { botId: flood.botId });
  }
  const reason = await Promise.race([gone, new Promise((r) => setTimeout(() => r("still connected"), 8000))]);
  assert.equal(reason, "io server disconnect", "the flooding socket is disconnected by the server");
  const refusals = flooder.log.filter((e) => e.event === "error" && /slow down/.test(e.payload?.message ?? ""));
  assert.ok(refusals.length > 0, "the flood was told why it was refused");

  // The calm visitor's live message and chat call go through at once.
  const started = Date.now();
  const sent = await ack(visitor, "send-message", { sessionId: calm.sessionId, message: "Still here?" });
  assert.equal(sent.success, true, JSON.stringify(sent));
  const call = await api(server.base, "POST", "/api/chat", {
    body: { botId: calm.botId, sessionId: calm.sessionId, visitorToken: calm.visitorToken, message: "And by the chat call?" },
  });
  assert.equal(call.status, 200, JSON.stringify(call.body));
  assert.ok(Date.now() - started < 3000, `other visitors were slowed: ${Date.now() - started} ms`);
  visitor.close();
});

test("an oversized support request or message is refused and changes nothing", async () => {
  const c = await conversation("oversized");
  const visitor = connect(server.base, { visitorToken: c.visitorToken });
  await connected(visitor);
  const huge = "x".repeat(20_000);
  const asked = await ack(visitor, "request-human-support", { sessionId: c.sessionId, message: huge });
  assert.equal(asked.success, false);
  assert.match(asked.error, /too long/i);
  const note = "y".repeat(600);
  const asked2 = await ack(visitor, "request-human-support", { sessionId: c.sessionId, message: note });
  assert.equal(asked2.success, false, "longer than the bot's message limit");
  assert.match(asked2.error, /too long/i);
  const sent = await ack(visitor, "send-message", { sessionId: c.sessionId, message: huge });
  assert.equal(sent.success, false);
  const session = await api(server.base, "GET", `/api/chat/get-chat-session/${c.sessionId}`, { token: c.owner.token });
  assert.equal(session.status, 200, JSON.stringify(session.body));
  const s = session.body.session ?? session.body;
  assert.equal(s.needsHumanSupport, false);
  assert.ok(!(s.messages ?? []).some((m) => m.content.length > 1000), "nothing oversized was saved");
  visitor.close();
});

test("a stranger's leave-as-agent and join-as-agent are refused", async () => {
  const c = await conversation("stranger");
  const visitor = connect(server.base, { visitorToken: c.visitorToken });
  await connected(visitor);
  const left = await ack(visitor, "leave-as-agent", { botId: c.botId });
  assert.equal(left.success, false);
  assert.match(left.error, /team member/);
  const made = await ack(visitor, "leave-as-agent", { botId: "x".repeat(5000) });
  assert.equal(made.success, false);
  const outsider = await signup(server.base, "outsider@abuse.example", "Otto");
  const member = connect(server.base, { token: outsider.token });
  await connected(member);
  for (const event of ["leave-as-agent", "join-as-agent"]) {
    const r = await ack(member, event, { botId: c.botId });
    assert.equal(r.success, false, `${event}: ${JSON.stringify(r)}`);
    assert.match(r.error, /not found/i);
  }
  visitor.close();
  member.close();
});

test("the visitor rate limit keys on the verified conversation", async () => {
  const c = await conversation("ratelimit");
  const updated = await api(server.base, "PUT", `/api/bots/${c.botId}`, { token: c.owner.token, body: { enableRateLimit: true } });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(updated.body.bot.enableRateLimit, true, "the bot limits its visitors' rate");
  // Without the conversation's token, a session id buys nothing: refused as unauthorized, and
  // the made-up ids take no slot (20 KB each).
  for (let i = 0; i < 30; i++) {
    const forged = i === 0 ? c.sessionId : `${i}-${"z".repeat(20_000)}`;
    const r = await api(server.base, "POST", "/api/chat", { body: { botId: c.botId, sessionId: forged, message: "hi" } });
    assert.equal(r.status, 401, JSON.stringify(r.body));
  }
  // The real visitor has their full allowance (5 a minute here), then is limited.
  const statuses = [];
  for (let i = 0; i < 6; i++) {
    const r = await api(server.base, "POST", "/api/chat", { body: { botId: c.botId, sessionId: c.sessionId, visitorToken: c.visitorToken, message: `message ${i}` } });
    statuses.push(r.status);
  }
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
});

test("a join-as-agent racing its disconnect leaves no phantom agent", async () => {
  const c = await conversation("race");
  const bea = await signup(server.base, "bea-race@abuse.example", "Bea");
  await addToTeam(server.base, c.owner.token, c.botId, bea, "bea-race@abuse.example", "agent");
  const visitor = connect(server.base, { visitorToken: c.visitorToken });
  await connected(visitor);
  assert.equal((await ack(visitor, "request-human-support", { sessionId: c.sessionId, message: "A person please" })).success, true);
  const owner = connect(server.base, { token: c.owner.token });
  await connected(owner);
  assert.equal((await ack(owner, "join-as-agent", { botId: c.botId })).success, true);
  assert.equal((await ack(owner, "take-session", { sessionId: c.sessionId })).success, true);

  for (let i = 0; i < 20; i++) {
    const s = connect(server.base, { token: bea.token });
    await connected(s);
    s.emit("join-as-agent", { botId: c.botId });
    s.emit("join-session", { sessionId: c.sessionId });
    s.disconnect();
  }
  // Give every join time to finish after its disconnect.
  await new Promise((r) => setTimeout(r, 1000));
  const transfer = await ack(owner, "transfer-session", { sessionId: c.sessionId, targetAgentId: bea.id });
  assert.equal(transfer.success, false, "Bea has no live connection, so she is not an online agent");
  assert.match(transfer.error, /not online/);
  visitor.close();
  owner.close();
});

test("Engine.IO handshakes are capped per IP and overall", async () => {
  const handshake = (base) => fetch(`${base}/socket.io/?EIO=4&transport=polling`);
  const perIp = await startParley({ env: { PARLEY_REALTIME_HANDSHAKES_PER_IP_PER_SEC: "0.01", PARLEY_REALTIME_HANDSHAKE_BURST: "3" } });
  try {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await handshake(perIp.base)).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    const refused = await (await handshake(perIp.base)).json();
    assert.match(refused.message, /Too many new connections/);
    // Behind a reverse proxy on this host (loopback is a trusted proxy by default) each visitor
    // the proxy names has a budget of its own, over polling and over a WebSocket alike.
    const forwarded = (client) => fetch(`${perIp.base}/socket.io/?EIO=4&transport=polling`, { headers: { "X-Forwarded-For": client } });
    assert.equal((await forwarded("198.51.100.7")).status, 200);
    assert.equal((await forwarded("6.6.6.6, 198.51.100.8")).status, 200, "what the client wrote left of the proxy's entry is ignored");
    const overWs = (headers) =>
      new Promise((resolve) => {
        const ws = new WebSocket(`${perIp.base.replace(/^http/, "ws")}/socket.io/?EIO=4&transport=websocket`, { headers });
        ws.on("open", () => (ws.close(), resolve(200)));
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode));
        ws.on("error", () => resolve("error"));
      });
    assert.equal(await overWs({}), 429, "the proxy's own address has spent its budget");
    assert.equal(await overWs({ "X-Forwarded-For": "198.51.100.9" }), 200);
  } finally {
    await perIp.stop();
  }
  // A peer that is not a trusted proxy cannot pick its address by writing the header.
  const direct = await startParley({
    env: { PARLEY_REALTIME_HANDSHAKES_PER_IP_PER_SEC: "0.01", PARLEY_REALTIME_HANDSHAKE_BURST: "1", PARLEY_TRUSTED_PROXIES: "" },
  });
  try {
    const spoofed = (client) => fetch(`${direct.base}/socket.io/?EIO=4&transport=polling`, { headers: { "X-Forwarded-For": client } });
    assert.deepEqual([(await spoofed("198.51.100.1")).status, (await spoofed("198.51.100.2")).status], [200, 429]);
  } finally {
    await direct.stop();
  }
  const capped = await startParley({ env: { PARLEY_REALTIME_MAX_CONNECTIONS: "2", PARLEY_REALTIME_HANDSHAKES_PER_IP_PER_SEC: "0" } });
  try {
    assert.equal((await handshake(capped.base)).status, 200);
    assert.equal((await handshake(capped.base)).status, 200);
    const third = await handshake(capped.base);
    assert.equal(third.status, 503);
    assert.match((await third.json()).message, /Too many connections/);
    // Other calls are not affected.
    assert.equal((await fetch(`${capped.base}/api/health`)).status, 200);
  } finally {
    await capped.stop();
  }
});
