/** The About box's text: gpuflow's version, the runtimes', and the GPUs and backends this machine has. */
import type { DeviceInfo } from '../../common/api';

export function aboutText(appVersion: string, versions: NodeJS.ProcessVersions, devices: DeviceInfo): { message: string; detail: string } {
  const gpus = devices.gpus.length ? devices.gpus.map((g) => `  GPU ${g.index}: ${g.name} (${Math.round(g.memoryTotalMiB / 1024)} GiB)`).join('\n') : `  no GPU (${devices.reason ?? 'none found'})`;
  const backends = devices.backends.map((b) => `  ${b.name}: ${b.available ? 'available' : `unavailable (${b.reason ?? 'no reason given'})`}`).join('\n');
  const runtime = [versions.electron && `Electron ${versions.electron}`, versions.chrome && `Chromium ${versions.chrome}`, `Node.js ${versions.node}`, `V8 ${versions.v8}`].filter(Boolean).join(', ');
  return {
    message: `gpuflow ${appVersion}`,
    detail: `${runtime}\n\nGPUs:\n${gpus}\nCPU: ${devices.cpu.cores} cores\n\nBackends:\n${backends}`,
  };
}
