/**
 * zod schemas of the values and task specs that cross process boundaries. Every message a process
 * receives is parsed with these before it is acted on (common/messages.ts).
 */
import * as z from 'zod';
import type { ChunkProgram, ChunkValue, Expr, JsonValue, Leaf } from './arrays';
import type { TaskSpec } from './tasks';

const int = z.number().int();
const nonNegInt = int.nonnegative();

export const dtypeSchema = z.enum(['float64', 'float32', 'int32', 'int64', 'bool']);
export const reduceOpSchema = z.enum(['sum', 'mean', 'min', 'max', 'var', 'std', 'argmin', 'argmax', 'prod', 'nanprod', 'nanmin', 'nanmax', 'nanmean']);

export const regionSchema = z.object({
  start: z.array(nonNegInt),
  step: z.array(int.refine((v) => v !== 0, 'must not be zero')),
  count: z.array(nonNegInt),
});

export const leafSchema: z.ZodType<Leaf> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('random'), dist: z.enum(['normal', 'uniform']), seed: nonNegInt, a: z.number(), b: z.number(), shape: z.array(nonNegInt), region: regionSchema }),
  z.object({ kind: z.literal('arange'), start: z.number(), step: z.number(), shape: z.array(nonNegInt), region: regionSchema }),
  z.object({ kind: z.literal('fill'), value: z.number() }),
  z.object({ kind: z.literal('input'), dep: nonNegInt, region: regionSchema }),
]);

export const exprSchema: z.ZodType<Expr> = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('leaf'), leaf: leafSchema }),
    z.object({ kind: z.literal('unary'), op: z.enum(['neg', 'abs', 'exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'square', 'round', 'isnan', 'isfinite', 'floor', 'ceil']), arg: exprSchema }),
    z.object({ kind: z.literal('clip'), arg: exprSchema, lo: z.number(), hi: z.number() }),
    z.object({ kind: z.literal('binary'), op: z.enum(['add', 'sub', 'mul', 'div', 'pow', 'min', 'max', 'eq', 'ne', 'lt', 'le', 'gt', 'ge']), a: exprSchema, b: exprSchema }),
    z.object({ kind: z.literal('where'), cond: exprSchema, a: exprSchema, b: exprSchema }),
    z.object({ kind: z.literal('broadcast'), arg: exprSchema, from: z.array(nonNegInt), axes: z.array(int.min(-1)).optional() }),
  ]),
);

export const programSchema: z.ZodType<ChunkProgram> = z.object({
  dtype: dtypeSchema,
  shape: z.array(nonNegInt),
  sizedBy: nonNegInt.optional(),
  expr: exprSchema,
  reduce: z
    .object({
      op: reduceOpSchema,
      axis: int.nonnegative().nullable(),
      ddof: z.number().optional(),
      offset: z.array(nonNegInt).optional(),
      globalShape: z.array(nonNegInt).optional(),
    })
    .optional(),
});

const record = z.record(z.string(), z.unknown());

export const taskSpecSchema: z.ZodType<TaskSpec> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('program'), program: programSchema }),
  z.object({ kind: z.literal('combine'), finalize: z.boolean(), ddof: z.number().optional(), dtype: dtypeSchema.optional() }),
  z.object({ kind: z.literal('array-op'), op: z.string(), params: record }),
  z.object({ kind: z.literal('df'), op: z.string(), params: record }),
  z.object({ kind: z.literal('trial'), op: z.string(), params: record }),
]);

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.number(), z.string(), z.boolean(), z.null(), z.array(jsonValueSchema), z.record(z.string(), jsonValueSchema)]),
);

const numericArraySchema = z.union([
  z.instanceof(Float64Array),
  z.instanceof(Float32Array),
  z.instanceof(Int32Array),
  z.instanceof(BigInt64Array),
  z.instanceof(Uint8Array),
]);

const ndarraySchema = z.object({ dtype: dtypeSchema, shape: z.array(nonNegInt), data: numericArraySchema });

export const chunkValueSchema: z.ZodType<ChunkValue> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('array'), array: ndarraySchema }),
  z.object({ kind: z.literal('arrays'), arrays: z.record(z.string(), ndarraySchema) }),
  z.object({
    kind: z.literal('partial'),
    partial: z.object({ op: reduceOpSchema, shape: z.array(nonNegInt), fields: z.record(z.string(), z.instanceof(Float64Array)), isum: z.instanceof(BigInt64Array).optional() }),
  }),
  z.object({ kind: z.literal('table'), ipc: z.instanceof(Uint8Array), rows: nonNegInt }),
  z.object({ kind: z.literal('json'), value: jsonValueSchema }),
]);
