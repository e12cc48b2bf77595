// Every screen of the dashboard in a real browser against the real server, at desktop (1280 px)
// and phone (390 px) widths: it renders its own title, logs no console error, throws nothing,
// and nothing overflows the page sideways.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startParley, repo, signup, createBot, api } from "../parley.mjs";
import { launchBrowser, signedInContext } from "../browser.mjs";

const built = existsSync(join(repo, "dashboard", "dist", "index.html"));
let server;
let browser;
let owner;
let botId;

before(async () => {
  if (!built) return;
  server = await startParley();
  browser = await launchBrowser();
  owner = await signup(server.base, "screens@shop.example", "Grace");
  botId = await createBot(server.base, owner.token, "Screens Bot", "We ship worldwide within 5 days.");
  // Some history so the lists and figures have something to show.
  for (const message of ["Hello there", "Do you ship abroad?"]) {
    const r = await api(server.base, "POST", "/api/chat", { body: { botId, message } });
    assert.equal(r.status, 200);
  }
  // A lead, so the Leads page shows its table, figures and insights.
  const lead = await api(server.base, "POST", "/api/leads", { token: owner.token, body: { botId, name: "Screen Lead", email: "screen@lead.example", leadScore: 85 } });
  assert.equal(lead.status, 201, JSON.stringify(lead.body));
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

// Route, and a text the screen shows once rendered.
const screens = [
  ["/dashboard", "My AI Assistants"],
  ["/stats", "Bot Performance"],
  ["/botchat", "Conversations"],
  ["/preview", "Chat Customization"],
  ["/training", "Q&A Pairs"],
  ["/sessions", "Sessions"],
  ["/agent-dashboard", "Agent Dashboard"],
  ["/leads", "Total Leads"],
  ["/teams", "Team"],
  ["/integrations", "Integrations"],
  ["/bot-settings", "Bot Settings"],
  ["/billing", "Billing"],
  ["/settings", "Settings"],
  ["/docs", "Documentation"],
];

/** The Leads page's content, not only its title: count, cards, filter bar, the row, insights. */
async function leadsContent(page) {
  await page.getByTestId("leads-count").getByText("1 leads captured").waitFor();
  for (const label of ["Total Leads", "New", "Contacted", "Qualified", "Converted"]) {
    await page.getByText(label, { exact: true }).first().waitFor();
  }
  await page.getByPlaceholder("Search leads by name, email, company...").waitFor();
  const row = page.getByTestId("lead-row").filter({ hasText: "Screen Lead" });
  assert.equal(await row.getByRole("link", { name: "screen@lead.example" }).getAttribute("href"), "mailto:screen@lead.example");
  assert.equal(await row.getByTestId("lead-score").getAttribute("data-colour"), "green");
  await page.getByTestId("lead-insights").getByText("Conversion Rate").waitFor();
  await page.getByRole("button", { name: "Export" }).waitFor();
}

for (const width of [1280, 390]) {
  test(`every screen renders cleanly at ${width} px`, { skip: !built && "dashboard not built (npm run build in dashboard/)" }, async () => {
    const bot = (await api(server.base, "GET", `/api/bots/${botId}`, { token: owner.token })).body.bot;
    const context = await signedInContext(browser, { token: owner.token, bot, width, height: 800 });
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(`${page.url()}: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`${page.url()}: console: ${m.text()}`);
    });

    for (const [path, text] of screens) {
      await page.goto(`${server.base}${path}`);
      await page.waitForURL(`**${path}`);
      await page.getByText(text).first().waitFor({ timeout: 10000 });
      await page.waitForLoadState("networkidle");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `${path} at ${width} px overflows sideways by ${overflow} px`);
      if (path === "/leads") await leadsContent(page);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
}
