// Entry of dist/widget.js: <script src="{server}/widget.js" data-bot-id="..." data-theme="light" async>
import { mount, optionsFromScript, type LauncherOptions } from './launcher';

const script =
  (document.currentScript as HTMLScriptElement | null) ??
  document.querySelector<HTMLScriptElement>('script[data-bot-id][src*="widget.js"]');
const options = optionsFromScript(script);

function start(o: LauncherOptions) {
  const launcher = mount(o);
  // The bot's look; a site the bot does not allow gets a refusal, and the launcher goes away.
  fetch(`${o.origin}/api/bots/${encodeURIComponent(o.botId)}/theme`)
    .then((r) => (r.status === 403 ? (launcher.destroy(), null) : r.ok ? r.json() : null))
    .then((look) => look && launcher.apply(look))
    .catch(() => console.warn('[Parley] could not load the chat look; using defaults'));
}

if (!options) {
  console.warn('[Parley] widget.js needs a data-bot-id attribute on its script tag.');
} else if (document.body) {
  start(options);
} else {
  document.addEventListener('DOMContentLoaded', () => start(options));
}
