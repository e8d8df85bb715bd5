// Runs the log files' line scanner (native/src/chain/log_digest.cc) over random chunks, with
// and without line feeds, lines of every length, capacities smaller than the lines there are and
// offsets at the very end, so that it can be checked under valgrind without Node
// (test/unit/line-digests.test.ts). Each chunk is its own heap block, so that a read past it is
// reported. Prints the lines scanned and a checksum of their digests and ends.
//   g++ -std=c++17 -Wall -Wextra -g -I../src/chain log_digest_driver.cc ../src/chain/log_digest.cc
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "log_digest.h"

int main() {
  std::mt19937 random(7);
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); };
  size_t lines = 0;
  uint64_t checksum = 0;
  for (int round = 0; round < 3000; round++) {
    const size_t length = static_cast<size_t>(pick(0, 700));
    std::unique_ptr<unsigned char[]> bytes(new unsigned char[length]);
    const int feeds = pick(0, 3);  // none, rare, often, or only line feeds
    for (size_t i = 0; i < length; i++) {
      const bool feed = feeds == 3 || (feeds == 1 && pick(0, 200) == 0) || (feeds == 2 && pick(0, 12) == 0);
      const unsigned char c = static_cast<unsigned char>(pick(0, 255));
      bytes[i] = feed ? '\n' : (c == '\n' ? 11 : c);
    }
    const size_t capacity = static_cast<size_t>(pick(0, 3) == 0 ? pick(0, 5) : pick(0, 800));
    std::vector<double> digests(capacity);
    std::vector<double> ends(capacity);
    const size_t count = vigil::ScanLines(bytes.get(), length, capacity, digests.data(), ends.data());
    size_t start = 0;
    for (size_t k = 0; k < count; k++) {
      const size_t end = static_cast<size_t>(ends[k]);
      if (end == 0 || end > length || bytes[end - 1] != '\n' ||
          static_cast<double>(vigil::LineDigest(bytes.get() + start, end - 1 - start)) != digests[k]) {
        std::printf("round %d line %zu: wrong end or digest\n", round, k);
        return 1;
      }
      checksum = checksum * 31 + static_cast<uint64_t>(digests[k]) + end;
      start = end;
    }
    lines += count;
  }
  std::printf("lines %zu checksum %llu\n", lines, static_cast<unsigned long long>(checksum));
  return 0;
}
