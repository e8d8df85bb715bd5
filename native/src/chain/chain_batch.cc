// The record chain's hashing in batches (docs/integrity.md): chain_i = SHA-256(chain_{i-1} ||
// canonical_i), with the SHA-256 of the OpenSSL that Node itself links (its symbols are exported
// to addons; SHA-NI where the CPU has it). One call per batch instead of one node:crypto Hash
// object and three calls across into native code per record. The store's inserts chain inside
// SQLite instead (sqlite_chain.cc), from the values SQLite already holds.
//
// chainJoined(previous: Buffer(32), text: Buffer, count: number) -> Buffer(32 * count) | null
//   `vigil verify`'s path: `count` canonical records as one UTF-8 text separated by line feeds
//   (which a canonical record never holds raw); null when the text does not hold `count` records.
// chainBatch(previous: Buffer(32), canonicals: string[]) -> Buffer(32 * n)
//   The chain of canonical records given as strings (the reference the others are tested against).
#include <node_api.h>

#include <cstring>
#include <utility>
#include <vector>

#include "canonical_json.h"
#include "log_digest_addon.h"

namespace {

using vigil::kChainBytes;

bool Check(napi_env env, napi_status status, const char* what) {
  if (status == napi_ok) return true;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) napi_throw_error(env, nullptr, what);
  return false;
}

// The bytes of a Buffer argument, or a TypeError naming it.
bool BufferArgument(napi_env env, napi_value value, const char* message, const unsigned char** data, size_t* length) {
  bool is_buffer = false;
  void* bytes = nullptr;
  if (napi_is_buffer(env, value, &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, value, &bytes, length) != napi_ok) {
    napi_throw_type_error(env, nullptr, message);
    return false;
  }
  *data = static_cast<const unsigned char*>(bytes);
  return true;
}

bool CountArgument(napi_env env, napi_value value, const char* message, uint32_t* count) {
  double number = 0;
  if (napi_get_value_double(env, value, &number) != napi_ok || !(number >= 0) || number > 0xffffffff ||
      number != static_cast<double>(static_cast<uint32_t>(number))) {
    napi_throw_type_error(env, nullptr, message);
    return false;
  }
  *count = static_cast<uint32_t>(number);
  return true;
}

// The UTF-8 of a string into `scratch` (grown when it does not fit) and its length; false with an
// exception pending. Node-API stops before a character that does not fit whole (up to 4 bytes),
// so a string that ends that close to the end of the scratch is copied again in full.
bool ReadUtf8(napi_env env, napi_value value, std::vector<char>& scratch, size_t* length) {
  napi_status status = napi_get_value_string_utf8(env, value, scratch.data(), scratch.size(), length);
  if (status != napi_ok) return Check(env, status, "chain: string");
  if (*length + 4 < scratch.size()) return true;
  if (!Check(env, napi_get_value_string_utf8(env, value, nullptr, 0, length), "chain: string")) return false;
  scratch.resize(*length + 1);
  return Check(env, napi_get_value_string_utf8(env, value, scratch.data(), scratch.size(), length), "chain: string");
}

napi_value ChainJoined(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (!Check(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr), "chainJoined: arguments"))
    return nullptr;
  if (argc < 3) {
    napi_throw_type_error(env, nullptr, "chainJoined(previous, text, count)");
    return nullptr;
  }
  const unsigned char* previous = nullptr;
  const unsigned char* text = nullptr;
  size_t previous_length = 0, text_length = 0;
  uint32_t count = 0;
  if (!BufferArgument(env, argv[0], "chainJoined: previous must be a Buffer", &previous, &previous_length) ||
      !BufferArgument(env, argv[1], "chainJoined: text must be a Buffer", &text, &text_length) ||
      !CountArgument(env, argv[2], "chainJoined: count must be a count", &count))
    return nullptr;
  thread_local std::vector<std::pair<size_t, size_t>> records;
  const char* chars = reinterpret_cast<const char*>(text);
  if (!vigil::SplitRecords(chars, text_length, '\n', count, records)) {
    napi_value null_value;
    napi_get_null(env, &null_value);
    return null_value;
  }
  void* out_data = nullptr;
  napi_value out;
  if (!Check(env, napi_create_buffer(env, static_cast<size_t>(count) * kChainBytes, &out_data, &out),
             "chainJoined: output buffer"))
    return nullptr;
  unsigned char* chains = static_cast<unsigned char*>(out_data);
  for (uint32_t i = 0; i < count; i++) {
    unsigned char* chain = chains + static_cast<size_t>(i) * kChainBytes;
    vigil::NextChain(previous, previous_length, chars + records[i].first, records[i].second, chain);
    previous = chain;
    previous_length = kChainBytes;
  }
  return out;
}

napi_value ChainBatch(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (!Check(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr), "chainBatch: arguments")) return nullptr;
  if (argc < 2) {
    napi_throw_type_error(env, nullptr, "chainBatch(previous, canonicals)");
    return nullptr;
  }
  const unsigned char* previous = nullptr;
  size_t previous_length = 0;
  if (!BufferArgument(env, argv[0], "chainBatch: previous must be a Buffer", &previous, &previous_length))
    return nullptr;
  bool is_array = false;
  napi_is_array(env, argv[1], &is_array);
  if (!is_array) {
    napi_throw_type_error(env, nullptr, "chainBatch: canonicals must be an array of strings");
    return nullptr;
  }
  uint32_t count = 0;
  if (!Check(env, napi_get_array_length(env, argv[1], &count), "chainBatch: array length")) return nullptr;

  void* out_data = nullptr;
  napi_value out;
  if (!Check(env, napi_create_buffer(env, static_cast<size_t>(count) * kChainBytes, &out_data, &out),
             "chainBatch: output buffer"))
    return nullptr;
  unsigned char* chains = static_cast<unsigned char*>(out_data);
  thread_local std::vector<char> scratch(4096);
  for (uint32_t i = 0; i < count; i++) {
    napi_value element;
    if (!Check(env, napi_get_element(env, argv[1], i, &element), "chainBatch: element")) return nullptr;
    napi_valuetype type;
    if (!Check(env, napi_typeof(env, element, &type), "chainBatch: element")) return nullptr;
    if (type != napi_string) {
      napi_throw_type_error(env, nullptr, "chainBatch: canonicals must be an array of strings");
      return nullptr;
    }
    size_t length = 0;
    if (!ReadUtf8(env, element, scratch, &length)) return nullptr;
    unsigned char* chain = chains + static_cast<size_t>(i) * kChainBytes;
    vigil::NextChain(previous, previous_length, scratch.data(), length, chain);
    previous = chain;
    previous_length = kChainBytes;
  }
  return out;
}

bool Export(napi_env env, napi_value exports, const char* name, napi_callback callback) {
  napi_value fn;
  return napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, nullptr, &fn) == napi_ok &&
         napi_set_named_property(env, exports, name, fn) == napi_ok;
}

napi_value Init(napi_env env, napi_value exports) {
  if (!Export(env, exports, "chainBatch", ChainBatch) || !Export(env, exports, "chainJoined", ChainJoined))
    return nullptr;
  if (!vigil::ExportLineDigests(env, exports)) return nullptr;
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
