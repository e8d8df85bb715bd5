// The record chain's cost per row inside SQLite, without JavaScript around it
// (bench/chain-in-sqlite.bench.ts, docs/benchmarks.md "The chain's floor"). The store's own
// INSERT (32 rows a statement, `INSERT … SELECT column1 … column13, <chain> FROM (VALUES …)`,
// texts bound as better-sqlite3 binds them: copied, numbers as REAL) runs into two tables of
// one in-memory database, slice by slice in alternating order: one with `vigil_chain(…)`
// (native/src/chain/sqlite_chain.cc, compiled in), one with `zeroblob(32)`. Then the parts of
// the chain function alone over the same canonical records: writing the JSON, and SHA-256 of
// the previous value and the record (canonical_json.cc). Prints one JSON line, ns per row.
//
//   insert-rows SLICES ROUNDS
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "canonical_json.h"

extern "C" int sqlite3_vigilchain_init(sqlite3* db, char** error, const sqlite3_api_routines* api);

namespace {

constexpr int kRows = 32;     // the store's ROWS_PER_STATEMENT
constexpr int kValues = 13;   // canonical values a row
using Clock = std::chrono::steady_clock;

double Nanoseconds(Clock::time_point from) {
  return std::chrono::duration<double, std::nano>(Clock::now() - from).count();
}

void Check(int status, sqlite3* db, const char* what) {
  if (status == SQLITE_OK || status == SQLITE_DONE || status == SQLITE_ROW) return;
  std::fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
  std::exit(1);
}

// Row n's values, shaped as the pipeline benchmark's file records (bench/pipeline-fixture.ts):
// the RID, the time, then the texts; null where the record has no value.
struct Row {
  char rid[32];
  char what[96];
  const char* text(int column) const {
    static const char* const kTexts[kValues] = {nullptr,  nullptr,       "vm\\root", "Added",
                                                nullptr,  "vm",          "File",     "File System",
                                                "bench",  "bench-host", "/home/user/Documents",
                                                "vm",     nullptr};
    return column == 0 ? rid : column == 4 ? what : kTexts[column];
  }
  explicit Row(long n) {
    std::snprintf(rid, sizeof rid, "0199a3f2c4b8%08ld", n);
    std::snprintf(what, sizeof what, "/home/user/Documents/project-%ld/report-%ld.docx", n % 100, n);
  }
};
constexpr double kWhenMs = 1764078802000.0;

// The INSERT into `table`, its chain column `vigil_chain(…)` of the row or 32 zero bytes.
sqlite3_stmt* PrepareInsert(sqlite3* db, const char* table, bool chained) {
  std::string columns, values;
  for (int c = 1; c <= kValues; c++) columns += (c > 1 ? ", column" : "column") + std::to_string(c);
  for (int r = 0; r < kRows; r++) {
    values += r > 0 ? ", (" : "(";
    for (int c = 0; c < kValues; c++) values += c > 0 ? ", ?" : "?";
    values += ")";
  }
  const std::string sql = std::string("INSERT INTO ") + table +
                          " (rid, when_ms, who, action, what, location, object_type, data_source, plan_name, plan_id,"
                          " item_name, workstation, details, chain) SELECT " +
                          columns + ", " + (chained ? "vigil_chain(" + columns + ")" : std::string("zeroblob(32)")) + " FROM (VALUES " +
                          values + ")";
  sqlite3_stmt* statement = nullptr;
  Check(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), db, "prepare");
  return statement;
}

void BindSlice(sqlite3_stmt* statement, const std::vector<Row>& rows) {
  for (int r = 0; r < kRows; r++) {
    const Row& row = rows[r];
    const int at = r * kValues + 1;
    for (int c = 0; c < kValues; c++) {
      if (c == 1) sqlite3_bind_double(statement, at + c, kWhenMs);
      else if (row.text(c) == nullptr) sqlite3_bind_null(statement, at + c);
      else sqlite3_bind_text(statement, at + c, row.text(c), -1, SQLITE_TRANSIENT);
    }
  }
}

// The canonical record of row n, as the chain function writes it.
size_t WriteRecord(const Row& row, char* out) {
  char* at = out;
  for (int c = 0; c < kValues; c++) {
    *at++ = c == 0 ? '[' : ',';
    const char* text = row.text(c);
    if (c == 1) at = vigil::WriteInteger(at, static_cast<int64_t>(kWhenMs));
    else if (text == nullptr) at = static_cast<char*>(std::memcpy(at, "null", 4)) + 4;
    else at = vigil::WriteJsonStringUtf8(at, reinterpret_cast<const unsigned char*>(text), std::strlen(text));
  }
  *at++ = ']';
  return static_cast<size_t>(at - out);
}

// The rows of slice `slice`, made before any timing starts.
std::vector<Row> SliceRows(long slice) {
  std::vector<Row> rows;
  rows.reserve(kRows);
  for (int r = 0; r < kRows; r++) rows.emplace_back(slice * kRows + r);
  return rows;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const long slices = argc > 1 ? std::atol(argv[1]) : 20000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  sqlite3* db = nullptr;
  Check(sqlite3_open(":memory:", &db), db, "open");
  Check(sqlite3_vigilchain_init(db, nullptr, nullptr), db, "the chain functions");
  const char* table =
      "(seq INTEGER PRIMARY KEY, rid TEXT, when_ms INTEGER, who TEXT, action TEXT, what TEXT, location TEXT,"
      " object_type TEXT, data_source TEXT, plan_name TEXT, plan_id TEXT, item_name TEXT, workstation TEXT,"
      " details TEXT, chain BLOB)";
  Check(sqlite3_exec(db, (std::string("CREATE TABLE chained") + table + "; CREATE TABLE unchained" + table).c_str(),
                     nullptr, nullptr, nullptr),
        db, "create");
  sqlite3_stmt* chained = PrepareInsert(db, "chained", true);
  sqlite3_stmt* unchained = PrepareInsert(db, "unchained", false);
  sqlite3_stmt* from = nullptr;
  Check(sqlite3_prepare_v2(db, "SELECT vigil_chain_from(zeroblob(32))", -1, &from, nullptr), db, "prepare");
  Check(sqlite3_step(from), db, "vigil_chain_from");

  std::vector<double> insertChained, insertUnchained, json, sha;
  std::vector<char> records(static_cast<size_t>(kRows) * 1024);
  for (int round = 0; round < rounds; round++) {
    double times[2] = {0, 0};
    for (long slice = 0; slice < slices; slice++) {
      const std::vector<Row> rows = SliceRows(slice);
      for (int turn = 0; turn < 2; turn++) {
        const bool chain = ((slice + turn) & 1) == 0;  // each goes first every other slice
        sqlite3_stmt* statement = chain ? chained : unchained;
        const Clock::time_point started = Clock::now();
        BindSlice(statement, rows);
        Check(sqlite3_step(statement), db, "insert");
        sqlite3_reset(statement);
        times[chain ? 0 : 1] += Nanoseconds(started);
      }
      if (slice % 1000 == 999) {  // the tables stay small: the B-trees' depth is not measured
        Check(sqlite3_exec(db, "DELETE FROM chained; DELETE FROM unchained", nullptr, nullptr, nullptr), db, "delete");
      }
    }
    const double rows = static_cast<double>(slices) * kRows;
    insertChained.push_back(times[0] / rows);
    insertUnchained.push_back(times[1] / rows);

    // The function's two parts alone, over the same records.
    std::vector<size_t> lengths(kRows);
    unsigned char head[vigil::kChainBytes] = {};
    double writing = 0, hashing = 0;
    for (long slice = 0; slice < slices; slice++) {
      const std::vector<Row> rows = SliceRows(slice);
      Clock::time_point started = Clock::now();
      for (int r = 0; r < kRows; r++) lengths[r] = WriteRecord(rows[r], records.data() + r * 1024);
      writing += Nanoseconds(started);
      started = Clock::now();
      for (int r = 0; r < kRows; r++) vigil::NextChain(head, sizeof head, records.data() + r * 1024, lengths[r], head);
      hashing += Nanoseconds(started);
    }
    json.push_back(writing / rows);
    sha.push_back(hashing / rows);
  }
  std::printf(
      "{\"rows\":%ld,\"rounds\":%d,\"insertChainedNs\":%.1f,\"insertUnchainedNs\":%.1f,\"chainNs\":%.1f,"
      "\"jsonNs\":%.1f,\"sha256Ns\":%.1f,\"recordBytes\":%zu}\n",
      slices * kRows, rounds, Median(insertChained), Median(insertUnchained),
      Median(insertChained) - Median(insertUnchained), Median(json), Median(sha), WriteRecord(SliceRows(0)[0], records.data()));
  sqlite3_finalize(from);
  sqlite3_finalize(chained);
  sqlite3_finalize(unchained);
  sqlite3_close(db);
  return 0;
}
