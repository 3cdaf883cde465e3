// The dataframe kernels' entry points (filter, groupby-aggregate, hash join), called by
// df_addon.cc after it has checked every argument. The cuda:: ones are in cuda/df_*.cu, or in
// cuda_stub.cc for a CPU-only build; filterHost (df_host.cc) runs the same predicate interpreter
// on the CPU.
#pragma once
#include <cstdint>
#include <vector>

namespace gf {
namespace df {

// A host buffer handed in from JS: float64 values, int32 codes or uint8 validity / tables.
struct Buf {
  const void* data;
  int type;  // df_expr.h BufType
  int64_t len;
};

// Rows where the predicate is true and not null, in row order, into idx; returns how many.
int64_t filterHost(const double* code, const std::vector<Buf>& bufs, int64_t rows, int32_t* idx);

struct GroupKey {
  const int32_t* codes;  // in [0, card); a code outside is an error
  const uint8_t* valid;  // null: no nulls. A null key drops the row (pandas' dropna).
  int64_t stride;        // slot = sum of codes[j] * stride[j]
  int64_t card;
};
struct GroupVal {
  const double* x;
  const uint8_t* valid;
};
struct GroupbyArgs {
  int64_t rows, slots;
  std::vector<GroupKey> keys;
  std::vector<GroupVal> vals;
  bool m2;      // also the sum of squared deviations about each group's mean (var, std)
  bool minmax;  // min and max (their compare-and-swap loops are skipped when no aggregate needs them)
};
// out: slots * (2 + 5 * vals) doubles: rows per slot, first row per slot (-1: none), then per
// value column count, sum, min (+inf: none or not asked), max (-inf: likewise), m2. NaN and null values are skipped.
inline int64_t groupbyOutSize(const GroupbyArgs& a) { return a.slots * (2 + 5 * static_cast<int64_t>(a.vals.size())); }

// The timeseries source fused with the groupby chunk step (docs/dataframes.md, "Source fusion"):
// rows [rowStart, rowStart + rows) of the seed's timeseries (worker/kernels/df/timeseries.ts) are
// generated on the device, one Philox block per row and column pair, and aggregated per key slot
// without being stored. Keys: name (its code) and id (id - kTsIdLo); values: id, x, y (no nulls).
enum TsColumn { tsName = 0, tsId = 1, tsX = 2, tsY = 3 };
constexpr int64_t kTsNames = 26;
// id = round(1000 + sqrt(1000) z) with z the normal quantile of a uniform in (0, 1 - 2^-53], so
// |z| <= 8.2095 and id lies in [740, 1260]: 600 slots from 700 hold every value a uniform gives.
constexpr int64_t kTsIdLo = 700, kTsIdCard = 600;
struct TsKey {
  int col;  // tsName or tsId
  int64_t stride, card;
};
struct TimeseriesGroupbyArgs {
  uint32_t k0, k1;  // the seed's Philox key
  int64_t rowStart, rows, slots;
  std::vector<TsKey> keys;
  std::vector<int> vals;  // tsId, tsX, tsY
  bool m2, minmax;
};
// out: groupbyOutSize's layout, with first row -1 (the key values follow from the slot) and each
// value's count equal to the slot's rows (the timeseries has no nulls).
inline int64_t groupbyOutSize(const TimeseriesGroupbyArgs& a) { return a.slots * (2 + 5 * static_cast<int64_t>(a.vals.size())); }

struct JoinKey {
  const int32_t *lcodes, *rcodes;  // codes in one space for both sides; < 0 is null
  const uint8_t *lvalid, *rvalid;
  const int32_t* rmap;  // optional: right codes go through rmap first (dictionary of the right side -> left's codes)
  int64_t rmapLen;
  int64_t stride, card;
};
struct JoinArgs {
  int64_t nl, nr;
  int how;  // 0 inner, 1 left, 2 outer
  std::vector<JoinKey> keys;
};

}  // namespace df

namespace cuda {
int64_t dfFilter(const double* code, int64_t codeLen, const std::vector<df::Buf>& bufs, int64_t rows, int32_t* idx);
void dfGroupby(const df::GroupbyArgs& a, double* out);
void dfTimeseriesGroupby(const df::TimeseriesGroupbyArgs& a, double* out);
// Row pairs (left row or -1, right row or -1) in worker/kernels/df/join.ts's order: each left row
// with its matches in right row order, then (outer) the unmatched right rows. Returns the number
// of pairs; writes them only when it is <= capacity (else the caller retries with that much room).
int64_t dfJoin(const df::JoinArgs& a, int32_t* li, int32_t* ri, int64_t capacity);
}  // namespace cuda
}  // namespace gf
