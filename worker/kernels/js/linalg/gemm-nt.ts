/**
 * The inner kernel of the blocked Householder QR: C[i][j] += alpha * sum_p A[i][p] B[j][p] over
 * strided row-major views (A is M x K, B is N x K: both read contiguously along p). Sixteen
 * accumulators hold a 4x4 tile of C; leftover rows and columns take a plain dot product.
 */
export function gemmNT(
  A: Float64Array, aOff: number, lda: number,
  B: Float64Array, bOff: number, ldb: number,
  C: Float64Array, cOff: number, ldc: number,
  M: number, N: number, K: number, alpha: number,
): void {
  if (K <= 0 || M <= 0 || N <= 0) return;
  const M4 = M - (M % 4);
  const N4 = N - (N % 4);
  for (let i = 0; i < M4; i += 4) {
    const a0 = aOff + i * lda;
    const a1 = a0 + lda;
    const a2 = a1 + lda;
    const a3 = a2 + lda;
    for (let j = 0; j < N4; j += 4) {
      const b0 = bOff + j * ldb;
      const b1 = b0 + ldb;
      const b2 = b1 + ldb;
      const b3 = b2 + ldb;
      let s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
      let s20 = 0, s21 = 0, s22 = 0, s23 = 0, s30 = 0, s31 = 0, s32 = 0, s33 = 0;
      for (let p = 0; p < K; p++) {
        const x0 = A[a0 + p], x1 = A[a1 + p], x2 = A[a2 + p], x3 = A[a3 + p];
        const y0 = B[b0 + p], y1 = B[b1 + p], y2 = B[b2 + p], y3 = B[b3 + p];
        s00 += x0 * y0; s01 += x0 * y1; s02 += x0 * y2; s03 += x0 * y3;
        s10 += x1 * y0; s11 += x1 * y1; s12 += x1 * y2; s13 += x1 * y3;
        s20 += x2 * y0; s21 += x2 * y1; s22 += x2 * y2; s23 += x2 * y3;
        s30 += x3 * y0; s31 += x3 * y1; s32 += x3 * y2; s33 += x3 * y3;
      }
      const c0 = cOff + i * ldc + j;
      const c1 = c0 + ldc;
      const c2 = c1 + ldc;
      const c3 = c2 + ldc;
      C[c0] += alpha * s00; C[c0 + 1] += alpha * s01; C[c0 + 2] += alpha * s02; C[c0 + 3] += alpha * s03;
      C[c1] += alpha * s10; C[c1 + 1] += alpha * s11; C[c1 + 2] += alpha * s12; C[c1 + 3] += alpha * s13;
      C[c2] += alpha * s20; C[c2 + 1] += alpha * s21; C[c2 + 2] += alpha * s22; C[c2 + 3] += alpha * s23;
      C[c3] += alpha * s30; C[c3 + 1] += alpha * s31; C[c3 + 2] += alpha * s32; C[c3 + 3] += alpha * s33;
    }
  }
  // Edges: rows past M4 (all columns), then columns past N4 (rows below M4).
  for (let i = 0; i < M; i++) {
    const jStart = i < M4 ? N4 : 0;
    const a = aOff + i * lda;
    for (let j = jStart; j < N; j++) {
      const b = bOff + j * ldb;
      let s = 0;
      for (let p = 0; p < K; p++) s += A[a + p] * B[b + p];
      C[cOff + i * ldc + j] += alpha * s;
    }
  }
}
