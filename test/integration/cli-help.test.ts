/** `gpuflow <command> --help` prints that command's usage, `gpuflow --help` every command's. */
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-helpers';

describe('gpuflow --help', () => {
  it.each([
    ['history', 'usage: gpuflow history [options]', '--benchmarks'],
    ['bench', 'usage: gpuflow bench <workflow.json> [options]', '--repeat N'],
  ])('%s --help: its own usage and options, not the list of commands', async (command, first, option) => {
    const r = await runCli([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(first);
    expect(r.stdout).toContain(option);
    expect(r.stdout).not.toContain('commands:');
    expect(r.stdout).not.toContain('serve');
  });

  it('--help alone lists every command, each once', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(2);
    const commands = r.stdout.split('\n').filter((l) => /^ {2}[a-z]/.test(l)).map((l) => l.trim().split(/\s/)[0]);
    expect(commands).toEqual(['devices', 'run', 'export-dask', 'explain', 'serve', 'bench', 'history', 'show', 'benchmarks', 'replay', 'export', 'import']);
  });
});
