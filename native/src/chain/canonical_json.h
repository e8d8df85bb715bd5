// The canonical record's JSON, byte for byte as JavaScript's JSON.stringify writes it
// (docs/integrity.md, agent/store/record-chain.ts), and the SHA-256 chain over records. Pure
// C++ with neither Node-API nor SQLite, so it can be run under valgrind by itself
// (native/tools/chain_driver.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace vigil {

constexpr size_t kChainBytes = 32;

// chain = SHA-256(previous || record), written to `chain` (32 bytes).
void NextChain(const unsigned char* previous, size_t previous_length, const char* record, size_t length,
               unsigned char* chain);

// The values of a canonical record.
constexpr size_t kCanonicalValues = 13;

// The most bytes the JSON string of `length` bytes can take: its quotes, and 6 bytes for each
// (\u00xx).
constexpr size_t JsonStringBound(size_t length) { return 2 + 6 * length; }

// Writes the JSON string of well-formed UTF-8 `bytes` at `out` (room for JsonStringBound(length)),
// as JSON.stringify writes the same text; returns its end. Only '"', '\\' and control
// characters are escaped: the rest is copied as is.
char* WriteJsonStringUtf8(char* out, const unsigned char* bytes, size_t length);

// Writes an integer as JavaScript prints it; returns its end (room for 21 bytes).
char* WriteInteger(char* out, int64_t value);

// True for a double JSON.stringify prints as an integer that WriteInteger writes the same
// (a whole number of magnitude below 2^53).
bool IsPlainInteger(double value);

// The records of `text` separated by `separator`, as [offset, length) pairs; false when there are
// not exactly `count` of them (count 0: `text` must be empty).
bool SplitRecords(const char* text, size_t length, char separator, size_t count,
                  std::vector<std::pair<size_t, size_t>>& records);

}  // namespace vigil
