/**
 * main/dask/address.ts against the shared fixture of address cases
 * (python/tests/fixtures/dask-addresses.json, which python/tests/test_address.py reads for the
 * Python parser): the same inputs give the same targets and the same refusals on both sides.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTarget, readTarget } from '../../../main/dask/address';
import { DaskSetupError } from '../../../main/dask/interpreter';

interface Case {
  input: string;
  target?: string;
  error?: string;
}
const fixture = JSON.parse(readFileSync(path.resolve(__dirname, '../../../python/tests/fixtures/dask-addresses.json'), 'utf8')) as { cases: Case[] };

describe('the --dask address parser', () => {
  it.each(fixture.cases)('$input', (c) => {
    const r = readTarget(c.input);
    if (c.target !== undefined) expect(r).toEqual({ target: c.target });
    else expect('error' in r ? r.error : r.target).toBe(c.error);
  });

  it('names the input and the accepted forms when it refuses', () => {
    const e = (() => {
      try {
        parseTarget('tcp://127.0.0.1:99999');
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(e).toBeInstanceOf(DaskSetupError);
    expect((e as DaskSetupError).code).toBe('bad-target');
    expect((e as Error).message).toBe("not a Dask cluster address 'tcp://127.0.0.1:99999': port 99999 is out of range (1-65535) (use tcp://host:8786, tls://host:8786, local:N or local-cuda)");
  });
});
