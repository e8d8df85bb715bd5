#include "handle_resolver.h"

#include <fcntl.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace vigil {

HandleResolver::~HandleResolver() {
  for (auto& entry : mountFds_) close(entry.second);
}

bool HandleResolver::fsidOf(const std::string& path, uint64_t& fsid) {
  struct statfs st;
  if (statfs(path.c_str(), &st) != 0) return false;
  int32_t val[2];
  std::memcpy(val, &st.f_fsid, sizeof val);
  fsid = packFsid(val[0], val[1]);
  return true;
}

bool HandleResolver::addFilesystem(const std::string& path, uint64_t& fsid) {
  if (!fsidOf(path, fsid)) return false;
  if (mountFds_.count(fsid) != 0) return true;
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  mountFds_[fsid] = fd;
  return true;
}

bool HandleResolver::resolve(const FileHandleRef& ref, std::string& path) const {
  auto mount = mountFds_.find(ref.fsid);
  if (mount == mountFds_.end() || ref.handle.size() < 8) return false;
  // struct file_handle must be suitably aligned: copy the reported bytes into one.
  std::vector<uint64_t> storage((ref.handle.size() + sizeof(uint64_t) - 1) / sizeof(uint64_t));
  std::memcpy(storage.data(), ref.handle.data(), ref.handle.size());
  auto* handle = reinterpret_cast<struct file_handle*>(storage.data());
  int fd = open_by_handle_at(mount->second, handle, O_PATH | O_CLOEXEC);
  if (fd < 0) return false;  // ESTALE: the object is gone
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char target[4096];
  ssize_t n = readlink(link, target, sizeof target - 1);
  close(fd);
  if (n <= 0) return false;
  path.assign(target, static_cast<size_t>(n));
  // An object unlinked since the event: its old name is not a path to report.
  static const std::string kDeleted = " (deleted)";
  if (path.size() > kDeleted.size() &&
      path.compare(path.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0) {
    return false;
  }
  return true;
}

}  // namespace vigil
