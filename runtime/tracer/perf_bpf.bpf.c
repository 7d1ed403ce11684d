/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* perf_bpf.bpf.c -- perf mode's filter on the system-call tracepoints:
 * BPF programs, compiled with clang -target bpf and loaded by perf_bpf.c
 * (docs/tracer.md, "The system calls through a BPF filter").
 *
 * A tracepoint event opened in a thread's perf context costs that
 * thread at each of its mmaps and context switches, fired or not
 * (bench/README.md).  These programs let the calls' tracepoints live
 * outside every context: perf_bpf.c attaches them
 * (PERF_EVENT_IOC_SET_BPF) to one disabled tracepoint event per call,
 * and the kernel runs them at every such call of every task
 * (perf_syscall_enter(), perf_syscall_exit(); kernel/trace/
 * trace_syscalls.c).  A call of a followed process (its tgid in TGIDS)
 * is written, as the tracepoint's own record would be, into the ring of
 * its CPU through the bpf-output event there (OUT, or OUT_STACK with
 * the user registers and stack); every other call costs a map lookup.
 * Each returns 1: a program on a tracepoint runs for every perf event
 * on it, and 0 would drop other tools' samples of that call
 * (trace_call_bpf()).
 *
 * The context of a system call's program is struct syscall_tp_t of
 * perf_call_bpf_enter() / perf_call_bpf_exit(): its first 8 bytes the
 * registers, then the call's number and its arguments or return value.
 * Only the call's own arguments are set there (nb_args): the program
 * attached to a call's entry is the one for its count.  A task_newtask record (include/trace/events/task.h) is
 * read at the offsets of its tracefs format, which perf_bpf.c checks.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MT_BPF_MAX_NR 512	/* system-call numbers routed: 0-511 */
#define CLONE_THREAD 0x00010000

/* What a call's record is: set by perf_bpf.c for each call it routes. */
struct mt_route {
	__u16 enter_id;		/* tracepoint id of its entry, or 0 */
	__u16 exit_id;		/* of its exit, or 0 */
	__u8 enter_stack;	/* the entry's record with regs and stack */
	__u8 pad[3];
};

/* The record written: a syscall tracepoint's raw record, { u16
 * common_type; u8 flags, preempt_count; i32 common_pid; i32 nr; pad;
 * u64 args[nargs] | i64 ret } (tracefs events/syscalls/.../format). */
struct mt_rec {
	__u16 type;
	__u8 flags, preempt;
	__s32 pid;
	__s32 nr;
	__u32 pad;
	__u64 v[6];
};

struct mt_sys_ctx {
	__u64 regs;
	__s32 nr;
	__u32 pad;
	__u64 v[6];
};

/* task_newtask's record: the offsets of its tracefs format, which
 * perf_bpf.c checks before loading (mt_perf_bpf_new()). */
struct mt_newtask_ctx {
	__u64 regs;
	__s32 pid;
	char comm[16];
	__u32 pad;
	__u64 clone_flags;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} out SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} out_stack SEC(".maps");

/* The followed processes, by tgid; set by perf_bpf.c, and by
 * on_newtask() for each process a followed one makes. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MT_BPF_MAX_NR);
	__type(key, __u32);
	__type(value, struct mt_route);
} route SEC(".maps");

/* Shared with perf_bpf.c through the mapped .bss (struct mt_bpf_state
 * there): PHASE, set by it, turns the exits' records on (1) and then
 * the entries' too (2), so that an entry written has its exit to come;
 * OUT_FAILED, records the kernel refused other than for a full ring
 * (which writes a PERF_RECORD_LOST itself); FOLLOW_FAILED, processes
 * not followed because TGIDS was full.  Counts only grow. */
struct mt_bpf_state {
	__u64 out_failed;
	__u64 follow_failed;
	__u32 phase;
	__u32 lock_type;	/* mmap_lock_acquire_returned's id */
} state;

#define MT_ENOSPC 28

static __always_inline int emit(void *ctx, const void *r, __u32 size,
				int stack)
{
	long err;

	if (stack)
		err = bpf_perf_event_output(ctx, &out_stack, BPF_F_CURRENT_CPU,
					    (void *)r, size);
	else
		err = bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU,
					    (void *)r, size);
	if (err && err != -MT_ENOSPC)
		__sync_fetch_and_add(&state.out_failed, 1);
	return 1;
}

/* A call's entry with its N arguments: the kernel refuses a program
 * that reads past the record of the tracepoint it is attached to
 * (perf_event_set_bpf_prog(): max_ctx_offset), so there is one program
 * per count of arguments, mt_sys_enterN. */
/* Whether the caller's process is followed and PHASE has reached
 * MIN_PHASE (1: exits; 2: everything); its pid_tgid in *PT. */
static __always_inline int followed(__u32 min_phase, __u64 *pt)
{
	__u32 tgid;

	*pt = bpf_get_current_pid_tgid();
	tgid = *pt >> 32;
	return *(volatile __u32 *)&state.phase >= min_phase &&
	       bpf_map_lookup_elem(&tgids, &tgid);
}

static __always_inline int enter(struct mt_sys_ctx *c, const int n)
{
	__u32 nr = (__u32)c->nr;
	struct mt_route *ro;
	struct mt_rec r = {};
	__u64 pt;
	int i;

	if (!followed(2, &pt))
		return 1;
	ro = bpf_map_lookup_elem(&route, &nr);
	if (!ro || !ro->enter_id)
		return 1;
	r.type = ro->enter_id;
	r.pid = (__s32)pt;
	r.nr = c->nr;
	for (i = 0; i < n; i++)
		r.v[i] = c->v[i];
	return emit(c, &r, 16 + 8 * n, ro->enter_stack);
}

#define MT_ENTER(n)							\
SEC("tracepoint")							\
int mt_sys_enter##n(struct mt_sys_ctx *c)				\
{									\
	return enter(c, n);						\
}
MT_ENTER(0)
MT_ENTER(1)
MT_ENTER(2)
MT_ENTER(3)
MT_ENTER(4)
MT_ENTER(5)
MT_ENTER(6)

SEC("tracepoint")
int mt_sys_exit(struct mt_sys_ctx *c)
{
	__u32 nr = (__u32)c->nr;
	struct mt_route *ro;
	struct mt_rec r = {};
	__u64 pt;

	if (!followed(1, &pt))
		return 1;
	ro = bpf_map_lookup_elem(&route, &nr);
	if (!ro || !ro->exit_id)
		return 1;
	r.type = ro->exit_id;
	r.pid = (__s32)pt;
	r.nr = c->nr;
	r.v[0] = c->v[0];
	return emit(c, &r, 24, 0);
}

/* mmap_lock_acquire_returned's record (include/trace/events/mmap_lock.h),
 * at the offsets of its tracefs format, which perf_bpf.c checks. */
struct mt_lock_ctx {
	__u64 regs;
	__u64 mm;
	__u64 memcg_id;
	__u8 write;
	__u8 success;
};

struct mt_lock_rec {
	__u16 type;
	__u8 flags, preempt;
	__s32 pid;
	__u64 mm;
	__u64 memcg_id;
	__u8 write;
	__u8 success;
};

/* A write lock of a followed process's mm taken: its record, as the
 * tracepoint's, once the records are all on (PHASE 2: before, the
 * bpf-output events may still be off, and a record written then is
 * refused).  Attached only once some followed mm has two threads
 * (lock_on(), perf_source.c): until then the tracepoint has no probe,
 * and taking a lock costs nobody anything. */
SEC("tracepoint")
int mt_lock(struct mt_lock_ctx *c)
{
	struct mt_lock_rec r = {};
	__u64 pt;

	if (!c->write || !c->success || !followed(2, &pt))
		return 1;
	r.type = (__u16)*(volatile __u32 *)&state.lock_type;
	r.pid = (__s32)pt;
	r.mm = c->mm;
	r.memcg_id = c->memcg_id;
	r.write = 1;
	r.success = 1;
	return emit(c, &r, 26, 0);
}

/* A process made by a followed one is followed from its first
 * instruction: task_newtask fires in copy_process() before the new task
 * can run (kernel/fork.c).  Only once every record is on (PHASE 2): a
 * clone whose entry record was written; one begun before makes a
 * process maptap does not follow (on_fork(), perf_clone_armed). */
SEC("tracepoint")
int mt_newtask(struct mt_newtask_ctx *c)
{
	__u32 child;
	__u8 one = 1;
	__u64 pt;

	if (!followed(2, &pt))
		return 1;
	child = (__u32)c->pid;
	if (c->clone_flags & CLONE_THREAD)
		return 1;
	if (bpf_map_update_elem(&tgids, &child, &one, BPF_ANY))
		__sync_fetch_and_add(&state.follow_failed, 1);
	return 1;
}

/* sched_process_exit's record (include/trace/events/sched.h), at the
 * offsets of its tracefs format, which perf_bpf.c checks. */
struct mt_exit_ctx {
	__u64 regs;
	char comm[16];
	__s32 pid;
	__s32 prio;
	__u8 group_dead;
};

/* A process's last thread exits (do_exit(), kernel/exit.c, before the
 * process can be reaped and its pid given again): it leaves TGIDS here,
 * whether maptap ever learnt of it or not -- else a process that ended
 * unseen (made while an attach was under way) left its pid followed,
 * and whatever got that pid next had its calls written and its
 * children followed (a fresh helper's finding). */
SEC("tracepoint")
int mt_exit(struct mt_exit_ctx *c)
{
	__u32 tgid;

	if (!c->group_dead)
		return 1;
	tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_map_delete_elem(&tgids, &tgid);
	return 1;
}

/* LGPL-2.1-or-later OR BSD-2-Clause: GPL-compatible, as the kernel asks
 * of a program that calls bpf_perf_event_output() */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
