// Who a process is (effective uid, login uid, executable), kept from the moment it starts
// so that a file event of a process that has already exited can still be attributed
// (docs/attribution.md "Short-lived processes").
//
// Filled from three sources, all on the reader thread:
//  - a /proc scan when the watch starts (processes already running);
//  - the kernel's process events connector (netlink, CN_IDX_PROC): a fork copies the
//    parent's identity, a uid change updates it, an exec re-reads /proc/PID while the
//    process is alive, an exit starts a grace period after which the entry is dropped;
//  - fanotify FAN_OPEN_EXEC events, which name the executable even when the process is
//    gone before its exec event is handled.
// If the socket overruns (ENOBUFS: a fork storm), the events it lost are made up for from
// /proc: entries of processes gone are marked exited, the others read again, new ones added.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace vigil {

struct ProcessIdentity {
  int64_t euid = -1;      // -1: unknown
  int64_t loginUid = -1;  // -1: unset (4294967295 in /proc) or unknown
  std::string exe;        // empty: unknown
};

class ProcessCache {
 public:
  explicit ProcessCache(int64_t graceMs) : graceMs_(graceMs) {}
  ~ProcessCache();
  ProcessCache(const ProcessCache&) = delete;
  ProcessCache& operator=(const ProcessCache&) = delete;

  // Subscribes to process events (needs CAP_NET_ADMIN). Returns the socket or -1 with
  // errno set; the cache then works from /proc reads at event time alone.
  int openConnector();
  int connectorFd() const { return nlFd_; }
  // Reads every pending process event without blocking.
  void drainConnector(int64_t nowMs);
  // Records every running process.
  void scanProc(int64_t nowMs);
  // An OPEN_EXEC event of `pid` for `path`.
  void noteOpenExec(int32_t pid, const std::string& path);
  // The identity of `pid` at event time: the cache, else a live /proc read.
  bool lookup(int32_t pid, int64_t nowMs, ProcessIdentity& out);
  // Drops entries whose process exited more than the grace period ago.
  void purge(int64_t nowMs);

  uint64_t connectorOverruns() const { return overruns_; }
  // Times the cache was checked against /proc after the socket overran.
  uint64_t resyncs() const { return resyncs_; }
  size_t size() const { return entries_.size(); }

  // Reads /proc/PID now. Public for the probe and tests.
  static bool readProc(int32_t pid, ProcessIdentity& out);

 private:
  struct Entry {
    ProcessIdentity id;
    int64_t exitedAtMs = -1;
    bool awaitingExecImage = false;  // exec seen, executable not read yet
  };
  void onFork(int32_t parentTgid, int32_t childTgid);
  void onExec(int32_t tgid);
  void onUid(int32_t tgid, uint32_t euid);
  void onExit(int32_t tgid, int64_t nowMs);
  // After lost process events: exits found in /proc, identities read again, new processes added.
  void resync(int64_t nowMs);

  int64_t graceMs_;
  int nlFd_ = -1;
  uint64_t overruns_ = 0;
  uint64_t resyncs_ = 0;
  bool resyncWanted_ = false;
  int64_t lastResyncMs_ = 0;
  std::unordered_map<int32_t, Entry> entries_;
  std::unordered_map<int32_t, std::string> pendingExecImage_;
};

}  // namespace vigil
