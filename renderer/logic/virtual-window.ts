/** Which rows of a fixed-row-height list are on screen: the window a virtualised table renders. */
export interface VirtualWindow {
  /** First row rendered (inclusive). */
  start: number;
  /** One past the last row rendered. */
  end: number;
  /** Pixels above the first rendered row (its top inside the scroll content). */
  offsetTop: number;
  /** Height of the whole scroll content. */
  totalHeight: number;
}

export function virtualWindow(scrollTop: number, viewportHeight: number, rowHeight: number, total: number, overscan = 4): VirtualWindow {
  const totalHeight = Math.max(0, total) * rowHeight;
  if (total <= 0 || rowHeight <= 0) return { start: 0, end: 0, offsetTop: 0, totalHeight };
  const maxTop = Math.max(0, totalHeight - viewportHeight);
  const top = Math.min(Math.max(0, scrollTop), maxTop);
  const first = Math.floor(top / rowHeight);
  const visible = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, first - overscan);
  const end = Math.min(total, first + visible + overscan);
  return { start, end, offsetTop: start * rowHeight, totalHeight };
}
