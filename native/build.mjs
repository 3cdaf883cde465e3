// Builds the native addon (native/build/gpuflow.node) with g++, and its CUDA kernels with nvcc
// when a CUDA toolkit is found (CUDA_PATH, PATH or /usr/local/cuda). Run by `npm install`.
//
// It never fails the install: on a compile error it prints the reason, leaves no addon (the
// workers fall back to the js kernels) and says why in native/build/info.json. cuBLAS and
// cuSOLVER are not linked: the addon dlopens them at run time, so a build without them loads.
//
//   node native/build.mjs [--out DIR] [--force]
//   GPUFLOW_NO_CUDA=1        CPU-only build even when nvcc is present
//   NODE_API_INCLUDE=DIR     Node-API headers (node_api.h) when not beside the node binary
//   NODE_ADDON_API_DIR=DIR   node-addon-api's headers (napi.h) when node_modules lacks them
//   CXX, NVCC                compilers
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, 'src');
const args = process.argv.slice(2);
const outArg = args.indexOf('--out');
const out = resolve(outArg >= 0 ? args[outArg + 1] : join(here, 'build'));
const force = args.includes('--force');
const started = Date.now();

function findFirst(candidates, file) {
  for (const c of candidates) if (c && existsSync(join(c, file))) return c;
  return null;
}

function onPath(exe) {
  for (const d of (process.env.PATH ?? '').split(':')) if (d && existsSync(join(d, exe))) return join(d, exe);
  return null;
}

function run(cmd, argv) {
  return new Promise((ok) => {
    const p = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    p.stdout.on('data', (d) => (text += d));
    p.stderr.on('data', (d) => (text += d));
    p.on('error', (e) => ok({ code: -1, text: String(e) }));
    p.on('close', (code) => ok({ code, text }));
  });
}

/** Runs jobs with at most `limit` at once; resolves to their results in order. */
async function pool(jobs, limit) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

function finish(info) {
  mkdirSync(out, { recursive: true });
  info.seconds = (Date.now() - started) / 1000;
  writeFileSync(join(out, 'info.json'), JSON.stringify(info, null, 2) + '\n');
  if (info.built) console.log(`gpuflow: native addon built (${info.cuda ? 'cpu + cuda' : 'cpu only'}${info.cudaReason ? `: ${info.cudaReason}` : ''}) in ${info.seconds.toFixed(1)} s`);
  else console.log(`gpuflow: native addon not built (${info.reason}); the js kernels will be used`);
}

async function main() {
  const cxx = process.env.CXX || onPath('g++') || onPath('c++');
  if (!cxx) return finish({ built: false, reason: 'no C++ compiler (g++) found' });
  const nodeInclude = findFirst(
    [process.env.NODE_API_INCLUDE, join(dirname(process.execPath), '..', 'include', 'node'), '/usr/include/node', '/usr/local/include/node'],
    'node_api.h',
  );
  if (!nodeInclude) return finish({ built: false, reason: 'Node-API headers (node_api.h) not found; set NODE_API_INCLUDE' });
  const addonInclude = findFirst(
    [process.env.NODE_ADDON_API_DIR, join(here, '..', 'node_modules', 'node-addon-api'), join(here, '..', '.devbuild', 'node-addon-api')],
    'napi.h',
  );
  if (!addonInclude) return finish({ built: false, reason: 'node-addon-api headers (napi.h) not found; set NODE_ADDON_API_DIR' });

  let cudaReason = null;
  let nvcc = null;
  let cudaHome = null;
  if (process.env.GPUFLOW_NO_CUDA === '1') cudaReason = 'CPU-only build requested (GPUFLOW_NO_CUDA=1)';
  else {
    nvcc = process.env.NVCC || (process.env.CUDA_PATH && existsSync(join(process.env.CUDA_PATH, 'bin', 'nvcc')) ? join(process.env.CUDA_PATH, 'bin', 'nvcc') : null) || onPath('nvcc') || (existsSync('/usr/local/cuda/bin/nvcc') ? '/usr/local/cuda/bin/nvcc' : null);
    if (!nvcc) cudaReason = 'no CUDA toolkit found (nvcc not in CUDA_PATH, PATH or /usr/local/cuda)';
    else {
      // nvcc may be a symlink (/usr/local/bin/nvcc): look beside its real location too.
      const homes = [process.env.CUDA_PATH, resolve(dirname(realpathSync(nvcc)), '..'), resolve(dirname(nvcc), '..'), '/usr/local/cuda'].filter(Boolean);
      cudaHome = homes[0];
      const libDir = findFirst(homes.flatMap((h) => [join(h, 'lib64'), join(h, 'targets', 'x86_64-linux', 'lib'), join(h, 'lib')]), 'libcudart_static.a');
      if (!libDir) {
        cudaReason = `libcudart_static.a not found under ${cudaHome}`;
        nvcc = null;
      } else cudaHome = libDir;
    }
  }

  const ccSources = readdirSync(src).filter((f) => f.endsWith('.cc'));
  const cuSources = existsSync(join(src, 'cuda')) ? readdirSync(join(src, 'cuda')).filter((f) => f.endsWith('.cu')) : [];
  const defines = ['-DNAPI_VERSION=8', '-DNODE_ADDON_API_DISABLE_DEPRECATED', '-DNAPI_CPP_EXCEPTIONS'];
  // -ffp-contract=off: no fused multiply-add, so generated uniforms are bit-identical to js.
  const cxxFlags = ['-std=c++17', '-O3', '-fPIC', '-fvisibility=hidden', '-ffp-contract=off', '-fexceptions', '-Wall', '-Wno-unused-function', `-I${nodeInclude}`, `-I${addonInclude}`, ...defines];
  const nvccFlags = ['-std=c++17', '-O3', '--threads', '0', '-Xcompiler', '-fPIC', '-gencode', 'arch=compute_80,code=sm_80', '-gencode', 'arch=compute_90,code=sm_90', '-gencode', 'arch=compute_90,code=compute_90', `-I${src}`];

  const hash = createHash('sha256');
  for (const f of ccSources.concat(readdirSync(src).filter((f) => f.endsWith('.h')))) hash.update(f).update(readFileSync(join(src, f)));
  for (const f of cuSources) hash.update(f).update(readFileSync(join(src, 'cuda', f)));
  hash.update(JSON.stringify({ cxx, nvcc, cxxFlags, nvccFlags, cudaReason, build: readFileSync(fileURLToPath(import.meta.url)) }));
  const stamp = hash.digest('hex').slice(0, 16);
  const infoPath = join(out, 'info.json');
  if (!force && existsSync(join(out, 'gpuflow.node')) && existsSync(infoPath)) {
    try {
      if (JSON.parse(readFileSync(infoPath, 'utf8')).stamp === stamp) return console.log('gpuflow: native addon up to date');
    } catch { /* rebuild */ }
  }

  rmSync(join(out, 'gpuflow.node'), { force: true });
  const obj = join(out, 'obj');
  mkdirSync(obj, { recursive: true });
  const useCuda = nvcc !== null;
  const jobs = [];
  for (const f of ccSources) {
    if (f === 'cuda_stub.cc' && useCuda) continue;
    // Linear algebra is compared with tolerances: let it fuse multiply-adds.
    const extra = f === 'linalg_cpu.cc' ? ['-ffp-contract=fast'] : [];
    // The SIMD random leaves: no errno from sqrt, so its loop vectorises (results unchanged).
    if (f === 'cpu_simd.cc') extra.push('-fno-math-errno');
    if (f === 'cuda_stub.cc') extra.push(`-DGF_NO_CUDA_REASON=${JSON.stringify(cudaReason ?? 'built without CUDA')}`);
    jobs.push(async () => ({ f, o: join(obj, f + '.o'), ...(await run(cxx, [...cxxFlags, ...extra, '-c', join(src, f), '-o', join(obj, f + '.o')])) }));
  }
  if (useCuda) for (const f of cuSources) jobs.push(async () => ({ f, o: join(obj, f + '.o'), cuda: true, ...(await run(nvcc, [...nvccFlags, '-c', join(src, 'cuda', f), '-o', join(obj, f + '.o')])) }));
  const all = await pool(jobs, Math.max(1, cpus().length));
  // The C-ABI library's own entry files never stop the addon: without them it is simply not linked.
  const capiFailed = all.filter((r) => r.code !== 0 && CAPI_ENTRIES.includes(r.f));
  const results = all.filter((r) => !capiFailed.includes(r));
  if (capiFailed.length > 0) console.log(capiFailed.map((r) => `${r.f}:\n${r.text}`).join('\n'));
  const failed = results.filter((r) => r.code !== 0);
  if (failed.length > 0) {
    const text = failed.map((r) => `${r.f}:\n${r.text}`).join('\n');
    if (useCuda && failed.every((r) => r.cuda)) {
      // The CUDA part failed alone: build CPU-only and say why.
      console.log(text);
      process.env.GPUFLOW_NO_CUDA = '1';
      const reason = `nvcc failed on ${failed.map((r) => r.f).join(', ')} (see the install log)`;
      const r = await run(cxx, [...cxxFlags, `-DGF_NO_CUDA_REASON=${JSON.stringify(reason)}`, '-c', join(src, 'cuda_stub.cc'), '-o', join(obj, 'cuda_stub.cc.o')]);
      if (r.code !== 0) return finish({ built: false, reason: `compile failed: ${r.text.slice(0, 2000)}` });
      return link(cxx, results.filter((x) => !x.cuda).map((x) => x.o).concat(join(obj, 'cuda_stub.cc.o')), false, reason, null, stamp);
    }
    console.log(text);
    return finish({ built: false, reason: `compile failed on ${failed.map((r) => r.f).join(', ')}: ${text.slice(0, 2000)}` });
  }
  return link(cxx, results.map((r) => r.o), useCuda, cudaReason, cudaHome, stamp);
}

// The C-ABI kernel library (capi.h) for the Dask bridge's Python side: the CPU interpreter and
// linear algebra without Node. Its failure never fails the addon; info.json says why.
const CAPI_ENTRIES = ['capi.cc', 'capi_cuda.cc'];
const CAPI_OBJECTS = ['capi.cc', 'cpu_program.cc', 'program.cc', 'pool.cc', 'cpu_simd.cc', 'linalg_cpu.cc'];

async function linkCapi(cxx, objects) {
  const mine = CAPI_OBJECTS.map((f) => objects.find((o) => o.endsWith(`/${f}.o`)));
  if (mine.some((o) => !o)) return { built: false, reason: 'a source of the C-ABI library was not compiled' };
  rmSync(join(out, 'libgpuflow_kernels.so'), { force: true });
  const r = await run(cxx, ['-shared', '-o', join(out, 'libgpuflow_kernels.so'), ...mine, '-ldl', '-lpthread']);
  return r.code === 0 ? { built: true, file: 'libgpuflow_kernels.so' } : { built: false, reason: `link failed: ${r.text.slice(0, 1000)}` };
}

// Its CUDA variant: every object but the Node-API ones, with the CUDA runtime linked statically.
// A Node-API source is one that includes a napi header (napi.h, or one of ours: napi_args.h,
// resident_napi.h...), found by reading the sources: a hand-kept list missed tf_napi.cc once, the
// link failed on its napi_* symbols, and the Dask GPU workers ran their programs on one CPU thread.
// cuda_stub.cc (the CPU-only build's answers) and capi.cc (the CPU library's entries) stay out too.
const NAPI_INCLUDE = /^\s*#\s*include\s*[<"][^>"]*napi[^>"]*[>"]/m;
function capiCudaExcluded(dir = src) {
  const napi = readdirSync(dir).filter((f) => f.endsWith('.cc') && NAPI_INCLUDE.test(readFileSync(join(dir, f), 'utf8')));
  return new Set([...napi, 'cuda_stub.cc', 'capi.cc']);
}

async function linkCapiCuda(cxx, objects, libs) {
  const excluded = [...capiCudaExcluded()].map((f) => `/${f}.o`);
  const mine = objects.filter((o) => !excluded.some((n) => o.endsWith(n)));
  if (!mine.some((o) => o.endsWith('/capi_cuda.cc.o'))) return { built: false, reason: 'capi_cuda.cc did not compile (see the install log)' };
  rmSync(join(out, 'libgpuflow_kernels_cuda.so'), { force: true });
  const r = await run(cxx, ['-shared', '-Wl,--no-undefined', '-o', join(out, 'libgpuflow_kernels_cuda.so'), ...mine, ...libs, '-ldl', '-lpthread']);
  return r.code === 0 ? { built: true, file: 'libgpuflow_kernels_cuda.so' } : { built: false, reason: `link failed: ${r.text.slice(0, 1000)}` };
}

async function link(cxx, objects, cuda, cudaReason, cudaLib, stamp) {
  const libs = cuda ? [`-L${cudaLib}`, '-lcudart_static', '-lrt'] : [];
  const addonObjects = objects.filter((o) => !o.endsWith('/capi.cc.o') && !o.endsWith('/capi_cuda.cc.o'));
  const r = await run(cxx, ['-shared', '-o', join(out, 'gpuflow.node'), ...addonObjects, ...libs, '-ldl', '-lpthread']);
  if (r.code !== 0) return finish({ built: false, reason: `link failed: ${r.text.slice(0, 2000)}` });
  const capi = await linkCapi(cxx, objects);
  if (cuda) capi.cuda = await linkCapiCuda(cxx, objects, libs);
  rmSync(join(out, 'obj'), { recursive: true, force: true });
  return finish({ built: true, cuda, cudaReason: cudaReason ?? undefined, stamp, compiler: cxx, capi });
}

main().catch((e) => finish({ built: false, reason: `build script error: ${e?.stack ?? e}` }));
