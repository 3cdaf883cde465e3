/**
 * NumPy's dtype rules for the engine's four dtypes, in one table: every array op asks here what
 * dtype its output has (main/engine/ops), explain shows the same answer, and docs/dask-api.md
 * lists it per op. The rules are np.result_type's, with NEP 50 (NumPy 2) for Python scalars:
 *
 *   promote(a, b)           int32+int32 int32 · int32+int64 int64 · float32+float32 float32 ·
 *                           float32+int32 float64 (float32 cannot hold every int32) · float64 wins
 *   a Python int  (weak)    keeps the array's dtype: int32 array + 2 -> int32, float32 + 2 -> float32
 *   a Python float (weak)   keeps a float array's dtype (float32 + 0.5 -> float32) and makes an
 *                           integer array float64 (int32 + 0.5 -> float64)
 *   true division           always a float: int / int -> float64, float32 / 2 -> float32
 *   comparisons             NumPy's bool; this engine has no bool dtype, so 1 / 0 as int32
 *   isnan, isfinite         the same: 1 / 0 as int32
 *   reductions              sum of integers -> int64 (NumPy's default int), of float32 -> float32;
 *                           mean/var/std of integers -> float64, of float32 -> float32;
 *                           min/max keep the dtype; argmin/argmax -> int64
 *
 * A whole JSON number counts as a Python int (JSON cannot tell 2 from 2.0); a node that takes a
 * number has a `value_kind` param to say 'float' when `x * 2.0` is meant.
 */
import type { BinaryOp, DType, ReduceOp, UnaryOp } from './arrays';
import { COMPARE_OPS } from './arrays';

export const DTYPES: DType[] = ['float64', 'float32', 'int32', 'int64'];

export function isIntDType(d: DType): boolean {
  return d === 'int32' || d === 'int64';
}

/** np.promote_types for the engine's dtypes. */
export function promoteTypes(a: DType, b: DType): DType {
  if (a === b) return a;
  if (isIntDType(a) && isIntDType(b)) return 'int64';
  // float32 with float64, or a float with an integer: float32 holds only int16 exactly.
  return 'float64';
}

/** How a Python scalar takes part in promotion (NEP 50): a weak int or a weak float. */
export type ScalarKind = 'int' | 'float';

/** The kind of a JSON number given as a Python scalar: whole numbers are ints unless `declared` says 'float'. */
export function scalarKind(value: number, declared?: unknown): ScalarKind {
  if (declared === 'float' || declared === 'int') return declared;
  return Number.isInteger(value) ? 'int' : 'float';
}

/** np.result_type(array of `a`, Python scalar of `kind`) under NEP 50. */
export function promoteWithScalar(a: DType, kind: ScalarKind): DType {
  return kind === 'float' && isIntDType(a) ? 'float64' : a;
}

/** The float dtype an op such as true division or sqrt gives: float32 stays, everything else float64. */
export function floatOf(d: DType): DType {
  return d === 'float32' ? 'float32' : 'float64';
}

export function isCompareOp(op: BinaryOp): boolean {
  return (COMPARE_OPS as string[]).includes(op);
}

/** The output dtype of a binary op once its operands' common dtype `common` is known. */
function binaryFrom(common: DType, op: BinaryOp): DType {
  if (isCompareOp(op)) return 'int32';
  return op === 'div' ? floatOf(common) : common;
}

/** np.result_type of an elementwise op of two arrays. */
export function binaryResultType(a: DType, b: DType, op: BinaryOp): DType {
  return binaryFrom(promoteTypes(a, b), op);
}

/** np.result_type of an elementwise op of an array and a Python scalar (NEP 50). */
export function scalarResultType(a: DType, kind: ScalarKind, op: BinaryOp): DType {
  return binaryFrom(promoteWithScalar(a, kind), op);
}

/** Unary ops that keep an integer dtype (the rest are transcendental: floats out). */
const KEEPS_DTYPE: UnaryOp[] = ['neg', 'abs', 'square', 'round'];

/** Unary predicates: NumPy's bool, as 1 / 0 in int32 (the comparisons' dtype here). */
const PREDICATES: UnaryOp[] = ['isnan', 'isfinite'];

export function unaryResultType(x: DType, op: UnaryOp): DType {
  if (PREDICATES.includes(op)) return 'int32';
  return KEEPS_DTYPE.includes(op) ? x : floatOf(x);
}

/** The dtype of a reduction's result, as NumPy's (Linux: the default int is int64). */
export function reduceResultType(x: DType, op: ReduceOp): DType {
  switch (op) {
    case 'sum':
    case 'prod':
    case 'nanprod': return isIntDType(x) ? 'int64' : x;
    case 'mean':
    case 'nanmean':
    case 'var':
    case 'std': return floatOf(x);
    case 'min':
    case 'max':
    case 'nanmin':
    case 'nanmax': return x;
    case 'argmin':
    case 'argmax': return 'int64';
  }
}

/** numpy.cumsum / cumprod: integers accumulate in int64, floats in their own dtype. */
export function scanResultType(x: DType): DType {
  return isIntDType(x) ? 'int64' : x;
}

/** numpy.where(cond, a, b) and concatenate: the result type of the values, Python scalars weak. */
export function resultTypeOf(values: Array<DType | ScalarKind>): DType {
  const arrays = values.filter((v): v is DType => v !== 'int' && v !== 'float');
  const scalars = values.filter((v): v is ScalarKind => v === 'int' || v === 'float');
  if (arrays.length === 0) return scalars.includes('float') ? 'float64' : 'int64';
  let d = arrays.reduce(promoteTypes);
  for (const s of scalars) d = promoteWithScalar(d, s);
  return d;
}

/**
 * A Python scalar as an operand of a `dtype` op (NEP 50: cast to the array's dtype first), so
 * float32 x + 0.1 adds float32(0.1) as NumPy does, not 0.1 rounded after the add.
 */
export function scalarOperand(value: number, dtype: DType): number {
  return dtype === 'float32' ? Math.fround(value) : value;
}
