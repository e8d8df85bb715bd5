/* Records the raw read(2) buffer of a FID-mode fanotify group while a shell command runs,
 * for the decoding tests (test/unit/fanotify-decode.test.ts). Root only.
 * Inode marks on the named directories only, so that nothing else on the machine is recorded.
 *   cc -O2 -Wall -Wextra -o capture capture.c && ./capture OUT.bin 'shell command' DIR...
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/fanotify.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s OUT COMMAND DIR...\n", argv[0]);
    return 2;
  }
  int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_REPORT_DFID_NAME | FAN_REPORT_FID, O_RDONLY);
  if (fd < 0) {
    perror("fanotify_init");
    return 1;
  }
  for (int i = 3; i < argc; i++) {
    if (fanotify_mark(fd, FAN_MARK_ADD,
                      FAN_CREATE | FAN_DELETE | FAN_CLOSE_WRITE | FAN_MODIFY | FAN_RENAME | FAN_ONDIR |
                          FAN_EVENT_ON_CHILD,
                      AT_FDCWD, argv[i]) != 0) {
      perror("fanotify_mark");
      return 1;
    }
  }
  if (system(argv[2]) != 0) return 1;
  static char buf[1 << 20];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n <= 0) {
    perror("read");
    return 1;
  }
  FILE *out = fopen(argv[1], "wb");
  if (!out || fwrite(buf, 1, (size_t)n, out) != (size_t)n || fclose(out) != 0) return 1;
  return 0;
}
