/**
 * Bad input: seeded fuzzing of the workflow loader, the expression parser, CSV parsing and every
 * worker message schema. Each input must give a result or the module's own error type, never
 * another exception, a hang or runaway memory. Seeds are fixed so a failure replays exactly.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromWorkerSchema, toWorkerSchema } from '../../common/messages';
import { compileExpr, compileFilter } from '../../common/expr/check';
import { ExprError } from '../../common/expr/errors';
import { parseExpr } from '../../common/expr/parse';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { WorkflowError, WorkflowErrors } from '../../main/engine/errors';
import { loadWorkflowText } from '../../main/engine/validate';
import { parseCsvText } from '../../worker/kernels/df/csv-parse';
import { CsvError, readCsv } from '../../worker/kernels/df/csv';
import { figures, prng, type Rng, SOAK, tempDir } from './helpers';

const SCALE = SOAK ? 10 : 1;
const MAX_TASK_BYTES = 256 * 1024 * 1024;

const examples = readdirSync('examples')
  .filter((f) => f.endsWith('.json'))
  .map((f) => readFileSync(path.join('examples', f), 'utf8'));

const WEIRD_VALUES: unknown[] = [0, -1, 1, 2.5, 1e9, 1e308, -1e308, 2 ** 53, '', 'x', '$N', '$nope', '../../etc/passwd', 'require("child_process")', '${process.exit()}', null, true, false, [], {}, [0], [-5, 3], [1e9, 1e9], ['$N', '$N'], { a: 1 }, '__proto__', 'constructor'];
const KEYS = ['format', 'name', 'nodes', 'edges', 'params', 'id', 'op', 'source', 'target', 'sourcePort', 'targetPort', 'shape', 'chunks', 'seed', '__proto__', 'constructor', 'x'];

function randomJson(r: Rng, depth = 0): unknown {
  const k = r.int(depth > 3 ? 4 : 7);
  if (k === 0) return r.pick(WEIRD_VALUES);
  if (k === 1) return r.next() * 2e6 - 1e6;
  if (k === 2) return r.pick(KEYS);
  if (k === 3) return r.chance(0.5);
  if (k === 4) return Array.from({ length: r.int(4) }, () => randomJson(r, depth + 1));
  return Object.fromEntries(Array.from({ length: r.int(5) }, () => [r.pick(KEYS), randomJson(r, depth + 1)]));
}

/** Replaces, deletes or adds one value somewhere in a parsed document. */
function mutate(r: Rng, doc: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as unknown;
  const containers: Array<Record<string, unknown> | unknown[]> = [];
  const walk = (v: unknown) => {
    if (v && typeof v === 'object') {
      containers.push(v as Record<string, unknown>);
      for (const c of Object.values(v)) walk(c);
    }
  };
  walk(copy);
  for (let m = 0, n = 1 + r.int(3); m < n; m++) {
    const c = r.pick(containers);
    const keys = Object.keys(c);
    const key = keys.length && !r.chance(0.15) ? r.pick(keys) : Array.isArray(c) ? String(c.length) : r.pick(KEYS);
    const action = r.int(3);
    if (action === 0 && !Array.isArray(c)) delete (c as Record<string, unknown>)[key];
    else (c as Record<string, unknown>)[key] = r.chance(0.6) ? r.pick(WEIRD_VALUES) : randomJson(r);
  }
  return copy;
}

function mutateText(r: Rng, text: string): string {
  const chars = [...text];
  for (let m = 0, n = 1 + r.int(4); m < n; m++) {
    const at = r.int(chars.length + 1);
    const k = r.int(3);
    if (k === 0) chars.splice(at, 1);
    else if (k === 1) chars.splice(at, 0, String.fromCharCode(r.int(128)));
    else chars.splice(at, 0, r.pick(['{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', '\ud800', '1e999']));
  }
  return chars.join('');
}

function randomBytes(r: Rng, n: number): string {
  return Buffer.from(Array.from({ length: n }, () => r.int(256))).toString(r.chance(0.5) ? 'utf8' : 'latin1');
}

describe('the workflow loader under fuzzing', () => {
  it('answers every input with a workflow or WorkflowErrors, quickly', () => {
    const r = prng(1);
    const n = 3000 * SCALE;
    let ok = 0;
    let refused = 0;
    let compiled = 0;
    let compileRefused = 0;
    let slowest = 0;
    const other: string[] = [];
    for (let i = 0; i < n; i++) {
      const base = r.pick(examples);
      const kind = i % 4;
      const text =
        kind === 0 ? JSON.stringify(mutate(r, JSON.parse(base))) : kind === 1 ? mutateText(r, base) : kind === 2 ? JSON.stringify(randomJson(r)) : randomBytes(r, r.int(300));
      const t0 = performance.now();
      try {
        const wf = loadWorkflowText(text);
        ok++;
        try {
          // Shapes from the fuzzer can be enormous: compilation must refuse them, not allocate or
          // enumerate a huge block grid (D3, docs/reliability.md: shape [4000, 1e308] once aborted
          // the process; every valid document is compiled, none skipped).
          compileWorkflow(wf, { maxTaskBytes: MAX_TASK_BYTES });
          compiled++;
        } catch (e) {
          if (e instanceof WorkflowError || e instanceof WorkflowErrors) compileRefused++;
          else other.push(`compile #${i}: ${String(e)}`);
        }
      } catch (e) {
        if (e instanceof WorkflowErrors) refused++;
        else other.push(`load #${i}: ${String(e)}`);
      }
      slowest = Math.max(slowest, performance.now() - t0);
    }
    figures('fuzz-workflow-loader', { inputs: n, valid: ok, refused, compiled, compileRefused, otherExceptions: other.length, slowestMs: Math.round(slowest), firstOther: other.slice(0, 3) });
    expect(other).toEqual([]);
    expect(slowest).toBeLessThan(5000);
  });
});

describe('the expression parser under fuzzing', () => {
  const TOKENS = ['a', 'b', 'price', '`odd name`', '1', '2.5', '-3', "'x'", "'2000-01-05'", '+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', 'and', 'or', 'not', 'in', 'is', 'null', 'true', 'false', '(', ')', '[', ']', ',', 'abs(', 'round(', 'log(', 'year(', 'month(', 'ev' + 'al(', 'process', '"', '\\', ';', '${', '\u0000'];
  it('answers every input with an AST or an ExprError', () => {
    const r = prng(2);
    const n = 5000 * SCALE;
    let parsed = 0;
    let typed = 0;
    let errors = 0;
    const other: string[] = [];
    let slowest = 0;
    const schema = { a: 'int', b: 'float', price: 'float', 'odd name': 'string', t: 'timestamp', flag: 'bool' } as const;
    for (let i = 0; i < n; i++) {
      const src =
        i % 5 === 4 ? randomBytes(r, r.int(60)) : Array.from({ length: 1 + r.int(12) }, () => r.pick(TOKENS)).join(r.chance(0.7) ? ' ' : '');
      const t0 = performance.now();
      try {
        parseExpr(src);
        parsed++;
        try {
          (r.chance(0.5) ? compileExpr : compileFilter)(src, schema);
          typed++;
        } catch (e) {
          if (e instanceof ExprError) errors++;
          else other.push(`check ${JSON.stringify(src)}: ${String(e)}`);
        }
      } catch (e) {
        if (e instanceof ExprError) errors++;
        else other.push(`parse ${JSON.stringify(src)}: ${String(e)}`);
      }
      slowest = Math.max(slowest, performance.now() - t0);
    }
    // Deep nesting must not overflow the stack with a RangeError: past 200 levels the parser
    // refuses with an ExprError (D4, docs/reliability.md: 10 000 levels once threw RangeError).
    const nesting: Record<number, string> = {};
    for (const depth of [1000, 10_000]) {
      const src = '('.repeat(depth) + 'a' + ')'.repeat(depth);
      try {
        parseExpr(src);
        parsed++;
        nesting[depth] = 'parsed';
      } catch (e) {
        nesting[depth] = e instanceof Error ? e.name : typeof e;
        if (e instanceof ExprError) errors++;
        else other.push(`nesting ${depth}: ${String(e).slice(0, 80)}`);
      }
    }
    figures('fuzz-expr', { inputs: n + 2, nesting, parsed, typed, exprErrors: errors, otherExceptions: other.length, slowestMs: Math.round(slowest), firstOther: other.slice(0, 3) });
    expect(other).toEqual([]);
  });
});

describe('CSV parsing under fuzzing', () => {
  const PIECES = ['a', 'b', '1', '-2', '3.5', 'true', 'nan', '', '"', '""', '"x,y"', '"multi\nline"', ',', ',', '\n', '\n', '\r\n', ';', '\t', '2000-01-05', '\ufeff', 'é', '\u0000'];
  it('parses or refuses with a CsvError naming the line, for text and for files', () => {
    const r = prng(3);
    const n = 3000 * SCALE;
    let ok = 0;
    let refused = 0;
    const other: string[] = [];
    for (let i = 0; i < n; i++) {
      const text = i % 6 === 5 ? randomBytes(r, r.int(200)) : Array.from({ length: r.int(40) }, () => r.pick(PIECES)).join('');
      try {
        parseCsvText(text, r.pick([',', ';', '\t']), r.int(4), (b) => {
          if (r.chance(0.5)) return true;
          throw new CsvError('fuzz.csv', b.line, 'bad row');
        });
        ok++;
      } catch (e) {
        if (e instanceof CsvError) refused++;
        else other.push(`text #${i}: ${String(e)}`);
      }
    }
    const dir = tempDir();
    const file = path.join(dir, 'f.csv');
    let fileOk = 0;
    let fileRefused = 0;
    const files = 300 * SCALE;
    try {
      for (let i = 0; i < files; i++) {
        const head = r.chance(0.8) ? 'a,b,c\n' : '';
        writeFileSync(file, head + Array.from({ length: r.int(60) }, () => r.pick(PIECES)).join(''));
        try {
          readCsv({ path: file, start: r.chance(0.7) ? 0 : r.int(50), end: r.chance(0.7) ? null : r.int(100) }, { header: head !== '' && r.chance(0.9), onBadLines: r.chance(0.5) ? 'skip' : 'error' });
          fileOk++;
        } catch (e) {
          // CsvError, or the reader's own refusals, which all start with "csv:".
          if (e instanceof CsvError || (e instanceof Error && e.message.startsWith('csv:'))) fileRefused++;
          else other.push(`file #${i}: ${String(e)}`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    figures('fuzz-csv', { textInputs: n, parsed: ok, refused, files, filesRead: fileOk, filesRefused: fileRefused, otherExceptions: other.length, firstOther: other.slice(0, 3) });
    expect(other).toEqual([]);
  });
});

describe('worker messages under fuzzing', () => {
  const valid = {
    to: [
      { type: 'init', config: { id: 'cpu0', kind: 'cpu', label: 'CPU', threads: 1, concurrency: 1, memoryLimit: 1e9, peerToken: 'x'.repeat(32), backends: ['js'], heartbeatMs: 500 } },
      { type: 'release', keys: ['r:a', 'r:b'] },
      { type: 'fetch', requestId: 3, key: 'r:a' },
      { type: 'shutdown' },
      { type: 'execute', runId: 'r', key: 'r:k', node: 'n', op: 'sum', spec: { kind: 'x' }, deps: [{ key: 'r:d', at: { workerId: 'w', host: '127.0.0.1', port: 4000 } }] },
    ],
    from: [
      { type: 'ready', pid: 1, address: { workerId: 'w', host: '127.0.0.1', port: 4000 }, backends: [{ name: 'js', available: true }] },
      { type: 'heartbeat', t: 1, rss: 2, heldBytes: 3, heldKeys: 4 },
      { type: 'done', key: 'k', bytes: 8, backend: 'js', startedAt: 1, endedAt: 2, transfers: [{ key: 'd', from: 'w', bytes: 8, ms: 1 }] },
      { type: 'error', key: 'k', message: 'm', code: 'memory' },
      { type: 'progress', key: 'k', payload: { epoch: 1, loss: 0.5 } },
      { type: 'value', requestId: 1, key: 'k', value: null, error: 'gone' },
      { type: 'log', level: 'warn', message: 'hello' },
    ],
  };
  it('safeParse never throws, whatever arrives', () => {
    const r = prng(4);
    const n = 4000 * SCALE;
    const counts = { to: { ok: 0, refused: 0 }, from: { ok: 0, refused: 0 } };
    const other: string[] = [];
    for (let i = 0; i < n; i++) {
      for (const side of ['to', 'from'] as const) {
        const msg = i % 3 === 2 ? randomJson(r) : mutate(r, r.pick<unknown>(valid[side] as unknown[]));
        try {
          const res = (side === 'to' ? toWorkerSchema : fromWorkerSchema).safeParse(msg);
          counts[side][res.success ? 'ok' : 'refused']++;
        } catch (e) {
          other.push(`${side} #${i}: ${String(e)}`);
        }
      }
    }
    // Non-JSON values that structured clone can deliver.
    for (const odd of [undefined, Symbol('s'), () => 1, new Map(), new Uint8Array(4), BigInt(5), Object.create(null), new Proxy({}, {})]) {
      for (const s of [toWorkerSchema, fromWorkerSchema]) {
        try {
          s.safeParse(odd);
        } catch (e) {
          other.push(`odd ${typeof odd}: ${String(e)}`);
        }
      }
    }
    figures('fuzz-worker-messages', { inputs: n * 2 + 16, toWorker: counts.to, fromWorker: counts.from, otherExceptions: other.length, firstOther: other.slice(0, 3) });
    expect(other).toEqual([]);
    for (const m of valid.from) expect(fromWorkerSchema.safeParse(m).success).toBe(true);
  });
});
