/**
 * Machine fingerprints: a short hash of the hardware that decides a benchmark's times (CPU model
 * and core count, memory, GPU models and count). The hostname is left out on purpose: two
 * identical workstations compare as the same machine; a GPU swapped in one box does not.
 */
import { cpus, totalmem } from 'node:os';
import { contentHash } from '../../common/digest';

export interface MachineInfo {
  cpuModel: string;
  cpuCores: number;
  /** Total memory, GiB, rounded to a whole number (the kernel reports slightly varying totals). */
  memoryGiB: number;
  gpus: { name: string; memoryMiB?: number }[];
}

export function machineFingerprint(info: MachineInfo): string {
  return contentHash({ ...info, gpus: [...info.gpus].sort((a, b) => a.name.localeCompare(b.name)) }).slice(0, 16);
}

/** This machine's info; the cluster passes the GPUs it discovered. */
export function localMachineInfo(gpus: MachineInfo['gpus'] = []): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cpuCores: list.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    gpus,
  };
}
