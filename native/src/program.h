// A ChunkProgram (common/arrays.ts) as native/program-code.ts encodes it: a postfix list of
// instructions whose leaves carry their flat index as an affine function of the output
// coordinates (broadcasts and slices are folded into those coefficients on the JS side). The
// struct is plain data so the CUDA kernels take it as a kernel parameter.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gf {

constexpr int kMaxDims = 8;
constexpr int kMaxInstr = 48;
constexpr int kMaxLeaves = 16;
constexpr int kMaxStack = 16;

enum Op : int32_t { kRandom = 1, kArange = 2, kFill = 3, kInput = 4, kUnary = 5, kBinary = 6, kBinaryConst = 7, kClip = 8 };
enum Unary : int32_t { uNeg, uAbs, uExp, uLog, uSqrt, uSin, uCos, uTanh, uSquare, uRound, uIsnan, uIsfinite, uFloor, uCeil, uCount };
// The comparisons give 1 / 0 (a bool program's values, or a float in a float program).
enum Binary : int32_t { bAdd, bSub, bMul, bDiv, bPow, bMin, bMax, bEq, bNe, bLt, bLe, bGt, bGe, bCount };
enum Reduce : int32_t { rNone, rSum, rMean, rVar, rStd, rMin, rMax, rArgmin, rArgmax, rProd, rNanprod, rNanmin, rNanmax, rNanmean, rCount };
enum InputType : int32_t { tF64, tF32, tI32 };

struct Leaf {
  int32_t kind;       // kRandom / kArange / kInput (fill is an instruction constant)
  int32_t normal;     // random: 1 normal, 0 uniform
  int32_t dep;        // input: dependency index
  uint32_t k0, k1;    // random: Philox key of the seed
  double a, b;        // random: (mean, std) or (low, high); arange: (start, step)
  int64_t off;        // flat index at output coordinate 0
  int64_t coef[kMaxDims];  // flat index increment per output axis
};

struct Instr {
  int32_t op;
  int32_t sub;    // unary / binary op, or leaf slot
  double p0, p1;  // fill value, binary constant, clip bounds
};

struct Program {
  int32_t f32;     // 1: float32 program (every op rounds to float32)
  int32_t ndim;    // >= 1 (a 0-d program is encoded as shape [1])
  int64_t shape[kMaxDims];
  int64_t n;       // number of elements
  int32_t reduce;  // Reduce
  int32_t axis;    // -1: all axes
  int64_t ioff;    // arg*: global index = ioff + sum(c[a] * icoef[a])
  int64_t icoef[kMaxDims];
  int32_t ninstr, nleaves, stack;
  int32_t chain;   // 1: one leaf followed only by unary / const ops (no stack needed)
  Instr code[kMaxInstr];
  Leaf leaves[kMaxLeaves];
};

struct InputView {
  const void* data;
  int64_t length;
  int32_t type;  // InputType
};

// Decodes and validates; throws std::invalid_argument naming the bad field.
Program decodeProgram(const double* code, size_t length, const std::vector<InputView>& inputs);

// Fields of the partial of each reduction, as common/arrays.ts documents them.
int partialFields(int32_t reduce);
// Number of positions of the partial: 1 for all axes, else n / shape[axis].
int64_t partialSize(const Program& p);

}  // namespace gf
