#include "process_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace vigil {

namespace {

bool readSmallFile(const std::string& path, std::string& out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n < 0) return false;
  out.assign(buf, static_cast<size_t>(n));
  return true;
}

// "Uid:\t<real>\t<effective>\t<saved>\t<fs>" in /proc/PID/status.
bool parseEffectiveUid(const std::string& status, int64_t& euid) {
  size_t at = status.find("\nUid:");
  if (at == std::string::npos) return false;
  const char* p = status.c_str() + at + 5;
  char* end = nullptr;
  std::strtoul(p, &end, 10);  // real uid
  if (end == p) return false;
  const char* q = end;
  unsigned long value = std::strtoul(q, &end, 10);
  if (end == q) return false;
  euid = static_cast<int64_t>(value);
  return true;
}

}  // namespace

ProcessCache::~ProcessCache() {
  if (nlFd_ >= 0) close(nlFd_);
}

bool ProcessCache::readProc(int32_t pid, ProcessIdentity& out) {
  const std::string base = "/proc/" + std::to_string(pid);
  std::string status;
  if (!readSmallFile(base + "/status", status)) return false;
  int64_t euid = -1;
  if (!parseEffectiveUid(status, euid)) return false;
  out.euid = euid;
  std::string loginUid;
  out.loginUid = -1;
  if (readSmallFile(base + "/loginuid", loginUid)) {
    unsigned long value = std::strtoul(loginUid.c_str(), nullptr, 10);
    if (value != 4294967295UL) out.loginUid = static_cast<int64_t>(value);
  }
  char exe[4096];
  ssize_t n = readlink((base + "/exe").c_str(), exe, sizeof exe - 1);
  out.exe = n > 0 ? std::string(exe, static_cast<size_t>(n)) : std::string();
  return true;
}

int ProcessCache::openConnector() {
  int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
  if (fd < 0) return -1;
  // A burst of forks must not overrun the socket: as root the buffer may exceed rmem_max.
  int size = 8 * 1024 * 1024;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }
  sockaddr_nl addr{};
  addr.nl_family = AF_NETLINK;
  addr.nl_groups = CN_IDX_PROC;
  addr.nl_pid = 0;  // let the kernel pick a port id
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  // nlmsghdr, then cn_msg, then the operation: assembled in a byte buffer because cn_msg
  // ends in a flexible array member.
  alignas(nlmsghdr) char request[NLMSG_SPACE(sizeof(cn_msg) + sizeof(proc_cn_mcast_op))] = {};
  auto* header = reinterpret_cast<nlmsghdr*>(request);
  header->nlmsg_len = NLMSG_LENGTH(sizeof(cn_msg) + sizeof(proc_cn_mcast_op));
  header->nlmsg_type = NLMSG_DONE;
  auto* message = static_cast<cn_msg*>(NLMSG_DATA(header));
  message->id.idx = CN_IDX_PROC;
  message->id.val = CN_VAL_PROC;
  message->len = sizeof(proc_cn_mcast_op);
  const proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
  std::memcpy(message->data, &op, sizeof op);
  if (send(fd, request, header->nlmsg_len, 0) < 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  nlFd_ = fd;
  return fd;
}

void ProcessCache::drainConnector(int64_t nowMs) {
  if (nlFd_ < 0) return;
  alignas(nlmsghdr) char buf[16384];
  for (;;) {
    ssize_t n = recv(nlFd_, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == ENOBUFS) {  // the kernel dropped events: counted, and reading goes on
        ++overruns_;
        resyncWanted_ = true;
        continue;
      }
      // EAGAIN: drained. After lost events, /proc tells what they would have (at most once a
      // second: a fork storm overruns the socket again and again).
      if (resyncWanted_ && nowMs - lastResyncMs_ >= 1000) resync(nowMs);
      return;
    }
    for (nlmsghdr* header = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(header, static_cast<size_t>(n));
         header = NLMSG_NEXT(header, n)) {
      if (header->nlmsg_type == NLMSG_ERROR || header->nlmsg_type == NLMSG_NOOP) continue;
      const cn_msg* message = static_cast<const cn_msg*>(NLMSG_DATA(header));
      if (message->id.idx != CN_IDX_PROC || message->id.val != CN_VAL_PROC) continue;
      if (message->len < offsetof(proc_event, event_data)) continue;
      proc_event event;
      std::memset(&event, 0, sizeof event);
      std::memcpy(&event, message->data, std::min<size_t>(message->len, sizeof event));
      switch (event.what) {
        case proc_event::PROC_EVENT_FORK:
          // Threads share the process's identity: only new processes get an entry.
          if (event.event_data.fork.child_pid == event.event_data.fork.child_tgid) {
            onFork(event.event_data.fork.parent_tgid, event.event_data.fork.child_tgid);
          }
          break;
        case proc_event::PROC_EVENT_EXEC:
          onExec(event.event_data.exec.process_tgid);
          break;
        case proc_event::PROC_EVENT_UID:
          onUid(event.event_data.id.process_tgid, event.event_data.id.e.euid);
          break;
        case proc_event::PROC_EVENT_EXIT:
          if (event.event_data.exit.process_pid == event.event_data.exit.process_tgid) {
            onExit(event.event_data.exit.process_tgid, nowMs);
          }
          break;
        default:
          break;
      }
    }
  }
}

void ProcessCache::resync(int64_t nowMs) {
  resyncWanted_ = false;
  lastResyncMs_ = nowMs;
  ++resyncs_;
  for (auto& [pid, entry] : entries_) {
    if (entry.exitedAtMs >= 0) continue;
    // A lost exit: the grace period starts now. A lost uid change, or a pid reused by a
    // process whose fork was lost: the live identity replaces the cached one.
    ProcessIdentity live;
    if (!readProc(pid, live)) {
      entry.exitedAtMs = nowMs;
    } else {
      if (live.exe.empty()) live.exe = entry.id.exe;
      entry.id = live;
    }
  }
  scanProc(nowMs);  // processes whose fork was lost
}

void ProcessCache::onFork(int32_t parentTgid, int32_t childTgid) {
  Entry child;
  auto parent = entries_.find(parentTgid);
  if (parent != entries_.end()) {
    child.id = parent->second.id;
  } else if (!readProc(childTgid, child.id)) {
    child.id = ProcessIdentity{};
  }
  entries_[childTgid] = std::move(child);  // replaces an entry of a recycled pid
  // The child's executable may already be noted: the reader notes a buffer's FAN_OPEN_EXEC
  // events before it drains this socket, which can still hold the fork that came before them.
  // An image noted for an earlier process of this pid was dropped at that process's exit.
}

void ProcessCache::onExec(int32_t tgid) {
  Entry& entry = entries_[tgid];
  ProcessIdentity live;
  if (readProc(tgid, live)) {
    entry.id = live;
    entry.awaitingExecImage = live.exe.empty();
  } else {
    // Gone already: the uid came with the fork and any uid change; the executable, if its
    // FAN_OPEN_EXEC was seen, from that; never the parent's executable.
    entry.id.exe.clear();
    entry.awaitingExecImage = true;
  }
  if (entry.awaitingExecImage) {
    auto pending = pendingExecImage_.find(tgid);
    if (pending != pendingExecImage_.end()) {
      entry.id.exe = pending->second;
      entry.awaitingExecImage = false;
    }
  }
  pendingExecImage_.erase(tgid);
}

void ProcessCache::onUid(int32_t tgid, uint32_t euid) {
  auto it = entries_.find(tgid);
  if (it != entries_.end()) it->second.id.euid = euid;
}

void ProcessCache::onExit(int32_t tgid, int64_t nowMs) {
  auto it = entries_.find(tgid);
  if (it != entries_.end()) it->second.exitedAtMs = nowMs;
  pendingExecImage_.erase(tgid);
}

void ProcessCache::noteOpenExec(int32_t pid, const std::string& path) {
  if (nlFd_ < 0) return;  // without exec events nothing would consume it
  auto it = entries_.find(pid);
  if (it != entries_.end() && it->second.awaitingExecImage) {
    it->second.id.exe = path;
    it->second.awaitingExecImage = false;
    return;
  }
  // The first image opened for exec is the program; the ELF interpreter follows it.
  pendingExecImage_.emplace(pid, path);
}

void ProcessCache::scanProc(int64_t nowMs) {
  (void)nowMs;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return;
  while (dirent* d = readdir(dir)) {
    char* end = nullptr;
    long pid = std::strtol(d->d_name, &end, 10);
    if (end == d->d_name || *end != '\0' || pid <= 0) continue;
    if (entries_.count(static_cast<int32_t>(pid)) != 0) continue;  // the connector was first
    Entry entry;
    if (readProc(static_cast<int32_t>(pid), entry.id)) entries_[static_cast<int32_t>(pid)] = entry;
  }
  closedir(dir);
}

bool ProcessCache::lookup(int32_t pid, int64_t nowMs, ProcessIdentity& out) {
  (void)nowMs;
  auto it = entries_.find(pid);
  if (it != entries_.end() && it->second.id.euid >= 0) {
    out = it->second.id;
    if (out.exe.empty() && it->second.exitedAtMs < 0) {
      ProcessIdentity live;
      if (readProc(pid, live) && !live.exe.empty()) {
        it->second.id.exe = live.exe;
        out.exe = live.exe;
      }
    }
    return true;
  }
  ProcessIdentity live;
  if (!readProc(pid, live)) return false;
  Entry entry;
  entry.id = live;
  entries_[pid] = entry;
  out = live;
  return true;
}

void ProcessCache::purge(int64_t nowMs) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.exitedAtMs >= 0 && nowMs - it->second.exitedAtMs > graceMs_) {
      pendingExecImage_.erase(it->first);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  // Images of execs whose exec event never came (a failed exec): bounded.
  if (pendingExecImage_.size() > 65536) pendingExecImage_.clear();
}

}  // namespace vigil
