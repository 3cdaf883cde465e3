// Types of lint/import-rules.mjs for the test that checks it (test/unit/lint/layers.test.ts).
import type { ESLint } from 'eslint';

export declare const LAYERS: Readonly<Record<string, readonly string[]>>;
export declare function resolveImport(fromFile: string, spec: string): string | null;
export declare function mayImport(from: string, to: string, allowed: Readonly<Record<string, readonly string[]>>): boolean;
export declare function upwardImports(root: string, allowed: Readonly<Record<string, readonly string[]>>): [string, string][];
export declare function importCycles(root: string, folders: readonly string[]): string[][];
declare const plugin: ESLint.Plugin;
export default plugin;
