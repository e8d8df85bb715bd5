// The canonical record's JSON, byte for byte as JavaScript's JSON.stringify writes it
// (docs/integrity.md, agent/store/record-chain.ts), and the SHA-256 chain over records. Pure
// C++ with no Node-API, so it can be run under valgrind by itself (native/tools/chain_driver.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vigil {

constexpr size_t kChainBytes = 32;

// chain = SHA-256(previous || record), written to `chain` (32 bytes).
void NextChain(const unsigned char* previous, size_t previous_length, const char* record, size_t length,
               unsigned char* chain);

// The values of a canonical record (13), and how a packed slice describes each (record-chain.ts
// `packRows`): a string's length in UTF-16 units of `text`, taken in order; or one of these.
constexpr size_t kCanonicalValues = 13;
constexpr int32_t kNull = -1;
constexpr int32_t kSameAsRowBefore = -2;  // the value of the row before, in the same column
constexpr int32_t kInteger = -3;          // numbers[i], a whole number below 2^53
constexpr int32_t kRawFirst = -4;         // kRawFirst - n: n units of `text` that are JSON already (ASCII)

// Chains the `rows` rows of a packed slice: the canonical record of each built from `kinds`,
// `numbers` (13 per row) and `text`, then chain_i = SHA-256(chain_{i-1} || record_i) into
// `chains` (32 bytes a row). False, with `error` set and `chains` incomplete, when the layout
// does not match the text (a length past its end, a row-before on the first row, a number
// that is not whole, raw text that is not ASCII, text left over).
bool ChainPacked(const unsigned char* previous, size_t previous_length, const char16_t* text, size_t text_length,
                 const int32_t* kinds, const double* numbers, size_t rows, unsigned char* chains, std::string& error);

// The records of `text` separated by `separator`, as [offset, length) pairs; false when there are
// not exactly `count` of them (count 0: `text` must be empty).
bool SplitRecords(const char* text, size_t length, char separator, size_t count,
                  std::vector<std::pair<size_t, size_t>>& records);

}  // namespace vigil
