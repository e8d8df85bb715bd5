// Runs the record chain's canonical-record builder and record splitter (native/src/chain/
// canonical_json.cc) over random layouts and texts, well-formed and not, so that they can be
// checked under valgrind without Node (test/unit/chain-canonical.test.ts).
//   g++ -std=c++17 -Wall -Wextra -g -I../src/chain chain_driver.cc ../src/chain/canonical_json.cc -lcrypto
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "canonical_json.h"

int main() {
  std::mt19937 random(42);
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); };
  unsigned char previous[vigil::kChainBytes] = {};
  size_t accepted = 0, refused = 0;
  for (int round = 0; round < 2000; round++) {
    const size_t rows = static_cast<size_t>(pick(0, 40));
    std::u16string text;
    for (int i = pick(0, 400); i > 0; i--) text.push_back(static_cast<char16_t>(pick(0, 0xffff)));
    std::vector<int32_t> kinds(rows * vigil::kCanonicalValues);
    std::vector<double> numbers(kinds.size());
    const bool well_formed = round % 2 == 0;  // a layout that matches its text, or a random one
    if (well_formed) text.clear();
    for (size_t i = 0; i < kinds.size(); i++) {
      kinds[i] = pick(-20, 30);
      numbers[i] = pick(0, 3) == 0 ? 0.5 : pick(-1000000, 1000000);
      if (!well_formed) continue;
      if (kinds[i] == vigil::kSameAsRowBefore && i < vigil::kCanonicalValues) kinds[i] = vigil::kNull;
      if (kinds[i] == vigil::kInteger) numbers[i] = pick(-1000000, 1000000);
      if (kinds[i] >= 0) {
        for (int u = kinds[i]; u > 0; u--) text.push_back(static_cast<char16_t>(pick(0, 0xffff)));
      } else if (kinds[i] <= vigil::kRawFirst) {
        for (int u = vigil::kRawFirst - kinds[i]; u > 0; u--) text.push_back(static_cast<char16_t>('0' + pick(0, 9)));
      }
    }
    std::vector<unsigned char> chains(rows * vigil::kChainBytes);
    std::string error;
    if (vigil::ChainPacked(previous, sizeof previous, text.data(), text.size(), kinds.data(), numbers.data(), rows,
                           chains.data(), error))
      accepted++;
    else
      refused++;
    std::string joined;
    for (int i = pick(0, 300); i > 0; i--) joined.push_back(pick(0, 5) == 0 ? '\n' : static_cast<char>(pick(0, 255)));
    std::vector<std::pair<size_t, size_t>> records;
    if (vigil::SplitRecords(joined.data(), joined.size(), '\n', static_cast<size_t>(pick(0, 60)), records)) {
      for (const auto& record : records) vigil::NextChain(previous, sizeof previous, joined.data() + record.first, record.second, previous);
    }
  }
  std::printf("accepted %zu refused %zu\n", accepted, refused);
  return 0;
}
