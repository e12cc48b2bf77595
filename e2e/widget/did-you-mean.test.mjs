// "Did you mean" in a real browser (Debian's chromium through playwright-core) against the real
// server and the real embedding model: a bot trained with a few Q&A pairs gets a question near
// one of them but under the answer bar; the chat shows the pairs' questions as chips under the
// bot's "not sure" reply, they survive a reload, and a click asks that question and gets the
// pair's answer.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startParley, api, signup, createBot, until, repo } from "../parley.mjs";
import { launchBrowser } from "../browser.mjs";

const built = existsSync(join(repo, "widget", "dist", "chat.html"));
const model = existsSync(join(repo, "data", "models", "all-MiniLM-L6-v2", "model.safetensors"));
const skip = (!built && "widget not built (npm run build in widget/)") || (!model && "no embedding model (scripts/fetch-model.sh)");

const PAIRS = [
  ["Which payment methods do you accept?", "Visa, Mastercard, American Express, PayPal and Apple Pay."],
  ["How long does delivery take?", "Standard delivery takes 3 to 5 working days within the UK."],
  ["What is your returns policy?", "You can return unworn items within 30 days for a full refund."],
  ["Do you offer gift wrapping?", "Yes, gift wrapping is free on every order."],
];
// A visitor's wording of the returns pair that the model scores just under the Q&A bar (0.46).
const NEAR = "Can I send something back?";

let server;
let browser;
let botId;

before(async () => {
  if (skip) return;
  server = await startParley();
  browser = await launchBrowser();
  const owner = await signup(server.base, "owner@shop.example", "Olive");
  botId = await createBot(server.base, owner.token, "Shop helper");
  for (const [question, answer] of PAIRS) {
    const r = await api(server.base, "POST", `/api/bots/${botId}/sources/qa`, { token: owner.token, body: { question, answer } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  await until(async () => {
    const r = await api(server.base, "GET", `/api/bots/${botId}/sources`, { token: owner.token });
    return r.body?.qa?.length === PAIRS.length && r.body.qa.every((s) => s.status === "completed");
  }, "training", 30000);
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test("a near question gets did-you-mean chips; they survive a reload, and a click asks it", { skip }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${server.base}/chat?id=${botId}`);
  const box = page.getByLabel("Type your message");
  await box.fill(NEAR);
  await box.press("Enter");
  const chips = page.getByRole("group", { name: "Did you mean" });
  await chips.waitFor({ timeout: 15000 });
  const reply = page.getByRole("article", { name: "Shop helper" }).filter({ has: chips });
  assert.match(await reply.innerText(), /not sure I understood/);
  const chip = chips.getByRole("button", { name: PAIRS[2][0] });
  assert.ok(await chip.isEnabled());

  // The conversation is kept: after a reload the chips are still there and still ask.
  await page.reload();
  await chips.waitFor({ timeout: 15000 });
  await chip.click();
  await page.getByRole("article", { name: "You" }).filter({ hasText: PAIRS[2][0] }).waitFor();
  // The streamed bubble and the saved message briefly both match; the saved one replaces it.
  const answer = page.getByRole("article", { name: "Shop helper" }).filter({ hasText: PAIRS[2][1] });
  await answer.last().waitFor({ timeout: 15000 });
  await until(async () => (await answer.count()) === 1, "one answer bubble");
  // The visitor moved on: the old chips no longer ask.
  assert.equal(await chip.isDisabled(), true);
  assert.deepEqual(errors, []);
  await page.close();
});
