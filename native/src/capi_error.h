// The C-ABI libraries' error convention (capi.h): a failing entry point copies its message into
// the caller's buffer (truncated, always NUL-terminated) and returns 1. Shared by capi.cc and
// capi_cuda.cc so both report errors the same way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

namespace gf_capi {

inline int fail(char* err, size_t err_len, const std::string& msg) {
  if (err && err_len > 0) {
    const size_t n = std::min(err_len - 1, msg.size());
    std::memcpy(err, msg.data(), n);
    err[n] = '\0';
  }
  return 1;
}

}  // namespace gf_capi
