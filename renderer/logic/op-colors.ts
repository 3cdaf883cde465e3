/**
 * Stable task colours: an op's colour is a hash of its name onto a colour-blind-safe palette
 * (Okabe–Ito's six non-red hues, then Paul Tol's "muted" indigo, teal, olive and wine), so the
 * same op has the same colour in every run of a workflow and in every window. Reds stay out:
 * transfers and errors have their own. Two ops of one run whose hashes meet take the next free
 * slot, in the order they first appear, so a run's first ten ops never share a colour and an
 * op's colour never changes while its run is on show.
 */
export const OP_PALETTE = ['#0072b2', '#e69f00', '#009e73', '#56b4e9', '#cc79a7', '#f0e442', '#332288', '#44aa99', '#999933', '#882255'];
export const TRANSFER_COLOR = '#e4572e';
export const ERROR_COLOR = '#b00020';

/** FNV-1a over the UTF-16 code units: small, deterministic, well spread for short names. */
export function hashName(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The palette slot an op prefers (its colour unless another op of the run took it first). */
export function preferredSlot(op: string): number {
  return hashName(op) % OP_PALETTE.length;
}

/** Colours of one run's ops, assigned once per op (see the module comment). */
export class OpColors {
  private byOp = new Map<string, string>();
  private taken = new Set<number>();

  clear() {
    this.byOp.clear();
    this.taken.clear();
  }

  of(op: string): string {
    if (op === 'transfer') return TRANSFER_COLOR;
    if (op === 'error') return ERROR_COLOR;
    let c = this.byOp.get(op);
    if (c !== undefined) return c;
    let slot = preferredSlot(op);
    // Past ten ops, colours repeat: the preferred slot is kept.
    if (this.taken.size < OP_PALETTE.length) while (this.taken.has(slot)) slot = (slot + 1) % OP_PALETTE.length;
    this.taken.add(slot);
    c = OP_PALETTE[slot];
    this.byOp.set(op, c);
    return c;
  }
}
