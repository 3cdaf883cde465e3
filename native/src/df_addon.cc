// The N-API boundary of the dataframe kernels (registered by addon.cc's Init through
// registerDfExports). Every argument is checked here (TypeError / RangeError naming it) before
// work is queued; the work runs off the JS thread and settles a promise. As in addon.cc, outputs
// are typed arrays allocated by JS; the work is queued as a DeviceJob (napi_job.h), as addon.cc's is.
//
//   dfFilter(code, bufs, rows, idx: Int32Array(rows), result: Float64Array(1))       host interpreter
//   cudaDfFilter(code, bufs, rows, idx, result)                                       device
//   cudaDfGroupby(desc, bufs, out: Float64Array)                                     see df_api.h
//   cudaDfJoin(desc, bufs, li: Int32Array, ri: Int32Array, result: Float64Array(1))  see df_api.h
//   cudaDfTimeseriesGroupby(desc, out: Float64Array)                                 see df_api.h
//
// bufs: an array of Float64Array (values), Int32Array (codes) and Uint8Array (validity, tables).
#include <napi.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_api.h"
#include "device_lost_napi.h"
#include "napi_job.h"
#include "df_api.h"
#include "df_expr.h"

namespace gf {
namespace {

using df::Buf;

[[noreturn]] void typeError(Napi::Env env, const std::string& msg) { throw Napi::TypeError::New(env, msg); }
[[noreturn]] void rangeError(Napi::Env env, const std::string& msg) { throw Napi::RangeError::New(env, msg); }

Napi::TypedArray typed(const Napi::CallbackInfo& info, size_t i, const char* name, napi_typedarray_type want, const char* what) {
  if (i >= info.Length() || !info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != want)
    typeError(info.Env(), std::string(name) + " must be a " + what);
  return info[i].As<Napi::TypedArray>();
}

void* dataOf(const Napi::TypedArray& t) { return static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset(); }

int64_t count(Napi::Env env, double v, const char* name, int64_t hi) {
  if (!(v >= 0 && v <= static_cast<double>(hi)) || v != static_cast<double>(static_cast<int64_t>(v)))
    rangeError(env, std::string(name) + " must be a whole number in [0, " + std::to_string(hi) + "], got " + std::to_string(v));
  return static_cast<int64_t>(v);
}

// Runs `work` off the JS thread (napi_job.h), holding the typed arrays it reads; resolves undefined.
Napi::Value queue(Napi::Env env, std::function<void()> work, const std::vector<Napi::Value>& keep) {
  return queueDeviceJob(env, "gpuflow-df", std::move(work), nullptr, keep);
}

struct Bufs {
  std::vector<Buf> list;
  std::vector<int> types;
  std::vector<int64_t> lens;
  std::vector<Napi::Value> keep;
};

Bufs bufsArg(const Napi::CallbackInfo& info, size_t i) {
  Napi::Env env = info.Env();
  if (i >= info.Length() || !info[i].IsArray()) typeError(env, "bufs must be an array of Float64Array, Int32Array or Uint8Array");
  Napi::Array arr = info[i].As<Napi::Array>();
  Bufs b;
  for (uint32_t k = 0; k < arr.Length(); k++) {
    Napi::Value v = arr.Get(k);
    const std::string name = "bufs[" + std::to_string(k) + "]";
    if (!v.IsTypedArray()) typeError(env, name + " must be a Float64Array, Int32Array or Uint8Array");
    Napi::TypedArray t = v.As<Napi::TypedArray>();
    int type;
    switch (t.TypedArrayType()) {
      case napi_float64_array: type = df::bF64; break;
      case napi_int32_array: type = df::bI32; break;
      case napi_uint8_array: type = df::bU8; break;
      default: typeError(env, name + " must be a Float64Array, Int32Array or Uint8Array");
    }
    b.list.push_back(Buf{dataOf(t), type, static_cast<int64_t>(t.ElementLength())});
    b.types.push_back(type);
    b.lens.push_back(static_cast<int64_t>(t.ElementLength()));
    b.keep.push_back(v);
  }
  return b;
}

// Buffer index `x` of `type` with at least `need` elements; -1 allowed when optional (-> null).
const void* pick(Napi::Env env, const Bufs& b, double x, int type, int64_t need, bool optional, const std::string& what) {
  if (optional && x == -1) return nullptr;
  if (!(x >= 0 && x < static_cast<double>(b.list.size())) || x != static_cast<double>(static_cast<int64_t>(x)))
    rangeError(env, what + " names buffer " + std::to_string(x) + " of " + std::to_string(b.list.size()));
  const Buf& buf = b.list[static_cast<size_t>(x)];
  static const char* names[] = {"Float64Array", "Int32Array", "Uint8Array"};
  if (buf.type != type) typeError(env, what + " must be a " + names[type]);
  if (buf.len < need) rangeError(env, what + " has " + std::to_string(buf.len) + " elements, needs " + std::to_string(need));
  return buf.data;
}

Napi::Value Filter(const Napi::CallbackInfo& info, bool gpu) {
  Napi::Env env = info.Env();
  Napi::TypedArray code = typed(info, 0, "code", napi_float64_array, "Float64Array");
  Bufs b = bufsArg(info, 1);
  if (info.Length() < 3 || !info[2].IsNumber()) typeError(env, "rows must be a number");
  const int64_t rows = count(env, info[2].As<Napi::Number>().DoubleValue(), "rows", (int64_t(1) << 31) - 1);
  Napi::TypedArray idx = typed(info, 3, "idx", napi_int32_array, "Int32Array");
  if (static_cast<int64_t>(idx.ElementLength()) < rows) rangeError(env, "idx must hold rows (" + std::to_string(rows) + ") elements");
  Napi::TypedArray result = typed(info, 4, "result", napi_float64_array, "Float64Array");
  if (result.ElementLength() < 1) rangeError(env, "result must hold 1 element");
  const double* c = static_cast<const double*>(dataOf(code));
  const int64_t len = static_cast<int64_t>(code.ElementLength());
  const std::string bad = df::validateCode(c, len, b.types, b.lens, rows);
  if (!bad.empty()) typeError(env, "filter code: " + bad);
  int32_t* out = static_cast<int32_t*>(dataOf(idx));
  double* r = static_cast<double*>(dataOf(result));
  auto shared = std::make_shared<Bufs>(std::move(b));
  std::vector<Napi::Value> keep = shared->keep;
  keep.insert(keep.end(), {code, idx, result});
  if (gpu) return queue(env, [=] { *r = static_cast<double>(cuda::dfFilter(c, len, shared->list, rows, out)); }, keep);
  return queue(env, [=] { *r = static_cast<double>(df::filterHost(c, shared->list, rows, out)); }, keep);
}

constexpr int64_t kMaxRows = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxSlots = int64_t(1) << 26;

// desc: [rows, slots, nKeys, nVals, flags (1: m2, 2: min/max), (codes, valid, stride, card) * nKeys, (x, valid) * nVals]
Napi::Value Groupby(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::TypedArray desc = typed(info, 0, "desc", napi_float64_array, "Float64Array");
  const double* d = static_cast<const double*>(dataOf(desc));
  const int64_t dl = static_cast<int64_t>(desc.ElementLength());
  if (dl < 5) rangeError(env, "desc is too short");
  auto a = std::make_shared<df::GroupbyArgs>();
  a->rows = count(env, d[0], "desc rows", kMaxRows);
  a->slots = count(env, d[1], "desc slots", kMaxSlots);
  const int64_t nk = count(env, d[2], "desc keys", 64), nv = count(env, d[3], "desc values", 1024);
  const int64_t flags = count(env, d[4], "desc flags", 3);
  a->m2 = (flags & 1) != 0;
  a->minmax = (flags & 2) != 0;
  if (nk < 1) rangeError(env, "groupby needs at least one key");
  if (dl != 5 + 4 * nk + 2 * nv) rangeError(env, "desc has " + std::to_string(dl) + " numbers, its counts need " + std::to_string(5 + 4 * nk + 2 * nv));
  Bufs b = bufsArg(info, 1);
  int64_t span = 1;
  for (int64_t k = 0; k < nk; k++) {
    const double* e = d + 5 + 4 * k;
    const std::string w = "key " + std::to_string(k);
    df::GroupKey g;
    g.codes = static_cast<const int32_t*>(pick(env, b, e[0], df::bI32, a->rows, false, w + " codes"));
    g.valid = static_cast<const uint8_t*>(pick(env, b, e[1], df::bU8, a->rows, true, w + " validity"));
    g.stride = count(env, e[2], (w + " stride").c_str(), kMaxSlots);
    g.card = count(env, e[3], (w + " card").c_str(), kMaxSlots);
    // Every slot a key tuple can reach must lie inside [0, slots).
    span += (g.card > 0 ? g.card - 1 : 0) * g.stride;
    if (span > a->slots) rangeError(env, w + ": codes reach slot " + std::to_string(span - 1) + ", but slots is " + std::to_string(a->slots));
    a->keys.push_back(g);
  }
  for (int64_t v = 0; v < nv; v++) {
    const double* e = d + 5 + 4 * nk + 2 * v;
    const std::string w = "value " + std::to_string(v);
    a->vals.push_back(df::GroupVal{static_cast<const double*>(pick(env, b, e[0], df::bF64, a->rows, false, w)),
                                   static_cast<const uint8_t*>(pick(env, b, e[1], df::bU8, a->rows, true, w + " validity"))});
  }
  Napi::TypedArray out = typed(info, 2, "out", napi_float64_array, "Float64Array");
  if (static_cast<int64_t>(out.ElementLength()) != df::groupbyOutSize(*a))
    rangeError(env, "out has " + std::to_string(out.ElementLength()) + " elements, the groupby writes " + std::to_string(df::groupbyOutSize(*a)));
  double* o = static_cast<double*>(dataOf(out));
  std::vector<Napi::Value> keep = b.keep;
  keep.insert(keep.end(), {desc, out});
  return queue(env, [a, o] { cuda::dfGroupby(*a, o); }, keep);
}

// desc: [k0, k1, rowStart, rows, slots, nKeys, nVals, flags (1: m2, 2: min/max), (column, stride, card) * nKeys, column * nVals]
// with columns as df_api.h's TsColumn: keys name or id (card 26 / kTsIdCard), values id, x or y.
Napi::Value TimeseriesGroupby(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::TypedArray desc = typed(info, 0, "desc", napi_float64_array, "Float64Array");
  const double* d = static_cast<const double*>(dataOf(desc));
  const int64_t dl = static_cast<int64_t>(desc.ElementLength());
  if (dl < 8) rangeError(env, "desc is too short");
  auto a = std::make_shared<df::TimeseriesGroupbyArgs>();
  a->k0 = static_cast<uint32_t>(count(env, d[0], "desc k0", 0xFFFFFFFFll));
  a->k1 = static_cast<uint32_t>(count(env, d[1], "desc k1", 0xFFFFFFFFll));
  a->rows = count(env, d[3], "desc rows", kMaxRows);
  a->rowStart = count(env, d[2], "desc rowStart", (int64_t(1) << 50) - a->rows);
  a->slots = count(env, d[4], "desc slots", kMaxSlots);
  const int64_t nk = count(env, d[5], "desc keys", 2), nv = count(env, d[6], "desc values", 3);
  const int64_t flags = count(env, d[7], "desc flags", 3);
  a->m2 = (flags & 1) != 0;
  a->minmax = (flags & 2) != 0;
  if (nk < 1) rangeError(env, "groupby needs at least one key");
  if (dl != 8 + 3 * nk + nv) rangeError(env, "desc has " + std::to_string(dl) + " numbers, its counts need " + std::to_string(8 + 3 * nk + nv));
  int64_t span = 1;
  for (int64_t k = 0; k < nk; k++) {
    const double* e = d + 8 + 3 * k;
    const std::string w = "key " + std::to_string(k);
    df::TsKey key;
    key.col = static_cast<int>(count(env, e[0], (w + " column").c_str(), df::tsId));
    key.stride = count(env, e[1], (w + " stride").c_str(), kMaxSlots);
    key.card = count(env, e[2], (w + " card").c_str(), kMaxSlots);
    const int64_t want = key.col == df::tsName ? df::kTsNames : df::kTsIdCard;
    if (key.card != want) rangeError(env, w + " card must be " + std::to_string(want) + " for its column");
    span += (key.card - 1) * key.stride;
    if (span > a->slots) rangeError(env, w + ": codes reach slot " + std::to_string(span - 1) + ", but slots is " + std::to_string(a->slots));
    a->keys.push_back(key);
  }
  for (int64_t v = 0; v < nv; v++) {
    const int c = static_cast<int>(count(env, d[8 + 3 * nk + v], ("value " + std::to_string(v) + " column").c_str(), df::tsY));
    if (c == df::tsName) rangeError(env, "value " + std::to_string(v) + ": name is a string, not a number to aggregate");
    a->vals.push_back(c);
  }
  Napi::TypedArray out = typed(info, 1, "out", napi_float64_array, "Float64Array");
  if (static_cast<int64_t>(out.ElementLength()) != df::groupbyOutSize(*a))
    rangeError(env, "out has " + std::to_string(out.ElementLength()) + " elements, the groupby writes " + std::to_string(df::groupbyOutSize(*a)));
  double* o = static_cast<double*>(dataOf(out));
  return queue(env, [a, o] { cuda::dfTimeseriesGroupby(*a, o); }, {desc, out});
}

// desc: [nl, nr, how, nKeys, (lcodes, lvalid, rcodes, rvalid, rmap, stride, card) * nKeys]
Napi::Value Join(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::TypedArray desc = typed(info, 0, "desc", napi_float64_array, "Float64Array");
  const double* d = static_cast<const double*>(dataOf(desc));
  const int64_t dl = static_cast<int64_t>(desc.ElementLength());
  if (dl < 4) rangeError(env, "desc is too short");
  auto a = std::make_shared<df::JoinArgs>();
  a->nl = count(env, d[0], "desc left rows", kMaxRows);
  a->nr = count(env, d[1], "desc right rows", kMaxRows);
  a->how = static_cast<int>(count(env, d[2], "desc how (0 inner, 1 left, 2 outer)", 2));
  const int64_t nk = count(env, d[3], "desc keys", 64);
  if (nk < 1) rangeError(env, "a join needs at least one key");
  if (dl != 4 + 7 * nk) rangeError(env, "desc has " + std::to_string(dl) + " numbers, its key count needs " + std::to_string(4 + 7 * nk));
  Bufs b = bufsArg(info, 1);
  double span = 1;
  for (int64_t k = 0; k < nk; k++) {
    const double* e = d + 4 + 7 * k;
    const std::string w = "key " + std::to_string(k);
    df::JoinKey j;
    j.lcodes = static_cast<const int32_t*>(pick(env, b, e[0], df::bI32, a->nl, false, w + " left codes"));
    j.lvalid = static_cast<const uint8_t*>(pick(env, b, e[1], df::bU8, a->nl, true, w + " left validity"));
    j.rcodes = static_cast<const int32_t*>(pick(env, b, e[2], df::bI32, a->nr, false, w + " right codes"));
    j.rvalid = static_cast<const uint8_t*>(pick(env, b, e[3], df::bU8, a->nr, true, w + " right validity"));
    j.rmap = static_cast<const int32_t*>(pick(env, b, e[4], df::bI32, 0, true, w + " right map"));
    j.rmapLen = j.rmap ? b.lens[static_cast<size_t>(e[4])] : 0;
    j.stride = count(env, e[5], (w + " stride").c_str(), int64_t(1) << 62);
    j.card = count(env, e[6], (w + " card").c_str(), int64_t(1) << 31);
    span *= static_cast<double>(j.card > 0 ? j.card : 1);
    if (span > 4.6e18) rangeError(env, "the key tuple space does not fit 62 bits");
    a->keys.push_back(j);
  }
  Napi::TypedArray li = typed(info, 2, "li", napi_int32_array, "Int32Array");
  Napi::TypedArray ri = typed(info, 3, "ri", napi_int32_array, "Int32Array");
  if (li.ElementLength() != ri.ElementLength()) rangeError(env, "li and ri must have one length (the capacity)");
  Napi::TypedArray result = typed(info, 4, "result", napi_float64_array, "Float64Array");
  if (result.ElementLength() < 1) rangeError(env, "result must hold 1 element");
  int32_t* pl = static_cast<int32_t*>(dataOf(li));
  int32_t* pr = static_cast<int32_t*>(dataOf(ri));
  double* r = static_cast<double*>(dataOf(result));
  const int64_t cap = static_cast<int64_t>(li.ElementLength());
  std::vector<Napi::Value> keep = b.keep;
  keep.insert(keep.end(), {desc, li, ri, result});
  return queue(env, [=] { *r = static_cast<double>(cuda::dfJoin(*a, pl, pr, cap)); }, keep);
}

}  // namespace

void registerDfExports(Napi::Env env, Napi::Object exports) {
  exports.Set("dfFilter", Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return Filter(i, false); }));
  exports.Set("cudaDfFilter", Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return Filter(i, true); }));
  exports.Set("cudaDfGroupby", Napi::Function::New(env, Groupby));
  exports.Set("cudaDfJoin", Napi::Function::New(env, Join));
  exports.Set("cudaDfTimeseriesGroupby", Napi::Function::New(env, TimeseriesGroupby));
}

}  // namespace gf
