/** Messages between a test (test/electron/harness.ts) and the fake Electron running out/main/app.js. */
export type ToApp =
  | { type: 'invoke'; id: number; channel: string; args: unknown[] }
  | { type: 'send'; channel: string; args: unknown[] }
  | { type: 'close-window' }
  | { type: 'menu-click'; menu: string; label: string }
  | { type: 'second-instance'; argv: string[]; cwd: string };

export type FromApp =
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: string }
  | { type: 'event'; name: string; data: unknown };
