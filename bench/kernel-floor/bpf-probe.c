// Loads the eBPF objects of bench/attribution-kernel-floor.ts with libbpf.
//
//   bpf-probe check OBJECT          each program of OBJECT loaded alone: one JSON line a program,
//                                   {"program": NAME, "loads": true} or {..., "loads": false, "error": TEXT}
//   bpf-probe run OBJECT READY_FILE loads and attaches every program, creates READY_FILE, then reads
//                                   the ring buffer "records" every 20 ms until SIGINT or SIGTERM and
//                                   writes the count of records read to READY_FILE
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stopping;
static void on_signal(int signal_number) {
  (void)signal_number;
  stopping = 1;
}

static int quiet(enum libbpf_print_level level, const char* format, va_list args) {
  (void)level;
  (void)format;
  (void)args;
  return 0;
}

static int check(const char* path) {
  struct bpf_object* probe = bpf_object__open_file(path, NULL);
  if (probe == NULL) return 1;
  struct bpf_program* program;
  bpf_object__for_each_program(program, probe) {
    struct bpf_object* alone = bpf_object__open_file(path, NULL);
    struct bpf_program* other;
    bpf_object__for_each_program(other, alone) {
      bpf_program__set_autoload(other, strcmp(bpf_program__name(other), bpf_program__name(program)) == 0);
    }
    const int status = bpf_object__load(alone);
    if (status == 0) printf("{\"program\":\"%s\",\"loads\":true}\n", bpf_program__name(program));
    else printf("{\"program\":\"%s\",\"loads\":false,\"error\":\"%s\"}\n", bpf_program__name(program), strerror(-status));
    bpf_object__close(alone);
  }
  bpf_object__close(probe);
  return 0;
}

static long records_read;
static int count_record(void* context, void* data, size_t size) {
  (void)context;
  (void)data;
  (void)size;
  records_read++;
  return 0;
}

static int run(const char* path, const char* ready_path) {
  struct bpf_object* object = bpf_object__open_file(path, NULL);
  if (object == NULL || bpf_object__load(object) != 0) {
    fprintf(stderr, "bpf-probe: %s does not load\n", path);
    return 1;
  }
  struct bpf_program* program;
  bpf_object__for_each_program(program, object) {
    if (bpf_program__attach(program) == NULL) {
      fprintf(stderr, "bpf-probe: %s does not attach: %s\n", bpf_program__name(program), strerror(errno));
      return 1;
    }
  }
  struct bpf_map* records = bpf_object__find_map_by_name(object, "records");
  struct ring_buffer* ring = records ? ring_buffer__new(bpf_map__fd(records), count_record, NULL, NULL) : NULL;
  if (ring == NULL) return 1;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  FILE* ready = fopen(ready_path, "w");
  if (ready == NULL) return 1;
  fclose(ready);
  while (!stopping) {
    ring_buffer__consume(ring);
    usleep(20 * 1000);  // the agent's reader pauses as long between reads
  }
  ring_buffer__consume(ring);
  ready = fopen(ready_path, "w");
  if (ready == NULL) return 1;
  fprintf(ready, "%ld\n", records_read);
  fclose(ready);
  return 0;
}

int main(int argc, char** argv) {
  libbpf_set_print(quiet);
  if (argc == 3 && strcmp(argv[1], "check") == 0) return check(argv[2]);
  if (argc == 4 && strcmp(argv[1], "run") == 0) return run(argv[2], argv[3]);
  fprintf(stderr, "usage: bpf-probe check OBJECT | bpf-probe run OBJECT READY_FILE\n");
  return 2;
}
