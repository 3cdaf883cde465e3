/** A binary min-heap of keys by a numeric priority: the ready queue, O(log n) per push and pop. */
export class KeyHeap {
  private readonly items: string[] = [];

  constructor(private readonly priority: (key: string) => number) {}

  get size(): number {
    return this.items.length;
  }

  peek(): string | undefined {
    return this.items[0];
  }

  push(key: string): void {
    const a = this.items;
    a.push(key);
    let i = a.length - 1;
    const p = this.priority(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.priority(a[parent]) <= p) break;
      a[i] = a[parent];
      i = parent;
    }
    a[i] = key;
  }

  pop(): string | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    const p = this.priority(last);
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && this.priority(a[r]) < this.priority(a[l]) ? r : l;
      if (this.priority(a[c]) >= p) break;
      a[i] = a[c];
      i = c;
    }
    a[i] = last;
    return top;
  }
}
