// Float32 lineage (main/engine/compile/precision.ts): the outputs of a workflow that makes float32
// arrays anywhere upstream keep FLOAT32_DIGEST_DIGITS in their digest, float64 workflows the
// default; and digestOf rounds such a result to 6 digits, no further.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLOAT32_DIGEST_DIGITS } from '../../../common/digest';
import type { RunResult } from '../../../common/results';
import { digestOf } from '../../../main/api/run-record';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';

// The float32 product cast to float64 before its sum: a float64 total with float32 lineage.
const matmul = JSON.parse(readFileSync('test/fixtures/workflows/matmul-f32-total-f64.json', 'utf8')) as { nodes: { op: string; params: Record<string, unknown> }[] };
const withDtype = (dtype: string) => ({ ...matmul, nodes: matmul.nodes.map((n) => (n.op === 'random_uniform' ? { ...n, params: { ...n.params, dtype } } : n)) });
const scalar = (value: number, digestDigits?: number): RunResult => ({ runId: 'r', status: 'finished', results: { total: { kind: 'scalar', dtype: 'float64', value, digestDigits } }, stats: { tasks: 0, durationMs: 0, workers: [], transfers: { count: 0, bytes: 0 }, restarts: 0 } });

describe('float32 lineage', () => {
  it('marks a float64 total of a float32 matmul, and nothing in a float64 one', () => {
    const f32 = compileWorkflow(validateWorkflow(withDtype('float32'), { N: 64, chunks: 32 }));
    const f64 = compileWorkflow(validateWorkflow(withDtype('float64'), { N: 64, chunks: 32 }));
    expect(f32.outputs.total).toMatchObject({ kind: 'scalar', dtype: 'float64', digestDigits: FLOAT32_DIGEST_DIGITS });
    expect(f64.outputs.total).toEqual({ kind: 'scalar', key: expect.any(String), dtype: 'float64' });
  });

  it('rounds a float32-lineage value to 6 significant digits in the digest, others to 10', () => {
    // 268423709.3471 and .3708 (native BLAS against the js loop): equal to 6 digits, not to 10.
    expect(digestOf(scalar(268423709.3471222, 6))).toBe(digestOf(scalar(268423709.37083435, 6)));
    expect(digestOf(scalar(268423709.3471222))).not.toBe(digestOf(scalar(268423709.37083435)));
    // A change in the 6th digit still shows.
    expect(digestOf(scalar(268423709, 6))).not.toBe(digestOf(scalar(268433709, 6)));
  });
});
