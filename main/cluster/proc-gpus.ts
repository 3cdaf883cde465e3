/**
 * The GPUs as the NVIDIA driver lists them in /proc/driver/nvidia/gpus/<bus id>/information: read
 * in well under a millisecond, where nvidia-smi takes about 0.1 s to answer. Only a hint for
 * forking GPU workers early (main/cluster/prelaunch.ts): nvidia-smi stays the truth, and a worker
 * forked for a GPU it does not list is killed and forked again. nvidia-smi numbers GPUs in PCI bus
 * order, so index = place in the bus-sorted list of the GPUs this process can open (/dev/nvidia<minor>;
 * a container may list GPUs it was not given).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { GpuInfo } from './discovery';

export interface ProcGpusOptions {
  /** Where the driver lists its GPUs (tests point it elsewhere). */
  root?: string;
  /** Where the device nodes are. */
  dev?: string;
}

/** A GPU from the driver's `information` file: what nvidia-smi's query would say of it, less its use. */
export function parseGpuInformation(text: string, busId: string, index: number): GpuInfo | null {
  const field = (name: string) => new RegExp(`^${name}:\\s*(.+?)\\s*$`, 'm').exec(text)?.[1];
  const uuid = field('GPU UUID');
  if (!uuid || !/^GPU-[0-9a-fA-F-]+$/.test(uuid)) return null;
  return { index, uuid, name: field('Model') ?? 'NVIDIA GPU', memoryTotalMiB: 0, memoryUsedMiB: 0, utilizationPct: 0, pciBusId: busId, driverVersion: '' };
}

/** The GPUs this process can open, in nvidia-smi's order; null when the driver's listing is absent or not understood. */
export function procGpus(opts: ProcGpusOptions = {}): GpuInfo[] | null {
  const root = opts.root ?? '/proc/driver/nvidia/gpus';
  const dev = opts.dev ?? '/dev';
  let buses: string[];
  try {
    buses = readdirSync(root).sort();
  } catch {
    return null;
  }
  const gpus: GpuInfo[] = [];
  for (const bus of buses) {
    let text: string;
    try {
      text = readFileSync(path.join(root, bus, 'information'), 'utf8');
    } catch {
      return null;
    }
    const minor = /^Device Minor:\s*(\d+)/m.exec(text)?.[1];
    if (minor === undefined || !existsSync(path.join(dev, `nvidia${minor}`))) continue;
    const g = parseGpuInformation(text, bus, gpus.length);
    if (!g) return null;
    gpus.push(g);
  }
  return gpus.length > 0 ? gpus : null;
}
