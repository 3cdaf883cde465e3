// The plain C ABI of the CPU kernels (libgpuflow_kernels.so), for callers that are not Node:
// the Dask bridge's Python package loads it with ctypes and passes NumPy buffers. It runs the
// same decoder and interpreter as the addon's native-cpu backend, so a program gives the same
// bits through either door. Every function returns 0 on success, or writes a message into
// `err` (NUL-terminated, truncated to err_len) and returns non-zero; nothing throws across it.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_CAPI_VERSION 1

int gf_capi_version(void);

// Decodes `code` (native/program-code.ts's encoding) against the inputs' lengths and types
// (0 float64, 1 float32, 2 int32) and reports what the output buffer must hold: `out_len`
// elements, float32 when `*out_f32` is 1 (a float32 program without reduction), else float64
// (values, or the partial's fields back to back in PARTIAL_FIELDS order).
int gf_program_output(const double* code, size_t code_len, const int64_t* in_lengths, const int32_t* in_types,
                      int32_t n_inputs, int64_t* out_len, int32_t* out_f32, char* err, size_t err_len);

// Runs the program over the inputs into `out` (which holds `out_len` elements as
// gf_program_output says) on a pool of `threads` threads (the calling thread included).
int gf_run_program(const double* code, size_t code_len, const void* const* inputs, const int64_t* in_lengths,
                   const int32_t* in_types, int32_t n_inputs, void* out, int64_t out_len, int32_t threads, char* err,
                   size_t err_len);

// Row-major linear algebra, float64 (linalg_cpu.h): C = A B (+ C0, may be null); reduced QR
// (q m x n, r n x n, diag(r) >= 0); thin SVD (u m x p, s p, vt p x n, p = min(m, n)).
int gf_matmul_f64(const double* a, const double* b, const double* c0, double* c, int64_t m, int64_t k, int64_t n,
                  int32_t threads, char* err, size_t err_len);
int gf_qr_f64(const double* a, double* q, double* r, int64_t m, int64_t n, int32_t threads, char* err, size_t err_len);
int gf_svd_f64(const double* a, double* u, double* s, double* vt, int64_t m, int64_t n, int32_t threads, char* err,
               size_t err_len);

#ifdef __cplusplus
}
#endif
