import { describe, expect, it } from 'vitest';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultDbPath } from '../../../main/store/db';

describe('defaultDbPath', () => {
  it('uses the Electron user-data folder when given', () => {
    expect(defaultDbPath('/home/u/.config/gpuflow', {})).toBe('/home/u/.config/gpuflow/gpuflow.db');
  });
  it('uses an absolute XDG_DATA_HOME, else ~/.local/share', () => {
    expect(defaultDbPath(undefined, { XDG_DATA_HOME: '/data/xdg' })).toBe('/data/xdg/gpuflow/gpuflow.db');
    expect(defaultDbPath(undefined, { XDG_DATA_HOME: 'relative/xdg' })).toBe(join(homedir(), '.local/share/gpuflow/gpuflow.db'));
    expect(defaultDbPath(undefined, {})).toBe(join(homedir(), '.local/share/gpuflow/gpuflow.db'));
  });
});
