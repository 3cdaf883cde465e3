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
 *   comparisons             bool (as are isnan, isfinite, logical_and/or/xor/not, any, all)
 *   bool                    loses to every other dtype: bool + int32 -> int32, bool + float32 ->
 *                           float32; bool + bool -> bool (add is logical or, mul logical and);
 *                           with a Python int -> int64, a Python float -> float64
 *   reductions              sum of integers or bools -> int64 (NumPy's default int), of float32 ->
 *                           float32; mean/var/std of integers or bools -> float64, of float32 ->
 *                           float32; min/max keep the dtype; argmin/argmax -> int64
 *
 * Where NumPy's answer is a dtype this engine lacks (float16 for exp of a bool, int8 for bool **
 * bool or square) or an error (bool - bool, -bool), boolProblem says so and the op is refused.
 *
 * A whole JSON number counts as a Python int (JSON cannot tell 2 from 2.0); a node that takes a
 * number has a `value_kind` param to say 'float' when `x * 2.0` is meant.
 */
import type { BinaryOp, DType, ReduceOp, UnaryOp } from './arrays';
import { COMPARE_OPS } from './arrays';

export const DTYPES: DType[] = ['float64', 'float32', 'int32', 'int64', 'bool'];

export function isIntDType(d: DType): boolean {
  return d === 'int32' || d === 'int64';
}

/** np.promote_types for the engine's dtypes. */
export function promoteTypes(a: DType, b: DType): DType {
  if (a === b) return a;
  // Every dtype holds False and True.
  if (a === 'bool') return b;
  if (b === 'bool') return a;
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
  // A bool array takes the scalar's default dtype: True + 1 -> int64, True + 0.5 -> float64.
  if (a === 'bool') return kind === 'float' ? 'float64' : 'int64';
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
  if (isCompareOp(op)) return 'bool';
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

/** Unary predicates: NumPy's bool, as the comparisons give. */
const PREDICATES: UnaryOp[] = ['isnan', 'isfinite'];

export function unaryResultType(x: DType, op: UnaryOp): DType {
  if (PREDICATES.includes(op)) return 'bool';
  return KEEPS_DTYPE.includes(op) ? x : floatOf(x);
}

/** The dtype of a reduction's result, as NumPy's (Linux: the default int is int64). */
export function reduceResultType(x: DType, op: ReduceOp): DType {
  switch (op) {
    case 'sum':
    case 'prod':
    case 'nanprod': return isIntDType(x) || x === 'bool' ? 'int64' : x;
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
  return isIntDType(x) || x === 'bool' ? 'int64' : x;
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
  if (dtype === 'bool') return value !== 0 ? 1 : 0;
  return dtype === 'float32' ? Math.fround(value) : value;
}

/** Unary ops whose NumPy result on a bool is float16 (a dtype this engine lacks). */
const FLOAT16_OF_BOOL: UnaryOp[] = ['exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'round', 'floor', 'ceil'];

/**
 * Why `op` cannot take these operands as NumPy would, or null: NumPy raises for bool - bool and
 * -bool, and gives float16 or int8 (no dtypes here) for exp(bool), bool ** bool, square(bool).
 * `operands`: the unary op's input, or the binary op's two array dtypes.
 */
export function boolProblem(op: UnaryOp | BinaryOp, operands: DType[]): string | null {
  const allBool = operands.every((d) => d === 'bool');
  if (!allBool) return null;
  if (operands.length === 2) {
    if (op === 'sub') return 'bool - bool is an error in NumPy (numpy boolean subtract): use logical_xor, or astype int32 first';
    if (op === 'pow') return 'bool ** bool is int8 in NumPy, a dtype this engine lacks: astype int32 first';
    return null;
  }
  if (op === 'neg') return '-bool is an error in NumPy (numpy boolean negative): use logical_not';
  if (op === 'square') return 'square of a bool is int8 in NumPy, a dtype this engine lacks: astype int32 first';
  if ((FLOAT16_OF_BOOL as string[]).includes(op)) return `${op} of a bool is float16 in NumPy, a dtype this engine lacks: astype float32 first`;
  return null;
}
