/**
 * A bounded ring of samples, oldest dropped first: the workers panel's history per worker stays a
 * fixed size however long the app runs. Push is O(1); reading copies out in time order.
 */
export class SampleRing<T> {
  private readonly slots: T[] = [];
  private next = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
  }

  push(v: T): void {
    if (this.slots.length < this.capacity) this.slots.push(v);
    else this.slots[this.next] = v;
    this.next = (this.next + 1) % this.capacity;
  }

  get size(): number {
    return this.slots.length;
  }

  /** Oldest first. */
  toArray(): T[] {
    if (this.slots.length < this.capacity) return [...this.slots];
    return [...this.slots.slice(this.next), ...this.slots.slice(0, this.next)];
  }
}
