#include "watch_core.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iterator>

namespace vigil {

namespace {

constexpr unsigned kGroupFlags =
    FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_DFID_NAME | FAN_REPORT_FID;
// Since 5.17: a create, delete or rename also carries the handle of the entry itself, so a
// folder's path is known from its creation on, even if it is gone before its files' events
// are read (`tar -x && rm -rf`: the handle then no longer opens).
constexpr unsigned kTargetFidFlag = FAN_REPORT_TARGET_FID;
constexpr uint64_t kWriteMask =
    FAN_CREATE | FAN_DELETE | FAN_CLOSE_WRITE | FAN_MODIFY | FAN_ONDIR | FAN_OPEN_EXEC;
constexpr uint64_t kReadMask = FAN_ACCESS;
// Directory paths by handle. Folders inside the monitored ones have their own, larger cache:
// the events of the rest of the filesystem (the mark covers all of it) must not push them out,
// since a file deleted together with its folder (`rm -r`) can only be named from the cache.
constexpr size_t kScopeDirCacheLimit = 65536;
// The events read are handed on at most this often (or 4,096 at a time), so that a burst
// reaches the main thread in large batches: each batch costs it a turn.
constexpr int kHandOffIntervalMs = 20;
// After reading, the reader waits this long before it reads again. Waiting lets the kernel merge
// a file's create, write and close into one event, and a reader asleep in poll(2) is woken by
// the writing process itself, on its own time; but every event the kernel queues is first
// compared with those already waiting to be merged (fanotify_merge), so a longer queue costs
// the writing process more: perf put that comparison at 1.4-1.5 % of a tar extraction's samples
// with a 20 ms pause and 0.4-0.6 % with 5, as many events merged (docs/benchmarks.md).
constexpr int kDrainIntervalMs = 5;
constexpr size_t kOtherDirCacheLimit = 8192;

int64_t monotonicMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string errnoText(const std::string& what, int err) {
  return what + ": " + std::strerror(err) + " (errno " + std::to_string(err) + ")";
}

}  // namespace

WatchCore::WatchCore(WatchOptions options, BatchSink sink)
    : options_(std::move(options)), sink_(std::move(sink)), cache_(options_.graceMs) {}

WatchCore::~WatchCore() {
  stop();
}

std::string WatchCore::markFilesystem(const std::string& path, uint64_t mask) {
  uint64_t fsid = 0;
  if (!resolver_.addFilesystem(path, fsid)) return errnoText("open " + path, errno);
  for (uint64_t marked : markedFsids_) {
    if (marked == fsid) return "";
  }
  if (mask == FAN_OPEN_EXEC) {  // a filesystem holding programs only
    if (fanotify_mark(fanFd_, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, mask, AT_FDCWD, path.c_str()) != 0) {
      return errnoText("fanotify_mark " + path, errno);
    }
    markedFsids_.push_back(fsid);
    return "";
  }
  // One event with both names for a rename (FAN_RENAME, 5.17), else the two halves.
  if (renameBits_ == 0) {
    if (fanotify_mark(fanFd_, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, mask | FAN_RENAME, AT_FDCWD,
                      path.c_str()) == 0) {
      renameBits_ = FAN_RENAME;
    } else if (errno == EINVAL) {
      renameBits_ = FAN_MOVED_FROM | FAN_MOVED_TO;
    } else {
      return errnoText("fanotify_mark " + path, errno);
    }
    stats_.renameEvents = renameBits_ == FAN_RENAME;
    if (renameBits_ == FAN_RENAME) {
      markedFsids_.push_back(fsid);
      return "";
    }
  }
  if (fanotify_mark(fanFd_, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, mask | renameBits_, AT_FDCWD,
                    path.c_str()) != 0) {
    return errnoText("fanotify_mark " + path, errno);
  }
  markedFsids_.push_back(fsid);
  return "";
}

std::string WatchCore::start() {
  selfPid_ = getpid();
  fanFd_ = fanotify_init(kGroupFlags | kTargetFidFlag, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
  stats_.targetHandles = fanFd_ >= 0;
  if (fanFd_ < 0 && errno == EINVAL) fanFd_ = fanotify_init(kGroupFlags, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
  if (fanFd_ < 0) return errnoText("fanotify_init", errno);
  // Before the /proc scan, so that no process started in between is missed.
  stats_.processEvents = options_.processEvents && cache_.openConnector() >= 0;

  std::vector<std::string> roots;
  for (const std::string& root : options_.roots) {
    char real[PATH_MAX];
    if (realpath(root.c_str(), real) == nullptr) return errnoText("realpath " + root, errno);
    roots.emplace_back(real);
  }
  options_.roots = roots;
  const uint64_t mask = kWriteMask | (options_.reads ? kReadMask : 0);
  for (const std::string& root : options_.roots) {
    std::string error = markFilesystem(root, mask);
    if (!error.empty()) return error;
  }
  // Executables usually live on the root filesystem: their FAN_OPEN_EXEC names a program
  // that exits before its exec event is handled.
  for (const char* programs : {"/usr/bin", "/"}) {
    markFilesystem(programs, FAN_OPEN_EXEC);
  }
  cache_.scanProc(monotonicMs());

  wakeFd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wakeFd_ < 0) return errnoText("eventfd", errno);
  reader_ = std::thread([this] { run(); });
  return "";
}

void WatchCore::stop() {
  if (reader_.joinable()) {
    uint64_t one = 1;
    ssize_t written = write(wakeFd_, &one, sizeof one);
    (void)written;
    reader_.join();
  }
  if (wakeFd_ >= 0) close(wakeFd_);
  if (fanFd_ >= 0) close(fanFd_);
  wakeFd_ = -1;
  fanFd_ = -1;
}

bool WatchCore::inScope(const std::string& path) const {
  for (const std::string& root : options_.roots) {
    if (path.size() < root.size() || path.compare(0, root.size(), root) != 0) continue;
    if (path.size() == root.size() || root == "/" || path[root.size()] == '/') return true;
  }
  return false;
}

namespace {
std::string handleKey(const FileHandleRef& fid) {
  std::string key(reinterpret_cast<const char*>(&fid.fsid), sizeof fid.fsid);
  key += fid.handle;
  return key;
}
}  // namespace

void WatchCore::rememberDir(const FileHandleRef& fid, const std::string& path) {
  if (!inScope(path)) return;
  if (scopeDirPaths_.size() >= kScopeDirCacheLimit) scopeDirPaths_.clear();
  scopeDirPaths_[handleKey(fid)] = path;
}

void WatchCore::forgetDir(const FileHandleRef& fid) {
  scopeDirPaths_.erase(handleKey(fid));
}

bool WatchCore::pathOf(const InfoRecord& record, std::string& path) {
  std::string key = handleKey(record.fid);
  std::string dir;
  auto cached = scopeDirPaths_.find(key);
  if (cached != scopeDirPaths_.end()) {
    dir = cached->second;
  } else if ((cached = otherDirPaths_.find(key)) != otherDirPaths_.end()) {
    dir = cached->second;
  } else {
    if (!resolver_.resolve(record.fid, dir)) return false;
    const bool inside = inScope(dir);
    auto& cache = inside ? scopeDirPaths_ : otherDirPaths_;
    if (cache.size() >= (inside ? kScopeDirCacheLimit : kOtherDirCacheLimit)) cache.clear();
    cache.emplace(std::move(key), dir);
  }
  if (!record.hasName || record.name.empty() || record.name == ".") {
    path = dir;
  } else {
    path = dir == "/" ? "/" + record.name : dir + "/" + record.name;
  }
  return true;
}

void WatchCore::forgetDirsUnder(const std::string& moved) {
  const auto under = [&moved](const std::string& dir) {
    return dir.compare(0, moved.size(), moved) == 0 &&
           (dir.size() == moved.size() || moved == "/" || dir[moved.size()] == '/');
  };
  for (auto* cache : {&scopeDirPaths_, &otherDirPaths_}) {
    for (auto it = cache->begin(); it != cache->end();) {
      it = under(it->second) ? cache->erase(it) : std::next(it);
    }
  }
}

void WatchCore::forgetMovedDir(bool oldKnown, const std::string& oldPath, const InfoRecord* from) {
  if (oldKnown) {
    forgetDirsUnder(oldPath);
    return;
  }
  // Where it was is unknown (its old folder is gone already: the reader is behind). A cached
  // path that the move made wrong has the moved folder's old name as one of its components;
  // only those are forgotten. Forgetting every cached path instead (as before) left the
  // events of folders deleted meanwhile without a path: a burst of `rm -rf` inside the
  // monitored folders lost its removals whenever a folder elsewhere on the filesystem was
  // renamed and its parent removed at the same time (a build, a test suite, a package manager).
  if (from == nullptr || !from->hasName || from->name.empty() || from->name == ".") {
    forgetDirsUnder("/");
    return;
  }
  const std::string& name = from->name;
  const auto hasComponent = [&name](const std::string& dir) {
    for (size_t at = dir.find(name); at != std::string::npos; at = dir.find(name, at + 1)) {
      const size_t end = at + name.size();
      if (at > 0 && dir[at - 1] == '/' && (end == dir.size() || dir[end] == '/')) return true;
    }
    return false;
  };
  ++stats_.movedFromUnknown;
  for (auto* cache : {&scopeDirPaths_, &otherDirPaths_}) {
    for (auto it = cache->begin(); it != cache->end();) {
      it = hasComponent(it->second) ? cache->erase(it) : std::next(it);
    }
  }
}

void WatchCore::handleBuffer(const uint8_t* buf, size_t len, std::vector<ResolvedEvent>& batch) {
  std::vector<DecodedEvent> events;
  std::string error;
  decodeFanotifyBuffer(buf, len, events, error);  // keeps what decoded before a fault
  stats_.eventsRead += events.size();

  // First the programs being executed, then the process events they precede, so that a
  // process gone before its exec event is handled still gets its executable.
  for (const DecodedEvent& event : events) {
    if (event.fd >= 0) close(event.fd);
    if ((event.mask & FAN_OPEN_EXEC) == 0 || event.pid == selfPid_) continue;
    const InfoRecord* where = event.find(FAN_EVENT_INFO_TYPE_DFID_NAME);
    std::string program;
    if (where != nullptr && pathOf(*where, program)) cache_.noteOpenExec(event.pid, program);
  }
  const int64_t now = monotonicMs();
  cache_.drainConnector(now);

  for (const DecodedEvent& event : events) {
    if (event.mask & FAN_Q_OVERFLOW) {
      ++stats_.overflows;
      ResolvedEvent overflow;
      overflow.mask = FAN_Q_OVERFLOW;
      batch.push_back(std::move(overflow));
      continue;
    }
    if (event.pid == selfPid_) continue;  // the agent's own I/O is never recorded
    const uint64_t mask = event.mask & ~static_cast<uint64_t>(FAN_OPEN_EXEC);
    if ((mask & ~static_cast<uint64_t>(FAN_ONDIR)) == 0) continue;

    ResolvedEvent out;
    out.mask = mask;
    out.pid = event.pid;
    out.isDir = (mask & FAN_ONDIR) != 0;
    bool resolved = false;
    if (mask & FAN_RENAME) {
      const InfoRecord* from = event.find(FAN_EVENT_INFO_TYPE_OLD_DFID_NAME);
      const InfoRecord* to = event.find(FAN_EVENT_INFO_TYPE_NEW_DFID_NAME);
      bool fromOk = from != nullptr && pathOf(*from, out.oldPath);
      bool toOk = to != nullptr && pathOf(*to, out.path);
      resolved = fromOk || toOk;
      // Directory paths cached from before the rename are wrong after it.
      if (out.isDir) forgetMovedDir(fromOk, out.oldPath, from);
    } else {
      const InfoRecord* where = event.find(FAN_EVENT_INFO_TYPE_DFID_NAME);
      if (where == nullptr) where = event.find(FAN_EVENT_INFO_TYPE_DFID);
      if (where == nullptr) where = event.find(FAN_EVENT_INFO_TYPE_FID);
      resolved = where != nullptr && pathOf(*where, out.path);
      if (out.isDir && (mask & FAN_MOVED_FROM)) forgetMovedDir(resolved, out.path, where);
    }
    // The folder's own handle (FAN_REPORT_TARGET_FID): its path from now on, whatever
    // happens to it before its contents' events are read. A deleted folder's contents were
    // deleted before it, so their events are behind us.
    const InfoRecord* self = out.isDir ? event.find(FAN_EVENT_INFO_TYPE_FID) : nullptr;
    if (self != nullptr && !out.path.empty()) {
      if (mask & FAN_DELETE) {
        forgetDir(self->fid);
      } else if (mask & (FAN_CREATE | FAN_MOVED_TO | FAN_RENAME)) {
        rememberDir(self->fid, out.path);
      }
    }
    if (!resolved) {
      ++stats_.unresolvedPaths;
      continue;
    }
    if (!(inScope(out.path) || (!out.oldPath.empty() && inScope(out.oldPath)))) continue;

    ProcessIdentity actor;
    if (cache_.lookup(event.pid, now, actor)) {
      out.uid = actor.euid;
      out.loginUid = actor.loginUid;
      out.exe = actor.exe;
    } else {
      ++stats_.unknownActors;
    }
    batch.push_back(std::move(out));
  }
}

void WatchCore::run() {
  // The service runs the agent at a lower CPU priority (Nice= in vigil-agent.service) so that
  // its bulk work yields to the user's. This thread alone goes back to the default where that
  // is allowed (LimitNICE=+0, or CAP_SYS_NICE): it keeps the kernel queue drained, so under
  // load the events wait in the agent's memory, not in the kernel queue, which would overflow.
  errno = 0;
  const int inherited = getpriority(PRIO_PROCESS, 0);  // Linux: this thread's
  if (errno == 0 && inherited > 0) {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 0);
  }
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, 0);
  stats_.readerNice = errno == 0 ? nice : inherited;
  // uint64_t storage: the metadata the kernel writes is 8-byte aligned.
  std::vector<uint64_t> storage(256 * 1024 / sizeof(uint64_t));
  uint8_t* buf = reinterpret_cast<uint8_t*>(storage.data());
  const size_t bufSize = storage.size() * sizeof(uint64_t);
  int64_t lastPurge = monotonicMs();
  // Events read and not yet handed on, and when the first of them was read.
  std::vector<ResolvedEvent> batch;
  int64_t batchSince = 0;
  auto handOff = [&] {
    if (batch.empty()) return;
    stats_.eventsEmitted += batch.size();
    sink_(std::move(batch));
    batch = {};
  };
  for (;;) {
    const int timeoutMs =
        batch.empty() ? 1000 : static_cast<int>(std::max<int64_t>(0, batchSince + kHandOffIntervalMs - monotonicMs()));
    pollfd fds[3] = {{wakeFd_, POLLIN, 0}, {fanFd_, POLLIN, 0}, {cache_.connectorFd(), POLLIN, 0}};
    int ready = poll(fds, cache_.connectorFd() >= 0 ? 3 : 2, timeoutMs);
    if (ready < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) break;
    if (cache_.connectorFd() >= 0 && (fds[2].revents & POLLIN)) cache_.drainConnector(monotonicMs());
    if (fds[1].revents & POLLIN) {
      for (;;) {
        ssize_t n = read(fanFd_, buf, bufSize);
        if (n <= 0) break;  // EAGAIN: drained
        if (batch.empty()) batchSince = monotonicMs();
        handleBuffer(buf, static_cast<size_t>(n), batch);
        if (batch.size() >= 4096) handOff();
      }
      pollfd wake = {wakeFd_, POLLIN, 0};
      if (poll(&wake, 1, kDrainIntervalMs) > 0 && (wake.revents & POLLIN)) break;
    }
    // Whichever descriptor woke the reader, or none: a batch goes on once its time is up.
    if (!batch.empty() && monotonicMs() - batchSince >= kHandOffIntervalMs) handOff();
    const int64_t now = monotonicMs();
    if (now - lastPurge >= 1000) {
      cache_.purge(now);
      lastPurge = now;
    }
    stats_.connectorOverruns = cache_.connectorOverruns();
    stats_.connectorResyncs = cache_.resyncs();
    stats_.cachedProcesses = cache_.size();
  }
  // What was read and not handed on is dropped with the stop, as the kernel queue's events are:
  // the addon's sink no longer takes batches once stopping (addon.cc StopWatch).
}

std::string probeAttribution() {
  int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_REPORT_DFID_NAME | FAN_REPORT_FID,
                         O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EINVAL) return "kernel lacks FAN_REPORT_DIR_FID";
    if (errno == ENOSYS) return "kernel lacks fanotify";
    if (errno == EPERM) return "needs CAP_SYS_ADMIN: run the Vigil service";
    return errnoText("fanotify_init", errno);
  }
  int marked = fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_CREATE, AT_FDCWD, "/");
  int markErr = errno;
  close(fd);
  if (marked != 0) {
    if (markErr == EPERM) return "needs CAP_SYS_ADMIN: run the Vigil service";
    return errnoText("fanotify_mark", markErr);
  }
  // Turning directory handles into paths needs CAP_DAC_READ_SEARCH.
  alignas(uint64_t) unsigned char storage[sizeof(file_handle) + MAX_HANDLE_SZ];
  auto* handle = reinterpret_cast<file_handle*>(storage);
  handle->handle_bytes = MAX_HANDLE_SZ;
  int mountId = 0;
  if (name_to_handle_at(AT_FDCWD, "/", handle, &mountId, 0) == 0) {
    int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int opened = root >= 0 ? open_by_handle_at(root, handle, O_PATH | O_CLOEXEC) : -1;
    int openErr = errno;
    if (root >= 0) close(root);
    if (opened < 0) {
      if (openErr == EPERM) return "needs CAP_DAC_READ_SEARCH: run the Vigil service";
      return errnoText("open_by_handle_at", openErr);
    }
    close(opened);
  }
  return "";
}

}  // namespace vigil
