// What the compile benches share: a synchronous call's wall time and the median they quote.

/** Milliseconds `f` took. */
export const ms = (f: () => void): number => {
  const t = performance.now();
  f();
  return performance.now() - t;
};

/** The upper median of `xs` (the middle one of an odd count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
