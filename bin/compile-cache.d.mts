export declare function compileCacheDir(env?: NodeJS.ProcessEnv): string;
export declare function enableCompileCache(moduleApi: { enableCompileCache?: unknown }, env?: NodeJS.ProcessEnv): string | null;
