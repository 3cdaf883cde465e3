/**
 * main/cluster/proc-gpus.ts: the driver's /proc listing, read as nvidia-smi would number it (PCI
 * bus order, only GPUs whose device node this process can open), or null when it is not there or
 * not understood. The `information` text is the driver's format (R5xx), hand-written here.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGpuInformation, procGpus } from '../../../main/cluster/proc-gpus';

const info = (uuid: string, bus: string, minor: number) => `Model: \t\t NVIDIA H100 80GB HBM3
IRQ:   \t\t 312
GPU UUID: \t ${uuid}
Video BIOS: \t 96.00.99.00.01
Bus Type: \t PCIe
DMA Size: \t 52 bits
DMA Mask: \t 0xfffffffffffff
Bus Location: \t ${bus}
Device Minor: \t ${minor}
GPU Excluded:\t No
`;

const U0 = 'GPU-11111111-2222-3333-4444-555555555555';
const U1 = 'GPU-66666666-7777-8888-9999-000000000000';
const U2 = 'GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';

/** A fake /proc/driver/nvidia/gpus and /dev: `gpus` as [bus, uuid, minor], `nodes` the minors with a device node. */
function tree(gpus: Array<[string, string, number]>, nodes: number[]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-procgpus-'));
  const root = path.join(dir, 'gpus');
  const dev = path.join(dir, 'dev');
  mkdirSync(root);
  mkdirSync(dev);
  for (const [bus, uuid, minor] of gpus) {
    mkdirSync(path.join(root, bus));
    writeFileSync(path.join(root, bus, 'information'), info(uuid, bus, minor));
  }
  for (const m of nodes) writeFileSync(path.join(dev, `nvidia${m}`), '');
  return { root, dev };
}

describe('procGpus', () => {
  it('numbers the GPUs in bus order, as nvidia-smi does, whatever their minor numbers', () => {
    const t = tree([['0000:2a:00.0', U1, 0], ['0000:18:00.0', U0, 1]], [0, 1]);
    expect(procGpus(t)).toMatchObject([
      { index: 0, uuid: U0, name: 'NVIDIA H100 80GB HBM3', pciBusId: '0000:18:00.0' },
      { index: 1, uuid: U1, pciBusId: '0000:2a:00.0' },
    ]);
  });

  it('leaves out GPUs this process has no device node for (a container given some of them)', () => {
    const t = tree([['0000:18:00.0', U0, 0], ['0000:2a:00.0', U1, 1], ['0000:3b:00.0', U2, 2]], [0, 2]);
    expect(procGpus(t)?.map((g) => [g.index, g.uuid])).toEqual([[0, U0], [1, U2]]);
  });

  it('is null without the listing, with no GPU openable, or with a file it does not understand', () => {
    expect(procGpus({ root: '/nonexistent/gpus', dev: '/dev' })).toBeNull();
    expect(procGpus(tree([['0000:18:00.0', U0, 0]], []))).toBeNull();
    const t = tree([['0000:18:00.0', U0, 0]], [0]);
    writeFileSync(path.join(t.root, '0000:18:00.0', 'information'), info('[masked]', '0000:18:00.0', 0));
    expect(procGpus(t)).toBeNull();
  });

  it('parses one information file', () => {
    expect(parseGpuInformation(info(U2, '0000:3b:00.0', 3), '0000:3b:00.0', 4)).toEqual({
      index: 4, uuid: U2, name: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 0, memoryUsedMiB: 0, utilizationPct: 0, pciBusId: '0000:3b:00.0', driverVersion: '',
    });
    expect(parseGpuInformation('Model: x\n', 'b', 0)).toBeNull();
  });
});
