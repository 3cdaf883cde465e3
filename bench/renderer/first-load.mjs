/**
 * What a browser downloads before the editor paints: out/renderer/index.html and the scripts,
 * styles and module preloads it names (not the chunks loaded later by import()), raw, gzip -9 and
 * brotli (as `serve` sends them). Writes bench/results/renderer-first-load.json.
 * Run after `npm run build`: node bench/renderer/first-load.mjs
 */
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const dir = path.resolve('out/renderer');
const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
const named = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((m) => m[1]);
const files = ['index.html', ...named];
const size = (buf) => ({ raw: buf.length, gzip: zlib.gzipSync(buf, { level: 9 }).length, brotli: zlib.brotliCompressSync(buf, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } }).length });
const per = Object.fromEntries(files.map((f) => [f, size(readFileSync(path.join(dir, f)))]));
const total = Object.values(per).reduce((a, s) => ({ raw: a.raw + s.raw, gzip: a.gzip + s.gzip, brotli: a.brotli + s.brotli }), { raw: 0, gzip: 0, brotli: 0 });
const later = readdirSync(path.join(dir, 'assets')).filter((f) => !named.includes(`assets/${f}`) && f.endsWith('.js'));
const out = { bench: 'renderer-first-load', files: per, total, lazyChunks: later.length, lazyGzip: later.reduce((a, f) => a + size(readFileSync(path.join(dir, 'assets', f))).gzip, 0), date: new Date().toISOString() };
writeFileSync('bench/results/renderer-first-load.json', JSON.stringify(out, null, 2) + '\n');
console.log(`first load: ${(total.raw / 1024).toFixed(0)} KiB raw, ${(total.gzip / 1024).toFixed(0)} KiB gzip, ${(total.brotli / 1024).toFixed(0)} KiB brotli; ${later.length} chunks later (${(out.lazyGzip / 1024).toFixed(0)} KiB gzip)`);
