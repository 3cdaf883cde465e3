// Device-resident chunks: device buffers owned by the addon and named by an integer id that the
// JS side holds (worker/resident/), so a chunk one task makes on the GPU can feed the next task
// without a trip through host memory. Host <-> device copies of these buffers go through pooled
// pinned staging buffers (cuda/staging.cu). In a CPU-only build cuda_stub.cc answers instead.
//
// A buffer is freed when its id is freed AND no queued call still uses it: calls hold a
// shared_ptr to the blocks they read, so a free from the JS thread never pulls memory from
// under a kernel in flight.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "program.h"

namespace gf {
namespace cuda {

struct DeviceBlock {
  void* ptr = nullptr;
  size_t bytes = 0;
  int32_t type = tF64;  // InputType of its elements
  ~DeviceBlock();       // returns the memory to the stream-ordered pool
};
using BlockRef = std::shared_ptr<DeviceBlock>;

// The block of an id; null when the id is unknown (never made, or freed).
BlockRef residentFind(int64_t id);
// Copies `bytes` of host memory into a new block of element type `type`; returns its id.
int64_t residentUpload(const void* host, size_t bytes, int32_t type);
// Copies a whole block to host memory (block.bytes bytes).
void residentDownload(const DeviceBlock& block, void* host);
// Forgets the id; false when it was unknown. The memory goes when the last user is done.
bool residentFree(int64_t id);
// Runs a decoded program whose inputs[i] are device pointers where onDevice[i] (the caller holds
// their blocks), host memory elsewhere. Without a reduction the output stays on the device and
// its new id is returned; with one, the partial is written to hostOut and -1 returned.
int64_t residentRunProgram(const Program& p, const std::vector<InputView>& inputs, const std::vector<char>& onDevice, void* hostOut);
// C = A B (+ C0), row-major, all on the device; dtype 0 float64, 1 float32. Returns C's id.
int64_t residentMatmul(int dtype, const DeviceBlock& a, const DeviceBlock& b, const DeviceBlock* c0, int64_t m, int64_t k, int64_t n);
// A new block of `bytes` (not yet registered), and the registration of a block under a new id
// (the same block may have several ids: its memory goes with the last; cuda_linalg_resident.h).
BlockRef residentAllocate(size_t bytes, int32_t type);
int64_t residentEnter(BlockRef block);
// Registers a block made elsewhere (an IPC import, cuda_ipc.h); returns its new id.
int64_t residentAdopt(BlockRef block);
// Live blocks, their bytes, and the pinned staging memory the pool holds.
void residentStats(int64_t& blocks, int64_t& bytes, int64_t& pinnedBytes);

}  // namespace cuda
}  // namespace gf
