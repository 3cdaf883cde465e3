/**
 * Native modules for the runtime that loads them. better-sqlite3 is a NAN addon: its build is
 * tied to one NODE_MODULE_VERSION, and Electron's differs from Node's. So `npm install` keeps the
 * Node build (CLI, serve, tests) in node_modules, and bin/electron-native.mjs (run by `npm start`
 * when the Electron runtime is there) rebuilds a second copy for Electron with @electron/rebuild
 * into native/electron/. The app hands that file to better-sqlite3 (`nativeBinding`), so each
 * runtime loads its own build. Our addon, @duckdb/node-api and tfjs-node are Node-API modules and
 * need no rebuild (docs/desktop.md).
 *
 * A binding that cannot load becomes a NativeModuleError whose message says what to do; the app
 * shows it and exits with EXIT_NATIVE_MODULE, on which bin/start.mjs serves in the browser.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The app's exit code when a native module cannot load (bin/start.mjs spells the same number). */
export const EXIT_NATIVE_MODULE = 78;

export class NativeModuleError extends Error {
  override readonly name = 'NativeModuleError';
  constructor(
    readonly module: string,
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The two NODE_MODULE_VERSIONs of Node's "compiled against a different Node.js version" error. */
export function abiMismatch(e: unknown): { built: number; needed: number } | null {
  const m = /NODE_MODULE_VERSION (\d+)\.[^]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(e instanceof Error ? e.message : String(e));
  return m ? { built: Number(m[1]), needed: Number(m[2]) } : null;
}

/** Where the Electron build of better-sqlite3 lives, under the app's (unpacked) root. */
export function electronSqlitePath(unpackedRoot: string): string {
  return join(unpackedRoot, 'native', 'electron', 'better_sqlite3.node');
}

const FIX = 'Run `npm start` from the project (it rebuilds it with @electron/rebuild, which needs to reach electronjs.org once), or `npx gpuflow serve` to use gpuflow in the browser.';

/**
 * The better-sqlite3 addon file for this runtime: undefined under Node (its default build), the
 * Electron build under Electron. GPUFLOW_SQLITE_BINDING names another file (tests: a module
 * that throws as a wrong-ABI addon does). It is loaded here first, so a failure becomes a
 * NativeModuleError with a message for the user; better-sqlite3 then gets the loaded module.
 */
export function sqliteBinding(unpackedRoot: string, env: NodeJS.ProcessEnv = process.env, electronVersion = process.versions.electron): string | undefined {
  const file = env.GPUFLOW_SQLITE_BINDING ?? (electronVersion ? electronSqlitePath(unpackedRoot) : undefined);
  if (!file) return undefined;
  if (!existsSync(file)) throw new NativeModuleError('better-sqlite3', file, `gpuflow's database module (better-sqlite3) has not been built for Electron ${electronVersion ?? ''}: ${file} is missing. ${FIX}`);
  try {
    createRequire(import.meta.url)(file);
    return file;
  } catch (e) {
    const abi = abiMismatch(e);
    const why = abi
      ? `it was built for NODE_MODULE_VERSION ${abi.built} and this runtime${electronVersion ? ` (Electron ${electronVersion})` : ''} needs ${abi.needed}`
      : `it failed to load: ${e instanceof Error ? e.message : String(e)}`;
    throw new NativeModuleError('better-sqlite3', file, `gpuflow's database module (better-sqlite3) cannot be loaded from ${file}: ${why}. ${FIX}`, { cause: e });
  }
}
