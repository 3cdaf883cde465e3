// What the start-up benches share (startup.mjs, attach.mjs): the checkout's root and commit, their
// command-line options, the check that out/cli is built, the machine they ran on, and the median they quote.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The value after `name` on the command line, else `dflt`. */
export function arg(name, dflt) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

export const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();

/** Exits 2 naming the checkout when its bundles are not built (the benches time the bundles). */
export function requireBundles(dir) {
  if (existsSync(path.join(dir, 'out', 'cli', 'manifest.json'))) return;
  process.stderr.write(`no bundles in ${dir}/out/cli: run \`node bin/build-bundles.mjs\` there first\n`);
  process.exit(2);
}

/** The median of the numbers in `all`, nulls left out; null when none is left. */
export function median(all) {
  const s = all.filter((x) => x !== null).sort((a, b) => a - b);
  if (s.length === 0) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Where and when the bench ran, for its JSON: the machine, node, the rounds and their load. */
export function machine(rounds, loads) {
  return { host: hostname(), cpus: cpus().length, node: process.version, when: new Date().toISOString(), rounds, loadavg1: { min: Math.min(...loads), max: Math.max(...loads) } };
}
