/**
 * Request bodies (issue 29.2): depth and size are checked on the raw text before JSON.parse, so a
 * 16 MB body of small values is refused with 413 instead of being walked element by element
 * (which held serve's loop for 20–49 s and grew it by 1.6 GB), and serve keeps answering other
 * clients meanwhile. Timings are measured in bench/reliability/body-16mb.ts, not asserted here.
 */
import path from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, seedDoc, startServe, tempDir, type Serving } from './helpers';

let s: Serving;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  s = await startServe(['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')], { GPUFLOW_NO_BUNDLE: '1' });
}, 90_000);

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A body of just under 16 MiB: the seed document plus `filler` repeated in params.x. */
function bigBody(filler: string): string {
  const head = `{"doc":${JSON.stringify(seedDoc())},"params":{"x":[`;
  const n = Math.floor((16 * 1024 * 1024 - head.length - 8) / (filler.length + 1));
  return `${head}${Array.from({ length: n }, () => filler).join(',')}]}}`;
}

describe('serve: request bodies', () => {
  it('refuses 16 MB of small values with 413 and answers another client meanwhile', { timeout: 60_000 }, async () => {
    const body = bigBody('0');
    expect(body.length).toBeLessThanOrEqual(16 * 1024 * 1024);
    const big = api(s, 'POST', '/api/validate', undefined, body);
    const other = api(s, 'GET', '/api/devices');
    const [b, o] = await Promise.all([big, other]);
    expect(b.status).toBe(413);
    expect((b.json as { error: string }).error).toBe('request body has more than 1000000 JSON values');
    expect(o.status).toBe(200);
  });

  it('takes 16 MB in one string value (few elements) and checks it as usual', { timeout: 60_000 }, async () => {
    const head = `{"doc":${JSON.stringify(seedDoc())},"params":{"x":"`;
    const body = `${head}${'[{'.repeat((16 * 1024 * 1024 - head.length - 8) / 2)}"}}`;
    const r = await api(s, 'POST', '/api/validate', undefined, body);
    // Brackets inside a string are text: the body passes the scan and is judged by validation.
    expect([200, 400]).toContain(r.status);
    expect(JSON.stringify(r.json)).not.toMatch(/nested deeper|JSON values|internal error/);
  });

  it('names the path of a body nested past 64 levels inside a 16 MB body', { timeout: 60_000 }, async () => {
    const deep = `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`;
    const head = `{"doc":${JSON.stringify(seedDoc())},"params":{"y":${deep},"x":"`;
    const body = `${head}${'a'.repeat(16 * 1024 * 1024 - head.length - 8)}"}}`;
    const r = await api(s, 'POST', '/api/validate', undefined, body);
    expect(r.status).toBe(400);
    expect((r.json as { error: string }).error).toMatch(/^body\.params\.y(\.a){62}: nested deeper than 64 levels$/);
    expect((await api(s, 'GET', '/api/devices')).status).toBe(200);
  });
});
