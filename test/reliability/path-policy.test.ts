/**
 * One path policy (issue 19): every catalog param that takes a path is marked `path` in its spec,
 * and validation puts each through checkPath whatever the op. The test enumerates the catalog:
 * each marked param, pointed outside GPUFLOW_ALLOWED_DIRS, is refused at validation with an
 * error on that field (and the same path inside the allowed folder is not); every string param
 * whose name or doc speaks of a file, folder, directory or path is marked, so a new one cannot be
 * added unchecked. Then search's save_to — the param that used to write anywhere — is refused
 * outside and nothing is created there. Also: '$constructor' / '$__proto__' references and
 * overrides named after Object.prototype members are refused (own properties only).
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParamSpec } from '../../common/catalog';
import { WorkflowErrors } from '../../main/engine/errors';
import { catalog } from '../../main/engine/ops/registry';
import { validateWorkflow } from '../../main/engine/validate';
import { figures, seedDoc, tempDir } from './helpers';

let allowed: string;
let outside: string;
let saved: string | undefined;

beforeAll(() => {
  allowed = tempDir('gpuflow-allowed-');
  outside = tempDir('gpuflow-outside-');
  saved = process.env.GPUFLOW_ALLOWED_DIRS;
  process.env.GPUFLOW_ALLOWED_DIRS = allowed;
});

afterAll(() => {
  if (saved === undefined) delete process.env.GPUFLOW_ALLOWED_DIRS;
  else process.env.GPUFLOW_ALLOWED_DIRS = saved;
  rmSync(allowed, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function errorsOf(doc: unknown, overrides: Record<string, number | string | boolean> = {}): string[] {
  try {
    validateWorkflow(doc, overrides);
    return [];
  } catch (e) {
    if (e instanceof WorkflowErrors) return e.errors.map((x) => x.message);
    throw e;
  }
}

const PATHY = /\b(file|folder|directory|dir|path)\b|save_to|_dir$|_path$/i;

describe('one path policy', () => {
  it('checks every path param of the catalog at validation, and every path-like string param is marked', () => {
    const marked: string[] = [];
    const unmarked: string[] = [];
    const refused: string[] = [];
    const wronglyRefusedInside: string[] = [];
    for (const op of catalog()) {
      for (const p of op.params as ParamSpec[]) {
        const isMarked = p.kind === 'string' && p.path !== undefined;
        if (!isMarked) {
          if (p.kind === 'string' && (PATHY.test(p.name) || PATHY.test(p.doc ?? ''))) unmarked.push(`${op.op}.${p.name}`);
          continue;
        }
        marked.push(`${op.op}.${p.name}`);
        const field = `nodes[0].params.${p.name}`;
        const out = errorsOf({ format: 'gpuflow.workflow/1', nodes: [{ id: 'n', op: op.op, params: { [p.name]: path.join(outside, 'x', 'data.npy') } }], edges: [] });
        if (out.some((m) => m.startsWith(field) && m.includes('outside the allowed folders'))) refused.push(`${op.op}.${p.name}`);
        const inside = errorsOf({ format: 'gpuflow.workflow/1', nodes: [{ id: 'n', op: op.op, params: { [p.name]: path.join(allowed, 'data.npy') } }], edges: [] });
        if (inside.some((m) => m.includes('outside the allowed folders'))) wronglyRefusedInside.push(`${op.op}.${p.name}`);
      }
    }
    figures('path-policy', { marked, refused: refused.length, unmarked, wronglyRefusedInside });
    // The ops known to take paths today; a new one shows up in `marked` (and must be refused too).
    expect(marked).toEqual(expect.arrayContaining(['load_npy.path', 'save_npy.path', 'read_csv.path', 'read_parquet.path', 'search.save_to']));
    expect(refused).toEqual(marked);
    expect(unmarked).toEqual([]);
    expect(wronglyRefusedInside).toEqual([]);
  });

  it("refuses search's save_to outside the allowed folders at validation and writes nothing there", () => {
    const target = path.join(outside, 'model-out');
    const doc = { format: 'gpuflow.workflow/1', nodes: [{ id: 's', op: 'search', params: { save_to: target } }], edges: [] };
    const errors = errorsOf(doc);
    figures('save-to-outside', { errors: errors.filter((m) => m.includes('save_to')) });
    expect(errors.some((m) => m.startsWith('nodes[0].params.save_to') && m.includes('outside the allowed folders'))).toBe(true);
    expect(existsSync(target)).toBe(false);
  });
});

describe('params are own properties only', () => {
  it("refuses '$constructor', '$toString', '$__proto__' and --param constructor=5", () => {
    const results: Record<string, string[]> = {};
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const doc = seedDoc() as { params: Record<string, unknown>; nodes: Array<{ params: Record<string, unknown> }> };
      doc.nodes[0].params.seed = `$${name}`;
      results[`$${name}`] = errorsOf(doc).filter((m) => m.includes(`'${name}'`));
      results[`--param ${name}=5`] = errorsOf(seedDoc(), { [name]: 5 }).filter((m) => m.startsWith(`params.${name}`));
    }
    figures('own-params', results);
    for (const [k, errs] of Object.entries(results)) expect(errs.length, k).toBeGreaterThan(0);
  });
});
