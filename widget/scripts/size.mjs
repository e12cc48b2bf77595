// Prints the visitor-side JavaScript, gzipped, and fails the build above budget: widget.js loads
// on every page of a customer's site, and the chat page in its iframe when a visitor opens it.
// Run by `npm run build` after both Vite builds.
//
// The chat page's initial JS is its entry chunk plus the entry's static imports, read from Vite's
// manifest; lazy chunks (socket.io-client, fetched when a conversation starts) are listed but not
// counted. Sizes are gzip at zlib's default level, in kB of 1000 bytes, as Vite prints them.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = { chat: 35, widget: 3 };

const dist = new URL('../dist/', import.meta.url);
const size = (file) => {
  const raw = readFileSync(new URL(file, dist));
  return { raw: raw.length, gz: gzipSync(raw).length };
};
const kb = (bytes) => (bytes / 1000).toFixed(2);

const manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8'));

/** A manifest key's chunk and every chunk it imports statically (what loads with it). */
function closure(key, into = new Set()) {
  const chunk = manifest[key];
  if (into.has(chunk.file)) return into;
  into.add(chunk.file);
  for (const imported of chunk.imports ?? []) closure(imported, into);
  return into;
}

const initial = closure('chat.html');
console.log('chat page JS chunks, gzipped:');
for (const c of Object.values(manifest).filter((c) => c.file.endsWith('.js'))) {
  const s = size(c.file);
  console.log(`  ${kb(s.gz).padStart(6)} kB  ${c.file} (${kb(s.raw)} kB raw)${initial.has(c.file) ? '' : ', loaded on demand'}`);
}

let over = false;
const report = (label, gz, budget) => {
  const ok = gz <= budget * 1000;
  over ||= !ok;
  console.log(`${label}: ${kb(gz)} kB gzipped (budget ${budget} kB)${ok ? '' : '  OVER BUDGET'}`);
};
report('chat page initial JS', [...initial].reduce((sum, f) => sum + size(f).gz, 0), BUDGET_KB.chat);
report('widget.js', size('widget.js').gz, BUDGET_KB.widget);
if (over) {
  console.error('The visitor-side JavaScript is over budget (widget/scripts/size.mjs).');
  process.exit(1);
}
