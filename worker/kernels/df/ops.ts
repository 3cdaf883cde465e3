/**
 * Row-preserving and row-selecting operations on one partition: select / rename / drop columns,
 * filter and assign with expressions, head and tail. Each takes an Arrow table and parameters
 * and returns a new table; inputs are never modified.
 */
import { makeVector, type Table, type Vector } from 'apache-arrow';
import { compileExpr, compileFilter } from '../../../common/expr/check';
import type { ValueType } from '../../../common/expr/ast';
import { exprSchemaOf, column } from './columns';
import { boolVector, floatVector, intVector, stringVector, timestampVector } from './build';
import { compileForTables, truthMask, type Vec } from './expr-eval';
import { filterTable, single, tableOf } from './gather';

function cols(table: Table): { name: string; vector: Vector }[] {
  return table.schema.fields.map((f) => ({ name: f.name, vector: table.getChild(f.name) as Vector }));
}

/** The columns `names`, in that order. */
export function select(table: Table, names: string[]): Table {
  return tableOf(names.map((n) => ({ name: n, vector: column(table, n, 'select') })), table.numRows);
}

/** The table without the columns `names` (each must exist). */
export function drop(table: Table, names: string[]): Table {
  for (const n of names) column(table, n, 'drop');
  return tableOf(cols(table).filter((c) => !names.includes(c.name)), table.numRows);
}

/** Columns renamed by `mapping` (old -> new); the new names must not collide. */
export function rename(table: Table, mapping: Record<string, string>): Table {
  for (const n of Object.keys(mapping)) column(table, n, 'rename');
  const out = cols(table).map((c) => ({ name: mapping[c.name] ?? c.name, vector: c.vector }));
  const seen = new Set<string>();
  for (const c of out) {
    if (seen.has(c.name)) throw new Error(`rename: two columns would be named '${c.name}'`);
    seen.add(c.name);
  }
  return tableOf(out, table.numRows);
}

/** Rows where the condition `expr` is true (null counts as false). */
export function filter(table: Table, expr: string): Table {
  const checked = compileFilter(expr, exprSchemaOf(table));
  return filterTable(table, truthMask(compileForTables(checked).evaluate(table)));
}

/** An Arrow vector holding an evaluated expression of type `type`. */
export function vecToVector(v: Vec, type: ValueType): Vector {
  if (v.t === 'bool') return boolVector(v.values, v.valid);
  if (v.t === 'str') return stringVector(v.codes, v.dict, v.valid);
  if (type === 'int') return intVector(v.values, v.valid);
  if (type === 'timestamp') return timestampVector(v.values, v.valid);
  return floatVector(v.values, v.valid);
}

/**
 * New or replaced columns, `name -> expression`, each evaluated against the input table (not
 * against columns assigned in the same call, as pandas' assign does with plain values).
 */
export function assign(table: Table, exprs: Record<string, string>): Table {
  const schema = exprSchemaOf(table);
  const made = Object.entries(exprs).map(([name, src]) => {
    const checked = compileExpr(src, schema);
    if (checked.type === 'null') throw new Error(`assign: column '${name}' = '${src}' is always null; give it a typed value`);
    const v = compileForTables(checked).evaluate(table);
    return { name, vector: makeVector(single(vecToVector(v, checked.type))) };
  });
  const out = cols(table).map((c) => made.find((m) => m.name === c.name) ?? c);
  for (const m of made) if (!out.includes(m)) out.push(m);
  return tableOf(out, table.numRows);
}

/** The first `n` rows. */
export function head(table: Table, n: number): Table {
  return table.slice(0, Math.max(0, n));
}

/** The last `n` rows. */
export function tail(table: Table, n: number): Table {
  return table.slice(Math.max(0, table.numRows - Math.max(0, n)));
}
