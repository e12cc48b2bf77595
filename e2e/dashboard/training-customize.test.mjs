// The Training page and the Customize screen in a real browser against the real server: a Q&A
// pair trained to completed without a reload, a text source added and deleted, a retrain; the
// palette, colours and welcome message saved and still there after a reload; the test chat
// answering from the Q&A pair, its header, and its lead form saving the lead on Continue. No
// console errors at 1280 px and 390 px.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startParley, repo, signup, createBot, api, until } from "../parley.mjs";
import { launchBrowser, signedInContext } from "../browser.mjs";

const built = existsSync(join(repo, "dashboard", "dist", "index.html"));
let server;
let browser;

before(async () => {
  if (!built) return;
  server = await startParley();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const QUESTION = "What are your opening hours?";
const ANSWER = "We are open from 9am to 5pm, Monday to Friday.";

/** A page signed in as `token` with `botId` active; console errors collected in `errors`. */
async function signedInPage(width, token, botId) {
  const bot = (await api(server.base, "GET", `/api/bots/${botId}`, { token })).body.bot;
  const page = await (await signedInContext(browser, { token, bot, width })).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  return { page, errors };
}

async function noHorizontalOverflow(page, width) {
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scroll <= width + 1, `no horizontal overflow at ${width}px (scrollWidth ${scroll})`);
}

test("training sources, retrain, customization saved, test chat answers from the Q&A pair", { skip: !built && "dashboard not built (npm run build in dashboard/)" }, async () => {
  const base = server.base;
  const owner = await signup(base, "owner@shop.example", "Owner");
  const botId = await createBot(base, owner.token, "Helper");
  const { page, errors } = await signedInPage(1280, owner.token, botId);

  // Training: a Q&A pair reaches completed without a reload.
  await page.goto(`${base}/training`);
  await page.getByRole("button", { name: "Start Training" }).waitFor();
  await page.getByRole("tab", { name: /Q&A Pairs/ }).click();
  await page.getByLabel(/^Question/).fill(QUESTION);
  await page.getByLabel(/^Answer/).fill(ANSWER);
  await page.getByRole("button", { name: "Add Q&A Pair" }).click();
  const qaItem = page.getByTestId("list-qa").getByTestId("source-item").filter({ hasText: QUESTION });
  await qaItem.waitFor();
  await qaItem.getByLabel("Completed").waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId("count-qa").textContent(), "1");

  // A text source, then delete it (for real: the server's list no longer has it).
  await page.getByRole("tab", { name: /Text Sources/ }).click();
  await page.getByLabel(/^Title/).fill("Returns policy");
  const policy = "Items can be returned within 30 days of delivery with the receipt.";
  await page.getByLabel(/^Custom text/).fill(policy);
  assert.equal(await page.getByTestId("text-counter").textContent(), `${policy.length}/5000`);
  await page.getByRole("button", { name: "Add Text" }).click();
  const textItem = page.getByTestId("list-text").getByTestId("source-item").filter({ hasText: "Returns policy" });
  await textItem.waitFor();
  await textItem.getByLabel("Completed").waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId("count-text").textContent(), "1");
  await textItem.getByRole("button", { name: /^Delete/ }).click();
  await page.getByText("No text sources yet").waitFor();
  assert.equal(await page.getByTestId("count-text").textContent(), "0");
  const listed = await api(base, "GET", `/api/bots/${botId}/sources`, { token: owner.token });
  assert.equal(listed.body.text.length, 0, "the text source is gone on the server");
  assert.equal(listed.body.qa.length, 1);

  // Start Training: a real retrain; the pair ends completed again.
  const before = listed.body.qa[0].updatedAt;
  await page.getByRole("button", { name: "Start Training" }).click();
  await page.getByText("Training started").waitFor();
  await until(async () => {
    const r = await api(base, "GET", `/api/bots/${botId}/sources`, { token: owner.token });
    return r.body.qa[0].updatedAt !== before && r.body.qa[0].status === "completed";
  }, "the retrain to re-index the Q&A pair", 20000);
  await page.getByRole("tab", { name: /Q&A Pairs/ }).click();
  await qaItem.getByLabel("Completed").waitFor({ timeout: 20000 });
  await noHorizontalOverflow(page, 1280);

  // Customize: palette, custom colours, welcome message; Save; reload; still there.
  await page.goto(`${base}/preview`);
  await page.getByText("Chat Customization").waitFor();
  await page.getByRole("button", { name: "Royal Purple" }).click();
  assert.equal(await page.getByRole("button", { name: "Royal Purple" }).getAttribute("aria-pressed"), "true");
  await page.getByLabel("Custom colors").check();
  await page.getByLabel("Primary color").fill("#123456");
  await page.getByLabel("Background color").fill("#fafafa");
  await page.getByRole("tab", { name: "Content" }).click();
  await page.getByLabel("Welcome message").fill("Hi! Ask me about our hours.");
  await page.getByTestId("test-chat-messages").getByText("Hi! Ask me about our hours.").waitFor();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Configuration saved successfully!").waitFor();

  const saved = await api(base, "GET", `/api/bots/${botId}`, { token: owner.token });
  assert.equal(saved.body.bot.welcomeMessage, "Hi! Ask me about our hours.");
  assert.equal(saved.body.bot.primaryColour, "#123456");
  assert.equal(saved.body.bot.isCustomColorMode, true);

  await page.reload();
  await page.getByText("Chat Customization").waitFor();
  assert.equal(await page.getByLabel("Custom colors").isChecked(), true);
  assert.equal(await page.getByLabel("Primary color").inputValue(), "#123456");
  await page.getByRole("tab", { name: "Content" }).click();
  assert.equal(await page.getByLabel("Welcome message").inputValue(), "Hi! Ask me about our hours.");

  // The test chat talks to the real bot: the answer from the Q&A pair appears.
  const box = page.getByLabel("Message", { exact: true });
  await box.fill(QUESTION);
  assert.equal(await page.getByTestId("test-chat-counter").textContent(), `${QUESTION.length}/500`);
  await box.press("Enter");
  await page.getByTestId("test-chat-messages").getByText(ANSWER, { exact: false }).waitFor({ timeout: 30000 });
  // The header names the bot and says it is there (spec 2 /preview: "the bot name, Online or Typing...").
  assert.equal(await page.getByTestId("test-chat-name").textContent(), "Helper");
  assert.equal(await page.getByTestId("test-chat-status").textContent(), "Online");

  // A second exchange makes five messages: the lead form opens, and Continue saves the lead at
  // once (leave-details as the conversation's visitor), with no further message sent.
  await box.fill(QUESTION);
  await box.press("Enter");
  await until(async () => (await page.getByTestId("test-chat-messages").getByText(ANSWER, { exact: false }).count()) === 2, "the second reply");
  const form = page.getByRole("dialog", { name: "Get Better Support" });
  await form.waitFor({ timeout: 10000 });
  await form.getByLabel("Name").fill("Tess Tester");
  await form.getByLabel("Email").fill("tess@shop.example");
  await form.getByRole("button", { name: "Continue" }).click();
  await form.waitFor({ state: "hidden" });
  const lead = await until(async () => {
    const found = await api(base, "GET", `/api/leads?botId=${botId}`, { token: owner.token });
    return found.body.leads?.find((l) => l.email === "tess@shop.example");
  }, "the lead saved from the test chat");
  assert.equal(lead.name, "Tess Tester");
  await noHorizontalOverflow(page, 1280);
  assert.deepEqual(errors, []);
  await page.context().close();

  // 390 px: both screens render without errors or overflow.
  const narrow = await signedInPage(390, owner.token, botId);
  await narrow.page.goto(`${base}/training`);
  await narrow.page.getByRole("button", { name: "Start Training" }).waitFor();
  await narrow.page.getByTestId("count-qa").getByText("1").waitFor();
  await noHorizontalOverflow(narrow.page, 390);
  await narrow.page.goto(`${base}/preview`);
  await narrow.page.getByText("Chat Customization").waitFor();
  await narrow.page.getByTestId("test-chat").waitFor();
  await noHorizontalOverflow(narrow.page, 390);
  assert.deepEqual(narrow.errors, []);
  await narrow.page.context().close();
});
