// The CPU interpreter's per-tile hot loops (see cpu_simd.h).
//
// Random leaves: the SIMD path works in stages over small arrays, each a loop vectorised for the
// target of the function it is inlined into (AVX-512 or AVX2, chosen at run time, so the build
// needs no -march): Philox over the tile's counters, counters -> uniform pairs (u1, u2), libmvec's
// log and cos / sin over those arrays, then the docs/random.md formula. Element i belongs to pair
// P = i >> 1 for both dtypes (float64: Philox call P; float32: half P & 1 of call P >> 1) and
// takes the pair's cosine (uniform: u1) when i is even, its sine (u2) when odd; so a slice that
// keeps even columns computes only cosines, as the CUDA kernel does.
#include "cpu_simd.h"

#include <dlfcn.h>

// The vector types below are passed between functions only after inlining into a function of
// their target (no ABI question), and GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on
// their own _mm512_undefined_epi32 (GCC PR105593).
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "ops.h"
#include "philox_lanes.h"
#include "reduce_acc.h"

namespace gf {
namespace {

// ---- scalar path: one Philox call and libm per element (or per pair when contiguous) ----

void random64Scalar(const Leaf& l, int64_t base, int64_t inc, int len, double* v) {
  if (inc != 1) {
    for (int k = 0; k < len; k++) v[k] = random64(l, base + k * inc);
    return;
  }
  int k = 0;
  if (base & 1) v[k++] = random64(l, base);
  for (; k + 1 < len; k += 2) {
    const Words w = philox(static_cast<uint64_t>(base + k) >> 1, l.k0, l.k1);
    const double u1 = uniform64(w.w0, w.w1), u2 = uniform64(w.w2, w.w3);
    if (l.normal) {
      const double r = std::sqrt(-2.0 * std::log(u1)), t = kTwoPi * u2;
      v[k] = l.a + l.b * (r * std::cos(t));
      v[k + 1] = l.a + l.b * (r * std::sin(t));
    } else {
      const double span = l.b - l.a;
      v[k] = l.a + span * u1;
      v[k + 1] = l.a + span * u2;
    }
  }
  if (k < len) v[k] = random64(l, base + k);
}

void random32Scalar(const Leaf& l, int64_t base, int64_t inc, int len, double* v) {
  if (inc != 1) {
    for (int k = 0; k < len; k++) v[k] = random32(l, base + k * inc);
    return;
  }
  int k = 0;
  for (; k < len && ((base + k) & 3); k++) v[k] = random32(l, base + k);
  for (; k + 3 < len; k += 4) {
    const Words w = philox(static_cast<uint64_t>(base + k) >> 2, l.k0, l.k1);
    const float u[4] = {uniform32(w.w0), uniform32(w.w1), uniform32(w.w2), uniform32(w.w3)};
    if (l.normal) {
      for (int q = 0; q < 4; q++) v[k + q] = normal32(float(l.a), float(l.b), u[q & 2], u[(q & 2) + 1], q & 1);
    } else {
      const float lo = float(l.a), span = float(l.b) - lo;
      for (int q = 0; q < 4; q++) v[k + q] = lo + span * u[q];
    }
  }
  for (; k < len; k++) v[k] = random32(l, base + k);
}

// ---- libmvec, loaded with dlopen so that a system without it only loses the SIMD path ----

struct Mvec {
  void* fn[2][3];  // [avx2, avx512][log, cos, sin]
  bool ok[2];
};

const Mvec& mvec() {
  static const Mvec m = [] {
    Mvec r{};
    void* h = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    const char* names[2][3] = {{"_ZGVdN4v_log", "_ZGVdN4v_cos", "_ZGVdN4v_sin"}, {"_ZGVeN8v_log", "_ZGVeN8v_cos", "_ZGVeN8v_sin"}};
    for (int lv = 0; lv < 2 && h; lv++) {
      r.ok[lv] = true;
      for (int f = 0; f < 3; f++) r.ok[lv] = (r.fn[lv][f] = dlsym(h, names[lv][f])) != nullptr && r.ok[lv];
    }
    return r;
  }();
  return m;
}

int bestLevel() {
  static const int best = [] {
    __builtin_cpu_init();
    const Mvec& m = mvec();
    if (m.ok[1] && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return int(kSimdAvx512);
    if (m.ok[0] && __builtin_cpu_supports("avx2")) return int(kSimdAvx2);
    return int(kSimdOff);
  }();
  return best;
}

// y[i] = f(x[i]) for i < n rounded up to the vector width (the buffers have room for it).
__attribute__((target("avx512f"))) void map512(void* f, const double* x, double* y, int n) {
  const auto fn = reinterpret_cast<__m512d (*)(__m512d)>(f);
  for (int i = 0; i < n; i += 8) _mm512_storeu_pd(y + i, fn(_mm512_loadu_pd(x + i)));
}
__attribute__((target("avx2"))) void map256(void* f, const double* x, double* y, int n) {
  const auto fn = reinterpret_cast<__m256d (*)(__m256d)>(f);
  for (int i = 0; i < n; i += 4) _mm256_storeu_pd(y + i, fn(_mm256_loadu_pd(x + i)));
}

// Philox's vector of counters per target (philox_lanes.h).
template <int Level> struct Lanes { typedef U32x16 V; static constexpr int n = 16; };
template <> struct Lanes<kSimdAvx2> { typedef U32x8 V; static constexpr int n = 8; };

// Room for a tile's pairs (<= 512) and counters, padded to 16 lanes; float32 pairs of a
// contiguous run are two per counter, plus one slot in front for a run starting on a half.
constexpr int kBuf = 576;
struct Buffers {
  alignas(64) uint32_t w[4][kBuf];
  alignas(64) double u1[kBuf], u2[kBuf], r[kBuf], t[kBuf], c[kBuf], s[kBuf], x[kBuf];
};

#define GF_INLINE inline __attribute__((always_inline))

// float32 programs round after every operation (round32), which here reproduces float
// arithmetic exactly: a double result of float operands rounded once to float is the float result.
template <bool F32>
GF_INLINE double rnd(double x) { return F32 ? round32(x) : x; }

// The SIMD stages for one tile; inlined into one function per target, so every loop is
// vectorised for that target. Returns false where it does not apply (the scalar path runs).
template <int Level, bool F32>
GF_INLINE bool simdTile(const Leaf& l, int64_t base, int64_t inc, int len, double* v, Buffers& b) {
  if (base < 0 || !(inc == 1 || (inc > 0 && inc % 2 == 0))) return false;
  const int64_t p0 = base >> 1, ps = inc == 1 ? 1 : inc >> 1;      // first pair, pair stride
  const int m = inc == 1 ? static_cast<int>(((base + len - 1) >> 1) - p0 + 1) : len;  // pairs
  if (F32 && ps % 2 == 1 && ps != 1) return false;  // pairs of no arithmetic counter sequence
  // Philox counters c0 + i * cs, i < nc: one per pair (float64, or float32 pairs of one half),
  // or one per two pairs (float32, consecutive pairs).
  const bool halves = F32 && ps == 1;
  const uint64_t c0 = F32 ? p0 >> 1 : p0, cs = F32 && !halves ? ps >> 1 : ps;
  const int nc = halves ? static_cast<int>(((p0 + m - 1) >> 1) - (p0 >> 1) + 1) : m;
  const int ncv = (nc + 15) & ~15;
  for (int i = 0; i < ncv; i++) {
    const uint64_t c = c0 + i * cs;
    b.w[0][i] = static_cast<uint32_t>(c), b.w[1][i] = static_cast<uint32_t>(c >> 32);
  }
  for (int i = 0; i < ncv; i += Lanes<Level>::n) philoxLanes<typename Lanes<Level>::V>(b.w[0] + i, b.w[1] + i, b.w[2] + i, b.w[3] + i, l.k0, l.k1);
  // Uniform pairs (u1, u2), exact as uniform64 / uniform32: the 53-bit integer is split in two
  // exactly converted halves (int32 -> double vectorises on AVX2 too).
  double* u1 = b.u1 + 1;
  double* u2 = b.u2 + 1;
  if (!F32) {
    for (int i = 0; i < ncv; i++) {
      u1[i] = (double(int32_t(b.w[0][i] >> 5)) * 67108864.0 + double(int32_t((b.w[1][i] >> 6) + 1))) * 1.1102230246251565e-16;
      u2[i] = (double(int32_t(b.w[2][i] >> 5)) * 67108864.0 + double(int32_t((b.w[3][i] >> 6) + 1))) * 1.1102230246251565e-16;
    }
  } else {
    const auto u32 = [](uint32_t w) { return double(int32_t((w >> 8) + 1)) * 5.9604644775390625e-8; };
    if (halves) {
      double* o1 = u1 - (p0 & 1);  // pair p0 is the second half of its counter when p0 is odd
      double* o2 = u2 - (p0 & 1);
      for (int i = 0; i < ncv; i++) {
        o1[2 * i] = u32(b.w[0][i]), o2[2 * i] = u32(b.w[1][i]);
        o1[2 * i + 1] = u32(b.w[2][i]), o2[2 * i + 1] = u32(b.w[3][i]);
      }
    } else {
      const uint32_t* a = b.w[2 * (p0 & 1)];
      const uint32_t* c = b.w[2 * (p0 & 1) + 1];
      for (int i = 0; i < ncv; i++) u1[i] = u32(a[i]), u2[i] = u32(c[i]);
    }
  }
  // Which member of each pair the tile keeps: both (contiguous), the even one or the odd one.
  const bool even = inc == 1 || !(base & 1), odd = inc == 1 || (base & 1);
  double* xs = inc == 1 ? b.x : v;  // even members (strided: straight into v)
  double* ys = inc == 1 ? b.s : v;  // odd members
  if (l.normal) {
    const Mvec& mv = mvec();
    const auto map = [&](int f, const double* x, double* y) {
      if (Level == kSimdAvx512) map512(mv.fn[1][f], x, y, m);
      else map256(mv.fn[0][f], x, y, m);
    };
    map(0, u1, b.r);
    for (int i = 0; i < m; i++) {
      b.r[i] = rnd<F32>(std::sqrt(F32 ? -2.0 * round32(b.r[i]) : -2.0 * b.r[i]));
      b.t[i] = rnd<F32>((F32 ? double(float(kTwoPi)) : kTwoPi) * u2[i]);
    }
    const double mean = rnd<F32>(l.a), sd = rnd<F32>(l.b);
    if (even) {
      map(1, b.t, b.c);
      for (int i = 0; i < m; i++) xs[i] = rnd<F32>(mean + rnd<F32>(sd * rnd<F32>(b.r[i] * rnd<F32>(b.c[i]))));
    }
    if (odd) {
      map(2, b.t, b.c);
      for (int i = 0; i < m; i++) ys[i] = rnd<F32>(mean + rnd<F32>(sd * rnd<F32>(b.r[i] * rnd<F32>(b.c[i]))));
    }
  } else {
    const double lo = rnd<F32>(l.a), span = rnd<F32>(rnd<F32>(l.b) - lo);
    if (even)
      for (int i = 0; i < m; i++) xs[i] = rnd<F32>(lo + rnd<F32>(span * u1[i]));
    if (odd)
      for (int i = 0; i < m; i++) ys[i] = rnd<F32>(lo + rnd<F32>(span * u2[i]));
  }
  if (inc == 1) {
    // Interleave the pairs' members, then drop the odd member before element `base`.
    double* t = b.c;
    for (int i = 0; i < m; i++) t[2 * i] = xs[i], t[2 * i + 1] = ys[i];
    std::memcpy(v, t + (base & 1), sizeof(double) * len);
  }
  return true;
}

template <bool F32>
__attribute__((target("avx512f,avx512dq,prefer-vector-width=512"))) bool tile512(const Leaf& l, int64_t base, int64_t inc, int len, double* v, Buffers& b) {
  return simdTile<kSimdAvx512, F32>(l, base, inc, len, v, b);
}
template <bool F32>
__attribute__((target("avx2"))) bool tile256(const Leaf& l, int64_t base, int64_t inc, int len, double* v, Buffers& b) {
  return simdTile<kSimdAvx2, F32>(l, base, inc, len, v, b);
}

// Eight Neumaier lanes as vectors of W doubles (the branch of neumaier() in reduce_acc.h as a
// bitwise select, which every target vectorises).
template <int W>
GF_INLINE void sumLanes(const double* v, int n, double* s, double* c) {
  typedef double D __attribute__((vector_size(8 * W)));
  typedef int64_t I __attribute__((vector_size(8 * W)));
  constexpr int G = 8 / W;
  D S[G], C[G];
  std::memcpy(S, s, sizeof S);
  std::memcpy(C, c, sizeof C);
  for (int k = 0; k + 8 <= n; k += 8)
    for (int g = 0; g < G; g++) {
      D x;
      std::memcpy(&x, v + k + g * W, sizeof x);
      const D t = S[g] + x;
      const I ge = D(I(S[g]) & INT64_MAX) >= D(I(x) & INT64_MAX);  // |s| >= |x|
      const D big = D((ge & I(S[g])) | (~ge & I(x))), small = D((ge & I(x)) | (~ge & I(S[g])));
      C[g] += (big - t) + small;
      S[g] = t;
    }
  std::memcpy(s, S, sizeof S);
  std::memcpy(c, C, sizeof C);
}
void sum128(const double* v, int n, double* s, double* c) { sumLanes<2>(v, n, s, c); }
__attribute__((target("avx2"))) void sum256(const double* v, int n, double* s, double* c) { sumLanes<4>(v, n, s, c); }
__attribute__((target("avx512f"))) void sum512(const double* v, int n, double* s, double* c) { sumLanes<8>(v, n, s, c); }

}  // namespace

void sumTile(const double* v, int n, double& s, double& c, int simd) {
  double ls[8] = {0}, lc[8] = {0};
  (simd == kSimdAvx512 ? sum512 : simd == kSimdAvx2 ? sum256 : sum128)(v, n, ls, lc);
  for (int j = 0; j < 8; j++) {
    neumaier(s, c, ls[j]);
    c += lc[j];
  }
  for (int k = n & ~7; k < n; k++) neumaier(s, c, v[k]);
}

int cpuSimdLevel() {
  const char* e = std::getenv("GPUFLOW_CPU_SIMD");
  int cap = kSimdAvx512;
  if (e && *e) cap = !std::strcmp(e, "avx2") ? kSimdAvx2 : !std::strcmp(e, "avx512") ? kSimdAvx512 : kSimdOff;
  return std::min(cap, bestLevel());
}

void randomTile(const Leaf& l, bool f32, int64_t base, int64_t inc, int len, double* v, int simd) {
  // The vector tiles assume a leaf walked forwards; a negative step (x[::-1]) takes the scalar path.
  if (simd != kSimdOff && len > 0 && inc > 0) {
    thread_local Buffers buf;
    const bool done = simd == kSimdAvx512 ? (f32 ? tile512<true>(l, base, inc, len, v, buf) : tile512<false>(l, base, inc, len, v, buf))
                                          : (f32 ? tile256<true>(l, base, inc, len, v, buf) : tile256<false>(l, base, inc, len, v, buf));
    if (done) return;
  }
  if (f32) random32Scalar(l, base, inc, len, v);
  else random64Scalar(l, base, inc, len, v);
}

}  // namespace gf
