// Drives the process cache (native/src/process_cache.cc) against the kernel's real process
// events, in the order the fanotify reader handles a buffer (watch_core.cc handleBuffer): the
// buffer's FAN_OPEN_EXEC events are noted first, then the process events socket is drained.
//
//   process_cache_driver PROGRAM
// Starts PROGRAM (no arguments) and waits until it has exited, so that /proc no longer has it;
// only then notes its FAN_OPEN_EXEC and drains its fork, exec and exit events. Prints the
// executable the cache gives for it ("" when unknown) and exits 0, or 2 when the process
// events socket cannot be opened (it needs CAP_NET_ADMIN).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "process_cache.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: process_cache_driver PROGRAM\n");
    return 1;
  }
  vigil::ProcessCache cache(60000);
  if (cache.openConnector() < 0) {
    std::perror("process events connector");
    return 2;
  }
  cache.scanProc(0);  // this process, as the watch knows every process when it starts
  const pid_t child = fork();
  if (child == 0) {
    execl(argv[1], argv[1], static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  // The socket's events are sent as the process forks, execs and exits; give the last a moment.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  cache.noteOpenExec(child, argv[1]);
  cache.drainConnector(0);
  vigil::ProcessIdentity identity;
  const bool known = cache.lookup(child, 0, identity);
  std::printf("{\"known\":%s,\"exe\":\"%s\"}\n", known ? "true" : "false", identity.exe.c_str());
  return 0;
}
