/**
 * bin/bundles.mjs: the launcher runs the prebuilt bundles only while they are a build of the
 * sources as they are (issue 20, fast start); a newer, missing or moved source means the sources
 * under tsx. Checked on a scratch checkout with a hand-written manifest.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module of the launcher, without types
import { freshBundles } from '../../../bin/bundles.mjs';

const fresh = freshBundles as (root: string, env?: Record<string, string>) => string | null;
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function checkout(): { root: string; out: string; builtAt: number } {
  const root = mkdtempSync(path.join(tmpdir(), 'gpuflow-bundles-'));
  roots.push(root);
  mkdirSync(path.join(root, 'main'));
  mkdirSync(path.join(root, 'out', 'cli'), { recursive: true });
  const builtAt = Date.now();
  for (const f of ['main/a.ts', 'main/b.ts']) {
    writeFileSync(path.join(root, f), '');
    utimesSync(path.join(root, f), new Date(builtAt - 10_000), new Date(builtAt - 10_000));
  }
  const out = path.join(root, 'out', 'cli');
  writeFileSync(path.join(out, 'cli.mjs'), '');
  writeFileSync(path.join(out, 'worker.mjs'), '');
  writeFileSync(path.join(out, 'manifest.json'), JSON.stringify({ builtAt, root: pathToFileURL(root).href, inputs: ['main/a.ts', 'main/b.ts'] }));
  return { root, out, builtAt };
}

describe('freshBundles', () => {
  it('gives the bundle folder while no source is newer than the build', () => {
    const c = checkout();
    expect(fresh(c.root, {})).toBe(c.out);
  });

  it('gives null when a source changed after the build, is gone, or GPUFLOW_NO_BUNDLE=1', () => {
    const changed = checkout();
    utimesSync(path.join(changed.root, 'main/b.ts'), new Date(changed.builtAt + 5000), new Date(changed.builtAt + 5000));
    expect(fresh(changed.root, {})).toBeNull();
    const gone = checkout();
    rmSync(path.join(gone.root, 'main/a.ts'));
    expect(fresh(gone.root, {})).toBeNull();
    const forced = checkout();
    expect(fresh(forced.root, { GPUFLOW_NO_BUNDLE: '1' })).toBeNull();
  });

  it('gives null without a build, without the worker bundle, or for a build of another checkout', () => {
    const none = checkout();
    rmSync(path.join(none.out, 'manifest.json'));
    expect(fresh(none.root, {})).toBeNull();
    const noWorker = checkout();
    rmSync(path.join(noWorker.out, 'worker.mjs'));
    expect(fresh(noWorker.root, {})).toBeNull();
    const moved = checkout();
    writeFileSync(path.join(moved.out, 'manifest.json'), JSON.stringify({ builtAt: moved.builtAt, root: 'file:///elsewhere', inputs: ['main/a.ts'] }));
    expect(fresh(moved.root, {})).toBeNull();
  });
});
