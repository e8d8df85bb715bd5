// Decoding of the records a fanotify group in FID mode returns from read(2): pure byte
// parsing, no system calls, so it can be fed recorded kernel buffers in tests and run
// under valgrind on its own (docs/attribution.md "Tests").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vigil {

// A file handle as the kernel reports it: the filesystem id plus the opaque handle, kept
// as the bytes of a `struct file_handle` (handle_bytes, handle_type, f_handle[]) so it can be
// passed to open_by_handle_at(2) unchanged.
struct FileHandleRef {
  uint64_t fsid = 0;
  std::string handle;
};

// One info record following the event metadata (FAN_EVENT_INFO_TYPE_*).
struct InfoRecord {
  uint8_t type = 0;
  FileHandleRef fid;
  bool hasName = false;
  std::string name;
};

struct DecodedEvent {
  uint64_t mask = 0;
  int32_t pid = 0;
  int32_t fd = -1;
  std::vector<InfoRecord> records;

  // The first record of `type`, or nullptr.
  const InfoRecord* find(uint8_t type) const;
};

// Appends the events found in `buf` to `out`. Returns false and sets `error` when the
// buffer is malformed (wrong metadata version, a length that runs past the buffer, a name
// without its terminating NUL); the events decoded before the fault are kept.
bool decodeFanotifyBuffer(const uint8_t* buf, size_t len, std::vector<DecodedEvent>& out,
                          std::string& error);

// Packs `fsid` as the kernel's __kernel_fsid_t {val[0], val[1]} does.
uint64_t packFsid(int32_t val0, int32_t val1);

}  // namespace vigil
