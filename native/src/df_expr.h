// The dataframe filter's predicate bytecode (made by worker/kernels/df/expr-code.ts from a checked
// expression of common/expr) and its interpreter, one row at a time. Shared by the host
// (df_host.cc, g++) and the device (cuda/df_filter.cu, nvcc), so the CPU build tests the very
// interpreter the kernel runs. The code is data: nothing in it is executed except by this switch.
//
// Layout (Float64Array): [MAGIC, VERSION, nInstr, poolLen, maxStack, instr * 4 ..., pool ...].
// Each instruction is 4 doubles: op, a, b, c. Values are (double v, bool ok); bools are 0 / 1.
// Null semantics follow worker/kernels/df/expr-eval.ts (SQL: null in, null out; Kleene and/or;
// `is null` also true for NaN).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#ifdef __CUDACC__
#define GF_HD __host__ __device__ __forceinline__
#else
#define GF_HD inline
#endif

namespace gf {
namespace df {

constexpr double kMagic = 26214;  // 'df'
constexpr double kVersion = 1;
constexpr int kHeader = 5;
constexpr int kMaxStack = 32;

enum Op : int {
  opCol = 1,     // push column buffer a (float64), validity buffer b (-1: none)
  opLut = 2,     // push lut[c][codes[a][i]] (uint8), validity b; a code outside the table is null
  opConst = 3,   // push a
  opNull = 4,    // push null
  opAdd = 10, opSub = 11, opMul = 12, opDiv = 13, opMod = 14, opNeg = 15,
  opEq = 20, opNe = 21, opLt = 22, opLe = 23, opGt = 24, opGe = 25,
  opNot = 30, opAnd = 31, opOr = 32,
  opIsNull = 33,  // a = 1 for `is not null`
  opInNum = 34,   // pool[a .. a + b), c = 1 for `not in`
  opAbs = 40, opRound = 41 /* a = 10^digits */, opLog = 42, opYear = 43, opMonth = 44,
};

// The buffers an instruction may read, resolved by the caller (host pointers or device pointers).
struct Buffers {
  const double* const* f64;     // by buffer index; null where the buffer is not float64
  const int32_t* const* i32;    // by buffer index; null where not int32
  const uint8_t* const* u8;     // by buffer index; null where not uint8
  const int64_t* len;           // elements per buffer
};

// Arithmetic that nvcc may not contract into fused multiply-adds (so results match js bit for bit).
#ifdef __CUDA_ARCH__
GF_HD double addRn(double a, double b) { return __dadd_rn(a, b); }
GF_HD double subRn(double a, double b) { return __dsub_rn(a, b); }
GF_HD double mulRn(double a, double b) { return __dmul_rn(a, b); }
GF_HD double divRn(double a, double b) { return __ddiv_rn(a, b); }
#else
GF_HD double addRn(double a, double b) { return a + b; }
GF_HD double subRn(double a, double b) { return a - b; }
GF_HD double mulRn(double a, double b) { return a * b; }
GF_HD double divRn(double a, double b) { return a / b; }
#endif

// js's `%` then floor semantics (floorMod in expr-eval.ts).
GF_HD double floorMod(double a, double b) {
  if (b == 0) return NAN;
  double r = std::fmod(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? addRn(r, b) : r;
}

// numpy.round: half to even (roundHalfEven in expr-eval.ts).
GF_HD double roundHalfEven(double x, double p) {
  const double y = mulRn(x, p);
  const double f = std::floor(y);
  const double d = subRn(y, f);
  const double r = d > 0.5 ? f + 1 : d < 0.5 ? f : std::fmod(f, 2.0) == 0 ? f : f + 1;
  return divRn(r, p);
}

// Year or month (1-12) of ms since the epoch, UTC (civil in expr-eval.ts).
GF_HD double civil(double ms, bool month) {
  const double z = std::floor(ms / 86400000.0) + 719468;
  const double era = std::floor(z / 146097);
  const double doe = z - era * 146097;
  const double yoe = std::floor((doe - std::floor(doe / 1460) + std::floor(doe / 36524) - std::floor(doe / 146096)) / 365);
  const double doy = doe - (365 * yoe + std::floor(yoe / 4) - std::floor(yoe / 100));
  const double mp = std::floor((5 * doy + 2) / 153);
  const double m = mp < 10 ? mp + 3 : mp - 9;
  return month ? m : yoe + era * 400 + (m <= 2 ? 1 : 0);
}

// Evaluates the code for row i; true when the predicate is true and not null.
GF_HD bool evalRow(const double* code, const Buffers& buf, int64_t i) {
  const int n = static_cast<int>(code[2]);
  const double* ins = code + kHeader;
  const double* pool = ins + 4 * n;
  double v[kMaxStack];
  bool ok[kMaxStack];
  int sp = 0;
  for (int k = 0; k < n; k++) {
    const int op = static_cast<int>(ins[4 * k]);
    const double a = ins[4 * k + 1], b = ins[4 * k + 2], c = ins[4 * k + 3];
    switch (op) {
      case opCol: {
        v[sp] = buf.f64[static_cast<int>(a)][i];
        ok[sp] = b < 0 || buf.u8[static_cast<int>(b)][i] != 0;
        sp++;
        break;
      }
      case opLut: {
        const int32_t code_ = buf.i32[static_cast<int>(a)][i];
        const int lut = static_cast<int>(c);
        const bool inTable = code_ >= 0 && code_ < buf.len[lut];
        v[sp] = inTable ? buf.u8[lut][code_] : 0;
        ok[sp] = inTable && (b < 0 || buf.u8[static_cast<int>(b)][i] != 0);
        sp++;
        break;
      }
      case opConst: v[sp] = a; ok[sp] = true; sp++; break;
      case opNull: v[sp] = 0; ok[sp] = false; sp++; break;
      case opNeg: v[sp - 1] = -v[sp - 1]; break;
      case opNot: v[sp - 1] = v[sp - 1] != 0 ? 0 : 1; break;
      case opIsNull: {
        const bool isNull = !ok[sp - 1] || v[sp - 1] != v[sp - 1];
        v[sp - 1] = (isNull != (a != 0)) ? 1 : 0;
        ok[sp - 1] = true;
        break;
      }
      case opInNum: {
        const int from = static_cast<int>(a), cnt = static_cast<int>(b);
        bool hit = false;
        for (int j = 0; j < cnt; j++) hit = hit || v[sp - 1] == pool[from + j];
        v[sp - 1] = (hit != (c != 0)) ? 1 : 0;
        break;
      }
      case opAbs: v[sp - 1] = std::fabs(v[sp - 1]); break;
      case opRound: v[sp - 1] = roundHalfEven(v[sp - 1], a); break;
      case opLog: v[sp - 1] = std::log(v[sp - 1]); break;
      case opYear: v[sp - 1] = civil(v[sp - 1], false); break;
      case opMonth: v[sp - 1] = civil(v[sp - 1], true); break;
      case opAnd: case opOr: {
        // Kleene logic: a decisive operand (false for and, true for or) wins over a null.
        const double x = v[sp - 2], y = v[sp - 1];
        const bool px = ok[sp - 2], py = ok[sp - 1];
        const double decisive = op == opAnd ? 0 : 1;
        sp--;
        if ((px && x == decisive) || (py && y == decisive)) { v[sp - 1] = decisive; ok[sp - 1] = true; }
        else if (px && py) { v[sp - 1] = 1 - decisive; ok[sp - 1] = true; }
        else { v[sp - 1] = 0; ok[sp - 1] = false; }
        break;
      }
      default: {
        // Binary arithmetic and comparisons: null if either side is null.
        const double x = v[sp - 2], y = v[sp - 1];
        double r = 0;
        switch (op) {
          case opAdd: r = addRn(x, y); break;
          case opSub: r = subRn(x, y); break;
          case opMul: r = mulRn(x, y); break;
          case opDiv: r = divRn(x, y); break;
          case opMod: r = floorMod(x, y); break;
          case opEq: r = x == y; break;
          case opNe: r = x != y; break;
          case opLt: r = x < y; break;
          case opLe: r = x <= y; break;
          case opGt: r = x > y; break;
          default: r = x >= y; break;
        }
        sp--;
        v[sp - 1] = r;
        ok[sp - 1] = ok[sp - 1] && ok[sp];
      }
    }
  }
  return ok[0] && v[0] != 0;
}

// Buffer element types as the host sees them (validation only).
enum BufType : int { bF64 = 0, bI32 = 1, bU8 = 2, bOther = 3 };

// Checks the code against the buffers before anything runs: header, known ops, buffer indices,
// types and lengths (every column read has >= rows elements), pool bounds, stack depth. Returns
// "" when the code is safe to interpret over `rows` rows, else what is wrong.
inline std::string validateCode(const double* code, int64_t len, const std::vector<int>& types, const std::vector<int64_t>& lens, int64_t rows) {
  if (len < kHeader || code[0] != kMagic || code[1] != kVersion) return "code is not filter bytecode of version 1";
  const double nd = code[2], pd = code[3];
  if (!(nd >= 1 && nd < 100000 && nd == std::floor(nd)) || !(pd >= 0 && pd < 1e6 && pd == std::floor(pd))) return "code header is malformed";
  const int64_t n = static_cast<int64_t>(nd), pool = static_cast<int64_t>(pd);
  if (len != kHeader + 4 * n + pool) return "code length does not match its header";
  const int nb = static_cast<int>(types.size());
  auto buffer = [&](double x, int type, int64_t need, bool optional) -> std::string {
    if (optional && x < 0) return "";
    if (!(x >= 0 && x < nb && x == std::floor(x))) return "names buffer " + std::to_string(x) + " of " + std::to_string(nb);
    const int b = static_cast<int>(x);
    if (types[b] != type) return "buffer " + std::to_string(b) + " has the wrong element type";
    if (lens[b] < need) return "buffer " + std::to_string(b) + " has " + std::to_string(lens[b]) + " elements, needs " + std::to_string(need);
    return "";
  };
  int depth = 0;
  for (int64_t k = 0; k < n; k++) {
    const double* in = code + kHeader + 4 * k;
    const int op = static_cast<int>(in[0]);
    const std::string at = "instruction " + std::to_string(k) + ": ";
    std::string e;
    int pop = 0, push = 0;
    switch (op) {
      case opCol: e = buffer(in[1], bF64, rows, false); if (e.empty()) e = buffer(in[2], bU8, rows, true); push = 1; break;
      case opLut: e = buffer(in[1], bI32, rows, false); if (e.empty()) e = buffer(in[2], bU8, rows, true); if (e.empty()) e = buffer(in[3], bU8, 0, false); push = 1; break;
      case opConst: case opNull: push = 1; break;
      case opNeg: case opNot: case opIsNull: case opAbs: case opRound: case opLog: case opYear: case opMonth: pop = 1; push = 1; break;
      case opInNum:
        if (!(in[1] >= 0 && in[2] >= 0 && in[1] + in[2] <= pool)) e = "the value list is outside the pool";
        pop = 1; push = 1; break;
      case opAdd: case opSub: case opMul: case opDiv: case opMod: case opEq: case opNe: case opLt: case opLe: case opGt: case opGe: case opAnd: case opOr:
        pop = 2; push = 1; break;
      default: e = "unknown op " + std::to_string(in[0]);
    }
    if (!e.empty()) return at + e;
    if (depth < pop) return at + "stack underflow";
    depth += push - pop;
    if (depth > kMaxStack) return at + "stack deeper than " + std::to_string(kMaxStack);
  }
  if (depth != 1) return "code leaves " + std::to_string(depth) + " values on the stack, expected 1";
  return "";
}

}  // namespace df
}  // namespace gf
