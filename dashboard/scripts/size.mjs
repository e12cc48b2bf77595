// Prints the dashboard's JavaScript, gzipped, and fails the build when a budget is exceeded.
// Run by `npm run build` after `vite build` (which writes dist/.vite/manifest.json).
//
// - The initial JS: the entry chunk and its static imports, which every screen loads before it
//   draws anything. Budget 150 kB.
// - A first screen: the initial JS plus the lazy chunks of the screen's route modules and their
//   static imports. /login and /dashboard (the shell and the bot list, with the cards'
//   sparklines) are held to 150 kB too (README, "Web app sizes").
// Everything is read from Vite's manifest. Sizes are gzip at zlib's default level, in kB of 1000
// bytes, as Vite prints them.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 150;

/** The first screens a user can land on, by the route modules React.lazy loads for them. */
const SCREENS = {
  '/login': ['src/app/routes/login.tsx'],
  // With bots, the list then fetches the cards' sparklines.
  '/dashboard': ['src/app/layout/Shell.tsx', 'src/app/routes/my-bots.tsx', 'src/features/analytics/components/BotSparkline.tsx'],
};

const dist = new URL('../dist/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8'));

const sizes = new Map();
function gzipped(file) {
  if (!sizes.has(file)) sizes.set(file, { raw: readFileSync(new URL(file, dist)).length, gz: gzipSync(readFileSync(new URL(file, dist))).length });
  return sizes.get(file);
}
const kb = (bytes) => (bytes / 1000).toFixed(2).padStart(7);

/**
 * A lazily loaded module's manifest key. Vite keys a chunk by its module, except when Rollup has
 * put into it code that the chunks it loads later share (my-bots and the bot cards' menus): then
 * it is keyed by the chunk's name, the module's file name (`_my-bots-….js`).
 */
function keyOf(module) {
  if (manifest[module]) return module;
  const name = module.replace(/^.*\//, '').replace(/\.[^.]+$/, '');
  const named = Object.keys(manifest).filter((k) => manifest[k].isDynamicEntry && manifest[k].name === name && k.startsWith('_'));
  if (named.length !== 1) throw new Error(`${module} is not a chunk in Vite's manifest: is it still lazy-loaded? (update SCREENS in scripts/size.mjs)`);
  return named[0];
}

/** A manifest key's chunk and every chunk it imports statically (what loads with it). */
function closure(key, into = new Set()) {
  const chunk = manifest[key];
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
const report = (label, files) => {
  const gz = total(files);
  const over = gz > BUDGET_KB * 1000;
  if (over) failures.push(label);
  const verdict = over ? `OVER the ${BUDGET_KB} kB budget` : `budget ${BUDGET_KB} kB`;
  console.log(`${label}: ${kb(gz).trim()} kB gzipped in ${files.size} chunks (${verdict})`);
};
report('initial JS (entry + static imports)', entry);
for (const [path, modules] of Object.entries(SCREENS)) {
  const files = new Set(entry);
  for (const m of modules) closure(keyOf(m), files);
  report(`first screen ${path} (initial JS + its lazy chunks)`, files);
}
if (failures.length) {
  console.error(`Over budget: ${failures.join('; ')}. Lazy-load what the first screen does not draw.`);
  process.exit(1);
}
