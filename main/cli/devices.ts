/** `gpuflow devices`: the GPUs, CPU and compute backends of this machine. */
import { discover, type Discovery } from '../cluster/discovery';
import { nativeInfo } from '../../native';
import type { Parsed } from './args';

export interface DevicesReport {
  gpus: Discovery['gpus'];
  reason: string | null;
  cpu: Discovery['cpu'];
  virtualGpus: number;
  backends: Array<{ name: string; available: boolean; reason?: string }>;
}

export async function devicesReport(virtualGpus: number): Promise<DevicesReport> {
  const d = await discover();
  const n = nativeInfo();
  const cudaReason = d.gpus.length === 0 ? `no GPU (${d.reason ?? 'none found'})` : n.cudaReason;
  return {
    gpus: d.gpus,
    reason: d.reason ?? null,
    cpu: d.cpu,
    virtualGpus,
    backends: [
      { name: 'js', available: true },
      { name: 'native-cpu', available: n.available, reason: n.available ? undefined : n.reason },
      { name: 'cuda', available: n.cuda && d.gpus.length > 0, reason: n.cuda && d.gpus.length > 0 ? undefined : cudaReason },
    ],
  };
}

export async function devicesCommand(opts: Parsed['values']): Promise<number> {
  const r = await devicesReport(Number(opts['virtual-gpus'] ?? 0));
  if (opts.json) {
    process.stdout.write(JSON.stringify(r, null, 2) + '\n');
    return 0;
  }
  const lines: string[] = [];
  if (r.gpus.length === 0) lines.push(`GPUs: none (${r.reason})`);
  else {
    lines.push('GPU  name                              memory (MiB)      util  bus id        uuid');
    for (const g of r.gpus) {
      lines.push(`${String(g.index).padEnd(4)} ${g.name.padEnd(33)} ${`${g.memoryUsedMiB}/${g.memoryTotalMiB}`.padEnd(17)} ${`${g.utilizationPct}%`.padEnd(5)} ${g.pciBusId.padEnd(13)} ${g.uuid}`);
    }
    if (r.reason) lines.push(`note: ${r.reason}`);
  }
  lines.push(`CPU: ${r.cpu.model}, ${r.cpu.cores} cores, ${(r.cpu.memoryTotalBytes / 2 ** 30).toFixed(1)} GiB`);
  if (r.virtualGpus > 0) lines.push(`virtual GPUs: ${r.virtualGpus} (CPU-backed, labelled virtual)`);
  lines.push('backends:');
  for (const b of r.backends) lines.push(`  ${b.name.padEnd(11)} ${b.available ? 'available' : `unavailable: ${b.reason ?? 'unknown'}`}`);
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
