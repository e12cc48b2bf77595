// Entry of dist/widget.js: <script src="{server}/widget.js" data-bot-id="..." data-theme="light" async>
import { mount, optionsFromScript } from './launcher';

const script =
  (document.currentScript as HTMLScriptElement | null) ??
  document.querySelector<HTMLScriptElement>('script[data-bot-id][src*="widget.js"]');
const options = optionsFromScript(script);

if (!options) {
  console.warn('[Parley] widget.js needs a data-bot-id attribute on its script tag.');
} else if (document.body) {
  mount(options);
} else {
  document.addEventListener('DOMContentLoaded', () => mount(options));
}
