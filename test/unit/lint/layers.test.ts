/**
 * The layer rules of docs/design.md (lint/import-rules.mjs, wired in eslint.config.js): eslint with
 * the project's own config fails on an upward import and on an import cycle in a small tree copied
 * to a temp folder, passes on the same tree without them; and the repository itself has neither.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCycles, LAYERS, upwardImports } from '../../../lint/import-rules.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** A tree of `files` (path -> source) with the project's lint config, in a fresh temp folder. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpuflow-lint-'));
  cpSync(join(repo, 'eslint.config.js'), join(dir, 'eslint.config.js'));
  cpSync(join(repo, 'lint'), join(dir, 'lint'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Each problem eslint reports in the tree, as `file: rule`. */
async function lint(dir: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: dir, overrideConfigFile: join(dir, 'eslint.config.js') });
  const results = await eslint.lintFiles(['common', 'native', 'worker', 'main', 'renderer']);
  return results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(dir.length + 1)}: ${m.ruleId ?? m.message}`)).sort();
}

// Layers as the design draws them: main -> worker -> native, each onto common/.
const CLEAN = {
  'common/values.ts': 'export const one = 1;\n',
  'native/kernel.ts': "import { one } from '../common/values';\nexport const kernel = () => one;\n",
  'worker/run.ts': "import { kernel } from '../native/kernel';\nexport const run = () => kernel();\n",
  'main/engine.ts': "import { run } from '../worker/run';\nimport type { } from '../common/values';\nexport const go = () => run();\n",
  'renderer/view.ts': "import { one } from '../common/values';\nexport const view = () => one;\n",
};

const dirs: string[] = [];
const made = (files: Record<string, string>) => {
  const d = tree(files);
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the layer rules in eslint', () => {
  let clean: string;
  beforeAll(() => {
    clean = made(CLEAN);
  });

  it('pass a tree whose imports go down', async () => {
    expect(await lint(clean)).toEqual([]);
  });

  it('fail an upward import (common -> worker) and a renderer importing main', async () => {
    const dir = made({
      ...CLEAN,
      'worker/leaf.ts': 'export const leaf = 0;\n',
      'common/values.ts': "import { leaf } from '../worker/leaf';\nexport const one = 1 + leaf;\n",
      'renderer/view.ts': "import type { go } from '../main/engine';\nexport type View = typeof go;\n",
    });
    expect(await lint(dir)).toEqual(['common/values.ts: gpuflow/layers', 'renderer/view.ts: gpuflow/layers']);
  });

  it('fail a worker importing main, even dynamically', async () => {
    const dir = made({ ...CLEAN, 'worker/late.ts': "export const late = () => import('../main/engine');\n" });
    expect(await lint(dir)).toEqual(['worker/late.ts: gpuflow/layers']);
  });

  it('fail a cycle of two modules and one of three, on every import that closes it', async () => {
    const dir = made({
      ...CLEAN,
      'worker/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'worker/b.ts': "import type { a } from './a';\nexport const b = 2;\nexport type A = typeof a;\n",
      'main/x.ts': "import { y } from './y';\nexport const x = () => y;\n",
      'main/y.ts': "import { z } from './z';\nexport const y = () => z;\n",
      'main/z.ts': "export { x } from './x';\nexport const z = 3;\n",
    });
    expect(await lint(dir)).toEqual([
      'main/x.ts: gpuflow/no-cycle',
      'main/y.ts: gpuflow/no-cycle',
      'main/z.ts: gpuflow/no-cycle',
      'worker/a.ts: gpuflow/no-cycle',
      'worker/b.ts: gpuflow/no-cycle',
    ]);
  });
});

describe('the repository', () => {
  it('has no upward import', () => {
    expect(upwardImports(repo, LAYERS)).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(importCycles(repo, Object.keys(LAYERS))).toEqual([]);
  });
});
