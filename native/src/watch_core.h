// The fanotify watch: one group with filesystem marks on the filesystems of the monitored
// folders, a reader thread that decodes each event, turns handles into paths, keeps only
// paths inside the monitored folders, drops the agent's own events and names the actor
// at once, then hands the batch to a sink (docs/attribution.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fanotify_decode.h"
#include "handle_resolver.h"
#include "process_cache.h"

namespace vigil {

struct ResolvedEvent {
  uint64_t mask = 0;
  int32_t pid = 0;
  int64_t uid = -1;       // effective uid; -1 when the actor is unknown
  int64_t loginUid = -1;  // -1 when unset or unknown
  std::string exe;
  std::string path;
  std::string oldPath;  // FAN_RENAME only
  bool isDir = false;
};

struct WatchOptions {
  std::vector<std::string> roots;
  bool reads = false;
  int64_t graceMs = 10000;
  // Off only to measure what the process cache is worth (bench/attribution-overhead.ts).
  bool processEvents = true;
};

struct WatchStats {
  std::atomic<uint64_t> eventsRead{0};
  std::atomic<uint64_t> eventsEmitted{0};
  std::atomic<uint64_t> unknownActors{0};
  std::atomic<uint64_t> unresolvedPaths{0};
  std::atomic<uint64_t> overflows{0};
  std::atomic<uint64_t> connectorOverruns{0};
  std::atomic<uint64_t> connectorResyncs{0};
  // Folders renamed or moved from a place the reader could no longer name.
  std::atomic<uint64_t> movedFromUnknown{0};
  std::atomic<uint64_t> cachedProcesses{0};
  std::atomic<bool> processEvents{false};
  std::atomic<bool> renameEvents{false};
  // Whether creates and deletes carry the entry's own handle (FAN_REPORT_TARGET_FID, 5.17).
  std::atomic<bool> targetHandles{false};
  // The reader thread's nice value (0 unless the agent runs niced and may not raise it back).
  std::atomic<int> readerNice{0};
};

using BatchSink = std::function<void(std::vector<ResolvedEvent>&&)>;

class WatchCore {
 public:
  WatchCore(WatchOptions options, BatchSink sink);
  ~WatchCore();
  WatchCore(const WatchCore&) = delete;
  WatchCore& operator=(const WatchCore&) = delete;

  // Sets up the group and marks and starts the reader. Returns "" or what failed.
  std::string start();
  void stop();
  const WatchStats& stats() const { return stats_; }

 private:
  void run();
  void handleBuffer(const uint8_t* buf, size_t len, std::vector<ResolvedEvent>& batch);
  bool pathOf(const InfoRecord& record, std::string& path);
  // The path of a monitored folder by its own handle, from its create or rename event.
  void rememberDir(const FileHandleRef& fid, const std::string& path);
  void forgetDir(const FileHandleRef& fid);
  bool inScope(const std::string& path) const;
  // Drops the cached paths of `moved` and the folders under it (a folder renamed or moved).
  void forgetDirsUnder(const std::string& moved);
  // A folder was renamed or moved away from `oldPath`, or from a place no longer known
  // (`oldKnown` false; `from` names it): drops the cached paths it made wrong.
  void forgetMovedDir(bool oldKnown, const std::string& oldPath, const InfoRecord* from);
  // Marks the filesystem holding `path` once; `mask` FAN_OPEN_EXEC alone for one that only
  // holds programs.
  std::string markFilesystem(const std::string& path, uint64_t mask);

  WatchOptions options_;
  BatchSink sink_;
  ProcessCache cache_;
  HandleResolver resolver_;
  // Handle bytes -> path, for folders inside the monitored ones and for the others.
  std::unordered_map<std::string, std::string> scopeDirPaths_;
  std::unordered_map<std::string, std::string> otherDirPaths_;
  std::vector<uint64_t> markedFsids_;
  int fanFd_ = -1;
  int wakeFd_ = -1;
  int32_t selfPid_ = 0;
  uint64_t renameBits_ = 0;
  std::thread reader_;
  WatchStats stats_;
};

// Whether this process can run a watch, and why not: "" when it can.
std::string probeAttribution();

}  // namespace vigil
