// Runs the record chain's canonical-record writers and record splitter (native/src/chain/
// canonical_json.cc) over random texts and numbers, checking them against plain byte-by-byte
// references, so that they can be checked under valgrind without Node or SQLite
// (test/unit/chain-canonical.test.ts). Each output goes into a buffer of exactly the bound the
// callers reserve, so a write past it is a memory error.
//   g++ -std=c++17 -Wall -Wextra -g -I../src/chain chain_driver.cc ../src/chain/canonical_json.cc -lcrypto
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "canonical_json.h"

namespace {

// JSON.stringify's escaping of UTF-8 text, one byte at a time.
std::string ReferenceJson(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char byte : text) {
    switch (byte) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (byte < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", byte);
          out += escape;
        } else {
          out += static_cast<char>(byte);
        }
    }
  }
  return out + "\"";
}

}  // namespace

int main() {
  std::mt19937_64 random(42);
  auto pick = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(random); };
  const char kOften[] = {'a', '/', '"', '\\', '\n', '\0', '\x1f', '\x7f', '\xc3', '\xa9', ' '};
  size_t texts = 0, integers = 0, mismatches = 0;
  unsigned char previous[vigil::kChainBytes] = {};
  for (int round = 0; round < 2000; round++) {
    std::string text;
    for (int64_t i = pick(0, 120); i > 0; i--) {
      text.push_back(round % 2 == 0 ? kOften[pick(0, sizeof kOften - 1)] : static_cast<char>(pick(0, 255)));
    }
    std::vector<char> out(vigil::JsonStringBound(text.size()));
    char* end = vigil::WriteJsonStringUtf8(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                                 text.size());
    if (std::string(out.data(), static_cast<size_t>(end - out.data())) != ReferenceJson(text)) mismatches++;
    texts++;

    const int64_t value = round < 4 ? std::vector<int64_t>{0, -1, std::numeric_limits<int64_t>::min(),
                                                           std::numeric_limits<int64_t>::max()}[round]
                                    : pick(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()) >>
                                          pick(0, 63);
    std::vector<char> digits(21);
    char expected[32];
    std::snprintf(expected, sizeof expected, "%" PRId64, value);
    const char* digits_end = vigil::WriteInteger(digits.data(), value);
    if (std::string(digits.data(), static_cast<size_t>(digits_end - digits.data())) != expected) mismatches++;
    integers++;

    std::string joined;
    for (int64_t i = pick(0, 300); i > 0; i--) joined.push_back(pick(0, 5) == 0 ? '\n' : static_cast<char>(pick(0, 255)));
    std::vector<std::pair<size_t, size_t>> records;
    if (vigil::SplitRecords(joined.data(), joined.size(), '\n', static_cast<size_t>(pick(0, 60)), records)) {
      for (const auto& record : records)
        vigil::NextChain(previous, sizeof previous, joined.data() + record.first, record.second, previous);
    }
  }
  std::printf("texts %zu integers %zu mismatches %zu\n", texts, integers, mismatches);
  return mismatches == 0 ? 0 : 1;
}
