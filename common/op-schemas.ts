/**
 * One table of typed task params per task kind (common/array-op-params.ts,
 * common/df/op-params.ts, common/tuning/op-params.ts) built by `opTable`: each op's params type
 * is inferred from its zod schema (one definition), and what every table does (the op guard, the
 * spec builder main's compiler uses, the parsers the worker uses) is written once here.
 */
import type * as z from 'zod';
import { formatIssues } from './messages';
import type { TaskSpec } from './tasks';

/** The task kinds whose params are typed by a table (TaskSpec's op-and-params kinds). */
type OpKind = Extract<TaskSpec, { op: string }>['kind'];

/** A table of schemas whose entry for `Op` parses to `M[Op]`. */
export type SchemaTable<M> = { [Op in keyof M]: z.ZodType<M[Op]> };

/** A task kind's typed ops: their schemas and what main and the worker do with them. */
export interface OpTable<M extends Record<string, Record<string, unknown>>> {
  /** The schema of each op (retyped so that a schema looked up by a generic op parses to that op's params). */
  readonly schemas: SchemaTable<M>;
  /** Whether `op` has a schema here (own keys only, so 'toString' is not an op). */
  has(this: void, op: string): op is Extract<keyof M, string>;
  /** The task spec of `op`, as main's compiler emits it (a misspelt or missing param is a type error). */
  spec<Op extends keyof M & string>(this: void, op: Op, params: M[Op]): TaskSpec;
  /**
   * `params` checked against `op`'s schema; a mismatch throws naming the task kind, the op and
   * each field, e.g. "trial 'describe': params do not match its schema: model.base.kind: ...".
   */
  parse<Op extends keyof M & string>(this: void, op: Op, params: unknown): M[Op];
  /** `params` parsed by `op`'s schema, or null when they do not match. */
  parseOrNull<Op extends keyof M & string>(this: void, op: Op, params: unknown): M[Op] | null;
}

/** The ops of a table. */
export type OpOf<T> = T extends OpTable<infer M> ? Extract<keyof M, string> : never;
/** The params of op `Op` of a table. */
export type OpParamsOf<T, Op extends OpOf<T>> = T extends OpTable<infer M> ? M[Op] : never;

/**
 * The typed ops of task kind `kind` from one zod schema per op; `M` (each op's params) is
 * inferred from the schemas, so no params type is written a second time.
 */
export function opTable<M extends Record<string, Record<string, unknown>>>(kind: OpKind, table: SchemaTable<M>): OpTable<M> {
  const safeParse = <Op extends keyof M & string>(op: Op, params: unknown) => {
    const schema: z.ZodType<M[Op]> = table[op];
    return schema.safeParse(params);
  };
  return {
    schemas: table,
    has: (op): op is Extract<keyof M, string> => Object.hasOwn(table, op),
    spec: (op, params) => ({ kind, op, params }),
    parse: (op, params) => {
      const r = safeParse(op, params);
      if (!r.success) throw new Error(`${kind} '${op}': params do not match its schema: ${formatIssues(r.error)}`);
      return r.data;
    },
    parseOrNull: (op, params) => {
      const r = safeParse(op, params);
      return r.success ? r.data : null;
    },
  };
}
