import { describe, expect, it } from 'vitest';
import { classify, shortReason, StoreError, translateError } from '../../../main/store/errors';

const err = (code: string) => Object.assign(new Error(code), { code });

describe('store error classification', () => {
  it('maps SQLITE_FULL, ENOSPC and EFBIG (file size limit) to disk-full', () => {
    for (const c of ['SQLITE_FULL', 'ENOSPC', 'EDQUOT', 'EFBIG']) expect(classify(err(c))).toBe('disk-full');
    const t = translateError(err('EFBIG'), '/tmp/x.db');
    expect(t).toBeInstanceOf(StoreError);
    expect((t as StoreError).code).toBe('disk-full');
    expect((t as Error).message).toMatch(/disk holding \/tmp\/x\.db is full/);
  });

  it('keeps SQLITE_IOERR_WRITE an I/O error while the disk has room', () => {
    // This test's own database folder is not full, and the test runner has no file size limit.
    expect((translateError(err('SQLITE_IOERR_WRITE'), '/tmp/gpuflow-not-there.db') as StoreError).code).toBe('io');
  });

  it('gives short reasons for notes on a run', () => {
    expect(shortReason(translateError(err('SQLITE_FULL'), '/tmp/x.db'))).toBe('disk full');
    expect(shortReason(err('EFBIG'))).toBe('disk full');
    expect(shortReason(err('SQLITE_IOERR'))).toBe('I/O error');
  });
});
