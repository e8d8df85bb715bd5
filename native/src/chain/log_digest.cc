// Line digests of log files for `vigil verify --logs` (log_digest.h). The digest's two hashes
// each depend on the byte before, so one line is hashed at the latency of a multiply per byte;
// four lines hashed side by side keep the core busy with four independent chains instead.
#include "log_digest.h"

#include <algorithm>
#include <cstring>

namespace vigil {

namespace {

constexpr uint32_t kFnvOffset = 0x811c9dc5u;
constexpr uint32_t kFnvPrime = 0x01000193u;
constexpr uint32_t kMixStart = 0x9e3779b9u;
constexpr uint32_t kMixPrime = 0x5bd1e995u;
constexpr size_t kGroup = 4;

struct Digest {
  uint32_t fnv = kFnvOffset;
  uint32_t mix = kMixStart;

  void Add(unsigned char c) {
    fnv = (fnv ^ c) * kFnvPrime;
    mix = (mix ^ c) * kMixPrime;
    mix ^= mix >> 15;
  }
  void AddAll(const unsigned char* bytes, size_t length) {
    for (size_t i = 0; i < length; i++) Add(bytes[i]);
  }
  double Value() const { return static_cast<double>((static_cast<uint64_t>(fnv) << 16) | (mix & 0xffffu)); }
};

// The digests of `n` (at most kGroup) lines: their common length side by side, then each rest.
void DigestGroup(const unsigned char* bytes, const size_t* starts, const size_t* lengths, size_t n, double* out) {
  Digest digests[kGroup];
  size_t common = 0;
  if (n == kGroup) {
    common = std::min(std::min(lengths[0], lengths[1]), std::min(lengths[2], lengths[3]));
    const unsigned char* l0 = bytes + starts[0];
    const unsigned char* l1 = bytes + starts[1];
    const unsigned char* l2 = bytes + starts[2];
    const unsigned char* l3 = bytes + starts[3];
    for (size_t i = 0; i < common; i++) {
      digests[0].Add(l0[i]);
      digests[1].Add(l1[i]);
      digests[2].Add(l2[i]);
      digests[3].Add(l3[i]);
    }
  }
  for (size_t k = 0; k < n; k++) {
    digests[k].AddAll(bytes + starts[k] + common, lengths[k] - common);
    out[k] = digests[k].Value();
  }
}

}  // namespace

uint64_t LineDigest(const unsigned char* line, size_t length) {
  Digest digest;
  digest.AddAll(line, length);
  return static_cast<uint64_t>(digest.Value());
}

size_t ScanLines(const unsigned char* bytes, size_t length, size_t capacity, double* digests, double* ends) {
  size_t count = 0;
  size_t start = 0;
  size_t starts[kGroup];
  size_t lengths[kGroup];
  for (;;) {
    size_t n = 0;
    while (n < kGroup && count + n < capacity && start < length) {
      const void* feed = std::memchr(bytes + start, '\n', length - start);
      if (feed == nullptr) break;
      const size_t end = static_cast<size_t>(static_cast<const unsigned char*>(feed) - bytes);
      starts[n] = start;
      lengths[n] = end - start;
      ends[count + n] = static_cast<double>(end + 1);
      start = end + 1;
      n++;
    }
    DigestGroup(bytes, starts, lengths, n, digests + count);
    count += n;
    if (n < kGroup) return count;
  }
}

}  // namespace vigil
