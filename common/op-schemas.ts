/**
 * The typing shared by the tables of task params (common/array-op-params.ts,
 * common/df/op-params.ts): each op's params type is inferred from its zod schema, and the table
 * is retyped so that a schema looked up by a generic op parses to that op's params.
 */
import type * as z from 'zod';
import { formatIssues } from './messages';

/** Each op's params, as TypeScript sees them (inferred from the schemas: one definition). */
export type ParamsOf<S extends Record<string, z.ZodType>> = { [Op in keyof S]: z.infer<S[Op]> };

/** A table of schemas whose entry for `Op` parses to `M[Op]`. */
export type SchemaTable<M> = { [Op in keyof M]: z.ZodType<M[Op]> };

/** Whether `op` has an entry in `table` (own keys only, so 'toString' is not an op). */
export function hasOp<M>(table: SchemaTable<M>, op: string): op is Extract<keyof M, string> {
  return Object.hasOwn(table, op);
}

/**
 * `params` checked against `op`'s schema in `table`; a mismatch throws naming the task kind
 * (`label`: 'array-op', 'trial'), the op and each field, e.g. "trial 'describe': params do not
 * match its schema: model.base.kind: ...".
 */
export function parseOpParams<M, Op extends keyof M & string>(table: SchemaTable<M>, label: string, op: Op, params: unknown): M[Op] {
  const schema: z.ZodType<M[Op]> = table[op];
  const r = schema.safeParse(params);
  if (!r.success) throw new Error(`${label} '${op}': params do not match its schema: ${formatIssues(r.error)}`);
  return r.data;
}
