// File handle -> path, for the directory handles fanotify reports (open_by_handle_at(2)
// needs CAP_DAC_READ_SEARCH and an open file on the same filesystem).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "fanotify_decode.h"

namespace vigil {

class HandleResolver {
 public:
  HandleResolver() = default;
  ~HandleResolver();
  HandleResolver(const HandleResolver&) = delete;
  HandleResolver& operator=(const HandleResolver&) = delete;

  // Opens `path` as the mount fd of its filesystem. Returns false with errno set. `fsid`
  // receives the filesystem id as fanotify reports it.
  bool addFilesystem(const std::string& path, uint64_t& fsid);
  // The path of the object `ref` names, or false (deleted directory, unknown filesystem).
  bool resolve(const FileHandleRef& ref, std::string& path) const;

  static bool fsidOf(const std::string& path, uint64_t& fsid);

 private:
  std::unordered_map<uint64_t, int> mountFds_;
};

}  // namespace vigil
