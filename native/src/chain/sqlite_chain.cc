// The record chain computed inside SQLite, as the audit store inserts (docs/integrity.md,
// agent/store/chain-addon.ts `loadChainFunction`): a SQLite extension in the chain addon's own
// library, loaded into each of the store's connections, that adds two functions:
//
//   vigil_chain_from(previous) -> NULL
//     The 32-byte chain value the next row continues from (a batch's first, read from the store).
//   vigil_chain(rid, when_ms, who, action, what, location, object_type, data_source, plan_name,
//               plan_id, item_name, workstation, details) -> blob(32)
//     chain = SHA-256(previous chain || canonical record), then the previous chain of the
//     connection's next row. The canonical record is built from the values as SQLite holds them
//     for the insert: their UTF-8 is already there, nothing is packed or copied in JavaScript.
//
// The state is the connection's: the store calls vigil_chain_from at the start of each batch,
// inside its write transaction, and its INSERTs call vigil_chain once a row, in row order.
//
// The canonical record is byte for byte JSON.stringify of the values (record-chain.ts
// `canonicalRecord`): text as a JSON string, a whole number (JavaScript binds numbers as REAL)
// as an integer, NULL as null. Any other value (a fraction, a blob) is an error: the store never
// binds one, and its JSON could not be written the way JavaScript writes it.
#include <sqlite3ext.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "canonical_json.h"

SQLITE_EXTENSION_INIT1

namespace {

using vigil::kChainBytes;

// One connection's chain: the value returned last, and the scratch its records are built in.
struct ConnectionChain {
  unsigned char head[kChainBytes] = {};
  bool started = false;
  std::vector<char> record = std::vector<char>(1024);
};

// Room for `more` bytes at `at` in `record`; the pointer to write at.
char* Reserve(std::vector<char>& record, size_t at, size_t more) {
  if (record.size() - at < more) record.resize(2 * record.size() + more);
  return record.data() + at;
}

// The canonical record of the 13 values into `chain->record`; its length, or 0 with an error set.
size_t BuildRecord(sqlite3_context* context, sqlite3_value** values, ConnectionChain* chain) {
  std::vector<char>& record = chain->record;
  size_t length = 0;
  for (size_t column = 0; column < vigil::kCanonicalValues; column++) {
    sqlite3_value* value = values[column];
    *Reserve(record, length, 1) = column == 0 ? '[' : ',';
    length++;
    char* out;
    switch (sqlite3_value_type(value)) {
      case SQLITE_TEXT: {
        // A bound text's UTF-8 as SQLite holds it. sqlite3_value_text would first copy it to add
        // a terminating NUL (a malloc and a copy a value, a fifth of this function's time);
        // _blob reads a text's bytes as they are.
        const unsigned char* text = sqlite3_value_encoding(value) == SQLITE_UTF8
                                        ? static_cast<const unsigned char*>(sqlite3_value_blob(value))
                                        : sqlite3_value_text(value);
        const size_t bytes = static_cast<size_t>(sqlite3_value_bytes(value));  // after, as SQLite asks
        if (text == nullptr && bytes != 0) {
          sqlite3_result_error_nomem(context);
          return 0;
        }
        if (text == nullptr) text = reinterpret_cast<const unsigned char*>("");
        out = vigil::WriteJsonStringUtf8(Reserve(record, length, vigil::JsonStringBound(bytes)), text, bytes);
        break;
      }
      case SQLITE_INTEGER:
        out = vigil::WriteInteger(Reserve(record, length, 24), sqlite3_value_int64(value));
        break;
      case SQLITE_FLOAT: {
        const double number = sqlite3_value_double(value);
        if (!vigil::IsPlainInteger(number)) {
          sqlite3_result_error(context, "vigil_chain: a canonical number is not a whole number below 2^53", -1);
          return 0;
        }
        out = vigil::WriteInteger(Reserve(record, length, 24), static_cast<int64_t>(number));
        break;
      }
      case SQLITE_NULL:
        out = Reserve(record, length, 4);
        std::memcpy(out, "null", 4);
        out += 4;
        break;
      default:
        sqlite3_result_error(context, "vigil_chain: a canonical value is a blob", -1);
        return 0;
    }
    length = static_cast<size_t>(out - record.data());
  }
  *Reserve(record, length, 1) = ']';
  return length + 1;
}

void ChainFrom(sqlite3_context* context, int argc, sqlite3_value** argv) {
  auto* chain = static_cast<ConnectionChain*>(sqlite3_user_data(context));
  chain->started = false;
  (void)argc;  // registered with one argument: SQLite refuses any other count
  // The type first: reading another type as a blob would convert it.
  const void* bytes = sqlite3_value_type(argv[0]) == SQLITE_BLOB ? sqlite3_value_blob(argv[0]) : nullptr;
  if (bytes == nullptr || sqlite3_value_bytes(argv[0]) != kChainBytes) {
    sqlite3_result_error(context, "vigil_chain_from: the previous chain value must be a 32-byte blob", -1);
    return;
  }
  std::memcpy(chain->head, bytes, kChainBytes);
  chain->started = true;
  sqlite3_result_null(context);
}

void ChainRow(sqlite3_context* context, int argc, sqlite3_value** argv) {
  auto* chain = static_cast<ConnectionChain*>(sqlite3_user_data(context));
  (void)argc;  // registered with the 13 canonical values: SQLite refuses any other count
  if (!chain->started) {
    sqlite3_result_error(context, "vigil_chain: vigil_chain_from was not called first", -1);
    return;
  }
  const size_t length = BuildRecord(context, argv, chain);
  if (length == 0) {
    chain->started = false;  // the statement fails: its batch must start again from a given value
    return;
  }
  vigil::NextChain(chain->head, kChainBytes, chain->record.data(), length, chain->head);
  sqlite3_result_blob(context, chain->head, kChainBytes, SQLITE_TRANSIENT);
}

void DeleteChain(void* chain) { delete static_cast<ConnectionChain*>(chain); }

}  // namespace

#if defined(_WIN32)
#define VIGIL_EXPORT __declspec(dllexport)
#else
#define VIGIL_EXPORT __attribute__((visibility("default")))
#endif

// The extension's entry point (better-sqlite3's `loadExtension(file, 'sqlite3_vigilchain_init')`).
// DIRECTONLY: neither function can be called from a trigger or a view a database file brings.
extern "C" VIGIL_EXPORT int sqlite3_vigilchain_init(sqlite3* db, char** error, const sqlite3_api_routines* api) {
  (void)error;
  // The API table is the one SQLite of the process (better-sqlite3's), the same for every
  // connection; set once, because the store's threads load the extension concurrently.
  static std::once_flag api_set;
  std::call_once(api_set, [api] {
    (void)api;  // unused when the extension is compiled into SQLite itself (SQLITE_CORE)
    SQLITE_EXTENSION_INIT2(api);
  });
  auto* chain = new ConnectionChain();
  const int flags = SQLITE_UTF8 | SQLITE_DIRECTONLY;
  const int status = sqlite3_create_function_v2(db, "vigil_chain_from", 1, flags, chain, ChainFrom, nullptr, nullptr,
                                                DeleteChain);  // frees `chain` when it fails, too
  if (status != SQLITE_OK) return status;
  return sqlite3_create_function_v2(db, "vigil_chain", static_cast<int>(vigil::kCanonicalValues), flags, chain,
                                    ChainRow, nullptr, nullptr, nullptr);
}
