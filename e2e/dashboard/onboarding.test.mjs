// The dashboard in a real browser (Debian's chromium through playwright-core) against the real
// server: signed-out redirect, sign-up with the password rule, credits from the plan, the
// creation wizard with the bot's real id in the snippet, the share link, sign out and back in.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startParley, repo } from "../parley.mjs";
import { launchBrowser } from "../browser.mjs";

const built = existsSync(join(repo, "dashboard", "dist", "index.html"));
let server;
let browser;

before(async () => {
  if (!built) return;
  server = await startParley({ env: { PARLEY_BILLING_DEFAULT_PLAN: "free" } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test("a new owner signs up, creates a bot, shares it, signs out and in", { skip: !built && "dashboard not built (npm run build in dashboard/)" }, async () => {
  const base = server.base;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));

  await page.goto(`${base}/stats`);
  await page.waitForURL("**/login");

  await page.getByRole("link", { name: "Sign up" }).click();
  await page.getByLabel(/^Email/).fill("ada@shop.example");
  await page.getByLabel(/^Password/).fill("secret-one");
  await page.getByLabel(/^Confirm Password/).fill("secret-two");
  await page.getByText("Passwords do not match").waitFor();
  await page.getByLabel(/^Confirm Password/).fill("secret-one");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL("**/dashboard");
  await page.getByText("Credits").waitFor();
  assert.equal(await page.getByTestId("credits").textContent(), "100", "credits come from the Free plan");

  await page.getByRole("button", { name: "New Bot" }).click();
  await page.getByText("Step 1 of 4").waitFor();
  await page.getByLabel(/^Assistant Name/).fill("Helper");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: /Skip/ }).click();
  await page.getByText("Step 2 of 3").waitFor();
  await page.getByRole("button", { name: "Create", exact: true }).click();
  await page.getByText("Bot Created Successfully").waitFor();
  const snippet = await page.getByTestId("snippet-react").textContent();
  const bots = await page.evaluate(async () => {
    const r = await fetch("/api/bots", { headers: { authorization: `Bearer ${localStorage.getItem("authToken")}` } });
    return r.json();
  });
  const botId = bots.bots[0]._id;
  assert.ok(snippet.includes(botId), `the snippet holds the real bot id ${botId}: ${snippet}`);
  await page.getByRole("button", { name: "Done" }).click();

  await page.getByTestId("bot-card").getByRole("button", { name: "Share" }).click();
  const url = await page.getByLabel("Public chat link").inputValue();
  assert.equal(url, `${base}/chat?id=${botId}`);
  await page.keyboard.press("Escape");

  await page.getByRole("button", { name: "Sign Out" }).click();
  await page.waitForURL("**/login");
  await page.getByLabel(/^Email/).fill("ada@shop.example");
  await page.getByLabel(/^Password/).fill("secret-one");
  await page.getByRole("button", { name: /^Sign in/ }).click();
  await page.waitForURL("**/dashboard");
  await page.getByText("Helper").first().waitFor();
  assert.deepEqual(errors, []);
});
