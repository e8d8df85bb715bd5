// What fanotify itself costs a workload (bench/attribution-kernel-floor.ts): the agent's group
// flags and events on a filesystem mark (native/src/watch_core.cc), a reader that only drains
// the queue, pausing after each drain as the agent's reader does. No actor lookup, no paths,
// nothing handed on.
//
//   fanotify-drain FOLDER READY_FILE [PAUSE_MS]
// PAUSE_MS: the pause after each drain, 5 by default (the agent's, native/src/watch_core.cc).
// READY_FILE is created once the mark is set; at SIGINT or SIGTERM the count of events read
// is written to it.
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/fanotify.h>
#include <unistd.h>

static volatile sig_atomic_t stopping;
static void on_signal(int signal_number) {
  (void)signal_number;
  stopping = 1;
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: fanotify-drain FOLDER READY_FILE [PAUSE_MS]\n");
    return 2;
  }
  const int pause_ms = argc == 4 ? atoi(argv[3]) : 5;
  const unsigned flags = FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_DFID_NAME | FAN_REPORT_FID |
                         FAN_REPORT_TARGET_FID;
  const unsigned long long mask =
      FAN_CREATE | FAN_DELETE | FAN_CLOSE_WRITE | FAN_MODIFY | FAN_ONDIR | FAN_RENAME;
  int group = fanotify_init(flags, O_RDONLY);
  if (group < 0 || fanotify_mark(group, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, mask, AT_FDCWD, argv[1]) != 0) {
    perror("fanotify");
    return 1;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  FILE* ready = fopen(argv[2], "w");
  if (ready == NULL) return 1;
  fclose(ready);
  static char buffer[256 * 1024] __attribute__((aligned(8)));
  long events = 0;
  while (!stopping) {
    struct pollfd wait = {group, POLLIN, 0};
    if (poll(&wait, 1, 200) <= 0) continue;
    for (;;) {
      ssize_t length = read(group, buffer, sizeof buffer);
      if (length <= 0) break;
      for (struct fanotify_event_metadata* event = (struct fanotify_event_metadata*)buffer;
           FAN_EVENT_OK(event, length); event = FAN_EVENT_NEXT(event, length))
        events++;
    }
    usleep(pause_ms * 1000);
  }
  ready = fopen(argv[2], "w");
  if (ready == NULL) return 1;
  fprintf(ready, "%ld\n", events);
  fclose(ready);
  return 0;
}
