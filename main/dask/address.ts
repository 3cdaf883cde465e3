/**
 * The one reading of a `--dask` address (the toolbar's and /api/cluster's too): `tcp://host:port`,
 * `tls://host:port`, `host:port` (tcp), `local:N` or `local-cuda`, to the form the bridge is sent.
 * python/gpuflow_dask/address.py is the same parser for what the bridge receives; both test
 * suites read one fixture of cases (python/tests/fixtures/dask-addresses.json).
 */
import { DaskSetupError } from './interpreter';

export const MAX_LOCAL_WORKERS = 256;
const SUPPORTED = ['tcp', 'tls'];
const OTHER_DASK = ['ucx', 'inproc', 'ws', 'wss'];
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*)(?::([0-9]+))?$/;

/** The address in the bridge's form, or why it is not one (the reason alone). */
export function readTarget(text: string): { target: string } | { error: string } {
  const t = text.trim();
  if (t === '') return { error: 'the address is empty' };
  if (t === 'local-cuda') return { target: t };
  const local = /^local:([0-9]+)$/.exec(t);
  if (local) {
    const n = Number(local[1]);
    return n >= 1 && n <= MAX_LOCAL_WORKERS ? { target: `local:${n}` } : { error: `local:N needs 1 <= N <= ${MAX_LOCAL_WORKERS}` };
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/.exec(t);
  const proto = scheme ? scheme[1]!.toLowerCase() : 'tcp';
  const rest = scheme ? scheme[2]! : t;
  if (!SUPPORTED.includes(proto)) return { error: OTHER_DASK.includes(proto) ? `${proto}:// is not supported (gpuflow connects over tcp:// or tls://)` : `${proto}:// is not a Dask scheduler protocol` };
  const hp = HOST_PORT.exec(rest);
  if (!hp) return { error: `'${rest}' is not host:port` };
  const host = hp[1]!;
  if (hp[2] === undefined) return { error: `${proto}://${host} needs a port, e.g. ${proto}://${host}:8786` };
  const port = Number(hp[2]);
  if (port < 1 || port > 65535) return { error: `port ${hp[2]} is out of range (1-65535)` };
  return { target: `${proto}://${host}:${port}` };
}

/** readTarget, throwing a DaskSetupError ('bad-target') that names the input and the forms accepted. */
export function parseTarget(text: string): string {
  const r = readTarget(text);
  if ('target' in r) return r.target;
  throw new DaskSetupError('bad-target', `not a Dask cluster address '${text.trim()}': ${r.error} (use tcp://host:8786, tls://host:8786, local:N or local-cuda)`);
}

/** Why `local:N` is too many workers for a machine of `cores` cores, or null (local clusters are bounded by the machine). */
export function localWorkersOver(target: string, cores: number): string | null {
  const m = /^local:([0-9]+)$/.exec(target);
  if (!m || Number(m[1]) <= cores) return null;
  return `${target} asks for more worker processes than this machine has cores (${cores}): use local:1 to local:${cores}`;
}
