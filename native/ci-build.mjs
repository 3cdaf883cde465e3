// CI check that the addon compiles in both variants (CI has nvcc but no GPU). Unlike build.mjs,
// which must never fail `npm install`, this exits non-zero when a variant did not build.
//   node native/ci-build.mjs            CPU-only into a temp dir, and the CUDA variant (when nvcc
//                                       is found) into another; each is loaded and asked info()
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let failed = false;

function variant(name, env) {
  const dir = mkdtempSync(join(tmpdir(), `gpuflow-${name}-`));
  const r = spawnSync(process.execPath, [join(here, 'build.mjs'), '--out', dir, '--force'], { env: { ...process.env, ...env }, stdio: 'inherit' });
  const info = JSON.parse(readFileSync(join(dir, 'info.json'), 'utf8'));
  const wantCuda = name === 'cuda';
  let ok = r.status === 0 && info.built === true && info.cuda === wantCuda;
  if (ok) {
    // Load it in a fresh process: a CUDA build must load (and say why there is no device) without a GPU.
    const probe = spawnSync(process.execPath, ['-e', `const a = require(${JSON.stringify(join(dir, 'gpuflow.node'))}); console.log(JSON.stringify(a.info()))`], { encoding: 'utf8' });
    ok = probe.status === 0;
    console.log(`${name}: ${probe.stdout.trim() || probe.stderr.trim()}`);
  }
  console.log(`${name} variant: ${ok ? 'ok' : 'FAILED'} (${JSON.stringify(info)})`);
  failed ||= !ok;
  rmSync(dir, { recursive: true, force: true });
}

variant('cpu', { GPUFLOW_NO_CUDA: '1' });
const nvcc = spawnSync('sh', ['-c', 'command -v nvcc || ls "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc"'], { encoding: 'utf8' });
if (nvcc.status === 0 && process.env.GPUFLOW_NO_CUDA !== '1') variant('cuda', { GPUFLOW_NO_CUDA: '' });
else console.log(`cuda variant: skipped (${process.env.GPUFLOW_NO_CUDA === '1' ? 'GPUFLOW_NO_CUDA=1' : 'no nvcc'})`);
process.exit(failed ? 1 : 0);
