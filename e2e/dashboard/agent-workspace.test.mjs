// The agent workspace in real browsers (Debian's chromium through playwright-core) against the
// real server: a visitor on /chat asks for a human; an agent on /agent-dashboard gets the urgent
// entry (with its toast), takes it, talks with typing both ways, resolves with a rating and the
// visitor is back with the bot. Two agents: a take by one empties the other's queue. The /botchat
// inbox: the queue entry, Take, a composer message reaching the visitor. Both screens at 1280 px
// and 390 px with no console errors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startParley, api, signup, createBot, addToTeam, until, repo } from "../parley.mjs";
import { launchBrowser, signedInContext } from "../browser.mjs";

const built =
  existsSync(join(repo, "dashboard", "dist", "index.html")) && existsSync(join(repo, "widget", "dist", "chat.html"));
const skip = !built && "dashboard or widget not built (npm run build in dashboard/ and widget/)";
let server;
let browser;
let owner;
let ann;
let bob;
let botId;

before(async () => {
  if (!built) return;
  server = await startParley();
  browser = await launchBrowser();
  owner = await signup(server.base, "owner@shop.example", "Olive");
  ann = await signup(server.base, "ann@shop.example", "Ann");
  bob = await signup(server.base, "bob@shop.example", "Bob");
  botId = await createBot(server.base, owner.token, "Shop helper");
  await addToTeam(server.base, owner.token, botId, ann, "ann@shop.example", "agent");
  await addToTeam(server.base, owner.token, botId, bob, "bob@shop.example", "agent");
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A signed-in member's page: token and active bot in local storage before the app boots. */
async function memberPage(member, path, width = 1280) {
  const bot = (await api(server.base, "GET", `/api/bots/${botId}`, { token: member.token })).body.bot;
  const context = await signedInContext(browser, { token: member.token, bot, width });
  const page = await context.newPage();
  watch(page);
  await page.goto(`${server.base}${path}`);
  try {
    await page.getByTestId("agent-online").filter({ hasText: "Online" }).waitFor({ timeout: 15000 });
  } catch (e) {
    await page.screenshot({ path: `/tmp/agent-workspace-${member.name}-${width}.png` });
    throw new Error(`${member.name} not online on ${path} (now ${page.url()}): ${e.message}; errors ${page.errors}`);
  }
  return page;
}

function watch(page) {
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") page.errors.push(m.text());
  });
}

/** A visitor on the public chat page who asks for a human with contact details. */
async function visitorAsksForHuman(name, email) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  watch(page);
  await page.goto(`${server.base}/chat?id=${botId}`);
  const box = page.getByLabel("Type your message");
  for (const q of ["Do you ship abroad?", "What about returns?"]) {
    await box.fill(q);
    await box.press("Enter");
    await until(async () => (await page.getByRole("status", { name: "Assistant is typing" }).count()) === 0 && (await box.isEnabled()), "reply", 60000);
  }
  await page.getByRole("button", { name: "Talk to a human" }).click({ timeout: 15000 });
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Request Support" }).click();
  await page.getByText("Connecting you with a human agent...").waitFor();
  page.box = box;
  return page;
}

async function sessionsOfBot() {
  const r = await api(server.base, "GET", `/api/sessions?botId=${botId}`, { token: owner.token });
  return r.body.sessions;
}

test("agent dashboard: urgent request, take, live messages and typing both ways, resolve with a rating", { skip }, async () => {
  const agent = await memberPage(ann, "/agent-dashboard");
  await agent.getByText("Managing support for Shop helper").waitFor();
  await agent.getByText("No Session Selected").waitFor();
  await agent.getByText("No active support sessions").waitFor();
  // Real figures: no handoff answered and no rating yet.
  assert.match(await agent.getByTestId("tile-Satisfaction").innerText(), /—/);
  assert.match(await agent.getByTestId("tile-Avg Response").innerText(), /—/);

  const visitor = await visitorAsksForHuman("Vic", "vic@visitor.example");

  await agent.getByText("New Support Request").first().waitFor();
  await agent.getByText("A customer has requested human assistance").first().waitFor();
  const entry = agent.getByTestId("urgent-request");
  await entry.getByText("Urgent: Customer Requested Help").waitFor();
  await entry.getByText(/vic@visitor\.example/).waitFor();
  await agent.getByText("Urgent Support Requests (1)").waitFor();
  assert.equal(await agent.getByTestId("counter-In Queue").innerText().then((t) => t.split("\n")[0]), "1");

  await entry.getByRole("button", { name: "Take Session" }).click();
  await agent.getByText("Session Assigned").first().waitFor();
  await agent.getByText("Urgent Support Requests (0)").waitFor();
  await agent.getByText("My Active Sessions (1)").waitFor();
  await agent.getByTestId("my-session").getByText("Connected").waitFor();
  const chat = agent.getByRole("region", { name: "Live chat" });
  await chat.getByRole("heading", { name: "Vic" }).waitFor();
  await chat.getByText("vic@visitor.example").waitFor();
  await chat.getByText("Live chat with customer").waitFor();
  // The history came with the join: the visitor's earlier question is there.
  await chat.getByRole("log").getByText("Do you ship abroad?").waitFor();

  await visitor.getByRole("heading", { name: "Ann" }).waitFor();

  // Agent -> visitor: typing, then the message.
  const composer = chat.getByPlaceholder("Type your response...");
  const hello = "Hi Vic, Ann here. How can I help?";
  await composer.fill(hello);
  await chat.getByText(`${hello.length}/500`).waitFor();
  await visitor.getByRole("status", { name: "Agent is typing" }).waitFor();
  await composer.press("Enter");
  await visitor.getByRole("article", { name: "Ann" }).filter({ hasText: "Ann here" }).waitFor();
  await chat.getByRole("article", { name: "Ann" }).filter({ hasText: "Ann here" }).waitFor();
  assert.equal(await chat.getByRole("article", { name: "Ann" }).filter({ hasText: "Ann here" }).count(), 1, "shown once");
  assert.equal(await composer.inputValue(), "");
  // Empty text is not sent.
  await composer.fill("   ");
  assert.equal(await chat.getByRole("button", { name: "Send" }).isDisabled(), true);
  await composer.fill("");

  // Visitor -> agent: typing, then the message.
  await visitor.box.fill("My parcel is late");
  await chat.getByRole("status", { name: "Customer is typing..." }).waitFor();
  await visitor.box.press("Enter");
  await chat.getByRole("log").getByText("My parcel is late").waitFor();
  await until(async () => (await chat.getByRole("status", { name: "Customer is typing..." }).count()) === 0, "typing off");

  // A dropped connection: messages sent meanwhile are filled in once it is back, each once.
  await agent.context().setOffline(true);
  await chat.getByText("Disconnected").first().waitFor({ timeout: 60000 });
  await visitor.box.fill("Sent while you were away");
  await visitor.box.press("Enter");
  await visitor.getByRole("article", { name: /./ }).filter({ hasText: "Sent while you were away" }).first().waitFor();
  await agent.context().setOffline(false);
  await chat.getByText("Live chat with customer").waitFor({ timeout: 30000 });
  await chat.getByRole("log").getByText("Sent while you were away").waitFor();
  for (const text of ["Sent while you were away", "My parcel is late", "Do you ship abroad?"]) {
    assert.equal(await chat.getByRole("log").getByText(text, { exact: true }).count(), 1, `${text} once`);
  }
  assert.equal(await chat.getByRole("article", { name: "Ann" }).filter({ hasText: "Ann here" }).count(), 1, "no duplicate after reconnect");

  // The open chat fits a phone too.
  await agent.setViewportSize({ width: 390, height: 900 });
  await chat.getByText("Live chat with customer").waitFor();
  assert.ok((await agent.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)) <= 0, "no overflow at 390 px");
  await agent.setViewportSize({ width: 1280, height: 900 });

  // Resolve with 4 stars and a note.
  await chat.getByRole("button", { name: "Resolve", exact: true }).click();
  const dialog = agent.getByRole("dialog", { name: "Resolve Session" });
  await dialog.getByText("How would you rate this conversation?").waitFor();
  await dialog.getByText("Customer Satisfaction").waitFor();
  // The star (the radio's label) is what a person clicks.
  const fourId = await dialog.getByLabel("4 stars").getAttribute("id");
  await dialog.locator(`label[for="${fourId}"]`).click();
  assert.equal(await dialog.getByLabel("4 stars").isChecked(), true);
  await dialog.getByLabel("Resolution Notes").fill("Parcel re-sent");
  assert.equal(await dialog.getByPlaceholder("Any notes about this conversation...").count(), 1);
  await dialog.getByRole("button", { name: "Resolve Session" }).click();
  await agent.getByText("Session Resolved").first().waitFor();
  await agent.getByText("The customer conversation has been successfully closed").first().waitFor();
  await agent.getByText("My Active Sessions (0)").waitFor();
  await agent.getByText("No Session Selected").waitFor();
  await until(async () => (await agent.getByTestId("counter-Resolved Today").innerText()).startsWith("1"), "resolved today 1");
  await until(async () => /4\.0\/5/.test(await agent.getByTestId("tile-Satisfaction").innerText()), "satisfaction from the rating");

  // The visitor is back with the bot, with the resolved note.
  await visitor.getByRole("article", { name: "System" }).filter({ hasText: "resolved" }).waitFor();
  await visitor.getByRole("heading", { name: "Shop helper" }).waitFor();

  const sessions = await sessionsOfBot();
  const done = sessions.find((s) => s.customerEmail === "vic@visitor.example");
  assert.equal(done.status, "resolved", JSON.stringify(done));
  assert.equal(done.rating, 4);
  // The agent's notes are the team's, kept apart from the visitor's own feedback.
  assert.equal(done.resolutionNotes, "Parcel re-sent");
  assert.equal(done.feedback, null);
  assert.equal(done.resolvedBy, "Ann");

  // The agent's /sessions list shows it resolved.
  await agent.goto(`${server.base}/sessions`);
  const row = agent.getByTestId("session-row").filter({ has: agent.getByTestId("session-title").getByText(done.title, { exact: true }) });
  await row.getByTestId("status-dot").and(agent.locator('[data-status="resolved"]')).waitFor();
  await row.getByText("resolved", { exact: true }).waitFor();

  // Only the browser's own reports of the offline spell above.
  assert.deepEqual(agent.errors.filter((e) => !/ERR_INTERNET_DISCONNECTED/.test(e)), []);
  assert.deepEqual(visitor.errors, []);
  await agent.context().close();
  await visitor.context().close();
});

test("two agents: a take by one removes the request from the other's queue at once", { skip }, async () => {
  const a = await memberPage(ann, "/agent-dashboard");
  const b = await memberPage(bob, "/agent-dashboard");
  const visitor = await visitorAsksForHuman("Wes", "wes@visitor.example");
  for (const p of [a, b]) await p.getByTestId("urgent-request").filter({ hasText: "wes@visitor.example" }).waitFor();

  await b.getByTestId("urgent-request").filter({ hasText: "wes@visitor.example" }).getByRole("button", { name: "Take Session" }).click();
  await b.getByText("Session Assigned").first().waitFor();
  await until(async () => (await a.getByTestId("urgent-request").filter({ hasText: "wes@visitor.example" }).count()) === 0, "gone from Ann's queue");
  assert.equal(await a.getByTestId("my-session").filter({ hasText: "wes@visitor.example" }).count(), 0, "not Ann's");
  await visitor.getByRole("heading", { name: "Bob" }).waitFor();

  // Any agent can join an open session: it leaves Ann's all-sessions list for her own.
  const joinable = a.getByTestId("open-session").filter({ hasText: "wes@visitor.example" });
  await joinable.waitFor();
  await joinable.getByRole("button", { name: "Join Chat" }).click();
  await a.getByText("Session Joined").first().waitFor();
  await a.getByText("You are now connected to the customer").first().waitFor();
  await a.getByTestId("my-session").filter({ hasText: "wes@visitor.example" }).waitFor();
  assert.equal(await a.getByTestId("my-session").filter({ hasText: "wes@visitor.example" }).getByText("Connected").count(), 0, "joined, not taken");
  assert.equal(await joinable.count(), 0);
  await a.getByRole("region", { name: "Live chat" }).getByRole("heading", { name: "Wes" }).waitFor();

  // Bob resolves through the dashboard with the default 5 stars.
  const chat = b.getByRole("region", { name: "Live chat" });
  await chat.getByRole("button", { name: "Resolve", exact: true }).click();
  await b.getByRole("dialog", { name: "Resolve Session" }).getByRole("button", { name: "Resolve Session" }).click();
  await b.getByText("Session Resolved").first().waitFor();
  const s = (await sessionsOfBot()).find((x) => x.customerEmail === "wes@visitor.example");
  assert.equal(s.status, "resolved");
  assert.equal(s.rating, 5, "rating defaults to 5");
  // Resolved for everyone: gone from Ann's sessions too, with the note in her open chat.
  await until(async () => (await a.getByTestId("my-session").filter({ hasText: "wes@visitor.example" }).count()) === 0, "gone from Ann's sessions");

  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  for (const p of [a, b, visitor]) await p.context().close();
});

test("botchat: the queue entry shows, Take works, a composer message reaches the visitor", { skip }, async () => {
  const inbox = await memberPage(owner, "/botchat");
  const visitor = await visitorAsksForHuman("Zoe", "zoe@visitor.example");

  const queue = inbox.getByRole("region", { name: "Support Queue" });
  await queue.getByText("Support Queue (1)").waitFor();
  await inbox.getByText("New support request from customer").first().waitFor();
  await queue.getByRole("button", { name: /^Take/ }).click();
  await inbox.getByText("Session assigned successfully").first().waitFor();
  await until(async () => (await inbox.getByRole("region", { name: "Support Queue" }).count()) === 0, "queue panel gone when empty");

  const conv = inbox.getByRole("region", { name: "Conversation" });
  await conv.getByText("Live Session").waitFor();
  await conv.getByText("Shop helper - Human Support").waitFor();
  await visitor.getByRole("heading", { name: "Olive" }).waitFor();

  const composer = conv.getByRole("textbox", { name: "Message", exact: true });
  await composer.fill("Hello Zoe,");
  await composer.press("Shift+Enter");
  await composer.pressSequentially("Olive from the inbox here");
  assert.equal(await composer.inputValue(), "Hello Zoe,\nOlive from the inbox here");
  await composer.press("Enter");
  await visitor.getByRole("article", { name: "Olive" }).filter({ hasText: "Olive from the inbox here" }).waitFor();

  // Priority saves at once.
  await conv.getByRole("textbox", { name: "Priority" }).click();
  await inbox.getByRole("option", { name: "Urgent" }).click();
  await until(async () => (await sessionsOfBot()).find((x) => x.customerEmail === "zoe@visitor.example")?.priority === "urgent", "priority saved");

  // Inline edit of a bot message: never empty, saved for real.
  const botMessage = conv.getByRole("article", { name: "Shop helper" }).first();
  await botMessage.getByRole("button", { name: "Edit message" }).click();
  const edit = conv.getByRole("textbox", { name: "Edit message" });
  await edit.fill("   ");
  assert.equal(await conv.getByRole("button", { name: "Save" }).isDisabled(), true, "empty refused");
  await edit.fill("We do ship abroad.");
  await conv.getByRole("button", { name: "Save" }).click();
  await conv.getByRole("article", { name: "Shop helper" }).filter({ hasText: "We do ship abroad." }).waitFor();
  const zoeId = (await sessionsOfBot()).find((x) => x.customerEmail === "zoe@visitor.example")._id;
  const full = await api(server.base, "GET", `/api/chat/get-chat-session/${zoeId}`, { token: owner.token });
  assert.ok(full.body.session.messages.some((m) => m.role === "bot" && m.content === "We do ship abroad."), "edit saved");

  // Mark Resolved with the default rating.
  await conv.getByRole("button", { name: "Mark Resolved" }).click();
  const dialog = inbox.getByRole("dialog", { name: "Mark Resolved" });
  await dialog.getByText("Satisfaction Rating").waitFor();
  await dialog.getByLabel("Feedback").fill("Sorted in the inbox");
  await dialog.getByRole("button", { name: "Mark Resolved" }).click();
  await until(async () => (await sessionsOfBot()).find((x) => x.customerEmail === "zoe@visitor.example")?.status === "resolved", "resolved");
  await visitor.getByRole("article", { name: "System" }).filter({ hasText: "resolved" }).waitFor();

  // Delete, with its toasts.
  await inbox.getByRole("button", { name: /^Delete / }).first().click();
  await inbox.getByText("Session Deleted").first().waitFor();
  await inbox.getByText("The conversation has been permanently removed").first().waitFor();

  assert.deepEqual(inbox.errors, []);
  await inbox.context().close();
  await visitor.context().close();
});

test("both screens render at 390 px and 1280 px without console errors or hidden controls", { skip }, async () => {
  for (const width of [390, 1280]) {
    for (const path of ["/agent-dashboard", "/botchat"]) {
      const page = await memberPage(owner, path, width);
      await page.waitForLoadState("networkidle");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${path} at ${width}px overflows by ${overflow}px`);
      assert.deepEqual(page.errors, [], `${path} at ${width}px`);
      await page.context().close();
    }
  }
});
