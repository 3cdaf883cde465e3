// The registry of device-resident blocks (cuda_resident.h): id -> block, under a mutex, with
// every copy through the pinned staging pool and every kernel on the calling thread's stream.
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "../cuda_resident.h"
#include "common.h"
#include "gemm_device.h"
#include "program_on.h"
#include "staging.h"

namespace gf {
namespace cuda {

DeviceBlock::~DeviceBlock() {
  // Whoever drops the last reference has finished (synchronised) every use of the block.
  if (ptr) cudaFreeAsync(ptr, stream());
}

namespace {

std::mutex registryMutex;
// Never destroyed: at process exit the CUDA runtime may be gone before static destructors run,
// and freeing blocks then would call into it. The driver reclaims device memory with the process.
std::unordered_map<int64_t, BlockRef>& registry = *new std::unordered_map<int64_t, BlockRef>();
int64_t liveBytes = 0;
std::atomic<int64_t> nextId{1};

BlockRef allocate(size_t bytes, int32_t type) {
  ensureDevice();
  auto block = std::make_shared<DeviceBlock>();
  block->bytes = bytes;
  block->type = type;
  // A zero-byte block keeps a null pointer: nothing reads or writes it.
  if (bytes > 0) check(cudaMallocAsync(&block->ptr, bytes, stream()), "cudaMallocAsync (resident)");
  return block;
}

int64_t enter(BlockRef block) {
  const int64_t id = nextId++;
  std::lock_guard<std::mutex> lock(registryMutex);
  liveBytes += static_cast<int64_t>(block->bytes);
  registry.emplace(id, std::move(block));
  return id;
}

}  // namespace

BlockRef residentAllocate(size_t bytes, int32_t type) { return allocate(bytes, type); }
int64_t residentEnter(BlockRef block) { return enter(std::move(block)); }

BlockRef residentFind(int64_t id) {
  std::lock_guard<std::mutex> lock(registryMutex);
  auto it = registry.find(id);
  return it == registry.end() ? nullptr : it->second;
}

int64_t residentUpload(const void* host, size_t bytes, int32_t type) {
  BlockRef block = allocate(bytes, type);
  uploadStaged(block->ptr, host, bytes, stream());
  return enter(std::move(block));
}

void residentDownload(const DeviceBlock& block, void* host) {
  ensureDevice();
  downloadStaged(host, block.ptr, block.bytes, stream());
}

bool residentFree(int64_t id) {
  BlockRef gone;  // released outside the lock
  std::lock_guard<std::mutex> lock(registryMutex);
  auto it = registry.find(id);
  if (it == registry.end()) return false;
  gone = std::move(it->second);
  liveBytes -= static_cast<int64_t>(gone->bytes);
  registry.erase(it);
  return true;
}

int64_t residentRunProgram(const Program& p, const std::vector<InputView>& inputs, const std::vector<char>& onDevice, void* hostOut) {
  if (p.reduce != rNone) {
    runProgramOn(p, inputs, onDevice, hostOut, false);
    return -1;
  }
  BlockRef out = allocate(static_cast<size_t>(p.n) * (p.f32 ? 4 : 8), p.f32 ? tF32 : tF64);
  runProgramOn(p, inputs, onDevice, out->ptr, true);
  return enter(std::move(out));
}

int64_t residentMatmul(int dtype, const DeviceBlock& a, const DeviceBlock& b, const DeviceBlock* c0, int64_t m, int64_t k, int64_t n) {
  const size_t elem = dtype == 0 ? 8 : 4;
  BlockRef c = allocate(elem * static_cast<size_t>(m) * static_cast<size_t>(n), dtype == 0 ? tF64 : tF32);
  if (c0 && c->bytes > 0) check(cudaMemcpyAsync(c->ptr, c0->ptr, c->bytes, cudaMemcpyDeviceToDevice, stream()), "copy c0");
  gemmDevice(dtype, a.ptr, b.ptr, c->ptr, c0 != nullptr, m, k, n);
  sync();
  return enter(std::move(c));
}

int64_t residentAdopt(BlockRef block) { return enter(std::move(block)); }

void residentStats(int64_t& blocks, int64_t& bytes, int64_t& pinnedBytes) {
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    blocks = static_cast<int64_t>(registry.size());
    bytes = liveBytes;
  }
  pinnedBytes = pinnedPoolBytes();
}

}  // namespace cuda
}  // namespace gf
