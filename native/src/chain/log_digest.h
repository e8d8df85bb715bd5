// The line digests of a log file's sidecar (docs/integrity.md, "Log files";
// agent/integrity/log-sidecar-format.ts `lineDigest`), computed for a whole chunk of the file at
// once. Pure C++ with no Node-API, so it can be run under valgrind by itself
// (native/tools/log_digest_driver.cc).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vigil {

// The digest of one line (its line feed excluded), below 2^48: 32 bits of FNV-1a and 16 of a
// multiplicative hash over the line's bytes, exactly as log-sidecar-format.ts computes it.
uint64_t LineDigest(const unsigned char* line, size_t length);

// The whole lines of `bytes[0, length)`, each ending with a line feed: for each of the first
// `capacity`, its digest into `digests` and the offset just past its line feed into `ends`.
// Returns how many were written; bytes after the last line feed (a line still incomplete) are
// left for the caller. Never reads outside `bytes` nor writes past `capacity` entries.
size_t ScanLines(const unsigned char* bytes, size_t length, size_t capacity, double* digests, double* ends);

}  // namespace vigil
