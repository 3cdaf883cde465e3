/**
 * worker/jit-warmup.ts: the messages it warms V8 up with stay what main sends (each parses with
 * the worker's own schema, and the program encodes), and the warm-up stops when the context it
 * fills in for is made.
 */
import { describe, expect, it } from 'vitest';
import { toWorkerSchema } from '../../../common/messages';
import { encodeProgram } from '../../../native/program-code';
import { SAMPLES, warmOnce, warmWhile } from '../../../worker/jit-warmup';

describe('JIT warm-up', () => {
  it('parses every sample as the worker does, and encodes the chunk program', () => {
    expect(warmOnce()).toBe(SAMPLES.length);
    const programs = SAMPLES.map((s) => toWorkerSchema.parse(s)).flatMap((m) => (m.type === 'execute' && m.spec.kind === 'program' ? [m.spec.program] : []));
    expect(programs).toHaveLength(1);
    const code = encodeProgram(programs[0], []);
    expect(code).toBeInstanceOf(Float64Array);
    expect(code.length).toBeGreaterThan(10);
  });

  it('stops once the promise it fills in for settles, and gives other work its turn meanwhile', async () => {
    let settle: () => void = () => undefined;
    const context = new Promise<void>((r) => (settle = r));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const warm = warmWhile(context, { maxMs: 10_000, rounds: 1e9 });
    await new Promise((r) => setTimeout(r, 60));
    settle();
    const rounds = await warm;
    clearInterval(timer);
    expect(rounds).toBeGreaterThan(10);
    expect(ticks).toBeGreaterThan(5); // timers ran between its slices
  });

  it('stops at its round or time limit without the promise', async () => {
    const never = new Promise<void>(() => undefined);
    expect(await warmWhile(never, { rounds: 25 })).toBe(25);
    const t = performance.now();
    await warmWhile(never, { maxMs: 30, rounds: 1e9 });
    expect(performance.now() - t).toBeLessThan(1000);
  });
});
