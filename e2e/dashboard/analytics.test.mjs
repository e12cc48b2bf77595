// /stats draws real charts from GET /api/bots/{id}/analytics: conversations seeded through the
// public chat call (one the bot cannot answer, one rated at resolve) appear in the volume and
// satisfaction charts with a tooltip, the unanswered question in its table, and the charts with
// nothing to draw (no agent answered a handoff) show their empty state. /dashboard draws the
// bot card's sparkline.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startParley, repo, signup, createBot, api } from "../parley.mjs";
import { launchBrowser, signedInContext } from "../browser.mjs";

const built = existsSync(join(repo, "dashboard", "dist", "index.html"));
const skip = !built && "dashboard not built (npm run build in dashboard/)";
let server;
let browser;
let owner;
let botId;
const unknown = "Do you sell gift cards for the moon?";

before(async () => {
  if (!built) return;
  server = await startParley();
  browser = await launchBrowser();
  owner = await signup(server.base, "charts@shop.example", "Ada");
  botId = await createBot(server.base, owner.token, "Charts Bot", "We ship worldwide within 5 days. Returns are free for 30 days.");
  const sessions = [];
  for (const message of ["How long does shipping take?", "Are returns free?", unknown]) {
    const r = await api(server.base, "POST", "/api/chat", { body: { botId, message } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    sessions.push(r.body.sessionId);
  }
  const resolved = await api(server.base, "PUT", `/api/chat/session/${sessions[0]}/resolve`, { token: owner.token, body: { rating: 5, feedback: "" } });
  assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test("/stats shows charts after seeded conversations", { skip }, async () => {
  // The server's own figures first: what the charts must show.
  const tz = "+00:00";
  const figures = await api(server.base, "GET", `/api/bots/${botId}/analytics?period=7d&tz=${encodeURIComponent(tz)}`, { token: owner.token });
  assert.equal(figures.status, 200);
  assert.equal(figures.body.totals.conversations, 3);
  assert.equal(figures.body.totals.csat.count, 1);

  const bot = (await api(server.base, "GET", `/api/bots/${botId}`, { token: owner.token })).body.bot;
  const context = await signedInContext(browser, { token: owner.token, bot, width: 1280, height: 900 });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  await page.goto(`${server.base}/stats`);

  const volume = page.getByLabel("Conversations and messages");
  await volume.locator(".recharts-surface").first().waitFor({ timeout: 15000 });
  const csat = page.getByLabel("Customer satisfaction");
  await csat.locator(".recharts-surface").first().waitFor();
  await page.getByLabel("Handoff and resolution rates").locator(".recharts-surface").first().waitFor();
  // Nobody asked for a person: that chart says so instead of drawing zeros.
  await page.getByLabel("Agent first response").getByText("No agent has answered a request for a person in this period.").waitFor();

  // The tooltip over today's point names the series and today's count.
  const box = await volume.locator(".recharts-surface").first().boundingBox();
  await page.mouse.move(box.x + box.width - 8, box.y + box.height / 2);
  const tooltip = volume.locator(".recharts-tooltip-wrapper");
  await tooltip.getByText("Conversations").waitFor();
  assert.match(await tooltip.innerText(), /Conversations\s*3/);

  const table = page.getByTestId("unanswered-table");
  await table.getByText(unknown).waitFor();

  // Another period reloads the charts: 24 hourly points.
  await page.getByLabel("Period").getByText("24 hours").click();
  await page.waitForResponse((r) => r.url().includes(`/api/bots/${botId}/analytics?period=24h`));
  await volume.locator(".recharts-surface").first().waitFor();

  // The bot card on /dashboard carries the week's sparkline.
  await page.goto(`${server.base}/dashboard`);
  const spark = page.getByTestId("bot-sparkline");
  await spark.locator("svg").first().waitFor();
  assert.equal(await spark.getAttribute("aria-label"), "3 conversations in the last 7 days");

  assert.deepEqual(problems, []);
  await context.close();
});
