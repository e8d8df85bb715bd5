// Runs the store's SQL chain functions (native/src/chain/sqlite_chain.cc) inside a SQLite built
// into the driver (the amalgamation better-sqlite3 ships, sqlite_chain.cc compiled with
// SQLITE_CORE), over random values and the cases it must refuse, so that its buffers, error
// paths and per-connection state can be checked under valgrind without Node
// (test/unit/chain-in-sqlite.test.ts). Closing the connection frees the state: a leak shows.
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

extern "C" int sqlite3_vigilchain_init(sqlite3* db, char** error, const sqlite3_api_routines* api);

int main() {
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_vigilchain_init(db, nullptr, nullptr) != SQLITE_OK) {
    std::printf("cannot open or extend the database\n");
    return 1;
  }
  sqlite3_stmt* from = nullptr;
  sqlite3_stmt* chain = nullptr;
  std::string columns;
  for (int i = 1; i <= 13; i++) columns += (i > 1 ? ", ?" : "?") + std::to_string(i);
  if (sqlite3_prepare_v2(db, "SELECT vigil_chain_from(?1)", -1, &from, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(db, ("SELECT vigil_chain(" + columns + ")").c_str(), -1, &chain, nullptr) != SQLITE_OK) {
    std::printf("cannot prepare: %s\n", sqlite3_errmsg(db));
    return 1;
  }
  std::mt19937_64 random(7);
  auto pick = [&](long long low, long long high) {
    return std::uniform_int_distribution<long long>(low, high)(random);
  };
  size_t chained = 0, refused = 0;
  for (int round = 0; round < 3000; round++) {
    // Where the next rows continue from: usually a chain value, sometimes something else.
    if (round % 5 == 0) {
      std::string previous(static_cast<size_t>(pick(0, 5) == 0 ? pick(0, 40) : 32), '\x01');
      if (pick(0, 3) == 0) sqlite3_bind_text(from, 1, previous.data(), static_cast<int>(previous.size()), SQLITE_TRANSIENT);
      else sqlite3_bind_blob(from, 1, previous.data(), static_cast<int>(previous.size()), SQLITE_TRANSIENT);
      sqlite3_step(from);
      sqlite3_reset(from);
    }
    for (int column = 1; column <= 13; column++) {
      const long long kind = pick(0, 399);
      if (kind == 0) {
        sqlite3_bind_blob(chain, column, "blob", 4, SQLITE_STATIC);
      } else if (kind == 1) {
        sqlite3_bind_double(chain, column, pick(0, 1) == 0 ? 0.5 : 9007199254740992.0);
      } else if (kind <= 40) {
        sqlite3_bind_null(chain, column);
      } else if (kind <= 100) {
        sqlite3_bind_double(chain, column, static_cast<double>(pick(-1000000000000LL, 1000000000000LL)));
      } else if (kind <= 130) {
        sqlite3_bind_int64(chain, column, pick(INT64_MIN, INT64_MAX));
      } else {
        // Text up to 5,000 bytes, past the record buffer's first size, with bytes that need escapes.
        std::string text;
        for (long long i = pick(0, kind <= 140 ? 5000 : 60); i > 0; i--) text.push_back(static_cast<char>(pick(0, 255)));
        sqlite3_bind_text(chain, column, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      }
    }
    const int status = sqlite3_step(chain);
    if (status == SQLITE_ROW && sqlite3_column_bytes(chain, 0) == 32) chained++;
    else if (status == SQLITE_ERROR) refused++;
    else {
      std::printf("unexpected: status %d, %d bytes\n", status, sqlite3_column_bytes(chain, 0));
      return 1;
    }
    sqlite3_reset(chain);
  }
  sqlite3_finalize(from);
  sqlite3_finalize(chain);
  sqlite3_close(db);
  std::printf("chained %zu refused %zu\n", chained, refused);
  return chained > 0 && refused > 0 ? 0 : 1;
}
