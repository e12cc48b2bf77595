// Issue 6's walk, all through the screens of a real browser against the real server: sign up →
// create a bot with the wizard (text training) → the snippet holds the bot's real id → a Q&A
// pair trained to completed → colours and welcome message customised, saved, still there after
// a reload → the test chat answers from the Q&A pair → bot settings saved → sign out, sign in.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startParley, repo, api } from "../parley.mjs";
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

const EMAIL = "walk@bakery.example";
const PASSWORD = "flour-and-water";
const QUESTION = "Do you bake gluten-free bread?";
const ANSWER = "Yes, every Saturday we bake a gluten-free sourdough loaf.";

test("a new owner's first hour: sign up to a trained, customised, configured bot", { skip: !built && "dashboard not built (npm run build in dashboard/)" }, async () => {
  const base = server.base;
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));
  const token = () => page.evaluate(() => localStorage.getItem("authToken"));

  // Sign up: a real account.
  await page.goto(`${base}/signup`);
  await page.getByLabel(/^Email/).fill(EMAIL);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByLabel(/^Confirm Password/).fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL("**/dashboard");

  // The wizard, with text training.
  await page.getByRole("button", { name: "New Bot" }).click();
  await page.getByText("Step 1 of 4").waitFor();
  await page.getByLabel(/^Assistant Name/).fill("Bakery Helper");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: /Enter Text/ }).click();
  await page.getByLabel(/^Training text/).fill("Our bakery opens at 7am. We deliver in town on weekdays.");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByText("Step 3 of 4").waitFor();
  await page.getByRole("button", { name: "Create", exact: true }).click();
  await page.getByText("Bot Created Successfully").waitFor();
  const { body } = await api(base, "GET", "/api/bots", { token: await token() });
  const botId = body.bots[0]._id;
  const snippet = await page.getByTestId("snippet-react").textContent();
  assert.ok(snippet.includes(botId), `the snippet holds the real bot id ${botId}`);
  await page.getByRole("button", { name: "Done" }).click();

  // The wizard's text source is trained for real.
  const sources = await api(base, "GET", `/api/bots/${botId}/sources`, { token: await token() });
  assert.equal(sources.body.text.length, 1, "the wizard's text became a text source");

  // Make it the active bot, then train a Q&A pair to completed.
  await page.getByRole("button", { name: "Choose bot" }).click();
  await page.getByRole("menuitem", { name: /Bakery Helper/ }).click();
  await page.getByRole("link", { name: "Training" }).click();
  await page.getByRole("tab", { name: /Q&A Pairs/ }).click();
  await page.getByLabel(/^Question/).fill(QUESTION);
  await page.getByLabel(/^Answer/).fill(ANSWER);
  await page.getByRole("button", { name: "Add Q&A Pair" }).click();
  const pair = page.getByTestId("list-qa").getByTestId("source-item").filter({ hasText: QUESTION });
  await pair.getByLabel("Completed").waitFor({ timeout: 30000 });

  // Customise colours and the welcome message; save; reload; still there.
  await page.getByRole("link", { name: "Customize" }).click();
  await page.getByText("Chat Customization").waitFor();
  await page.getByRole("button", { name: "Forest Green" }).click();
  await page.getByLabel("Custom colors").check();
  await page.getByLabel("Primary color").fill("#2f6b3a");
  await page.getByRole("tab", { name: "Content" }).click();
  await page.getByLabel("Welcome message").fill("Welcome to the bakery! Ask me anything.");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Configuration saved successfully!").waitFor();
  await page.reload();
  await page.getByText("Chat Customization").waitFor();
  assert.equal(await page.getByLabel("Primary color").inputValue(), "#2f6b3a");
  await page.getByRole("tab", { name: "Content" }).click();
  assert.equal(await page.getByLabel("Welcome message").inputValue(), "Welcome to the bakery! Ask me anything.");

  // The test chat answers from the Q&A pair.
  const box = page.getByLabel("Message", { exact: true });
  await box.fill(QUESTION);
  await box.press("Enter");
  await page.getByTestId("test-chat-messages").getByText(ANSWER, { exact: false }).waitFor({ timeout: 30000 });

  // Bot settings saved.
  await page.getByRole("link", { name: "Bot Settings" }).click();
  const size = page.getByLabel(/^Maximum Chat Text Size/);
  await size.fill("1500");
  await page.getByRole("button", { name: "Save Settings" }).click();
  await page.waitForFunction(
    async ([b, t]) => (await (await fetch(`/api/bots/${b}/settings`, { headers: { authorization: `Bearer ${t}` } })).json()).maxChatTextSize === 1500,
    [botId, await token()],
  );
  await page.reload();
  await page.waitForFunction(() => document.querySelector("input")?.value !== undefined);
  await page.getByLabel(/^Maximum Chat Text Size/).and(page.locator('[value="1500"]')).waitFor();

  // Sign out, sign in again: the bot is still there.
  await page.getByRole("button", { name: "Sign Out" }).click();
  await page.waitForURL("**/login");
  assert.equal(await token(), null, "signing out forgets the token");
  await page.getByLabel(/^Email/).fill(EMAIL);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole("button", { name: /^Sign in/ }).click();
  // Back where the user was when they signed out, then to My Bots.
  await page.waitForURL("**/bot-settings");
  await page.getByRole("link", { name: "My Bots" }).click();
  await page.getByTestId("bot-card").filter({ hasText: "Bakery Helper" }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});
