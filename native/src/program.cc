// Decoding of the program code that native/program-code.ts writes. Every field is checked here,
// because a bad offset in a leaf would read outside an input buffer.
#include "program.h"

#include <cmath>
#include <stdexcept>

namespace gf {
namespace {

constexpr double kMaxSafe = 9007199254740992.0;  // 2^53

struct Reader {
  const double* code;
  size_t length, pos = 0;
  double next(const char* what) {
    if (pos >= length) throw std::invalid_argument(std::string("program code ends early, reading ") + what);
    return code[pos++];
  }
  int64_t integer(const char* what, double lo, double hi) {
    const double v = next(what);
    if (!(v >= lo && v <= hi) || std::floor(v) != v)
      throw std::invalid_argument(std::string("program code: ") + what + " must be an integer in [" + std::to_string(lo) +
                                  ", " + std::to_string(hi) + "], got " + std::to_string(v));
    return static_cast<int64_t>(v);
  }
  double finite(const char* what) {
    const double v = next(what);
    if (std::isnan(v)) throw std::invalid_argument(std::string("program code: ") + what + " is NaN");
    return v;
  }
};

// Largest and smallest flat index a leaf reads over the whole output. A coefficient is negative
// when a slice with a negative step walks the leaf backwards (`x[::-1]`).
int64_t maxIndex(const Program& p, const Leaf& l) {
  int64_t m = l.off;
  for (int a = 0; a < p.ndim; a++)
    if (p.shape[a] > 0 && l.coef[a] > 0) m += (p.shape[a] - 1) * l.coef[a];
  return m;
}
int64_t minIndex(const Program& p, const Leaf& l) {
  int64_t m = l.off;
  for (int a = 0; a < p.ndim; a++)
    if (p.shape[a] > 0 && l.coef[a] < 0) m += (p.shape[a] - 1) * l.coef[a];
  return m;
}

void readCoefs(Reader& r, const Program& p, int64_t* coef) {
  for (int a = 0; a < p.ndim; a++) coef[a] = r.integer("leaf coefficient", -kMaxSafe, kMaxSafe);
}

}  // namespace

int partialFields(int32_t reduce) {
  switch (reduce) {
    case rSum: case rMin: case rMax: case rProd: case rNanprod: return 1;
    case rMean: case rArgmin: case rArgmax: case rNanmin: case rNanmax: case rNanmean: return 2;
    case rVar: case rStd: return 3;
    default: return 0;
  }
}

// An axis reduction has one lane per position of the other axes, also when the reduced axis is
// empty (x[:0].sum(axis=0): NumPy's zeros, one per lane), so the size is their product, not n / len.
int64_t partialSize(const Program& p) {
  if (p.reduce == rNone) return 0;
  if (p.axis < 0) return 1;
  int64_t size = 1;
  for (int a = 0; a < p.ndim; a++)
    if (a != p.axis) size *= p.shape[a];
  return size;
}

Program decodeProgram(const double* code, size_t length, const std::vector<InputView>& inputs) {
  Program p{};
  Reader r{code, length};
  if (r.integer("version", 1, 1) != 1) throw std::invalid_argument("program code: unknown version");
  p.f32 = static_cast<int32_t>(r.integer("dtype", 0, 1));
  p.ndim = static_cast<int32_t>(r.integer("ndim", 1, kMaxDims));
  p.n = 1;
  for (int a = 0; a < p.ndim; a++) {
    p.shape[a] = r.integer("shape", 0, kMaxSafe);
    p.n *= p.shape[a];
    if (p.n > kMaxSafe) throw std::invalid_argument("program code: shape has more than 2^53 elements");
  }
  p.reduce = static_cast<int32_t>(r.integer("reduce op", 0, rCount - 1));
  p.axis = static_cast<int32_t>(r.integer("reduce axis", -1, p.ndim - 1));
  p.ioff = r.integer("index offset", -1, kMaxSafe);
  for (int a = 0; a < p.ndim; a++) p.icoef[a] = r.integer("index coefficient", 0, kMaxSafe);
  p.ninstr = static_cast<int32_t>(r.integer("instruction count", 1, kMaxInstr));
  int depth = 0;
  for (int i = 0; i < p.ninstr; i++) {
    Instr& in = p.code[i];
    in.op = static_cast<int32_t>(r.integer("opcode", kRandom, kClip));
    if (in.op <= kInput) {
      depth++;
      if (in.op == kFill) {
        in.p0 = r.next("fill value");
        // The stack depth counts a fill too: a program that is only a fill (zeros(...).sum())
        // otherwise gets no stack and its evaluation writes past an empty buffer.
        if (depth > p.stack) p.stack = depth;
        continue;
      }
      if (p.nleaves >= kMaxLeaves) throw std::invalid_argument("program code: more than 16 leaves");
      in.sub = p.nleaves;
      Leaf& l = p.leaves[p.nleaves++];
      l.kind = in.op;
      if (in.op == kRandom) {
        l.normal = r.integer("random dist (0 normal, 1 uniform)", 0, 1) == 0;
        const int64_t seed = r.integer("random seed", 0, kMaxSafe - 1);
        l.k0 = static_cast<uint32_t>(seed & 0xffffffffu);
        l.k1 = static_cast<uint32_t>(seed >> 32);
        l.a = r.finite("random a");
        l.b = r.finite("random b");
      } else if (in.op == kArange) {
        l.a = r.finite("arange start");
        l.b = r.finite("arange step");
      } else {
        l.dep = static_cast<int32_t>(r.integer("input dep", 0, 1e9));
        if (l.dep >= static_cast<int64_t>(inputs.size()))
          throw std::invalid_argument("program code: input leaf reads dependency " + std::to_string(l.dep) + " but only " +
                                      std::to_string(inputs.size()) + " inputs were given");
      }
      l.off = r.integer("leaf offset", 0, kMaxSafe);
      readCoefs(r, p, l.coef);
      if (p.n > 0 && maxIndex(p, l) >= kMaxSafe) throw std::invalid_argument("program code: leaf index beyond 2^53");
      if (p.n > 0 && minIndex(p, l) < 0)
        throw std::invalid_argument("program code: leaf reads index " + std::to_string(minIndex(p, l)) + ", below 0");
      if (in.op == kInput && p.n > 0 && maxIndex(p, l) >= inputs[l.dep].length)
        throw std::invalid_argument("program code: input leaf reads index " + std::to_string(maxIndex(p, l)) +
                                    " of dependency " + std::to_string(l.dep) + ", which has " +
                                    std::to_string(inputs[l.dep].length) + " elements");
    } else if (in.op == kUnary) {
      in.sub = static_cast<int32_t>(r.integer("unary op", 0, uCount - 1));
      if (depth < 1) throw std::invalid_argument("program code: unary op on an empty stack");
    } else if (in.op == kBinary) {
      in.sub = static_cast<int32_t>(r.integer("binary op", 0, bCount - 1));
      if (depth < 2) throw std::invalid_argument("program code: binary op needs two operands");
      depth--;
    } else if (in.op == kBinaryConst) {
      in.sub = static_cast<int32_t>(r.integer("binary op", 0, bCount - 1));
      in.p0 = r.next("binary constant");
      if (depth < 1) throw std::invalid_argument("program code: binary op on an empty stack");
    } else {
      in.p0 = r.next("clip low");
      in.p1 = r.next("clip high");
      if (depth < 1) throw std::invalid_argument("program code: clip on an empty stack");
    }
    if (depth > kMaxStack) throw std::invalid_argument("program code: expression deeper than 16");
    if (depth > p.stack) p.stack = depth;
  }
  if (depth != 1) throw std::invalid_argument("program code: expression leaves " + std::to_string(depth) + " values, not 1");
  if (r.pos != length) throw std::invalid_argument("program code: " + std::to_string(length - r.pos) + " trailing values");
  p.chain = p.code[0].op <= kInput;
  for (int i = 1; i < p.ninstr; i++)
    if (p.code[i].op <= kInput || p.code[i].op == kBinary) p.chain = 0;
  return p;
}

}  // namespace gf
