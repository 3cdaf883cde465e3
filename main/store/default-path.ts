/** The database's default location, without loading SQLite (main/cli/warm-pool.ts needs it before anything loads). */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export const DB_FILE_NAME = 'gpuflow.db';

/**
 * Where the database lives by default: `<userDataDir>/gpuflow.db` when the Electron shell passes
 * app.getPath('userData'), else `$XDG_DATA_HOME/gpuflow/gpuflow.db` (XDG_DATA_HOME must be
 * absolute, as the XDG spec says), else `~/.local/share/gpuflow/gpuflow.db`.
 */
export function defaultDbPath(userDataDir?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (userDataDir) return join(userDataDir, DB_FILE_NAME);
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share');
  return join(base, 'gpuflow', DB_FILE_NAME);
}

/** Where the serve recording into database `dbPath` announces itself (main/api/serve-file.ts). */
export function serveFilePath(dbPath: string): string {
  return `${resolve(dbPath)}.serve.json`;
}
