// Billing in a real browser against the real server, without payments configured: a free owner
// at the assistant limit is taken to /billing, which shows the real plan, meters, plans and
// history and says payments are not configured; the sidebar's plan label and credits open it;
// the 80 % banner appears after real AI replies; `parley plans set` (the real binary, on the
// server's own database) lifts the limit, and the page shows it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startParley, api, signup, createBot, binary, repo } from "../parley.mjs";
import { launchBrowser, signedInContext } from "../browser.mjs";

const built = existsSync(join(repo, "dashboard", "dist", "index.html"));
const skip = !built && "dashboard not built (npm run build in dashboard/)";
let server;
let browser;
let owner;
let botId;

before(async () => {
  if (!built) return;
  server = await startParley({ env: { PARLEY_BILLING_DEFAULT_PLAN: "free", PARLEY_BILLING_SALES_EMAIL: "sales@parley.example", PARLEY_REALTIME_VISITOR_MESSAGES_PER_MINUTE: "1000" } });
  browser = await launchBrowser();
  owner = await signup(server.base, "owner@billing.example", "Bea");
  botId = await createBot(server.base, owner.token, "Billing Bot", "We ship every order within 5 business days.");
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function ownerPage(width = 1280) {
  const bot = (await api(server.base, "GET", `/api/bots/${botId}`, { token: owner.token })).body.bot;
  const context = await signedInContext(browser, { token: owner.token, bot, width });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  // The browser logs every refused request; the plan's 403 on the second bot is the point.
  page.on("console", (m) => m.type() === "error" && !/status of 403/.test(m.text()) && page.errors.push(m.text()));
  return { context, page };
}

const meterText = (page, name) => page.getByTestId(`meter-${name}-text`).innerText();

test("free owner: the bot limit leads to /billing; real plan, meters, plans; banner at 80 %; plans set lifts the limit", { skip }, async () => {
  const { context, page } = await ownerPage();
  await page.goto(`${server.base}/dashboard`);

  // A second assistant on Free: the server refuses naming the limit, the dashboard goes to Billing.
  await page.getByRole("button", { name: "New Bot" }).click();
  await page.getByLabel(/^Assistant Name/).fill("Second");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: /Skip/ }).click();
  await page.getByRole("button", { name: "Create", exact: true }).click();
  await page.getByText("Plan limit reached").waitFor();
  await page.getByText("Your Free plan allows 1 assistant. Upgrade your plan on the Billing page (/billing) to create more.").waitFor();
  await page.waitForURL("**/billing");

  await page.getByTestId("current-plan-name").getByText("Free Plan").waitFor();
  await page.getByTestId("payments-not-configured").getByText("Payments are not configured on this server", { exact: false }).waitFor();
  assert.equal(await meterText(page, "bots"), "1 / 1");
  assert.equal(await page.getByTestId("meter-bots").getAttribute("data-colour"), "red");
  assert.equal(await meterText(page, "conversations"), "0 / 100");
  const pro = page.getByTestId("plan-pro");
  await pro.getByText("Most Popular").waitFor();
  assert.equal(await pro.getByTestId("price-pro").innerText(), "$29/month");
  assert.equal(await pro.getByRole("button", { name: "Upgrade" }).isDisabled(), true, "no checkout without payments");
  const sales = page.getByTestId("plan-enterprise").getByRole("link", { name: "Contact Sales" });
  assert.match(await sales.getAttribute("href"), /^mailto:sales@parley\.example\?subject=/);
  await page.getByText("Yearly", { exact: true }).click();
  assert.equal(await pro.getByTestId("price-pro").innerText(), "$23.20/month");
  await page.getByTestId("yearly-saving").getByText("Save 20%").waitFor();
  await page.getByText("No billing history available").waitFor();
  assert.equal(await page.getByTestId("subscription-state").textContent(), "Active");
  assert.match(await page.getByTestId("subscription-line").innerText(), /^Usage resets on [A-Z][a-z]+ \d{1,2}, \d{4} \(\d+ days? left\)\.$/);

  // 80 of 100 credits spent by real replies: the banner, pointing to Billing.
  let sessionId;
  let visitorToken;
  for (let i = 0; i < 80; i++) {
    const r = await api(server.base, "POST", "/api/chat", { body: { botId, message: `How long does shipping take? (${i})`, sessionId, visitorToken } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    ({ sessionId, visitorToken } = { sessionId: r.body.sessionId, visitorToken: r.body.visitorToken ?? visitorToken });
  }
  await page.goto(`${server.base}/dashboard`);
  const banner = page.getByTestId("usage-banner");
  await banner.getByText("You have used 80% of your credits this month.", { exact: false }).waitFor();
  assert.equal(await page.getByTestId("credits").innerText(), "20");

  // The sidebar's plan label opens Billing, where the meters say the same.
  await page.getByTestId("plan-label").click();
  await page.waitForURL("**/billing");
  assert.equal(await meterText(page, "credits"), "80 / 100");
  assert.equal(await page.getByTestId("meter-credits").getAttribute("data-colour"), "yellow");
  await page.goto(`${server.base}/dashboard`);
  await page.getByTestId("credits-link").click();
  await page.waitForURL("**/billing");

  // The self-hoster's command, on the server's own database, while it runs.
  const until = new Date(Date.now() + 45 * 86400_000).toISOString().slice(0, 10);
  const cli = spawnSync(binary(), ["plans", "set", "owner@billing.example", "pro", "--until", until], {
    cwd: repo,
    env: { ...process.env, PARLEY_DATA_DIR: server.dataDir, PARLEY_LOG: "warn" },
    encoding: "utf8",
  });
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /^owner@billing\.example is on pro until \d{4}-\d{2}-\d{2}T00:00:00\.000Z \(UTC\), then Free$/m);
  const bad = spawnSync(binary(), ["plans", "set", "owner@billing.example", "gold"], { cwd: repo, env: { ...process.env, PARLEY_DATA_DIR: server.dataDir }, encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /choose free, pro or enterprise/);

  await page.reload();
  await page.getByTestId("current-plan-name").getByText("Pro Plan").waitFor();
  assert.equal(await meterText(page, "bots"), "1 / 5");
  assert.equal(await meterText(page, "credits"), "0 / 5,000", "a new period starts with the plan");
  await page.getByTestId("plan-pro").getByTestId("current-badge").waitFor();
  assert.match(await page.getByTestId("subscription-line").innerText(), /^Your Pro plan ends on [A-Z][a-z]+ \d{1,2}, \d{4}; then the account moves to Free\.$/);
  await page.goto(`${server.base}/dashboard`);
  assert.equal(await page.getByTestId("usage-banner").count(), 0, "no banner on Pro");
  assert.equal(await page.getByTestId("plan-label").innerText(), "Premium Member");
  await page.getByRole("button", { name: "New Bot" }).click();
  await page.getByLabel(/^Assistant Name/).fill("Second");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: /Skip/ }).click();
  await page.getByRole("button", { name: "Create", exact: true }).click();
  await page.getByText("Bot Created Successfully").waitFor();

  assert.deepEqual(page.errors, []);
  await context.close();
});

test("/billing renders at 390 and 1280 px without console errors or sideways overflow", { skip }, async () => {
  for (const width of [390, 1280]) {
    const { context, page } = await ownerPage(width);
    await page.goto(`${server.base}/billing`);
    await page.getByTestId("current-plan").waitFor();
    await page.getByTestId("subscription-status").waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `/billing at ${width}px overflows by ${overflow}px`);
    await page.screenshot({ path: join(tmpdir(), `parley-billing-${width}.png`), fullPage: true });
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});
