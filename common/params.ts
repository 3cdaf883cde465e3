/**
 * Node params: resolving "$name" references to the workflow's params table, and checking values
 * against the catalog's ParamSpec (type, bounds, required), each failure naming its field.
 */
import type { ParamSpec } from './catalog';
import type { ParamValue, WorkflowDoc } from './workflow';

const REF = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;

/** Replaces "$name" strings (at any depth) by the workflow param's value. */
export function resolveRefs(v: ParamValue, table: WorkflowDoc['params'], path: string, problems: Array<[string, string]>): ParamValue {
  if (typeof v === 'string') {
    const m = REF.exec(v);
    if (!m) return v;
    // Own properties only: '$constructor' or '$__proto__' must not reach Object.prototype.
    if (!table || !Object.hasOwn(table, m[1])) {
      problems.push([path, `refers to workflow param '${m[1]}', which is not defined in "params"`]);
      return v;
    }
    return table[m[1]];
  }
  if (Array.isArray(v)) return v.map((x, i) => resolveRefs(x, table, `${path}[${i}]`, problems));
  if (v && typeof v === 'object') {
    // fromEntries defines own properties, so a key '__proto__' stays data.
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveRefs(x, table, `${path}.${k}`, problems)]));
  }
  return v;
}

function checkNumber(spec: { integer?: boolean; min?: number; max?: number; exclusiveMin?: number }, x: number): string | null {
  if (!Number.isFinite(x)) return 'must be a finite number';
  if (spec.integer && !Number.isSafeInteger(x)) return `must be an integer below 2^53, got ${x}`;
  if (spec.exclusiveMin !== undefined && !(x > spec.exclusiveMin)) return spec.exclusiveMin === 0 ? `must be positive, got ${x}` : `must be greater than ${spec.exclusiveMin}, got ${x}`;
  if (spec.min !== undefined && x < spec.min) return spec.min === 0 ? `must not be negative, got ${x}` : `must be at least ${spec.min}, got ${x}`;
  if (spec.max !== undefined && x > spec.max) return `must be at most ${spec.max}, got ${x}`;
  return null;
}

/** Checks one param value; returns a problem or null. */
export function checkParam(spec: ParamSpec, v: ParamValue | undefined): string | null {
  if (v === undefined || v === null) return spec.required ? 'is required' : null;
  switch (spec.kind) {
    case 'number':
      return typeof v === 'number' ? checkNumber(spec, v) : `must be a number, got ${JSON.stringify(v)}`;
    case 'string':
      if (typeof v !== 'string') return `must be a string, got ${JSON.stringify(v)}`;
      if (spec.pattern && !new RegExp(spec.pattern).test(v)) return `does not match ${spec.pattern}`;
      return null;
    case 'enum':
      return typeof v === 'string' && spec.options.includes(v) ? null : `must be one of ${spec.options.join(', ')}, got ${JSON.stringify(v)}`;
    case 'boolean':
      return typeof v === 'boolean' ? null : `must be true or false, got ${JSON.stringify(v)}`;
    case 'numbers': {
      // A single number stands for the same value on every axis.
      const list = typeof v === 'number' ? [v] : v;
      if (!Array.isArray(list) || !list.every((x) => typeof x === 'number')) return `must be a list of numbers, got ${JSON.stringify(v)}`;
      if (spec.minLength !== undefined && list.length < spec.minLength) return `needs at least ${spec.minLength} entries`;
      if (spec.maxLength !== undefined && list.length > spec.maxLength) return `takes at most ${spec.maxLength} entries`;
      for (let i = 0; i < list.length; i++) {
        const p = checkNumber(spec, list[i] as number);
        if (p) return `[${i}] ${p}`;
      }
      return null;
    }
    case 'strings':
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return `must be a list of strings, got ${JSON.stringify(v)}`;
      if (spec.minLength !== undefined && v.length < spec.minLength) return `needs at least ${spec.minLength} entries`;
      return null;
    case 'json':
      return null;
  }
}

/** Params with defaults filled in. */
export function withDefaults(specs: ParamSpec[], given: Record<string, ParamValue>): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = { ...given };
  for (const s of specs) {
    if (out[s.name] === undefined && 'default' in s && s.default !== undefined) out[s.name] = s.default as ParamValue;
  }
  return out;
}
