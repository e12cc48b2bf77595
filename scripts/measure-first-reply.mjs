#!/usr/bin/env node
// How long the visitor chat takes to show the bot's first reply: from the press of Send to the
// reply's text on screen, in a fresh browser context each time (nothing cached), against a real
// server. Compares widget builds: one server per `--widget-dir` (same binary, same bot), their
// runs interleaved so that load on the machine falls on all of them alike.
//
//   node scripts/measure-first-reply.mjs --widget-dir widget/dist [--widget-dir other/dist]
//     [--runs 20] [--parley-bin $CARGO_TARGET_DIR/debug/parley] [--think-ms 1000]
//     [--latency-ms 0 --down-kbps 0 --up-kbps 0]
//
// Each run opens /chat?id=<bot>, waits for the page's load event and --think-ms more (a visitor
// reads, then types), types the question and presses Send. The time is taken in the page:
// performance.now() at the click, and at the first frame after the reply's text is in the
// document. --latency-ms / --down-kbps / --up-kbps throttle the network through Chromium's
// DevTools protocol (0 = unthrottled). Needs e2e/'s packages (`npm ci` in e2e/: playwright-core,
// maildev), /usr/bin/chromium (or CHROMIUM) and the embedding model (scripts/fetch-model.sh; with
// keyword search only the bot does not find the answer). It never builds the server.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { api, createBot, repo, signup, startParley, until } from "../e2e/parley.mjs";
import { launchBrowser } from "../e2e/browser.mjs";

const { values: opts } = parseArgs({
  options: {
    "widget-dir": { type: "string", multiple: true },
    runs: { type: "string", default: "20" },
    "parley-bin": { type: "string", default: resolve(repo, process.env.CARGO_TARGET_DIR || "target", "debug", "parley") },
    "think-ms": { type: "string", default: "1000" },
    "latency-ms": { type: "string", default: "0" },
    "down-kbps": { type: "string", default: "0" },
    "up-kbps": { type: "string", default: "0" },
  },
});
const widgetDirs = (opts["widget-dir"] ?? ["widget/dist"]).map((d) => resolve(d));
const runs = Number(opts.runs);
const bin = resolve(opts["parley-bin"]);
const thinkMs = Number(opts["think-ms"]);
const throttle = { latency: Number(opts["latency-ms"]), down: Number(opts["down-kbps"]), up: Number(opts["up-kbps"]) };
if (!existsSync(bin)) throw new Error(`no parley binary at ${bin} (--parley-bin)`);
for (const d of widgetDirs) if (!existsSync(resolve(d, "chat.html"))) throw new Error(`${d} is not a built widget (no chat.html)`);

const BOT = "Shop helper";
const FAQ = "We ship every order within 5 business days. Returns are free for 30 days.";
const QUESTION = "How long does shipping take?";
const ANSWER = "5 business days";

/** A server serving `widgetDir`, with a trained bot: { server, botId }. */
async function setUp(widgetDir, i) {
  const server = await startParley({ bin, env: { PARLEY_WEB_WIDGET_DIR: widgetDir } });
  const owner = await signup(server.base, `owner${i}@shop.example`, "Olive", { verify: false });
  const botId = await createBot(server.base, owner.token, BOT, FAQ);
  await until(async () => {
    const r = await api(server.base, "GET", `/api/bots/${botId}/sources`, { token: owner.token });
    return r.body?.text?.length && r.body.text.every((s) => s.status === "completed");
  }, "training", 60000);
  return { widgetDir, server, botId };
}

/** One visitor: milliseconds from the press of Send to the reply on screen. */
async function firstReply(browser, { server, botId }) {
  const context = await browser.newContext({ viewport: { width: 420, height: 700 } });
  try {
    const page = await context.newPage();
    if (throttle.latency || throttle.down || throttle.up) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: throttle.latency,
        // bytes per second; -1 = no limit
        downloadThroughput: throttle.down ? (throttle.down * 1000) / 8 : -1,
        uploadThroughput: throttle.up ? (throttle.up * 1000) / 8 : -1,
      });
    }
    await page.goto(`${server.base}/chat?id=${botId}`, { waitUntil: "load" });
    const input = page.getByLabel("Type your message");
    await input.waitFor();
    await page.waitForTimeout(thinkMs);
    // Armed before the click: the click's time, then the first frame showing the answer.
    const measured = page.evaluate(
      (answer) =>
        new Promise((done) => {
          let pressed;
          document.addEventListener("click", (e) => e.target.closest?.('button[aria-label="Send message"]') && (pressed ??= performance.now()), true);
          const shown = () => [...document.querySelectorAll("article")].some((a) => a.textContent.includes(answer));
          const observer = new MutationObserver(() => {
            if (pressed === undefined || !shown()) return;
            observer.disconnect();
            requestAnimationFrame(() => done(performance.now() - pressed));
          });
          observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        }),
      ANSWER,
    );
    await input.fill(QUESTION);
    await page.getByRole("button", { name: "Send message" }).click();
    return await Promise.race([measured, new Promise((_, fail) => setTimeout(() => fail(new Error("no reply within 30 s")), 30000))]);
  } finally {
    await context.close();
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

const setups = [];
const browser = await launchBrowser();
try {
  for (const [i, d] of widgetDirs.entries()) setups.push(await setUp(d, i));
  const times = setups.map(() => []);
  // One warm-up visit each (the server's first answer fills its caches), not counted.
  for (const s of setups) await firstReply(browser, s);
  for (let r = 0; r < runs; r++) {
    // Alternate which build goes first.
    const order = setups.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) times[i].push(await firstReply(browser, setups[i]));
  }
  const net = throttle.latency || throttle.down || throttle.up ? `latency ${throttle.latency} ms, down ${throttle.down || "∞"} kbps, up ${throttle.up || "∞"} kbps` : "unthrottled";
  console.log(`first reply, Send to text on screen, ${runs} fresh contexts each, ${net}, think ${thinkMs} ms:`);
  for (const [i, s] of setups.entries()) {
    const sorted = [...times[i]].sort((a, b) => a - b);
    const ms = (v) => `${v.toFixed(0)} ms`;
    console.log(`  ${s.widgetDir}: median ${ms(quantile(sorted, 0.5))}, p90 ${ms(quantile(sorted, 0.9))}, min ${ms(sorted[0])}, max ${ms(sorted.at(-1))}`);
  }
} finally {
  await browser.close();
  for (const s of setups) await s.server.stop();
}
// maildev (started by startParley) goes with the process.
process.exit(0);
