// The peer parley-bench measures Parley against: a plain Node socket.io 4.8 server doing what
// the `idle` and `relay` scenarios need, with the same event names and payloads as Parley —
// `join-session {sessionId}` puts the socket in the session's room (ack {success}), and
// `send-message {sessionId, message}` emits `new-message {sessionId, message: {role, content,
// timestamp}}` to the room. It keeps nothing: no accounts, no storage, no checks.
import { createServer } from "node:http";
import { Server } from "socket.io";

const http = createServer();
const io = new Server(http, { serveClient: false, transports: ["websocket", "polling"] });

io.on("connection", (socket) => {
  const role = socket.handshake.auth?.token ? "agent" : "user";
  socket.on("join-session", (payload, ack) => {
    const sessionId = payload?.sessionId;
    if (typeof sessionId !== "string" || !sessionId) {
      if (typeof ack === "function") ack({ success: false, error: "sessionId is required" });
      return;
    }
    socket.join(sessionId);
    if (typeof ack === "function") ack({ success: true, sessionId });
  });
  socket.on("send-message", (payload, ack) => {
    const sessionId = payload?.sessionId;
    const content = payload?.message ?? payload?.text;
    if (typeof sessionId !== "string" || typeof content !== "string") {
      if (typeof ack === "function") ack({ success: false, error: "sessionId and message are required" });
      return;
    }
    const message = { sessionId, role, content, timestamp: new Date().toISOString() };
    io.to(sessionId).emit("new-message", { sessionId, message });
    if (typeof ack === "function") ack({ success: true, message });
  });
});

http.listen(Number(process.env.PORT ?? 3001), "127.0.0.1", () => {
  const { port } = http.address();
  console.log(`socket.io peer listening on http://127.0.0.1:${port}`);
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => io.close(() => process.exit(0)));
