#!/usr/bin/env node
// The gpuflow command: runs the TypeScript sources through tsx's loader (workers inherit it).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../main/cli.ts');
const code = await main(process.argv.slice(2));
process.exitCode = code;
