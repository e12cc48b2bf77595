// The whole live support flow against the real server with the real socket.io-client:
// visitor asks → bot answers → handoff with contact data → only this bot's agents hear it →
// two agents race to take, one wins → messages and typing both ways → resolve with rating →
// visitor back with the bot; viewers and other teams refused; a restart loses nothing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { io } from "socket.io-client";
import { startParley, api, signup, createBot, addToTeam, until } from "../parley.mjs";

const TRANSPORTS = {
  "websocket only": ["websocket"],
  "polling only": ["polling"],
};

let server;
before(async () => {
  server = await startParley();
});
after(async () => {
  await server?.stop();
});

/** A socket that records every event it receives. */
function connect(auth, transports) {
  const socket = io(server.base, { auth, transports, reconnectionDelay: 200, reconnectionDelayMax: 500 });
  socket.log = [];
  socket.onAny((event, payload) => socket.log.push({ event, payload }));
  socket.seen = (event, pred = () => true) => socket.log.filter((e) => e.event === event && pred(e.payload));
  return socket;
}

const ack = (socket, event, payload) => socket.timeout(8000).emitWithAck(event, payload);
const connected = (socket) => until(() => socket.connected, "socket connection");

for (const [mode, transports] of Object.entries(TRANSPORTS)) {
  test(`support handoff end to end (${mode})`, async () => {
    const tag = mode.replace(/\W/g, "");
    const owner = await signup(server.base, `owner-${tag}@shop.example`, "Olive");
    const botId = await createBot(server.base, owner.token, "Shop helper", "We ship every order within 5 business days. Returns are free for 30 days.");
    const ann = await signup(server.base, `ann-${tag}@shop.example`, "Ann");
    const bob = await signup(server.base, `bob-${tag}@shop.example`, "Bob");
    const vera = await signup(server.base, `vera-${tag}@shop.example`, "Vera");
    await addToTeam(server.base, owner.token, botId, ann, `ann-${tag}@shop.example`, "agent");
    await addToTeam(server.base, owner.token, botId, bob, `bob-${tag}@shop.example`, "agent");
    await addToTeam(server.base, owner.token, botId, vera, `vera-${tag}@shop.example`, "viewer");
    const other = await signup(server.base, `other-${tag}@else.example`, "Otto");
    const otherBot = await createBot(server.base, other.token, "Elsewhere");

    // The bot answers from its knowledge once training is done.
    await until(async () => {
      const sources = await api(server.base, "GET", `/api/bots/${botId}`, { token: owner.token });
      return sources.status === 200;
    }, "bot");
    const first = await until(async () => {
      const r = await api(server.base, "POST", "/api/chat", { body: { botId, message: "How long does shipping take?" } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return /5 business days/.test(r.body.aiResponse ?? "") ? r.body : null;
    }, "a grounded answer");
    const { sessionId, visitorToken } = first;

    // Live: agents online for this bot, one for another bot.
    const a = connect({ token: ann.token }, transports);
    const b = connect({ token: bob.token }, transports);
    const o = connect({ token: other.token }, transports);
    const v = connect({ visitorToken }, transports);
    await Promise.all([a, b, o, v].map(connected));
    for (const s of [a, b]) assert.equal((await ack(s, "join-as-agent", { botId })).success, true);
    assert.equal((await ack(o, "join-as-agent", { botId: otherBot })).success, true);
    assert.equal((await ack(v, "join-session", { sessionId, botId })).success, true);

    const requested = await ack(v, "request-human-support", {
      sessionId,
      message: "I want to talk to a person",
      customerInfo: { name: "Vic", email: "vic@visitor.example", phone: "", company: "ACME" },
    });
    assert.equal(requested.success, true, JSON.stringify(requested));
    await until(() => v.seen("support-requested").length, "support-requested");
    for (const s of [a, b]) {
      const [req] = await until(() => s.seen("support-request", (p) => p.sessionId === sessionId).length && s.seen("support-request"), "support-request");
      assert.equal(req.payload.customerInfo.email, "vic@visitor.example");
      assert.equal(req.payload.customerMessage, "I want to talk to a person");
    }
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(o.seen("support-request").length, 0, "another bot's agent hears nothing");

    // Two agents race; exactly one wins.
    const [ra, rb] = await Promise.all([ack(a, "take-session", { sessionId }), ack(b, "take-session", { sessionId })]);
    assert.equal([ra.success, rb.success].filter(Boolean).length, 1, JSON.stringify([ra, rb]));
    const [winner, loser, winnerName] = ra.success ? [a, b, "Ann"] : [b, a, "Bob"];
    assert.equal((ra.success ? rb : ra).error, "Failed to take session");
    await until(() => loser.seen("session-taken", (p) => p.sessionId === sessionId).length, "session-taken for the loser");
    const [joined] = await until(() => v.seen("agent-joined").length && v.seen("agent-joined"), "agent-joined");
    assert.equal(joined.payload.agentName, winnerName);

    // Messages and typing, both ways.
    const sent = await ack(winner, "send-message", { sessionId, message: "Hi Vic, how can I help?", isAgent: true });
    assert.equal(sent.success, true);
    await until(() => v.seen("new-message", (p) => p.message.content === "Hi Vic, how can I help?" && p.message.isAgent).length, "agent message at the visitor");
    const reply = await ack(v, "send-message", { sessionId, message: "My parcel is late" });
    assert.equal(reply.success, true);
    assert.equal(reply.agentConnected, true);
    await until(() => winner.seen("new-message", (p) => p.message.content === "My parcel is late").length, "visitor message at the agent");
    // The widget's Retry after a lost ack: the same clientId gets the saved message back, once.
    const once = await ack(v, "send-message", { sessionId, message: "Order 1234", clientId: "c0ffee" });
    const resent = await ack(v, "send-message", { sessionId, message: "Order 1234", clientId: "c0ffee" });
    assert.equal(resent.success, true);
    assert.equal(resent.message._id, once.message._id, "a resend is not saved again");
    await until(() => winner.seen("new-message", (p) => p.message.content === "Order 1234").length, "the resent message at the agent");
    const rejoined = await ack(v, "join-session", { sessionId });
    assert.equal(rejoined.messages.filter((m) => m.content === "Order 1234").length, 1, "the conversation holds it once");
    v.emit("typing", { sessionId, isTyping: true });
    await until(() => winner.seen("customer-typing", (p) => p.isTyping === true).length, "customer-typing");
    winner.emit("typing-start", { sessionId, isAgent: true });
    await until(() => v.seen("agent-typing", (p) => p.isTyping === true).length, "agent-typing");
    // While the agent has it, the AI stays quiet.
    const viaRest = await api(server.base, "POST", "/api/chat", { body: { botId, sessionId, message: "still there?", visitorToken } });
    assert.equal(viaRest.body.aiResponse, null);
    assert.equal(viaRest.body.agentConnected, true);

    // Viewers and other teams cannot take or answer.
    const vs = connect({ token: vera.token }, transports);
    await connected(vs);
    const refused = await ack(vs, "take-session", { sessionId });
    assert.equal(refused.success, false);
    assert.equal(refused.error, "Your role does not allow handling support sessions");
    const foreign = await ack(o, "send-message", { sessionId, message: "hello?" });
    assert.equal(foreign.success, false);
    assert.equal(foreign.error, "Session not found");

    // A rating out of range is refused, however large, and resolves nothing.
    for (const rating of [6, 2 ** 40]) {
      const bad = await ack(winner, "resolve-session", { sessionId, rating });
      assert.deepEqual([bad.success, bad.error], [false, "Rating must be between 1 and 5"], `rating ${rating}`);
    }

    // Resolve with a rating: everyone hears it, the visitor is back with the bot.
    const resolved = await ack(winner, "resolve-session", { sessionId, rating: 5, feedback: "Parcel found" });
    assert.equal(resolved.success, true);
    assert.equal(resolved.session.rating, 5);
    await until(() => v.seen("session-resolved", (p) => p.sessionId === sessionId && p.resolvedBy === winnerName).length, "session-resolved at the visitor");
    await until(() => loser.seen("session-resolved").length, "session-resolved at the other agent");
    const back = await api(server.base, "POST", "/api/chat", { body: { botId, sessionId, message: "How long do I have to return something?", visitorToken } });
    assert.match(back.body.aiResponse, /30 days/);

    const history = await api(server.base, "GET", `/api/chat/get-chat-session/${sessionId}`, { token: owner.token });
    const contents = history.body.session.messages.map((m) => m.content);
    assert.ok(contents.includes(`Session resolved by ${winnerName}`), contents.join(" | "));
    assert.equal(history.body.session.status, "active", "the visitor's new message reopened it with the bot");
    for (const s of [a, b, o, v, vs]) s.close();
  });
}

test("a bad token is refused at CONNECT", async () => {
  const s = io(server.base, { auth: { token: "nope" }, transports: ["websocket"], reconnection: false });
  const err = await new Promise((r) => s.on("connect_error", r));
  assert.equal(err.message, "Your session has expired, please sign in again");
  s.close();
});

test("the spec's calls as the old dashboard makes them: a REST take, then the socket take; arguments by position", async () => {
  const owner = await signup(server.base, "positional@shop.example", "Pia");
  const botId = await createBot(server.base, owner.token, "Positional");
  const agent = await signup(server.base, "positional-agent@shop.example", "Abe");
  await addToTeam(server.base, owner.token, botId, agent, "positional-agent@shop.example", "agent");
  const first = await api(server.base, "POST", "/api/chat", { body: { botId, message: "Hello?" } });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const { sessionId, visitorToken } = first.body;
  const byPosition = (socket, event, ...args) => socket.timeout(8000).emitWithAck(event, ...args);

  const v = connect({ visitorToken }, ["websocket"]);
  const o = connect({ token: owner.token }, ["websocket"]);
  const a = connect({ token: agent.token }, ["websocket"]);
  await Promise.all([v, o, a].map(connected));
  assert.equal((await byPosition(v, "join-session", sessionId, botId)).success, true, "join-session (sessionId, botId)");
  assert.equal((await byPosition(o, "join-as-agent", botId)).success, true);

  // assign-agent answers ok, then the dashboard takes the session over the live channel.
  const assigned = await api(server.base, "POST", `/api/chat/session/${sessionId}/assign-agent`, { token: owner.token });
  assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
  const taken = await byPosition(o, "take-session", sessionId);
  assert.equal(taken.success, true, `the taker's own socket take stands: ${JSON.stringify(taken)}`);
  const other = await byPosition(a, "take-session", sessionId);
  assert.deepEqual([other.success, other.error], [false, "Failed to take session"], "another agent still loses");

  const sent = await byPosition(o, "send-message", sessionId, "Pia here, how can I help?", true);
  assert.equal(sent.success, true, `send-message (sessionId, message, isAgent): ${JSON.stringify(sent)}`);
  await until(() => v.seen("new-message", (p) => p.message.content === "Pia here, how can I help?" && p.message.isAgent).length, "the agent's message at the visitor");
  // A visitor claiming isAgent is still the visitor: the flag only keeps its position.
  const reply = await byPosition(v, "send-message", sessionId, "My order is late", true);
  assert.equal(reply.success, true, JSON.stringify(reply));
  const [got] = await until(() => o.seen("new-message", (p) => p.message.content === "My order is late").length && o.seen("new-message", (p) => p.message.content === "My order is late"), "the visitor's message at the agent");
  assert.equal(got.payload.message.isAgent, false);
  assert.equal(got.payload.message.role, "user");
  for (const s of [v, o, a]) s.close();
});

test("a restart loses nothing and the visitor sees the full history", async () => {
  const owner = await signup(server.base, "restart@shop.example", "Rita");
  const botId = await createBot(server.base, owner.token, "Durable", "Our office is open from 9 to 5.");
  let visitorToken, sessionId;
  for (const message of ["When are you open?", "And on weekends?"]) {
    const r = await api(server.base, "POST", "/api/chat", { body: { botId, message, sessionId, visitorToken } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    ({ sessionId, visitorToken } = r.body);
  }
  const before = await api(server.base, "GET", `/api/chat/get-chat-session/${sessionId}`, { headers: { "x-visitor-token": visitorToken } });
  assert.equal(before.body.session.messages.length, 4);

  const dataDir = server.dataDir;
  await server.stop();
  server = await startParley({ dataDir });

  const v = connect({ visitorToken }, ["websocket"]);
  await connected(v);
  assert.equal((await ack(v, "join-session", { sessionId, botId })).success, true);
  const afterRestart = await api(server.base, "GET", `/api/chat/get-chat-session/${sessionId}`, { headers: { "x-visitor-token": visitorToken } });
  assert.deepEqual(
    afterRestart.body.session.messages.map((m) => [m.seq, m.role, m.content]),
    before.body.session.messages.map((m) => [m.seq, m.role, m.content]),
  );
  const next = await api(server.base, "POST", "/api/chat", { body: { botId, message: "thanks", sessionId, visitorToken } });
  assert.equal(next.status, 200);
  assert.equal(next.body.message.seq, 5, "numbering goes on where it stopped");
  v.close();
});

test("100 sessions raced by two agents over sockets: exactly one winner each", async () => {
  const owner = await signup(server.base, "race-owner@shop.example", "Rae");
  const botId = await createBot(server.base, owner.token, "Racer");
  const agents = [];
  for (const name of ["Ada", "Ben"]) {
    const member = await signup(server.base, `race-${name}@shop.example`, name);
    await addToTeam(server.base, owner.token, botId, member, `race-${name}@shop.example`, "agent");
    const socket = connect({ token: member.token }, ["websocket"]);
    await connected(socket);
    await ack(socket, "join-as-agent", { botId });
    agents.push(socket);
  }
  const sessions = [];
  for (let i = 0; i < 100; i++) {
    const r = await api(server.base, "POST", "/api/chat", { body: { botId, message: `question ${i}` } });
    assert.equal(r.status, 200);
    sessions.push(r.body.sessionId);
  }
  const results = await Promise.all(
    sessions.flatMap((sessionId) => agents.map((s) => ack(s, "take-session", { sessionId }).then((r) => [sessionId, r.success]))),
  );
  const wins = new Map();
  for (const [sessionId, won] of results) wins.set(sessionId, (wins.get(sessionId) ?? 0) + (won ? 1 : 0));
  assert.equal(wins.size, 100);
  assert.deepEqual([...new Set(wins.values())], [1]);
  for (const s of agents) s.close();
});

test("training statuses reach the dashboard live", async () => {
  const owner = await signup(server.base, "trainer@shop.example", "Tia");
  const botId = await createBot(server.base, owner.token, "Learner");
  const s = connect({ token: owner.token }, ["websocket"]);
  await connected(s);
  await ack(s, "join-as-agent", { botId });
  const added = await api(server.base, "POST", `/api/bots/${botId}/sources/text`, { token: owner.token, body: { name: "Hours", content: "We are open from 9 to 5." } });
  assert.equal(added.status, 201);
  const sourceId = added.body.source._id;
  await until(() => s.seen("training-status", (p) => p.sourceId === sourceId && p.status === "completed").length, "training-status completed");
  await until(() => s.seen("training-status", (p) => p.type === "knowledge").length, "knowledge version event");
  const bad = await api(server.base, "POST", `/api/bots/${botId}/sources/website`, { token: owner.token, body: { url: "http://127.0.0.1:9/" } });
  if (bad.status === 201) {
    const [failed] = await until(() => s.seen("training-status", (p) => p.sourceId === bad.body.source._id && p.status === "failed").length && s.seen("training-status", (p) => p.sourceId === bad.body.source._id && p.status === "failed"), "website refused");
    assert.ok(failed.payload.reason, "a failed source says why");
  } else {
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
  }
  s.close();
});
