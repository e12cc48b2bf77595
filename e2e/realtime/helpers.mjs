// Starts the Rust Socket.IO testbed (http/examples/realtime_testbed.rs) on a random port.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

function binaryPath() {
  if (process.env.PARLEY_TESTBED_BIN) return process.env.PARLEY_TESTBED_BIN;
  const target = resolve(repo, process.env.CARGO_TARGET_DIR || "target");
  const profile = process.env.PARLEY_PROFILE || "debug";
  return join(target, profile, "examples", "realtime_testbed");
}

/** Starts the testbed; `env` adds to its environment (e.g. CONNECT_TIMEOUT_MS). */
export async function startServer(env = {}) {
  const bin = binaryPath();
  if (!existsSync(bin)) {
    const args = ["build", "-p", "parley-http", "--example", "realtime_testbed"];
    if (process.env.PARLEY_PROFILE === "release") args.push("--release");
    const built = spawnSync("cargo", args, { cwd: repo, stdio: "inherit" });
    if (built.status !== 0) throw new Error("cargo build of realtime_testbed failed");
  }
  const child = spawn(bin, [], {
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolvePort, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("server did not start")), 20000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/listening on port (\d+)/);
      if (m) {
        clearTimeout(timer);
        resolvePort(Number(m[1]));
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => child.kill(),
  };
}

export function once(emitter, event, ms = 4000) {
  return new Promise((resolveEvent, reject) => {
    const timer = setTimeout(() => reject(new Error(`timeout waiting for ${event}`)), ms);
    emitter.once(event, (...args) => {
      clearTimeout(timer);
      resolveEvent(args);
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const MODES = {
  "websocket only": { transports: ["websocket"] },
  "polling only": { transports: ["polling"] },
  "polling then upgrade": { transports: ["polling", "websocket"], upgrade: true },
};
