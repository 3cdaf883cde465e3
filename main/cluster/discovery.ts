/**
 * Device discovery: GPUs from `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`, CPU facts
 * from the OS. Never throws: no nvidia-smi, a failing driver or garbage output give zero GPUs and
 * a reason. `GPUFLOW_DEVICES` ("0,2" or UUIDs) restricts the GPUs used.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';

export interface GpuInfo {
  index: number;
  uuid: string;
  name: string;
  memoryTotalMiB: number;
  memoryUsedMiB: number;
  utilizationPct: number;
  pciBusId: string;
  driverVersion: string;
}

export interface CpuInfo {
  cores: number;
  model: string;
  memoryTotalBytes: number;
  memoryFreeBytes: number;
}

export interface Discovery {
  gpus: GpuInfo[];
  /** Why there are no GPUs (or why some were left out); absent when all is well. */
  reason?: string;
  cpu: CpuInfo;
}

export const QUERY_FIELDS = ['index', 'uuid', 'name', 'memory.total', 'memory.used', 'utilization.gpu', 'pci.bus_id', 'driver_version'];

/** Parses nvidia-smi's csv (noheader, nounits). Lines that do not parse are reported, not guessed. */
export function parseNvidiaSmi(csv: string): { gpus: GpuInfo[]; errors: string[] } {
  const gpus: GpuInfo[] = [];
  const errors: string[] = [];
  const lines = csv.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  lines.forEach((line, i) => {
    const f = line.split(',').map((x) => x.trim());
    if (f.length !== QUERY_FIELDS.length) {
      errors.push(`line ${i + 1}: expected ${QUERY_FIELDS.length} fields, got ${f.length}`);
      return;
    }
    const num = (s: string) => (/^\d+(\.\d+)?$/.test(s) ? Number(s) : NaN);
    const [index, uuid, name, total, used, util, bus, driver] = f;
    const g: GpuInfo = {
      index: num(index),
      uuid,
      name,
      memoryTotalMiB: num(total),
      memoryUsedMiB: num(used),
      // "[N/A]" utilisation happens on some virtualised GPUs: report 0 rather than drop the GPU.
      utilizationPct: Number.isNaN(num(util)) ? 0 : num(util),
      pciBusId: bus,
      driverVersion: driver,
    };
    if (!Number.isInteger(g.index) || !/^GPU-[0-9a-fA-F-]+$/.test(uuid) || Number.isNaN(g.memoryTotalMiB) || Number.isNaN(g.memoryUsedMiB)) {
      errors.push(`line ${i + 1}: not a GPU record: ${line.slice(0, 80)}`);
      return;
    }
    gpus.push(g);
  });
  return { gpus, errors };
}

/** Applies GPUFLOW_DEVICES ("0,2" or "GPU-uuid,..."). Unknown entries are reported. */
export function restrictGpus(gpus: GpuInfo[], spec: string | undefined): { gpus: GpuInfo[]; reason?: string } {
  if (spec === undefined || spec.trim() === '') return { gpus };
  const want = spec.split(',').map((s) => s.trim()).filter(Boolean);
  const picked: GpuInfo[] = [];
  const unknown: string[] = [];
  for (const w of want) {
    const g = /^\d+$/.test(w) ? gpus.find((x) => x.index === Number(w)) : gpus.find((x) => x.uuid === w);
    if (g) {
      if (!picked.includes(g)) picked.push(g);
    } else unknown.push(w);
  }
  return { gpus: picked, reason: unknown.length ? `GPUFLOW_DEVICES names unknown GPUs: ${unknown.join(', ')}` : undefined };
}

type SmiAnswer = { err: Error | null; stdout: string; stderr: string };

/**
 * The query bin/gpuflow.mjs started before the CLI loaded (bin/early-nvidia-smi.mjs), taken once,
 * when it asked the same binary the same question; else null.
 */
function takeEarly(bin: string, args: string[]): Promise<SmiAnswer> | null {
  const slot = Symbol.for('gpuflow.early-nvidia-smi');
  const early = (globalThis as Record<symbol, unknown>)[slot] as { bin: string; args: string[]; result: Promise<SmiAnswer> } | undefined;
  if (!early || early.bin !== bin || early.args.join('\0') !== args.join('\0')) return null;
  delete (globalThis as Record<symbol, unknown>)[slot];
  return early.result;
}

function runNvidiaSmi(bin: string, timeoutMs: number, early = false): Promise<{ ok: true; out: string } | { ok: false; reason: string }> {
  const args = [`--query-gpu=${QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'];
  const answer = (early && takeEarly(bin, args)) || new Promise<SmiAnswer>((resolve) => execFile(bin, args, { timeout: timeoutMs }, (err, stdout, stderr) => resolve({ err, stdout, stderr })));
  return answer.then(({ err, stdout, stderr }) => {
    if (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { ok: false, reason: 'nvidia-smi not found (no NVIDIA driver on this machine)' };
      return { ok: false, reason: `nvidia-smi failed: ${(stderr || err.message).trim().split('\n')[0]}` };
    }
    return { ok: true, out: stdout };
  });
}

export function cpuInfo(): CpuInfo {
  const cpus = os.cpus();
  return {
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    model: cpus[0]?.model ?? 'unknown CPU',
    memoryTotalBytes: os.totalmem(),
    memoryFreeBytes: os.freemem(),
  };
}

/** The GPUs' current use (utilisation, memory used), sampled for the workers panel; [] when nvidia-smi fails. */
export async function queryGpus(opts: { nvidiaSmi?: string; timeoutMs?: number } = {}): Promise<GpuInfo[]> {
  const res = await runNvidiaSmi(opts.nvidiaSmi ?? process.env.GPUFLOW_NVIDIA_SMI ?? 'nvidia-smi', opts.timeoutMs ?? 5_000);
  return res.ok ? parseNvidiaSmi(res.out).gpus : [];
}

export async function discover(opts: { nvidiaSmi?: string; devicesEnv?: string; timeoutMs?: number } = {}): Promise<Discovery> {
  const bin = opts.nvidiaSmi ?? process.env.GPUFLOW_NVIDIA_SMI ?? 'nvidia-smi';
  const cpu = cpuInfo();
  const res = await runNvidiaSmi(bin, opts.timeoutMs ?? 10_000, true);
  if (!res.ok) return { gpus: [], reason: res.reason, cpu };
  const parsed = parseNvidiaSmi(res.out);
  if (parsed.gpus.length === 0) {
    return { gpus: [], reason: parsed.errors.length ? `nvidia-smi output not understood (${parsed.errors[0]})` : 'nvidia-smi lists no GPUs', cpu };
  }
  const restricted = restrictGpus(parsed.gpus, opts.devicesEnv ?? process.env.GPUFLOW_DEVICES);
  const reasons = [...parsed.errors.map((e) => `nvidia-smi ${e}`), ...(restricted.reason ? [restricted.reason] : [])];
  return { gpus: restricted.gpus, reason: reasons.length ? reasons.join('; ') : undefined, cpu };
}
