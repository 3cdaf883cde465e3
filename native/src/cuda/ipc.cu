// CUDA IPC transfers of resident blocks (cuda_ipc.h): export buffers (cudaMalloc'd, so they can
// be exported) lent out by id and then cached or freed; imports into new pool blocks.
#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "../cuda_ipc.h"
#include "common.h"

namespace gf {
namespace cuda {

namespace {

struct ExportBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  cudaIpcMemHandle_t handle{};
};

std::mutex ipcMutex;
// Never destroyed (as resident.cu's registry): the CUDA runtime may be gone at static destruction.
std::unordered_map<int64_t, ExportBuffer>& lent = *new std::unordered_map<int64_t, ExportBuffer>();
std::list<ExportBuffer>& idle = *new std::list<ExportBuffer>();  // most recently used first
int64_t nextExport = 1;
int64_t lentBytes = 0;
int64_t idleBytes = 0;

int64_t cacheLimit() {
  static const int64_t limit = [] {
    const char* v = std::getenv("GPUFLOW_IPC_CACHE_BYTES");
    if (v && *v) {
      char* end = nullptr;
      const long long n = std::strtoll(v, &end, 10);
      if (end && *end == '\0' && n >= 0) return static_cast<int64_t>(n);
    }
    return int64_t(1) << 30;
  }();
  return limit;
}

// An idle buffer of exactly `bytes`, or a new one (its handle taken once, when it is made).
ExportBuffer acquire(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(ipcMutex);
    for (auto it = idle.begin(); it != idle.end(); ++it) {
      if (it->bytes != bytes) continue;
      ExportBuffer b = *it;
      idle.erase(it);
      idleBytes -= static_cast<int64_t>(b.bytes);
      return b;
    }
  }
  ExportBuffer b;
  b.bytes = bytes;
  check(cudaMalloc(&b.ptr, bytes), "cudaMalloc (IPC export buffer)");
  const cudaError_t e = cudaIpcGetMemHandle(&b.handle, b.ptr);
  if (e != cudaSuccess) {
    cudaFree(b.ptr);
    check(e, "cudaIpcGetMemHandle");
  }
  return b;
}

}  // namespace

IpcExport ipcExport(const DeviceBlock& block) {
  ensureDevice();
  if (block.bytes == 0 || !block.ptr) throw std::runtime_error("an empty block has nothing to export");
  ExportBuffer b = acquire(block.bytes);
  try {
    check(cudaMemcpyAsync(b.ptr, block.ptr, block.bytes, cudaMemcpyDeviceToDevice, stream()), "copy to the IPC export buffer");
    sync();  // the importer reads it from another process as soon as it has the handle
  } catch (...) {
    cudaFree(b.ptr);
    throw;
  }
  IpcExport out;
  static_assert(sizeof(cudaIpcMemHandle_t) == kIpcHandleBytes, "cudaIpcMemHandle_t is 64 bytes");
  std::memcpy(out.handle, &b.handle, kIpcHandleBytes);
  std::lock_guard<std::mutex> lock(ipcMutex);
  out.exportId = nextExport++;
  lentBytes += static_cast<int64_t>(b.bytes);
  lent.emplace(out.exportId, b);
  return out;
}

bool ipcRelease(int64_t exportId, bool reuse) {
  std::vector<void*> toFree;
  {
    std::lock_guard<std::mutex> lock(ipcMutex);
    auto it = lent.find(exportId);
    if (it == lent.end()) return false;
    ExportBuffer b = it->second;
    lent.erase(it);
    lentBytes -= static_cast<int64_t>(b.bytes);
    if (reuse) {
      idle.push_front(b);
      idleBytes += static_cast<int64_t>(b.bytes);
    } else {
      toFree.push_back(b.ptr);
    }
    while (idleBytes > cacheLimit() && !idle.empty()) {
      idleBytes -= static_cast<int64_t>(idle.back().bytes);
      toFree.push_back(idle.back().ptr);
      idle.pop_back();
    }
  }
  for (void* p : toFree) cudaFree(p);  // outside the lock: cudaFree waits for the device
  return true;
}

int64_t ipcImport(const unsigned char* handle, size_t bytes, int32_t type) {
  ensureDevice();
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle, kIpcHandleBytes);
  void* src = nullptr;
  // Lazy peer access: a handle from another GPU of this host maps over NVLink / PCIe; one from
  // the same GPU (another process) maps directly.
  check(cudaIpcOpenMemHandle(&src, h, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
  auto block = std::make_shared<DeviceBlock>();
  block->bytes = bytes;
  block->type = type;
  try {
    check(cudaMallocAsync(&block->ptr, bytes, stream()), "cudaMallocAsync (IPC import)");
    check(cudaMemcpyAsync(block->ptr, src, bytes, cudaMemcpyDefault, stream()), "copy from the IPC export buffer");
    sync();
  } catch (...) {
    cudaIpcCloseMemHandle(src);
    throw;  // the block (if made) goes back to the pool with its last reference
  }
  check(cudaIpcCloseMemHandle(src), "cudaIpcCloseMemHandle");
  return residentAdopt(std::move(block));
}

void ipcStats(int64_t& exports, int64_t& exportBytes, int64_t& cachedBytes) {
  std::lock_guard<std::mutex> lock(ipcMutex);
  exports = static_cast<int64_t>(lent.size());
  exportBytes = lentBytes;
  cachedBytes = idleBytes;
}

}  // namespace cuda
}  // namespace gf
