// Whether this kernel loads the eBPF programs that see a file operation's caller synchronously
// without tracing every system call (bench/attribution-kernel-floor.ts): an fentry program and a
// BPF LSM program. Both run through a BPF trampoline; neither does anything.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("fentry/vfs_unlink")
int fentry_unlink(void* context) {
  (void)context;
  return 0;
}

SEC("lsm/file_open")
int lsm_file_open(void* context) {
  (void)context;
  return 0;
}
