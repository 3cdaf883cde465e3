/**
 * Lengths a file claims are bounded before anything is allocated (issue 29.6): sparse files
 * (kilobytes on disk) whose .npy header length says 600 MB or 3.2 GB, whose Parquet footer
 * length says 2.1 GB, and a CSV whose first line runs 40 MB, are refused at validation with an
 * error naming the file and the limit. Before: the npy header was read and decoded whole (Node
 * aborted in DecodeLatin1; 3.2 GB overflowed into a raw RangeError), the footer was read whole
 * (RSS 0.1 -> 4.1 GB).
 */
import { closeSync, openSync, rmSync, writeSync, ftruncateSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { WorkflowError, WorkflowErrors } from '../../main/engine/errors';
import { validateWorkflow } from '../../main/engine/validate';
import { tempDir } from './helpers';

let dir: string;
let saved: string | undefined;

beforeAll(() => {
  dir = tempDir();
  saved = process.env.GPUFLOW_ALLOWED_DIRS;
  process.env.GPUFLOW_ALLOWED_DIRS = dir;
});

afterAll(() => {
  if (saved === undefined) delete process.env.GPUFLOW_ALLOWED_DIRS;
  else process.env.GPUFLOW_ALLOWED_DIRS = saved;
  rmSync(dir, { recursive: true, force: true });
});

/** A sparse file of `size` bytes holding `head` at 0 and `tail` at its end. */
function sparse(name: string, size: number, head: Uint8Array, tail = new Uint8Array(0)): string {
  const p = path.join(dir, name);
  const fd = openSync(p, 'w');
  writeSync(fd, head, 0, head.length, 0);
  ftruncateSync(fd, size);
  if (tail.length) writeSync(fd, tail, 0, tail.length, size - tail.length);
  closeSync(fd);
  return p;
}

/** A v2 .npy preamble whose header length field says `len`. */
function npyPreamble(len: number): Uint8Array {
  const b = Buffer.alloc(12);
  b.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 2, 0]);
  b.writeUInt32LE(len, 8);
  return b;
}

function errorsOf(node: Record<string, unknown>): string[] {
  try {
    compileWorkflow(validateWorkflow({ format: 'gpuflow.workflow/1', nodes: [{ id: 'src', ...node }], edges: [] }));
    return [];
  } catch (e) {
    if (e instanceof WorkflowErrors) return e.errors.map((x) => x.message);
    if (e instanceof WorkflowError) return [e.message];
    throw e;
  }
}

describe('lengths claimed by files are bounded before allocation', () => {
  it.each([600_000_000, 3_200_000_000])('a .npy header claiming %d bytes is refused naming the file and the 10 000-byte limit', (claim) => {
    const p = sparse(`claims-${claim}.npy`, claim + 4096, npyPreamble(claim));
    const errors = errorsOf({ op: 'load_npy', params: { path: p, chunks: [10] } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('params.path');
    expect(errors[0]).toContain(`${p}: npy: the header claims ${claim} bytes, over 10000 (numpy's limit on a .npy header)`);
  });

  it('a Parquet footer claiming 2.1 GB is refused naming the file and the 64 MiB limit', () => {
    const claim = 2_100_000_000;
    const tail = Buffer.alloc(8);
    tail.writeUInt32LE(claim, 0);
    tail.write('PAR1', 4, 'latin1');
    const p = sparse('claims.parquet', claim + 4096, Buffer.from('PAR1', 'latin1'), tail);
    const errors = errorsOf({ op: 'read_parquet', params: { path: p } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`${p} is not a readable Parquet file: footer length ${claim} is over 67108864 bytes (64 MiB), the limit on a Parquet footer`);
  });

  it('a CSV whose first line runs 40 MB is refused naming the file and the line limit', () => {
    const p = sparse('long-line.csv', 40 * 1024 * 1024, Buffer.from('a,b', 'latin1'));
    const errors = errorsOf({ op: 'read_csv', params: { path: p } });
    expect(errors).toHaveLength(1);
    // Type inference samples the first MiB; the line running past its end is the one refused.
    expect(errors[0]).toContain(`csv: ${p}: no line ends within 16777216 bytes after byte 1048576, the limit on one CSV line`);
  });
});
