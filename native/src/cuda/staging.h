// Host <-> device copies through pooled pinned (page-locked) staging buffers: a copy is cut into
// pieces and double-buffered, so the CPU fills (or drains) one pinned piece while the DMA engine
// moves the other, and every DMA is a cudaMemcpyAsync on the calling thread's stream, which lets
// the copy of one task overlap the kernels of the tasks on other threads' streams.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gf {
namespace cuda {

// Both return when the copy is complete (the stream is synchronised).
void uploadStaged(void* device, const void* host, size_t bytes, cudaStream_t s);
void downloadStaged(void* host, const void* device, size_t bytes, cudaStream_t s);
// Bytes of pinned memory the pool holds (in use or free).
int64_t pinnedPoolBytes();

}  // namespace cuda
}  // namespace gf
