// What an attached `gpuflow run` accepts from serve (main/cli/attach-messages.ts) and from the
// serve file (main/api/serve-file.ts), both checked with zod/mini: the values below are written
// by hand (the oracle), as serve sends them and as the run prints them.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readServeFile } from '../../../main/api/serve-file';
import { attachMessageSchema, refusalSchema, startedSchema } from '../../../main/cli/attach-messages';

const result = {
  runId: 'r1',
  storeId: 7,
  status: 'finished',
  digest: 'abc',
  results: {
    total: { kind: 'scalar', dtype: 'float64', value: null },
    x: {
      kind: 'array',
      dtype: 'float32',
      shape: [2],
      data: [1, null],
      summary: { min: 1, max: null, mean: 1, histogram: { bins: 1, counts: [1] }, corner: { shape: [2], data: [1, 2] } },
    },
  },
  stats: {
    tasks: 3,
    durationMs: 12,
    workers: [{ id: 'gpu0', kind: 'gpu', label: 'GPU 0', virtual: true, tasks: 3, busyMs: 4, backends: { js: 3 }, extra: 1 }],
    restarts: 0,
    transfers: { count: 0, bytes: 0 },
  },
  eventsLost: null,
  storeError: null,
  unknown: 'dropped',
};

describe('the attached run’s messages', () => {
  it('reads a run result: a null number is NaN, the statistics pass through, unknown result keys are dropped', () => {
    const r = attachMessageSchema.safeParse({ type: 'run-result', result });
    expect(r.success).toBe(true);
    if (!r.success || r.data.type !== 'run-result') return;
    const total = r.data.result.results.total;
    expect(total.kind === 'scalar' && Number.isNaN(total.value)).toBe(true);
    const x = r.data.result.results.x;
    expect(x.kind === 'array' && x.data).toEqual([1, Number.NaN]);
    expect(x.kind === 'array' && Number.isNaN(x.summary?.max)).toBe(true);
    expect(r.data.result.stats).toEqual(result.stats);
    expect('unknown' in r.data.result).toBe(false);
  });

  it('reads progress with its other fields, and refuses what it cannot read', () => {
    expect(attachMessageSchema.parse({ type: 'progress', runId: 'r1', done: 1, total: 3, tasks: 9 })).toEqual({
      type: 'progress',
      runId: 'r1',
      done: 1,
      total: 3,
      tasks: 9,
    });
    expect(attachMessageSchema.safeParse({ type: 'progress', runId: 'r1', done: '1', total: 3 }).success).toBe(false);
    expect(attachMessageSchema.safeParse({ type: 'run-result', result: { ...result, status: 'lost' } }).success).toBe(false);
    expect(attachMessageSchema.safeParse({ type: 'log' }).success).toBe(false);
    expect(startedSchema.parse({ runId: 'r', storeId: null })).toEqual({ runId: 'r', storeId: null });
    expect(refusalSchema.parse({ error: 'invalid workflow', errors: ['nodes[0]: bad'] }).errors).toEqual(['nodes[0]: bad']);
  });
});

describe('the serve file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-serve-file-'));
  const good = {
    format: 'gpuflow.serve/1',
    pid: process.pid,
    origin: 'http://127.0.0.1:7077',
    token: '0123456789abcdef',
    pool: 'p',
    cwd: '/',
    allowedDirs: null,
  };
  const file = (name: string, body: unknown, mode = 0o600): string => {
    const p = path.join(dir, name);
    writeFileSync(p, JSON.stringify(body));
    chmodSync(p, mode);
    return p;
  };

  it('is read when it is this version’s, 0600 and names a live pid', () => {
    expect(readServeFile(file('good.json', good))).toEqual({ file: good, skip: null });
    expect(readServeFile(file('v6.json', { ...good, origin: 'http://[::1]:80' })).file?.origin).toBe('http://[::1]:80');
  });

  it('is skipped, saying why, when a field is not what serve writes or others may read it', () => {
    for (const [name, body] of [
      ['short-token', { ...good, token: 'short' }],
      ['remote', { ...good, origin: 'http://10.0.0.1:7077' }],
      ['pid', { ...good, pid: 1.5 }],
      ['no-dirs', { ...good, allowedDirs: undefined }],
    ] as const)
      expect(readServeFile(file(`${name}.json`, body)).skip).toContain('is not a serve file of this version');
    expect(readServeFile(file('open.json', good, 0o644)).skip).toContain('readable by others');
    expect(readServeFile(path.join(dir, 'none.json'))).toEqual({ file: null, skip: null });
  });
});
