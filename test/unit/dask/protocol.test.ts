/**
 * common/dask-messages.ts against the one protocol definition, python/gpuflow_dask/protocol.json
 * (which the bridge's messages.py reads): every bridge -> main type has a zod schema with exactly
 * the schema's fields, optional where it says so; the codes and value enums agree; the example
 * messages of python/tests/fixtures/dask-messages.json (also parsed by the Python suite) parse,
 * and fail without any required field.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { DASK_PROTOCOL, daskDtypeSchema, fromBridgeSchema, wireColumnSchema, wireValueSchema, type ToBridge } from '../../../common/dask-messages';

interface Fields {
  required: string[];
  optional: string[];
}
const Schema = z.object({
  protocol: z.number(),
  enums: z.record(z.string(), z.array(z.string())),
  toBridge: z.record(z.string(), z.object({ required: z.array(z.string()), optional: z.array(z.string()) })),
  fromBridge: z.record(z.string(), z.object({ required: z.array(z.string()), optional: z.array(z.string()) })),
});
const SCHEMA = Schema.parse(JSON.parse(readFileSync('python/gpuflow_dask/protocol.json', 'utf8')));
const EXAMPLES = z
  .object({ toBridge: z.array(z.record(z.string(), z.unknown())), fromBridge: z.array(z.record(z.string(), z.unknown())) })
  .parse(JSON.parse(readFileSync('python/tests/fixtures/dask-messages.json', 'utf8')));

/** The fields of a zod object, split by whether undefined passes. */
function fieldsOf(shape: Record<string, z.ZodType>): Fields {
  const out: Fields = { required: [], optional: [] };
  for (const [k, f] of Object.entries(shape)) (f.safeParse(undefined).success ? out.optional : out.required).push(k);
  return out;
}

function enumOf(t: z.ZodType | undefined): string[] {
  if (!(t instanceof z.ZodEnum)) throw new Error('not a zod enum');
  return t.options.map(String);
}

const byType = new Map(fromBridgeSchema.options.map((o) => [String(o.shape.type.value), o.shape as Record<string, z.ZodType>]));

describe('the Dask protocol, one definition', () => {
  it('has the version and every bridge -> main type with the fields protocol.json lists', () => {
    expect(DASK_PROTOCOL).toBe(SCHEMA.protocol);
    expect([...byType.keys()].sort()).toEqual(Object.keys(SCHEMA.fromBridge).sort());
    for (const [type, want] of Object.entries(SCHEMA.fromBridge)) {
      const got = fieldsOf(byType.get(type)!);
      expect(got.required.sort(), type).toEqual([...want.required].sort());
      expect(got.optional.sort(), type).toEqual([...want.optional].sort());
    }
  });

  it('agrees on the codes and the value enums', () => {
    const e = SCHEMA.enums;
    expect(enumOf(byType.get('failed')!.code)).toEqual(e.failureCode);
    expect(enumOf(byType.get('error')!.code)).toEqual(e.errorCode);
    expect(enumOf(byType.get('worker')!.event)).toEqual(e.workerEvent);
    expect(enumOf(byType.get('task')!.status)).toEqual(e.taskStatus);
    expect(enumOf(daskDtypeSchema)).toEqual(e.dtype);
    expect(enumOf(wireColumnSchema.shape.type)).toEqual(e.columnType);
    const partial = wireValueSchema.options.find((o) => o.shape.kind.value === 'partial')!;
    expect(enumOf((partial.shape as Record<string, z.ZodType>).op)).toEqual(e.partialOp);
  });

  it('parses every example the bridge may send, and refuses each without a required field', () => {
    expect(new Set(EXAMPLES.fromBridge.map((m) => m.type))).toEqual(new Set(Object.keys(SCHEMA.fromBridge)));
    for (const m of EXAMPLES.fromBridge) {
      expect(fromBridgeSchema.safeParse(m).success, JSON.stringify(m)).toBe(true);
      const type = String(m.type);
      for (const f of SCHEMA.fromBridge[type]!.required.filter((x) => x !== 'type')) {
        const { [f]: _gone, ...rest } = m;
        expect(fromBridgeSchema.safeParse(rest).success, `${type} without ${f}`).toBe(false);
      }
    }
  });

  it('sends main -> bridge messages with the fields protocol.json lists', () => {
    const sent: ToBridge[] = [
      { type: 'connect', id: 'c', target: 'tcp://127.0.0.1:1', timeout_s: 10, wait_s: 60, tls: { ca: 'a', cert: 'b', key: 'c' } },
      { type: 'workers', id: 'q' },
      { type: 'submit', id: 'r', graph: { tasks: [], outputs: [] } },
      { type: 'cancel', id: 'r' },
      { type: 'shutdown', fast: true },
    ];
    expect(new Set(sent.map((m) => m.type))).toEqual(new Set(Object.keys(SCHEMA.toBridge)));
    for (const m of sent) {
      const want = SCHEMA.toBridge[m.type]!;
      const keys = Object.keys(m);
      for (const r of want.required) expect(keys, m.type).toContain(r);
      for (const k of keys) expect([...want.required, ...want.optional], m.type).toContain(k);
    }
  });
});
