import type { ChildProcess } from 'node:child_process';

export declare const EARLY_NVIDIA_SMI: unique symbol;
export declare const EARLY_ARGS: string[];
export declare function startEarlyNvidiaSmi(argv: string[], env?: NodeJS.ProcessEnv): ChildProcess | null;
