/**
 * Who owns a run. A pid alone is not enough: after a crash and a reboot, or just a long uptime,
 * another process may carry the dead owner's pid. On Linux the owner token is
 * `<boot id>:<pid>:<process start time>`, which no other process can share; elsewhere it falls
 * back to `<hostname>:<pid>` plus a liveness probe.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

const BOOT_ID = readText('/proc/sys/kernel/random/boot_id')?.trim();

/** Start time (clock ticks since boot, /proc/<pid>/stat field 22) of a live, non-zombie process. */
function linuxStartTime(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // Field 2 (comm) is parenthesised and may hold spaces: split after its closing parenthesis.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  if (state === 'Z' || state === 'X') return undefined; // dead, not yet reaped
  return rest[19];
}

function probeAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The owner token of the live process `pid`, or undefined when no such process is running. */
export function ownerToken(pid: number = process.pid): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (BOOT_ID !== undefined) {
    const start = linuxStartTime(pid);
    return start === undefined ? undefined : `${BOOT_ID}:${pid}:${start}`;
  }
  return probeAlive(pid) ? `${hostname()}:${pid}` : undefined;
}

export function thisHost(): string {
  return hostname();
}
