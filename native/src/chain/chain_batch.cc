// The record chain's hashing in batches (docs/integrity.md): chain_i = SHA-256(chain_{i-1} ||
// canonical_i). One call hashes a whole batch against the SHA-256 of the OpenSSL that Node
// itself links (its symbols are exported to addons), so a record costs the hash alone instead
// of one node:crypto Hash object and three calls across into native code.
//
// chainBatch(previous: Buffer(32), canonicals: string[]) -> Buffer(32 * n)
//   the chain values of the n records in order, previous being the predecessor of the first.
//   Strings are hashed as UTF-8, the way `hash.update(string, 'utf8')` does (lone surrogates
//   become U+FFFD in both).
//
// Measured alternatives (docs/benchmarks.md, "Tamper evidence"): handing over the batch as one
// joined string, or packed into one Buffer with an offsets array, was no faster than reading
// each string here; the SHA-256 itself is most of what is left.
#define OPENSSL_SUPPRESS_DEPRECATED 1  // SHA256_Init/Update/Final: the low-level calls, no EVP fetch per record
#include <node_api.h>
#include <openssl/sha.h>

#include <vector>

namespace {

constexpr size_t kChainBytes = 32;

bool Check(napi_env env, napi_status status, const char* what) {
  if (status == napi_ok) return true;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) napi_throw_error(env, nullptr, what);
  return false;
}

napi_value ChainBatch(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (!Check(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr), "chainBatch: arguments")) return nullptr;
  if (argc < 2) {
    napi_throw_type_error(env, nullptr, "chainBatch(previous, canonicals)");
    return nullptr;
  }
  bool is_buffer = false;
  napi_is_buffer(env, argv[0], &is_buffer);
  void* previous_data = nullptr;
  size_t previous_length = 0;
  if (!is_buffer ||
      napi_get_buffer_info(env, argv[0], &previous_data, &previous_length) != napi_ok) {
    napi_throw_type_error(env, nullptr, "chainBatch: previous must be a Buffer");
    return nullptr;
  }
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

  // One scratch buffer for the UTF-8 of each string, grown when a string does not fit.
  thread_local std::vector<char> scratch(4096);
  const unsigned char* previous = static_cast<const unsigned char*>(previous_data);
  size_t predecessor_length = previous_length;
  for (uint32_t i = 0; i < count; i++) {
    napi_value element;
    if (!Check(env, napi_get_element(env, argv[1], i, &element), "chainBatch: element")) return nullptr;
    size_t length = 0;
    napi_status status = napi_get_value_string_utf8(env, element, scratch.data(), scratch.size(), &length);
    if (status == napi_string_expected) {
      napi_throw_type_error(env, nullptr, "chainBatch: canonicals must be an array of strings");
      return nullptr;
    }
    if (!Check(env, status, "chainBatch: string")) return nullptr;
    if (length + 4 >= scratch.size()) {
      // Possibly cut short: Node-API stops before a character that does not fit whole (up to
      // 4 bytes of UTF-8), so a string that ends that close to the end is copied again in full.
      if (!Check(env, napi_get_value_string_utf8(env, element, nullptr, 0, &length), "chainBatch: string"))
        return nullptr;
      scratch.resize(length + 1);
      if (!Check(env, napi_get_value_string_utf8(env, element, scratch.data(), scratch.size(), &length),
                 "chainBatch: string"))
        return nullptr;
    }
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, previous, predecessor_length);
    SHA256_Update(&context, scratch.data(), length);
    unsigned char* chain = chains + static_cast<size_t>(i) * kChainBytes;
    SHA256_Final(chain, &context);
    previous = chain;
    predecessor_length = kChainBytes;
  }
  return out;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "chainBatch", NAPI_AUTO_LENGTH, ChainBatch, nullptr, &fn) != napi_ok) return nullptr;
  if (napi_set_named_property(env, exports, "chainBatch", fn) != napi_ok) return nullptr;
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
