/**
 * The inspector's form logic, generated from a node kind's ParamSpec: how a value is shown in a
 * text field, how typed text is read back (with a message naming what is wrong), and whether a
 * node is fully configured. A value may be a "$name" reference to the workflow's params table.
 */
import type { ParamSpec } from '../../common/catalog';
import type { ParamValue } from '../../common/workflow';

export type ParamTable = Record<string, number | string | boolean>;

export type Parsed = { ok: true; value: ParamValue | undefined } | { ok: false; error: string };

const isRef = (v: unknown): v is string => typeof v === 'string' && /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(v);

export function formatParam(spec: ParamSpec, v: ParamValue | undefined): string {
  if (v === undefined || v === null) return '';
  if (spec.kind === 'numbers' || spec.kind === 'strings') return Array.isArray(v) ? v.map((x) => String(x)).join(', ') : String(v);
  if (spec.kind === 'json') return typeof v === 'string' ? v : JSON.stringify(v);
  return String(v);
}

function checkNumber(spec: { integer?: boolean; min?: number; max?: number; exclusiveMin?: number }, x: number, what: string): string | null {
  if (!Number.isFinite(x)) return `${what} must be a number`;
  if (spec.integer && !Number.isInteger(x)) return `${what} must be a whole number`;
  if (spec.min !== undefined && x < spec.min) return `${what} must be at least ${spec.min}`;
  if (spec.max !== undefined && x > spec.max) return `${what} must be at most ${spec.max}`;
  if (spec.exclusiveMin !== undefined && x <= spec.exclusiveMin) return `${what} must be greater than ${spec.exclusiveMin}`;
  return null;
}

function refProblem(ref: string, table: ParamTable): string | null {
  return ref.slice(1) in table ? null : `${ref} is not a workflow parameter (known: ${Object.keys(table).join(', ') || 'none'})`;
}

/** Reads what the user typed for one param. Empty text means "use the default". */
export function parseParam(spec: ParamSpec, text: string, table: ParamTable = {}): Parsed {
  const t = text.trim();
  if (t === '') return spec.required && spec.default === undefined ? { ok: false, error: `${spec.name} is required` } : { ok: true, value: undefined };
  if (isRef(t) && spec.kind !== 'strings') {
    const p = refProblem(t, table);
    return p ? { ok: false, error: p } : { ok: true, value: t };
  }
  switch (spec.kind) {
    case 'number': {
      const x = Number(t);
      const p = checkNumber(spec, x, spec.name);
      return p ? { ok: false, error: p } : { ok: true, value: x };
    }
    case 'string':
      if (spec.pattern && !new RegExp(spec.pattern).test(t)) return { ok: false, error: `${spec.name} must match ${spec.pattern}` };
      return { ok: true, value: text };
    case 'enum':
      return spec.options.includes(t) ? { ok: true, value: t } : { ok: false, error: `${spec.name} must be one of ${spec.options.join(', ')}` };
    case 'boolean':
      return t === 'true' || t === 'false' ? { ok: true, value: t === 'true' } : { ok: false, error: `${spec.name} must be true or false` };
    case 'numbers': {
      const parts = t.split(/[\s,]+/).filter(Boolean);
      // One chunk size stands for every axis, as in Dask (`500` -> (500, 500)): kept a number,
      // which the engine broadcasts over the shape however many axes it has.
      if (spec.name === 'chunks' && parts.length === 1 && !isRef(parts[0]) && !/[[\]]/.test(t)) {
        const x = Number(parts[0]);
        const p = checkNumber(spec, x, spec.name);
        return p ? { ok: false, error: p } : { ok: true, value: x };
      }
      const out: ParamValue[] = [];
      for (const [i, s] of parts.entries()) {
        if (isRef(s)) {
          const p = refProblem(s, table);
          if (p) return { ok: false, error: `${spec.name}[${i}]: ${p}` };
          out.push(s);
          continue;
        }
        const x = Number(s);
        const p = checkNumber(spec, x, `${spec.name}[${i}]`);
        if (p) return { ok: false, error: p };
        out.push(x);
      }
      if (spec.minLength !== undefined && out.length < spec.minLength) return { ok: false, error: `${spec.name} needs at least ${spec.minLength} entries` };
      if (spec.maxLength !== undefined && out.length > spec.maxLength) return { ok: false, error: `${spec.name} takes at most ${spec.maxLength} entries` };
      return { ok: true, value: out };
    }
    case 'strings': {
      const out = t.split(',').map((s) => s.trim()).filter(Boolean);
      if (spec.minLength !== undefined && out.length < spec.minLength) return { ok: false, error: `${spec.name} needs at least ${spec.minLength} entries` };
      return { ok: true, value: out };
    }
    case 'json':
      try {
        return { ok: true, value: JSON.parse(t) as ParamValue };
      } catch (e) {
        return { ok: false, error: `${spec.name} is not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
      }
  }
}

/** Required params with no value and no default: the node is "not configured" until they are set. */
export function missingParams(specs: ParamSpec[], params: Record<string, ParamValue>): string[] {
  return specs.filter((s) => s.required && s.default === undefined && (params[s.name] === undefined || params[s.name] === null)).map((s) => s.name);
}
