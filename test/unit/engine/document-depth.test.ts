/**
 * No valid document may take the engine down by its shape alone (issue 29 item 7): a long chain
 * of elementwise nodes fuses into tasks of bounded nesting (a 2 000-deep program overflowed the
 * workers' IPC deserializer), diamonds do not double the program at every node, and an
 * expression chain the evaluators would recurse through 3 000 levels is refused with a message
 * naming the node and the limit, never "Maximum call stack size exceeded".
 */
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { FUSE_MAX_DEPTH } from '../../../main/engine/compile/fuse-bound';
import { validateWorkflow } from '../../../main/engine/validate';
import { WorkflowError, WorkflowErrors } from '../../../main/engine/errors';
import { chain, runLocal } from '../../helpers/local-run';
import { rowsOf } from '../../helpers/df-rows';

/** Deepest object nesting of a value, walked with an explicit stack (the value may be deep). */
function nesting(v: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    max = Math.max(max, d + 1);
    for (const c of Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
}

function scalarChain(n: number, source: [string, string, Record<string, unknown>]): unknown {
  const ops = Array.from({ length: n }, (_, i): [string, string, Record<string, unknown>] => [`s${i}`, 'scalar_op', { op: 'add', value: 1 }]);
  return chain(source, ...ops, ['total', 'reduce', { op: 'sum' }]);
}

/** The message a thrown compile or validation error carries (WorkflowErrors lists several). */
function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof WorkflowErrors) return e.errors.map((x) => x.message).join('\n');
    if (e instanceof WorkflowError) return e.message;
    return `not a workflow error: ${String(e)}`;
  }
  return 'no error';
}

describe('document shape bounds', () => {
  it('a chain of 2 000 scalar_op nodes fuses into tasks of bounded depth and still adds 2 000', async () => {
    const doc = scalarChain(2000, ['x', 'zeros', { shape: [6, 4], chunks: [3, 4] }]);
    const c = compileWorkflow(validateWorkflow(doc));
    const deepest = Math.max(...[...c.tasks.values()].map((t) => nesting(t.spec)));
    // One expression level per fused op plus the program's own few levels of wrapping.
    expect(deepest).toBeLessThan(FUSE_MAX_DEPTH + 16);
    // The whole chain still runs: 24 zeros, each plus 2 000.
    const out = await runLocal(doc);
    expect(out.total).toMatchObject({ kind: 'scalar', value: 24 * 2000 });
  });

  it('an 8 000-node chain validates and compiles (no stack overflow), every task shallow', () => {
    const c = compileWorkflow(validateWorkflow(scalarChain(8000, ['x', 'random_normal', { shape: [100, 100], chunks: [50, 50], seed: 1 }])));
    expect(c.tasks.size).toBeGreaterThan(4);
    for (const t of c.tasks.values()) expect(nesting(t.spec)).toBeLessThan(FUSE_MAX_DEPTH + 16);
  });

  it('a diamond (b = a + a, repeated 40 times) compiles to programs of bounded size, and 2^40 * x is right', async () => {
    const nodes: unknown[] = [{ id: 'a0', op: 'ones', params: { shape: [4], chunks: [2] } }];
    const edges: unknown[] = [];
    for (let i = 1; i <= 40; i++) {
      nodes.push({ id: `a${i}`, op: 'binary', params: { op: 'add' } });
      edges.push({ source: `a${i - 1}`, sourcePort: 'out', target: `a${i}`, targetPort: 'a' }, { source: `a${i - 1}`, sourcePort: 'out', target: `a${i}`, targetPort: 'b' });
    }
    nodes.push({ id: 'total', op: 'reduce', params: { op: 'sum' } });
    edges.push({ source: 'a40', sourcePort: 'out', target: 'total', targetPort: 'x' });
    const doc = { format: 'gpuflow.workflow/1', nodes, edges };
    const c = compileWorkflow(validateWorkflow(doc));
    for (const t of c.tasks.values()) expect(JSON.stringify(t.spec).length).toBeLessThan(200_000);
    const out = await runLocal(doc);
    expect(out.total).toMatchObject({ kind: 'scalar', value: 4 * 2 ** 40 });
  });

  it('a value too deep to fuse into, read on two ports (s + s), is materialised once', async () => {
    // Fusion breaks about every FUSE_MAX_DEPTH ops: s47 is materialised, and s48..s93 make the next program just too deep.
    const N = 2 * FUSE_MAX_DEPTH - 2;
    const ops = Array.from({ length: N }, (_, i): [string, string, Record<string, unknown>] => [`s${i}`, 'scalar_op', { op: 'add', value: 1 }]);
    const doc = chain(['x', 'zeros', { shape: [4], chunks: [2] }], ...ops) as { nodes: unknown[]; edges: unknown[] };
    doc.nodes.push({ id: 'twice', op: 'binary', params: { op: 'add' } }, { id: 'total', op: 'reduce', params: { op: 'sum' } });
    doc.edges.push({ source: `s${N - 1}`, sourcePort: 'out', target: 'twice', targetPort: 'a' }, { source: `s${N - 1}`, sourcePort: 'out', target: 'twice', targetPort: 'b' }, { source: 'twice', sourcePort: 'out', target: 'total', targetPort: 'x' });
    const c = compileWorkflow(validateWorkflow(doc));
    expect([...c.tasks.keys()].filter((k) => k.startsWith('twice/fused-'))).toEqual(['twice/fused-a(0)', 'twice/fused-a(1)']);
    // 4 elements of N, doubled.
    expect((await runLocal(doc)).total).toMatchObject({ kind: 'scalar', value: 4 * N * 2 });
  });

  it('a filter of 3 000 `or` terms is refused naming the node, the param and the limit', () => {
    const expr = Array.from({ length: 3000 }, (_, i) => `id == ${i}`).join(' or ');
    const doc = chain(['ts', 'timeseries', { partitions: 2, rows_per_partition: 10 }], ['keep', 'filter', { expr }, 'df']);
    const msg = messageOf(() => compileWorkflow(validateWorkflow(doc)));
    expect(msg).toMatch(/params\.expr \(node 'keep'\): expression more than 200 operators deep/);
    expect(msg).not.toMatch(/call stack/);
  });

  it('a chain of 150 `or` terms, under the limit, keeps the same rows as the `in` list it spells', async () => {
    const ids = Array.from({ length: 150 }, (_, i) => i * 7);
    const ts: [string, string, Record<string, unknown>] = ['ts', 'timeseries', { partitions: 2, rows_per_partition: 50 }];
    const ors = await runLocal(chain(ts, ['keep', 'filter', { expr: ids.map((i) => `id == ${i}`).join(' or ') }, 'df']));
    const inList = await runLocal(chain(ts, ['keep', 'filter', { expr: `id in [${ids.join(', ')}]` }, 'df']));
    expect(rowsOf(ors.keep)).toEqual(rowsOf(inList.keep));
    expect(rowsOf(ors.keep).length).toBeGreaterThan(0);
  });
});
