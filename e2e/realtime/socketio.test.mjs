// The real npm socket.io-client against the Rust server, over every transport mode.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { io } from "socket.io-client";
import WebSocket from "ws";
import { MODES, once, sleep, startServer } from "./helpers.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

for (const [mode, opts] of Object.entries(MODES)) {
  describe(`socket.io-client (${mode})`, () => {
    const clients = [];
    const connect = (auth = { token: "good", name: "ada" }, path = "/", extra = {}) => {
      const socket = io(server.url + path, {
        ...opts,
        auth,
        forceNew: true,
        reconnectionDelay: 100,
        reconnectionDelayMax: 200,
        randomizationFactor: 0,
        ...extra,
      });
      clients.push(socket);
      return socket;
    };
    after(() => clients.forEach((c) => c.disconnect()));

    it("connects with auth accepted", async () => {
      const socket = connect();
      const [[id, auth]] = await Promise.all([once(socket, "welcome"), once(socket, "connect")]);
      assert.equal(id, socket.id);
      assert.deepEqual(auth, { token: "good", name: "ada" });
      const name = await socket.emitWithAck("whoami");
      assert.equal(name, "ada");
      if (mode === "polling then upgrade") {
        if (socket.io.engine.transport.name !== "websocket") await once(socket.io.engine, "upgrade");
        assert.equal(socket.io.engine.transport.name, "websocket");
        const again = await socket.emitWithAck("whoami");
        assert.equal(again, "ada");
      } else {
        assert.equal(socket.io.engine.transport.name, opts.transports[0]);
      }
    });

    it("is refused with a CONNECT_ERROR", async () => {
      const socket = connect({ token: "bad" }, "/", { reconnection: false });
      const [err] = await once(socket, "connect_error");
      assert.equal(err.message, "unauthorized");
      assert.deepEqual(err.data, { code: 401 });
      assert.equal(socket.connected, false);
    });

    it("gets connect_error for an unknown namespace", async () => {
      const socket = connect({}, "/nope", { reconnection: false });
      const [err] = await once(socket, "connect_error");
      assert.equal(err.message, "Invalid namespace");
    });

    it("sends events both ways", async () => {
      const socket = connect();
      await once(socket, "connect");
      socket.emit("echo", 1, "2", { 3: [true] }, null);
      const args = await once(socket, "echo-back");
      assert.deepEqual(args, [1, "2", { 3: [true] }, null]);
    });

    it("acks both ways", async () => {
      const socket = connect();
      await once(socket, "connect");
      // client → server ack
      const reply = await new Promise((r) => socket.emit("echo-ack", "a", { b: [1, 2] }, (...args) => r(args)));
      assert.deepEqual(reply, ["a", { b: [1, 2] }]);
      const first = await socket.timeout(3000).emitWithAck("echo-ack", "only");
      assert.equal(first, "only");
      // server → client ack
      socket.on("need-ack", (x, y, cb) => cb(x * 2, `${y}!`));
      socket.emit("server-ack", 21, "hi");
      const got = await once(socket, "got-ack");
      assert.deepEqual(got, [42, "hi!"]);
    });

    it("carries binary both ways", async () => {
      const socket = connect();
      await once(socket, "connect");
      socket.emit("echo", Buffer.from([1, 2, 3]), { nested: [Buffer.from([4, 5])], n: 1 });
      const [buf, obj] = await once(socket, "echo-back");
      assert.deepEqual([...new Uint8Array(buf)], [1, 2, 3]);
      assert.deepEqual([...new Uint8Array(obj.nested[0])], [4, 5]);
      assert.equal(obj.n, 1);
      // binary ack
      const ackBuf = await socket.emitWithAck("echo-ack", Buffer.from([9, 8]));
      assert.deepEqual([...new Uint8Array(ackBuf)], [9, 8]);
      // server-built binary payload
      socket.emit("binary-please");
      const [bin, text] = await once(socket, "binary");
      assert.deepEqual([...new Uint8Array(bin.first)], [1, 2, 3]);
      assert.deepEqual([...new Uint8Array(bin.nested[0])], [255]);
      assert.equal(text, "text");
    });

    it("broadcasts to a room", async () => {
      const a = connect();
      const b = connect();
      await Promise.all([once(a, "connect"), once(b, "connect")]);
      await a.emitWithAck("join", `room-${mode}`);
      b.emit("to-room", `room-${mode}`, { hello: "room" });
      const [msg] = await once(a, "room-msg");
      assert.deepEqual(msg, { hello: "room" });
    });

    it("is disconnected by the server and reconnects", async () => {
      const socket = connect();
      await once(socket, "connect");
      const firstId = socket.id;
      socket.emit("kick");
      const [reason] = await once(socket, "disconnect");
      assert.equal(reason, "io server disconnect");
      socket.connect();
      await once(socket, "connect");
      assert.notEqual(socket.id, firstId);

      // Closing the whole connection: the client reconnects by itself.
      socket.emit("close-connection");
      const [reason2] = await once(socket, "disconnect");
      assert.ok(["transport close", "transport error"].includes(reason2), reason2);
      await once(socket, "connect", 5000);
      assert.equal(socket.connected, true);
    });
  });
}

// The raw protocol, step by step, so the race the client above can hit is hit every time: the
// server is asked to close right after it answered `3probe`, while the client is pausing its
// polling to switch. Closing the probe socket there would strand the client (its polling stays
// paused, so it only notices at its ping timeout); the server must close once it has switched.
describe("a server close during the switch to WebSocket", () => {
  it("waits for the switch, then closes on the new socket", async () => {
    const base = `${server.url}/socket.io/?EIO=4`;
    const open = await (await fetch(`${base}&transport=polling`)).text();
    const { sid } = JSON.parse(open.slice(1));
    const polling = `${base}&transport=polling&sid=${sid}`;
    const post = async (body) => (await fetch(polling, { method: "POST", body })).status;
    assert.equal(await post("40" + JSON.stringify({ token: "good", name: "ada" })), 200);
    assert.match(await (await fetch(polling)).text(), /^40\{"sid":/);

    const ws = new WebSocket(`${base.replace("http", "ws")}&transport=websocket&sid=${sid}`);
    const closed = new Promise((r) => ws.once("close", () => r(true)));
    await once(ws, "open");
    ws.send("2probe");
    const [probe] = await once(ws, "message");
    assert.equal(probe.toString(), "3probe");

    assert.equal(await post('42["close-connection"]'), 200);
    const early = await Promise.race([closed, sleep(300).then(() => false)]);
    assert.equal(early, false, "the probe socket was closed before the client could switch");
    ws.send("5");
    assert.equal(await Promise.race([closed, sleep(3000).then(() => false)]), true);
  });
});

// What one raw connection may not make the server hold or do (http/src/realtime/socketio/client.rs):
// attachments for no connected socket, attachments past 1 MB, and CONNECT/DISCONNECT at wire speed.
describe("limits of one connection", () => {
  const rawSocket = async () => {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/socket.io/?EIO=4&transport=websocket`);
    const closed = new Promise((resolve) => ws.on("close", () => resolve(true)));
    const texts = [];
    ws.on("message", (data, isBinary) => {
      if (!isBinary) texts.push(data.toString());
    });
    await once(ws, "open");
    const connect = async () => {
      const before = texts.filter((t) => t.startsWith("40")).length;
      ws.send("40" + JSON.stringify({ token: "good", name: "ada" }));
      for (let i = 0; i < 100 && texts.filter((t) => t.startsWith("40")).length === before; i++) await sleep(20);
    };
    const isClosed = () => Promise.race([closed, sleep(2000).then(() => false)]);
    return { ws, texts, connect, isClosed };
  };
  const placeholder = (num) => ({ _placeholder: true, num });

  it("closes a connection that sends attachments for no connected socket", async () => {
    const raw = await rawSocket();
    raw.ws.send("451-" + JSON.stringify(["echo", placeholder(0)]));
    assert.equal(await raw.isClosed(), true);
  });

  it("closes a connection whose attachments pass 1 MB, and carries those under it", async () => {
    const raw = await rawSocket();
    await raw.connect();
    raw.ws.send("451-" + JSON.stringify(["echo", placeholder(0)]));
    raw.ws.send(Buffer.alloc(900_000, 7));
    for (let i = 0; i < 100 && !raw.texts.some((t) => t.startsWith('451-["echo-back"')); i++) await sleep(20);
    assert.ok(raw.texts.some((t) => t.startsWith('451-["echo-back"')), "900 KB of attachments are carried");
    raw.ws.send("452-" + JSON.stringify(["echo", placeholder(0), placeholder(1)]));
    raw.ws.send(Buffer.alloc(600_000, 1));
    raw.ws.send(Buffer.alloc(600_000, 2));
    assert.equal(await raw.isClosed(), true);
  });

  it("closes a connection that connects and disconnects over and over", async () => {
    const raw = await rawSocket();
    for (let i = 0; i < 16; i++) {
      await raw.connect();
      raw.ws.send("41");
    }
    assert.equal(raw.texts.filter((t) => t.startsWith("40{")).length, 16, "each of the first 16 CONNECTs is answered");
    raw.ws.send("40" + JSON.stringify({ token: "good", name: "ada" }));
    assert.equal(await raw.isClosed(), true);
  });
});

// socket.io's connectTimeout: a connection that CONNECTs no namespace in time is closed (one
// deadline queue per server, http/src/realtime/socketio/deadlines.rs); one that does stays.
describe("connect timeout", () => {
  let short;
  before(async () => {
    short = await startServer({ CONNECT_TIMEOUT_MS: "300" });
  });
  after(() => short?.stop());

  const rawWebSocket = () => {
    const ws = new WebSocket(`${short.url.replace("http", "ws")}/socket.io/?EIO=4&transport=websocket`);
    const opened = Date.now();
    const closed = new Promise((resolve) => ws.on("close", () => resolve(Date.now() - opened)));
    return { ws, closed };
  };

  it("closes connections that connect no namespace, each after its own timeout", async () => {
    const first = rawWebSocket();
    await sleep(150);
    const second = rawWebSocket();
    const [a, b] = await Promise.all(
      [first.closed, second.closed].map((c) => Promise.race([c, sleep(3000).then(() => Infinity)])),
    );
    assert.ok(a >= 250 && a < 2000, `first closed after ${a} ms`);
    assert.ok(b >= 250 && b < 2000, `second closed after ${b} ms`);
  });

  it("keeps a connection that connected a namespace", async () => {
    const socket = io(short.url, { transports: ["websocket"], auth: { token: "good", name: "ada" }, forceNew: true, reconnection: false });
    await once(socket, "connect");
    await sleep(800);
    assert.equal(socket.connected, true);
    assert.equal(await socket.emitWithAck("whoami"), "ada");
    socket.disconnect();
  });
});
