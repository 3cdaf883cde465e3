// Philox4x32-10 over a vector of counters, as philox() in philox.h does for one, shared by the CPU
// interpreter's random tiles (cpu_simd.cc) and the stream fill (philox_fill_simd.cc). GCC's own
// vectorisation of philox()'s loop widens to 64-bit lanes and is 2-3x slower; here the 32x32 ->
// 64-bit products of even and odd lanes come from two _mul_epu32 and are blended back to 32-bit
// lanes. Include after <immintrin.h>; mulhi is inlined into the caller's target function
// (AVX-512 or AVX2) once philoxLanes is.
#pragma once
#include <cstdint>
#include <cstring>

namespace gf {

typedef uint32_t U32x16 __attribute__((vector_size(64)));
typedef uint32_t U32x8 __attribute__((vector_size(32)));
__attribute__((target("avx512f"))) inline U32x16 mulhi(U32x16 a, uint32_t m) {
  const __m512i x = __m512i(a), k = _mm512_set1_epi64(m);
  const __m512i even = _mm512_srli_epi64(_mm512_mul_epu32(x, k), 32), odd = _mm512_mul_epu32(_mm512_srli_epi64(x, 32), k);
  return U32x16(_mm512_mask_blend_epi32(0xAAAA, even, odd));
}
__attribute__((target("avx2"))) inline U32x8 mulhi(U32x8 a, uint32_t m) {
  const __m256i x = __m256i(a), k = _mm256_set1_epi64x(m);
  const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(x, k), 32), odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), k);
  return U32x8(_mm256_blend_epi32(even, odd, 0xAA));
}

// Counters (lo, hi) in w0, w1 at [0, lanes of V) -> Philox words w0 .. w3 there.
template <class V>
inline __attribute__((always_inline)) void philoxLanes(uint32_t* w0, uint32_t* w1, uint32_t* w2, uint32_t* w3, uint32_t k0, uint32_t k1) {
  V c0, c1, c2 = {}, c3 = {};
  std::memcpy(&c0, w0, sizeof(V));
  std::memcpy(&c1, w1, sizeof(V));
  for (int round = 0; round < 10; round++) {
    if (round > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    const V hi0 = mulhi(c0, 0xD2511F53u), lo0 = c0 * 0xD2511F53u;
    const V hi1 = mulhi(c2, 0xCD9E8D57u), lo1 = c2 * 0xCD9E8D57u;
    c0 = hi1 ^ c1 ^ k0; c1 = lo1; c2 = hi0 ^ c3 ^ k1; c3 = lo0;
  }
  std::memcpy(w0, &c0, sizeof(V));
  std::memcpy(w1, &c1, sizeof(V));
  std::memcpy(w2, &c2, sizeof(V));
  std::memcpy(w3, &c3, sizeof(V));
}

}  // namespace gf
