// Debian's chromium through playwright-core, with the flags this machine's closed network needs,
// and a signed-in browser context for dashboard tests.
import { chromium } from "playwright-core";

/** Chromium headless (CHROMIUM overrides its path). */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

/**
 * A context signed in as `token` with `bot` (the bot as GET /api/bots/{id} returns it) active,
 * put in local storage before the app boots (only once, so a sign-out in the test sticks).
 */
export async function signedInContext(browser, { token, bot, width = 1280, height = 900 }) {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addInitScript(
    ([t, b]) => {
      if (!localStorage.getItem("authToken")) {
        localStorage.setItem("authToken", t);
        localStorage.setItem("root", JSON.stringify({ bots: { bots: [b], activeBotId: b._id } }));
      }
    },
    [token, bot],
  );
  return context;
}
