// Connection state recovery: events missed during a short disconnection are replayed.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { io } from "socket.io-client";
import { MODES, once, sleep, startServer } from "./helpers.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

for (const [mode, opts] of Object.entries(MODES)) {
  describe(`recovery (${mode})`, () => {
    it("replays events missed during a short disconnect", async () => {
      const options = { ...opts, forceNew: true, reconnectionDelay: 100, randomizationFactor: 0 };
      // A reconnects after 1 s, so the broadcasts below happen while it is away.
      const a = io(`${server.url}/recovery`, { ...options, reconnectionDelay: 1000, reconnectionDelayMax: 1000 });
      const b = io(`${server.url}/recovery`, options);
      try {
        const [[helloId]] = await Promise.all([once(a, "hello"), once(a, "connect"), once(b, "connect")]);
        assert.equal(helloId, a.id);
        const firstId = a.id;
        const room = `r-${mode}`;
        await a.emitWithAck("join", room);

        const news = [];
        a.on("news", (msg) => news.push(msg));

        const disconnected = once(a, "disconnect");
        const reconnected = once(a, "connect", 5000);
        a.io.engine.close();
        await disconnected;
        await sleep(100);
        await b.emitWithAck("broadcast", room, "missed-1");
        await b.emitWithAck("broadcast", "other-room", "not-for-a");
        await b.emitWithAck("broadcast", room, "missed-2");

        assert.equal(a.connected, false, "still away while the events were sent");
        await reconnected;
        assert.equal(a.recovered, true);
        assert.equal(a.id, firstId);
        const status = await a.emitWithAck("status");
        assert.deepEqual(status, { id: firstId, recovered: true });
        await sleep(100);
        assert.deepEqual(news, ["missed-1", "missed-2"]);

        // The rooms came back too: a live broadcast still reaches it.
        await b.emitWithAck("broadcast", room, "live");
        await sleep(200);
        assert.deepEqual(news, ["missed-1", "missed-2", "live"]);
      } finally {
        a.disconnect();
        b.disconnect();
      }
    });
  });
}
