// The cheapest eBPF source this kernel can run (bench/attribution-kernel-floor.ts): on the raw
// syscall tracepoints, the only BPF attach points for file activity where trampolines (fentry,
// BPF LSM) and kprobes are refused. It does less than an attribution source would need: a call
// that may change a file (open, creat, unlink, rename, mkdir, rmdir, write, close) keeps its first
// three arguments and the name it was given, per thread; when it returns without an error, one
// record with the caller's pid and uid goes to a ring buffer, without waking the reader. No
// folder filter, no path from the file descriptors.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

// x86-64 struct pt_regs, as far as the first three arguments (arch/x86/include/asm/ptrace.h).
struct pt_regs_x86_64 {
  unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di;
};

struct call {
  __u64 id, args[3];
  char name[128];
};

struct record {
  __u32 tid, uid;
  __u64 id;
  long result;
  char name[128];
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 8192);
  __type(key, __u32);
  __type(value, struct call);
} pending SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct call);
} scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 16 << 20);
} records SEC(".maps");

enum { WRITE = 1, CLOSE = 3, OPEN = 2, CREAT = 85, OPENAT = 257, MKDIR = 83, MKDIRAT = 258, RMDIR = 84,
       UNLINK = 87, UNLINKAT = 263, RENAME = 82, RENAMEAT2 = 316 };

static __always_inline int names_a_path(long id) {
  return id == OPEN || id == CREAT || id == MKDIR || id == RMDIR || id == UNLINK || id == RENAME;
}
static __always_inline int names_a_path_at(long id) {
  return id == OPENAT || id == MKDIRAT || id == UNLINKAT || id == RENAMEAT2;
}

SEC("raw_tp/sys_enter")
int on_enter(struct bpf_raw_tracepoint_args* context) {
  const long id = (long)context->args[1];
  if (!names_a_path(id) && !names_a_path_at(id) && id != WRITE && id != CLOSE) return 0;
  __u32 zero = 0;
  struct call* call = bpf_map_lookup_elem(&scratch, &zero);
  if (call == 0) return 0;
  struct pt_regs_x86_64* regs = (struct pt_regs_x86_64*)context->args[0];
  call->id = id;
  bpf_probe_read_kernel(&call->args[0], sizeof(__u64), &regs->di);
  bpf_probe_read_kernel(&call->args[1], sizeof(__u64), &regs->si);
  bpf_probe_read_kernel(&call->args[2], sizeof(__u64), &regs->dx);
  call->name[0] = 0;
  if (names_a_path(id)) bpf_probe_read_user_str(call->name, sizeof call->name, (void*)call->args[0]);
  if (names_a_path_at(id)) bpf_probe_read_user_str(call->name, sizeof call->name, (void*)call->args[1]);
  __u32 thread = (__u32)bpf_get_current_pid_tgid();
  bpf_map_update_elem(&pending, &thread, call, BPF_ANY);
  return 0;
}

SEC("raw_tp/sys_exit")
int on_exit(struct bpf_raw_tracepoint_args* context) {
  __u32 thread = (__u32)bpf_get_current_pid_tgid();
  struct call* call = bpf_map_lookup_elem(&pending, &thread);
  if (call == 0) return 0;
  const long result = (long)context->args[1];
  // A write or close alone says nothing until the open it belongs to is known.
  if (result >= 0 && call->id != WRITE && call->id != CLOSE) {
    struct record* record = bpf_ringbuf_reserve(&records, sizeof *record, 0);
    if (record != 0) {
      record->tid = thread;
      record->uid = (__u32)bpf_get_current_uid_gid();
      record->id = call->id;
      record->result = result;
      __builtin_memcpy(record->name, call->name, sizeof record->name);
      bpf_ringbuf_submit(record, BPF_RB_NO_WAKEUP);
    }
  }
  bpf_map_delete_elem(&pending, &thread);
  return 0;
}
