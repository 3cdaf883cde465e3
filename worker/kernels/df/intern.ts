/**
 * Dictionary encoding of strings: the code of `s` in a dictionary being built (`dict` in code
 * order, `index` from string to code), added at the end when new. Shared by the column builders
 * (columns.ts) and the concatenation of dictionary columns (gather.ts), which must agree on codes.
 */
export function internCode(dict: string[], index: Map<string, number>, s: string): number {
  let c = index.get(s);
  if (c === undefined) {
    c = dict.length;
    dict.push(s);
    index.set(s, c);
  }
  return c;
}
