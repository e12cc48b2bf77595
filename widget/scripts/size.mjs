// Prints the embed loader's size, raw and gzipped: it loads on every page of a customer's site.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const file = new URL('../dist/widget.js', import.meta.url);
const raw = readFileSync(file);
const gz = gzipSync(raw, { level: 9 });
console.log(`widget.js: ${raw.length} bytes, ${gz.length} bytes gzipped`);
