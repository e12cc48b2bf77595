// The /teams screen in a real browser (Debian chromium) against the real server and real mail on
// loopback (maildev): the owner invites by email on /teams, the mail arrives, the invitee (signed
// in, verified) follows its link, sees the confirmation naming the bot and the inviter, accepts;
// the owner sees the member active, changes the role, removes the member, and the member's access
// is gone. A viewer's Customize, Training and Bot Settings offer no edit action (and the server
// refuses them anyway). A pending invitation is resent (a second mail) and revoked (its link dies).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startParley, repo, api, signup, createBot, waitForMail, mailsTo, linkIn, until } from "../parley.mjs";
import { launchBrowser } from "../browser.mjs";

const BOT = "Harbour Help";
let server;
let browser;

before(async () => {
  // scripts/test.sh builds the dashboard before the e2e suite: a missing build is a failure here.
  assert.ok(existsSync(join(repo, "dashboard", "dist", "index.html")), "dashboard not built (npm run build in dashboard/)");
  server = await startParley();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A browser page signed in as `token` (optionally with `botId` active); page errors collected. */
async function pageAs(token, botId) {
  const bot = botId ? (await api(server.base, "GET", `/api/bots/${botId}`, { token })).body.bot : null;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(
    ([t, b]) => {
      if (!localStorage.getItem("authToken")) {
        localStorage.setItem("authToken", t);
        if (b) localStorage.setItem("root", JSON.stringify({ bots: { bots: [b], activeBotId: b._id } }));
      }
    },
    [token, bot],
  );
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return { page, errors, context };
}

const row = (page, email) => page.locator(`[data-testid="team-member"][data-email="${email}"]`);
const toast = (page, text) => page.locator(".mantine-Notification-root").filter({ hasText: text }).first();

/** The invitee's role on the bot as GET /api/bots says (null: not on the team). */
async function roleOf(token, botId) {
  const r = await api(server.base, "GET", "/api/bots", { token });
  assert.equal(r.status, 200);
  return r.body.bots.find((b) => b._id === botId)?.role ?? null;
}

test("invite on /teams → mail → link → confirm → accept → role changed → removed → access gone; a viewer edits nothing", async () => {
  const base = server.base;
  const owner = await signup(base, "owner@harbour.example", "Olive Owner");
  const botId = await createBot(base, owner.token, BOT, "Boats leave the harbour at 9am.");
  const grace = await signup(base, "grace@harbour.example", "Grace");

  // The owner invites Grace as an editor from the Invite Member modal.
  const { page: op, errors: ownerErrors } = await pageAs(owner.token, botId);
  await op.goto(`${base}/teams`);
  await op.getByRole("heading", { name: "Team Management" }).waitFor();
  await op.getByRole("link", { name: /Back to Dashboard/ }).waitFor();
  await op.getByText("No team members").waitFor();
  assert.equal(await row(op, "owner@harbour.example").getByText("Owner", { exact: true }).count(), 1, "the owner's row has the Owner badge");
  await op.getByRole("button", { name: "Invite First Member" }).click();
  const modal = op.getByRole("dialog", { name: "Invite Member" });
  await modal.getByRole("button", { name: "Send Invitation" }).click();
  await modal.getByText("Email address is required").waitFor();
  await modal.getByLabel("Email Address").fill("grace@harbour.example");
  await modal.getByRole("textbox", { name: "Role" }).click();
  for (const label of ["Administrator", "Editor", "Viewer", "Support Agent"]) {
    await modal.getByRole("option", { name: label }).waitFor();
  }
  await modal.getByRole("option", { name: "Editor" }).click();
  await modal.getByRole("button", { name: "Send Invitation" }).click();
  await modal.getByText("Invitation sent successfully!").waitFor();
  await toast(op, "Team member invited successfully").waitFor();
  await modal.waitFor({ state: "detached", timeout: 5000 }); // closes after 1.5 s
  await row(op, "grace@harbour.example").getByText("Pending").waitFor();

  // The mail arrives at maildev, with the link of the spec's route.
  const mail = await waitForMail("grace@harbour.example", { base, subject: "invited you", text: `botId=${botId}` });
  const link = linkIn(mail, `${base}/teams?action=accept`);
  assert.equal(link.searchParams.get("action"), "accept");
  assert.ok(link.searchParams.get("memberId") && link.searchParams.get("token"));

  // Grace, signed in and verified, follows it: the confirmation names the bot and the inviter.
  const { page: gp, errors: graceErrors } = await pageAs(grace.token);
  await gp.goto(link.toString());
  const confirm = gp.getByTestId("invitation-confirm");
  await confirm.waitFor();
  const text = (await confirm.textContent()).replace(/\s+/g, " ");
  assert.match(text, /Olive Owner invited you to join Harbour Help as Editor/);
  assert.equal(await roleOf(grace.token, botId), null, "nothing is joined before Accept");
  await gp.getByRole("button", { name: "Accept Invitation" }).click();
  await toast(gp, "Invitation accepted successfully!").waitFor();
  await gp.waitForURL((u) => u.pathname === "/teams" && u.search === "");
  await gp.getByRole("heading", { name: "Team Management" }).waitFor();
  assert.equal(await roleOf(grace.token, botId), "editor");
  // An editor may look at the team but not manage it.
  await row(gp, "grace@harbour.example").waitFor();
  assert.equal(await gp.getByRole("button", { name: "Invite Member" }).count(), 0);
  assert.equal(await gp.getByRole("button", { name: /^(Edit|Remove) / }).count(), 0);

  // The owner sees Grace active, with her chips; changes her role to viewer.
  await op.reload();
  const graceRow = row(op, "grace@harbour.example");
  await graceRow.getByTestId("member-chips").waitFor();
  assert.equal(await graceRow.getByText("Pending").count(), 0);
  assert.equal(await graceRow.getByTestId("member-role").textContent(), "Editor");
  await op.getByRole("button", { name: "Edit Grace" }).click();
  await op.getByRole("textbox", { name: "Role for Grace" }).click();
  await op.getByRole("option", { name: "Viewer" }).click();
  await op.getByRole("button", { name: "Save role" }).click();
  await toast(op, "Team member updated successfully").waitFor();
  await until(async () => (await graceRow.getByTestId("member-role").textContent()) === "Viewer", "the Viewer badge");
  assert.equal(await roleOf(grace.token, botId), "viewer");

  // As a viewer, Grace's Customize, Training and Bot Settings offer no edit action.
  await gp.goto(`${base}/dashboard`);
  await until(async () => (await gp.getByTestId("bot-card").count()) === 1, "Grace's bot card");
  await gp.goto(`${base}/preview`);
  await gp.getByTestId("read-only-notice").waitFor();
  // Her sidebar says so before she opens a screen: each one she may only look at is marked.
  for (const screen of ["botchat", "preview", "training", "sessions", "agent-dashboard", "teams", "bot-settings"]) {
    await gp.getByTestId(`view-only-${screen}`).waitFor();
  }
  assert.equal(await gp.getByText("View only", { exact: true }).count(), 7, "Analytics, Leads and Integrations are for reading anyway");
  const editor = gp.getByTestId("customize-editor");
  await editor.waitFor();
  assert.equal(await gp.getByRole("button", { name: "Save", exact: true }).count(), 0, "no Save on Customize");
  assert.equal(await gp.getByRole("button", { name: "Reset", exact: true }).count(), 0, "no Reset on Customize");
  const controls = editor.locator('input, textarea, button:not([role="tab"])');
  assert.ok((await controls.count()) > 3);
  for (const c of await controls.all()) assert.ok(await c.isDisabled(), "every Customize control is disabled");

  await gp.goto(`${base}/training`);
  await gp.getByRole("tab", { name: /Text Sources/ }).click();
  await gp.getByTestId("read-only-notice").waitFor();
  await gp.getByTestId("source-item").first().waitFor();
  assert.equal(await gp.getByRole("button", { name: "Start Training" }).count(), 0, "no Start Training");
  assert.equal(await gp.getByRole("button", { name: /^Delete / }).count(), 0, "no delete on sources");
  assert.equal(await gp.getByRole("button", { name: /^Add / }).count(), 0, "no add forms");

  await gp.goto(`${base}/bot-settings`);
  const size = gp.getByLabel(/^Maximum Chat Text Size/);
  await until(async () => (await size.inputValue()) === "1000", "the settings");
  assert.ok(await size.isDisabled(), "the size is read-only");
  assert.ok(await gp.getByLabel("Website URL").isDisabled(), "the whitelist is read-only");
  assert.equal(await gp.getByRole("button", { name: "Save Settings" }).count(), 0, "no Save Settings");
  // What the screen hides, the server refuses.
  const refused = await api(base, "PUT", `/api/bots/${botId}/settings`, { token: grace.token, body: { maxChatTextSize: 2000, urlWhitelist: [] } });
  assert.equal(refused.status, 403);

  // The owner removes Grace after confirming; her access is gone.
  await op.getByRole("button", { name: "Remove Grace" }).click();
  const dialog = op.getByRole("dialog", { name: "Remove team member" });
  await dialog.getByRole("button", { name: "Remove", exact: true }).click();
  await toast(op, "Team member removed successfully").waitFor();
  await graceRow.waitFor({ state: "detached" });
  assert.equal((await api(base, "GET", `/api/bots/${botId}`, { token: grace.token })).status, 404);
  assert.equal(await roleOf(grace.token, botId), null);
  await gp.goto(`${base}/teams`);
  await gp.getByText("No bot selected").waitFor();
  await gp.getByRole("link", { name: "Go to Dashboard" }).waitFor();

  assert.deepEqual(ownerErrors, []);
  assert.deepEqual(graceErrors, []);
});

test("a pending invitation is resent (a second mail) and revoked (its link no longer works)", async () => {
  const base = server.base;
  const owner = await signup(base, "owner2@harbour.example", "Oscar");
  const botId = await createBot(base, owner.token, "Ferry Desk");
  const { page } = await pageAs(owner.token, botId);
  await page.goto(`${base}/teams`);
  await page.getByRole("button", { name: "Invite Member" }).click();
  const modal = page.getByRole("dialog", { name: "Invite Member" });
  await modal.getByLabel("Email Address").fill("linus@harbour.example");
  await modal.getByRole("button", { name: "Send Invitation" }).click();
  await toast(page, "Team member invited successfully").waitFor();
  const first = await waitForMail("linus@harbour.example", { base, text: `botId=${botId}` });
  const firstLink = linkIn(first, `${base}/teams?action=accept`);

  const pending = row(page, "linus@harbour.example");
  await pending.getByRole("button", { name: /Resend/ }).click();
  await toast(page, "Team member updated successfully").waitFor();
  await until(async () => (await mailsTo("linus@harbour.example")).filter((m) => (m.text ?? "").includes(`botId=${botId}`)).length === 2, "a second invitation mail");

  await pending.getByRole("button", { name: "Revoke" }).click();
  const dialog = page.getByRole("dialog", { name: "Revoke invitation" });
  await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
  await toast(page, "Team member removed successfully").waitFor();
  await pending.waitFor({ state: "detached" });
  await page.getByText("No team members").waitFor();

  const q = firstLink.searchParams;
  const preview = await api(base, "GET", `/api/team/accept-invitation?botId=${q.get("botId")}&memberId=${q.get("memberId")}&token=${q.get("token")}`);
  assert.equal(preview.status, 404, JSON.stringify(preview.body));
});
