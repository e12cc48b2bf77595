// Captures the product screenshots the landing page shows when PARLEY_DEMO_BOT=off
// (dashboard/public/landing/dashboard.png and chat.png) from a real server and real data:
//   (cd dashboard && npm run build) && (cd widget && npm run build) && node e2e/tools/landing-images.mjs
// then rebuild the dashboard so dist/ carries them.
import { join } from "node:path";
import { startParley, repo, signup, createBot, api, until } from "../parley.mjs";
import { launchBrowser, signedInContext } from "../browser.mjs";

const out = join(repo, "dashboard", "public", "landing");
const server = await startParley();
const browser = await launchBrowser();
try {
  const owner = await signup(server.base, "owner@lisbon-bikes.example", "Rita");
  const botId = await createBot(
    server.base,
    owner.token,
    "Lisbon Bikes",
    "We repair bicycles in Lisbon, Monday to Saturday from 9am to 7pm. Every frame we sell carries a lifetime warranty. A standard service costs 45 euros and takes one day.",
  );
  await until(async () => (await api(server.base, "GET", `/api/bots/${botId}/sources`, { token: owner.token })).body.text?.every((s) => s.status === "completed"), "training", 30000);
  const questions = ["When are you open?", "Is there a warranty on frames?", "How much is a service?", "Do you rent e-bikes?", "How long does a service take?"];
  for (const [i, message] of questions.entries()) {
    const r = await api(server.base, "POST", "/api/chat", { body: { botId, message } });
    if (i < 3) await api(server.base, "PUT", `/api/chat/session/${r.body.sessionId}/resolve`, { token: owner.token, body: { rating: 5 - (i % 2), feedback: "" } });
  }
  const bot = (await api(server.base, "GET", `/api/bots/${botId}`, { token: owner.token })).body.bot;
  const context = await signedInContext(browser, { token: owner.token, bot, width: 1280, height: 1000 });
  const page = await context.newPage();
  await page.goto(`${server.base}/stats`);
  await page.getByLabel("Conversations and messages").locator(".recharts-surface").first().waitFor({ timeout: 15000 });
  await page.waitForTimeout(800);
  await page.getByLabel("Charts").screenshot({ path: join(out, "dashboard.png") });

  const chat = await browser.newPage({ viewport: { width: 420, height: 640 } });
  await chat.goto(`${server.base}/chat?id=${botId}`);
  await chat.getByLabel("Type your message").fill("Is there a warranty on frames?");
  await chat.getByLabel("Type your message").press("Enter");
  await chat.getByRole("article", { name: "Lisbon Bikes" }).filter({ hasText: "lifetime warranty" }).waitFor({ timeout: 15000 });
  await chat.waitForTimeout(500);
  await chat.screenshot({ path: join(out, "chat.png") });
  console.log(`wrote ${out}/dashboard.png and chat.png`);
} finally {
  await browser.close();
  await server.stop();
  process.exit(0);
}
