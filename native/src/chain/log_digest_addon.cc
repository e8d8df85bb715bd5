// lineDigests(bytes: Uint8Array, from: number, digests: Float64Array, ends: Float64Array) -> number
//   `vigil verify --logs`'s path (agent/integrity/line-digests.ts): the whole lines of
//   bytes[from, end), each ending with a line feed, up to as many as `digests` and `ends` hold:
//   each line's digest (log_digest.h) into `digests` and the offset in `bytes` just past its line
//   feed into `ends`. Returns how many lines were written; one call per chunk of a file instead
//   of a loop over its bytes in JavaScript.
#include "log_digest_addon.h"

#include <algorithm>

#include "log_digest.h"

namespace vigil {

namespace {

// The elements of a typed array argument of `type`, or a TypeError with `message`.
bool TypedArray(napi_env env, napi_value value, napi_typedarray_type type, const char* message, void** data,
                size_t* length) {
  bool is_typed = false;
  napi_typedarray_type actual;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, value, &actual, length, data, nullptr, nullptr) != napi_ok || actual != type) {
    napi_throw_type_error(env, nullptr, message);
    return false;
  }
  return true;
}

napi_value LineDigests(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc < 4) {
    napi_throw_type_error(env, nullptr, "lineDigests(bytes, from, digests, ends)");
    return nullptr;
  }
  void* bytes = nullptr;
  void* digests = nullptr;
  void* ends = nullptr;
  size_t length = 0, digests_length = 0, ends_length = 0;
  if (!TypedArray(env, argv[0], napi_uint8_array, "lineDigests: bytes must be a Buffer or Uint8Array", &bytes,
                  &length) ||
      !TypedArray(env, argv[2], napi_float64_array, "lineDigests: digests must be a Float64Array", &digests,
                  &digests_length) ||
      !TypedArray(env, argv[3], napi_float64_array, "lineDigests: ends must be a Float64Array", &ends, &ends_length))
    return nullptr;
  double from = 0;
  if (napi_get_value_double(env, argv[1], &from) != napi_ok || !(from >= 0) ||
      from > static_cast<double>(length) || from != static_cast<double>(static_cast<size_t>(from))) {
    napi_throw_range_error(env, nullptr, "lineDigests: from must be an offset within bytes");
    return nullptr;
  }
  const size_t start = static_cast<size_t>(from);
  const size_t capacity = std::min(digests_length, ends_length);
  double* end_offsets = static_cast<double*>(ends);
  const size_t count = ScanLines(static_cast<const unsigned char*>(bytes) + start, length - start, capacity,
                                 static_cast<double*>(digests), end_offsets);
  for (size_t i = 0; i < count; i++) end_offsets[i] += static_cast<double>(start);
  napi_value result;
  if (napi_create_double(env, static_cast<double>(count), &result) != napi_ok) return nullptr;
  return result;
}

}  // namespace

bool ExportLineDigests(napi_env env, napi_value exports) {
  napi_value fn;
  return napi_create_function(env, "lineDigests", NAPI_AUTO_LENGTH, LineDigests, nullptr, &fn) == napi_ok &&
         napi_set_named_property(env, exports, "lineDigests", fn) == napi_ok;
}

}  // namespace vigil
