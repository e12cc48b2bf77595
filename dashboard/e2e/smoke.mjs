// Browser smoke test of the built dashboard (run `npm run build` first): sign up, land on My Bots,
// create a bot through the wizard, see its real id in the code, open the share dialog, sign out.
// Drives Debian's chromium through playwright-core (CHROMIUM overrides the path).
import { chromium } from 'playwright-core';
import { startMockServer } from './mock-server.mjs';

const server = await startMockServer();
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium' });
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => errors.push(e.message));
  const step = (s) => console.log(`- ${s}`);

  await page.goto(`${base}/stats`);
  await page.waitForURL('**/login');
  step('signed-out /stats -> /login');

  await page.getByRole('link', { name: 'Sign up' }).click();
  await page.getByLabel(/^Email/).fill('ada@example.com');
  await page.getByLabel(/^Password/).fill('secret-one');
  await page.getByLabel(/^Confirm Password/).fill('secret-two');
  await page.getByText('Passwords do not match').waitFor();
  await page.getByLabel(/^Confirm Password/).fill('secret-one');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('Account created').waitFor();
  await page.waitForURL('**/dashboard');
  step('sign-up -> /dashboard');

  await page.getByText('Credits').waitFor();
  if ((await page.getByTestId('credits').textContent()) !== '88') throw new Error('credits not from /api/me');

  await page.getByRole('button', { name: 'New Bot' }).click();
  await page.getByText('Step 1 of 4').waitFor();
  await page.getByLabel(/^Assistant Name/).fill('Helper');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: /Skip/ }).click();
  await page.getByText('Step 2 of 3').waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.getByText('Bot Created Successfully').waitFor();
  await page.getByText('Step 3 of 3').waitFor();
  const snippet = await page.getByTestId('snippet-react').textContent();
  if (!/bot-\d+/.test(snippet ?? '')) throw new Error(`snippet without the real id: ${snippet}`);
  await page.getByRole('button', { name: 'Done' }).click();
  step('wizard created a bot; snippet holds its id');

  await page.getByTestId('bot-card').getByRole('button', { name: 'Share' }).click();
  const url = await page.getByLabel('Public chat link').inputValue();
  if (!/\/chat\?id=bot-\d+$/.test(url)) throw new Error(`share url: ${url}`);
  await page.keyboard.press('Escape');
  step(`share dialog: ${url.replace(base, '')}`);

  await page.getByRole('button', { name: 'Sign Out' }).click();
  await page.waitForURL('**/login');
  step('sign out -> /login');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  console.log('smoke: ok');
} finally {
  await browser.close();
  server.close();
}
