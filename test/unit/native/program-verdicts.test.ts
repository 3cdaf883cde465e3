/**
 * unsupportedReason (native/program-code.ts) remembers its verdict per program object, since a
 * GPU worker asks twice a task: the remembered verdict must be the one for the features asked
 * about (an addon without negative strides refuses what one with them runs), and a program that
 * cannot run says why every time it is asked.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkProgram } from '../../../common/arrays';
import { encodeProgram, unsupportedReason } from '../../../native/program-code';
import { bin, fill, normal, region, seedChunk } from './programs';

describe('unsupportedReason verdicts', () => {
  it('keeps the verdicts with and without negative strides apart, whatever the order', () => {
    const p: ChunkProgram = { dtype: 'float64', shape: [4], expr: bin('add', normal(1, [8], region([7], [-2], [4])), fill(1)) };
    expect(unsupportedReason(p, { negativeStrides: true })).toBeNull();
    expect(unsupportedReason(p)).toMatch(/negative slice step/);
    expect(unsupportedReason(p, { negativeStrides: true })).toBeNull();
    expect(unsupportedReason(p, {})).toMatch(/negative slice step/);
    // A program the js reference alone runs is refused each time, and encoding it still throws.
    const w: ChunkProgram = { dtype: 'float64', shape: [2], expr: { kind: 'where', cond: fill(1), a: fill(2), b: fill(3) } };
    expect(unsupportedReason(w)).toBe('where');
    expect(unsupportedReason(w)).toBe('where');
    expect(() => encodeProgram(w, [])).toThrow(/unsupported \(where\)/);
  });

  it('encodes the same code for a program asked about first as for a fresh copy', () => {
    const p = seedChunk('float32', 100, 10, 3, 4, 'sum', true);
    expect(unsupportedReason(p, { negativeStrides: true })).toBeNull();
    expect([...encodeProgram(p, [])]).toEqual([...encodeProgram(structuredClone(p), [])]);
  });
});
