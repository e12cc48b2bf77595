// Prints the dashboard's JavaScript, gzipped, and fails the build when a budget is exceeded.
// Run by `npm run build` after `vite build` (which writes dist/.vite/manifest.json).
//
// - The initial JS: the entry chunk and its static imports, which every screen loads before it
//   draws anything. Budget 150 kB.
// - A first screen: the initial JS plus the lazy chunks of the screen's route modules and their
//   static imports. /login is held to 150 kB. /dashboard (the shell with its menus and the bot
//   list) is above that today; it is printed, not enforced (README, "Web app sizes").
// Everything is read from Vite's manifest. Sizes are gzip at zlib's default level, in kB of 1000
// bytes, as Vite prints them.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 150;

/** The first screens a user can land on, by the route modules React.lazy loads for them. */
const SCREENS = {
  '/login': { modules: ['src/app/routes/login.tsx'], enforced: true },
  // With bots, the list then fetches the cards' sparklines.
  '/dashboard': {
    modules: ['src/app/layout/Shell.tsx', 'src/app/routes/my-bots.tsx', 'src/features/analytics/components/BotSparkline.tsx'],
    enforced: false,
  },
};

const dist = new URL('../dist/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8'));

const sizes = new Map();
function gzipped(file) {
  if (!sizes.has(file)) sizes.set(file, { raw: readFileSync(new URL(file, dist)).length, gz: gzipSync(readFileSync(new URL(file, dist))).length });
  return sizes.get(file);
}
const kb = (bytes) => (bytes / 1000).toFixed(2).padStart(7);

/** A manifest key's chunk and every chunk it imports statically (what loads with it). */
function closure(key, into = new Set()) {
  const chunk = manifest[key];
  if (!chunk) throw new Error(`${key} is not a chunk in Vite's manifest: is it still lazy-loaded? (update SCREENS in scripts/size.mjs)`);
  if (into.has(chunk.file)) return into;
  into.add(chunk.file);
  for (const imported of chunk.imports ?? []) closure(imported, into);
  return into;
}
const total = (files) => [...files].reduce((sum, f) => sum + gzipped(f).gz, 0);

const chunks = Object.values(manifest)
  .map((c) => c.file)
  .filter((f, i, all) => f.endsWith('.js') && all.indexOf(f) === i)
  .sort((a, b) => gzipped(b).gz - gzipped(a).gz);
console.log(`dashboard: ${chunks.length} JS chunks, gzipped (kB):`);
for (const f of chunks) console.log(`  ${kb(gzipped(f).gz)}  ${f}  (${kb(gzipped(f).raw).trim()} raw)`);

const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
const entry = closure(entryKey);
const failures = [];
const report = (label, files, enforced) => {
  const gz = total(files);
  const over = gz > BUDGET_KB * 1000;
  if (over && enforced) failures.push(label);
  const verdict = !over ? `budget ${BUDGET_KB} kB` : enforced ? `OVER the ${BUDGET_KB} kB budget` : `above ${BUDGET_KB} kB, not enforced`;
  console.log(`${label}: ${kb(gz).trim()} kB gzipped in ${files.size} chunks (${verdict})`);
};
report('initial JS (entry + static imports)', entry, true);
for (const [path, { modules, enforced }] of Object.entries(SCREENS)) {
  const files = new Set(entry);
  for (const m of modules) closure(m, files);
  report(`first screen ${path} (initial JS + its lazy chunks)`, files, enforced);
}
if (failures.length) {
  console.error(`Over budget: ${failures.join('; ')}. Lazy-load what the first screen does not draw.`);
  process.exit(1);
}
