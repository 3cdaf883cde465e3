/**
 * The window's size and position, remembered between launches in <userData>/window-state.json.
 * Read defensively (a hand-edited or truncated file falls back to the defaults), and a saved
 * position is used only if it still overlaps a display, so a window is never restored off-screen
 * after a monitor is unplugged.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { writeFileNoFollow } from '../../common/safe-files';
import type { Rectangle } from '../electron-api';

const stateSchema = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().min(400).max(20_000),
  height: z.number().int().min(300).max(20_000),
  maximized: z.boolean(),
});
export type WindowState = z.infer<typeof stateSchema>;

export const windowStateFile = (userData: string) => join(userData, 'window-state.json');

/** The saved state, or null when there is none or it is unusable. */
export function loadWindowState(file: string, displays?: Rectangle[]): WindowState | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  const r = stateSchema.safeParse(raw);
  if (!r.success) return null;
  const s = r.data;
  const visible = !displays || displays.some((d) => s.x < d.x + d.width && s.x + s.width > d.x && s.y < d.y + d.height && s.y + s.height > d.y);
  return visible ? s : { ...s, x: 0, y: 0 };
}

export function saveWindowState(file: string, bounds: Rectangle, maximized: boolean): void {
  mkdirSync(dirname(file), { recursive: true });
  const s: WindowState = { x: Math.round(bounds.x), y: Math.round(bounds.y), width: Math.round(bounds.width), height: Math.round(bounds.height), maximized };
  // userData may be reached through links (not a checked path); a link at the file is replaced.
  writeFileNoFollow(file, JSON.stringify(s), { checked: false });
}
