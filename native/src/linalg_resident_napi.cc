// The N-API boundary of linear algebra on device-resident blocks (cuda_linalg_resident.h), beside
// resident_napi.cc's buffer calls; ids are the ones those calls return. Arguments are checked
// here (TypeError / RangeError) before any work is queued.
//
//   cudaResidentFactor(ids: number[], m, n, svd: boolean) -> Promise<number[]>
//       the row blocks stacked (float64, n columns, m rows in all), then [q, r] or [u, s, vt]:
//       new blocks, row-major, diag(R) >= 0 / the js sign rule applied
//   cudaResidentRows(id, start, count, cols) -> Promise<id>   rows of a row-major block, copied
//   cudaResidentShare(id) -> id   the same block under a second id (freed with the last id)
#include "linalg_resident_napi.h"

#include <functional>
#include <string>
#include <vector>

#include "cuda_api.h"
#include "cuda_linalg_resident.h"
#include "cuda_resident.h"
#include "device_lost_napi.h"
#include "napi_args.h"
#include "napi_job.h"

namespace gf {
namespace {

using cuda::BlockRef;

constexpr int64_t kMaxDim = int64_t(1) << 31;

// Runs `work` off the JS thread, holding the blocks it reads (napi_job.h); resolves with the ids
// it returns (a number when `single`, else an array).
Napi::Value queue(Napi::Env env, std::function<std::vector<int64_t>()> work, std::vector<BlockRef> blocks, bool single) {
  auto ids = std::make_shared<std::vector<int64_t>>();
  return queueDeviceJob(
      env, "gpuflow-resident-linalg", [ids, work = std::move(work)] { *ids = work(); },
      [ids, single](Napi::Env e) -> Napi::Value {
        if (single) return Napi::Number::New(e, static_cast<double>(ids->at(0)));
        Napi::Array out = Napi::Array::New(e, ids->size());
        for (size_t i = 0; i < ids->size(); i++) out.Set(static_cast<uint32_t>(i), Napi::Number::New(e, static_cast<double>((*ids)[i])));
        return out;
      },
      {}, std::move(blocks));
}

Napi::Value Factor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) throw Napi::TypeError::New(env, "ids must be an array of device buffer ids");
  Napi::Array arr = info[0].As<Napi::Array>();
  if (arr.Length() == 0) throw Napi::RangeError::New(env, "ids must name at least one block");
  std::vector<BlockRef> blocks;
  for (uint32_t i = 0; i < arr.Length(); i++) {
    const std::string name = "ids[" + std::to_string(i) + "]";
    BlockRef b = blockOf(env, intOf(env, arr.Get(i), name, 1, kMaxBlockId), name);
    if (b->type != tF64) throw Napi::TypeError::New(env, name + " must hold float64");
    blocks.push_back(std::move(b));
  }
  const int64_t m = intArg(info, 1, "m", 1, kMaxDim), n = intArg(info, 2, "n", 1, kMaxDim);
  if (m < n) throw Napi::RangeError::New(env, "m must be >= n (a tall-skinny matrix)");
  if (info.Length() < 4 || !info[3].IsBoolean()) throw Napi::TypeError::New(env, "svd must be a boolean");
  const bool svd = info[3].As<Napi::Boolean>().Value();
  size_t total = 0;
  for (const BlockRef& b : blocks) {
    if (b->bytes % (sizeof(double) * static_cast<size_t>(n)) != 0) throw Napi::RangeError::New(env, "every block must hold whole rows of n float64 values");
    total += b->bytes;
  }
  if (total != sizeof(double) * static_cast<size_t>(m) * static_cast<size_t>(n))
    throw Napi::RangeError::New(env, "the blocks hold " + std::to_string(total / 8) + " values, an m x n matrix " + std::to_string(m * n));
  std::vector<BlockRef> held = blocks;
  return queue(env, [blocks, m, n, svd] { return cuda::residentFactor(blocks, m, n, svd); }, std::move(held), false);
}

Napi::Value Rows(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BlockRef b = blockOf(env, intArg(info, 0, "id", 1, kMaxBlockId), "cudaResidentRows");
  const int64_t start = intArg(info, 1, "start", 0, kMaxDim), count = intArg(info, 2, "count", 0, kMaxDim), cols = intArg(info, 3, "cols", 0, kMaxDim);
  const size_t elem = b->type == tF64 ? 8 : 4;
  if (elem * static_cast<size_t>(start + count) * static_cast<size_t>(cols) > b->bytes) throw Napi::RangeError::New(env, "rows [start, start + count) are beyond the block");
  const cuda::DeviceBlock* raw = b.get();
  return queue(env, [raw, start, count, cols] { return std::vector<int64_t>{cuda::residentRows(*raw, start, count, cols)}; }, {b}, true);
}

Napi::Value Share(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BlockRef b = blockOf(env, intArg(info, 0, "id", 1, kMaxBlockId), "cudaResidentShare");
  return Napi::Number::New(env, static_cast<double>(cuda::residentEnter(std::move(b))));
}

}  // namespace

void registerLinalgResident(Napi::Env env, Napi::Object exports) {
  exports.Set("cudaResidentFactor", Napi::Function::New(env, Factor));
  exports.Set("cudaResidentRows", Napi::Function::New(env, Rows));
  exports.Set("cudaResidentShare", Napi::Function::New(env, Share));
}

}  // namespace gf
