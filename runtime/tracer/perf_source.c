/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* perf_source.c -- the perf event source: address-space tracking from
 * perf_event_open(2) records, without stopping the target
 * (docs/tracer.md, "Event sources").
 *
 * Events, on every thread the target had at the attach (inherit: the
 * threads and processes they create get them too), one group per CPU
 * (led by the dummy event, open_thread()):
 *
 *   a dummy software event with mmap + mmap2 + mmap_data, comm (with
 *   comm_exec) and task: PERF_RECORD_MMAP2 for every new mapping,
 *   PERF_RECORD_COMM with PERF_RECORD_MISC_COMM_EXEC at an exec,
 *   PERF_RECORD_FORK and PERF_RECORD_EXIT for threads and processes;
 *   the syscalls:sys_enter_/sys_exit_ tracepoints of the calls that
 *   change a mapping without a PERF_RECORD_MMAP2 (munmap, mprotect,
 *   pkey_mprotect, mremap, brk, madvise, prctl, shmdt, io_destroy),
 *   and sys_enter_exit_group for the exit status;
 *   task:task_newtask, whose clone_flags say whether a new process
 *   shares its creator's mm (CLONE_VM: vfork, posix_spawn's clone3),
 *   however it was made;
 *   with call_stacks, the mapping calls' entries (and mmap's, shmat's,
 *   io_setup's, opened for this only) also copy the user registers and
 *   stack, kept per thread for maptap_session_get_call_stack()
 *   (take_stack()).
 *
 * The tracepoints of calls made seldom (exec, clone, exit, prctl, ...,
 * and the task and signal ones) are opened once per CPU for every task
 * instead, where the kernel allows it (open_cw()): each event in a
 * thread's groups costs the thread at every mmap.
 *
 * All events of one CPU write into one ring (PERF_EVENT_IOC_SET_OUTPUT);
 * the rings are read in batches and their records merged by their
 * CLOCK_MONOTONIC time.  Each record is applied to the model as what it
 * says (a mapping, an unmapping, new permissions), or, for the calls
 * whose effect the arguments do not fully say (mremap, brk, madvise,
 * prctl), as a read of the range it touched.  After a batch, every range
 * it touched is confirmed against the kernel (PROCMAP_QUERY): a
 * difference may be the work of a call whose record is not read yet, so
 * it is kept as a suspect, with when and what the kernel had there; it
 * is resynced from the kernel and counted (stats.confirm_resyncs) only
 * once every record older than its finding is read, no call then in the
 * kernel over its range is still running (its exit record applies it),
 * and the kernel's range is still what it was (confirm()), with no
 * record over it meanwhile.  A PERF_RECORD_LOST resyncs every model
 * whole (stats.lost_records).
 */
#include "tracer_priv.h"
#include "../common/perf_close.h"
#include "../common/perf_ring.h"
#include "../common/perf_regs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MT_TOP (UINT64_MAX & ~4095ULL)
#define PAGE_DOWN(a) ((a) & ~4095ULL)
#define PAGE_UP(a) (((a) + 4095ULL) & ~4095ULL)

/* Data pages of one CPU's ring: 8 MiB, room for about 100,000 records
 * (root is not held to perf_event_mlock_kb; others get what it allows:
 * open_one()). */
#define MT_PERF_PAGES 2048
/* At most this many rings per CPU, the threads found at an attach
 * dealt out among them (nshard_for()); their pages share
 * MT_PERF_PAGES. */
#define MT_PERF_SHARDS 4
/* How long a difference found by a confirmation must last, with no
 * record over its range, before it is taken for the model's: a call's
 * record is written at its exit, microseconds after its change. */
#define MT_PERF_SETTLE_NS 2000000ULL
/* Tries at opening one thread's group on one CPU (open_thread()). */
#define MT_PERF_OPEN_TRIES 64
/* The longest wait for records while nothing is pending. */
#define MT_PERF_POLL_MS 20
/* --verify: the least time between two full checks of one mm. */
#define MT_PERF_VERIFY_GAP_NS 100000000ULL
#define MT_PERF_MAX_SUSPECTS 256
/* The longest a difference waits for the records and calls that may
 * explain it (confirm()) before it is resynced all the same. */
#define MT_PERF_SUSPECT_MAX_NS 1000000000ULL

#ifndef PERF_RECORD_MISC_COMM_EXEC
#define PERF_RECORD_MISC_COMM_EXEC (1 << 13)
#endif

/* Whether a call's entry samples the user stack (call_stacks). */
enum tp_stack {
	TP_NO_STACK,
	TP_STACK,		/* a mapping call: with call_stacks */
	TP_STACK_ONLY,		/* its MMAP2 record is its change: the
				 * entry is opened for its stack only */
};

/* The tracepoints opened, "sys_enter_NAME" or "sys_exit_NAME".  Those
 * of the calls a program makes often are in every thread's groups; the
 * rest are opened once per CPU for every task (cpu_wide, open_cw()). */
static const struct {
	const char *call;
	bool enter, exit;
	enum tp_stack stack;
	bool cpu_wide;
} tp_list[] = {
	{ "munmap", true, true, TP_STACK, false },
	{ "mprotect", true, true, TP_STACK, false },
	{ "pkey_mprotect", true, true, TP_STACK, true },
	{ "mremap", true, true, TP_STACK, false },
	{ "brk", true, true, TP_STACK, false },
	{ "madvise", true, true, TP_STACK, false },
	{ "prctl", true, true, TP_STACK, true },
	{ "shmdt", true, true, TP_STACK, true },
	{ "io_destroy", true, true, TP_STACK, true },
	{ "exit_group", true, false, TP_NO_STACK, true },
	/* a leader's own exit(2): the process's status if it is last */
	{ "exit", true, false, TP_NO_STACK, true },
	/* who exec'd: former_tid; the image's snapshot ends at exit */
	{ "execve", true, true, TP_NO_STACK, true },
	{ "execveat", true, true, TP_NO_STACK, true },
	/* a child that shares the mm; clone's flags: CLONE_VM; clone3's
	 * flags are in memory: kcmp(2) */
	{ "vfork", true, false, TP_NO_STACK, true },
	{ "fork", true, false, TP_NO_STACK, true },
	{ "clone", true, false, TP_NO_STACK, true },
	{ "clone3", true, false, TP_NO_STACK, true },
	{ "mmap", true, false, TP_STACK_ONLY, false },
	{ "shmat", true, false, TP_STACK_ONLY, true },
	{ "io_setup", true, false, TP_STACK_ONLY, true },
};
#define TP_COUNT (sizeof(tp_list) / sizeof(tp_list[0]))
/* the syscall tracepoints, mmap_lock_acquire_returned, task_newtask,
 * signal_deliver, signal_generate */
#define TP_MAX (2 * TP_COUNT + 4)

/* A thread's user registers and stack at the entry of its last call
 * (call_stacks), kept from one call to the next: one buffer a thread. */
struct mt_perf_stack {
	struct user_regs_struct regs;
	size_t len;			/* bytes of DATA */
	int nr;				/* the call's number */
	uint64_t gen;			/* mt_perf.stack_gen when taken */
	bool ok;			/* held for the thread's last call */
	uint8_t data[MAPTAP_CALL_STACK_BYTES];
};

struct pf_range {
	pid_t pid;
	uint64_t lo, hi;
	uint64_t since;		/* suspects: when the kernel's range was
				 * read as KHASH says */
	uint64_t first;		/* suspects: when first found */
	uint64_t khash;		/* suspects: the kernel's VMAs there then
				 * (vmas_hash()); 0 unknown */
	bool verify;		/* suspects: found by --verify */
};

struct pf_ranges {
	struct pf_range *v;
	size_t n, cap;
};

struct mt_perf {
	int ncpu;
	int *cpu_ok;		/* per CPU: events can be opened there */
	int nshard;		/* rings per CPU (nshard_for()) */
	int shard;		/* the one open_thread() fills now */
	int *ring_fd;		/* per ring: the fd owning it, or -1 */
	int *lead;		/* per CPU: the group leader open_thread()
				 * opened there, or -1 */
	struct mt_perf_ring *ring;	/* ring_at(): shard * ncpu + CPU */
	int *fds;		/* every fd opened */
	size_t nfds, capfds;
	int tp_id[TP_MAX];	/* tracepoint ids */
	bool tp_enter[TP_MAX];
	bool tp_stack[TP_MAX];	/* its samples carry regs and stack */
	bool tp_stack_only[TP_MAX];	/* opened for the stack only */
	bool tp_cw[TP_MAX];	/* opened per CPU for every task, with
				 * f->cw (open_cw()) */
	bool tp_bpf[TP_MAX];	/* written by f->bpf's programs: no event
				 * of its own (perf_bpf.c) */
	int tp_nr[TP_MAX];	/* a system call's tracepoint: its number */
	unsigned tp_nargs[TP_MAX];	/* an entry's: its arguments */
	struct mt_perf_bpf *bpf;	/* the system calls' programs, or
					 * NULL (tracepoint events) */
	char bpf_why[160];	/* why not, for -v */
	char events_base[200];	/* -v's line but the calls' (events_note()) */
	size_t ncw_ends;	/* open_cw(): f->fds[0, ncw_ends) are the
				 * bpf-output events and the tracepoints
				 * that end something; the entries after */
	uint64_t bpf_failed;	/* mt_perf_bpf_failed() counted so far */
	bool lock_bpf;		/* the lock's records from f->bpf too,
				 * attached by lock_on() */
	bool lock_attached;	/* its program is */
	bool bpf_all;		/* enable_cw() turned every record on */
	int bpf_cpu;		/* the CPU of the programs' carriers */
	int gone_id;		/* sched_process_exit, with f->bpf */
	bool cw;		/* the tp_cw events are open per CPU: the
				 * first f->ncw of f->fds */
	size_t ncw;
	uint64_t cw_id_max;	/* the highest id of those events */
	bool cw_exec;		/* launch: the command's exec was read */
	unsigned cw_pause_us;	/* tests: a pause after each event that
				 * enable_cw() turns on, us */
	bool stacks;		/* call_stacks */
	uint64_t stack_gen;	/* PERF_RECORD_LOSTs read: a stack taken
				 * before one may not be its thread's
				 * last call's */
	size_t ntp;
	int lock_id;		/* mmap_lock_acquire_returned, or -1 */
	uint64_t lock_from;	/* lock records are written for every lock
				 * taken since (lock_on()), or 0 */
	int newtask_id;		/* task_newtask, or -1 */
	unsigned nt_pid_off;	/* its raw record's pid and clone_flags: */
	unsigned nt_flags_off;	/* byte offsets from its format file */
	unsigned nt_flags_size;	/* 4 or 8 */
	int sig_id;		/* signal_deliver, or -1 */
	unsigned sig_off;	/* its sig (int) and sa_handler (unsigned */
	unsigned sig_handler_off;	/* long): byte offsets */
	int gen_id;		/* signal_generate, or -1 */
	unsigned gen_sig_off, gen_pid_off, gen_result_off;	/* ints */
	size_t forks_pending;	/* threads with a perf_fork, at most */
	bool launch;		/* events enabled at the command's exec */
	struct pf_ranges touched;	/* ranges this batch applied */
	struct pf_ranges suspects;	/* differences awaiting settling */
	uint64_t applied_ns;	/* every record older than this was read
				 * (the last round's cutoff) */
	uint64_t prev_applied_ns;	/* the round's before */
	bool lost;		/* a PERF_RECORD_LOST in this batch */
	uint64_t next_verify_ns;
	struct pollfd *pf;
	struct mt_perf_srcs srcs;	/* the event sets opened, by first id */
};

/* ---- availability ---- */

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

/* The id of tracepoint syscalls:NAME, or -errno. */
static int tp_id_of(const char *root, const char *name)
{
	char path[256], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/events/%s%s/id", root,
		 strchr(name, '/') ? "" : "syscalls/", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return atoi(buf);
}

/* The byte offset and size of FIELD in the raw record of tracepoint
 * NAME ("group/event"), from its format file (tracefs's
 * events/GROUP/EVENT/format, "field:TYPE NAME;\toffset:N;\tsize:M;"):
 * 0, or -ENOENT when the kernel has no such event or field. */
static int tp_format(const char *root, const char *name, const char *field,
		     unsigned *off, unsigned *size, unsigned *end)
{
	char path[256], line[256], want[64];
	int rc = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/format", root, name);
	snprintf(want, sizeof(want), " %s;", field ? field : "");
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	*end = 0;
	while (fgets(line, sizeof(line), f)) {
		const char *o = strstr(line, "offset:");
		const char *z = strstr(line, "size:");
		unsigned fo, fz;

		if (!strstr(line, "field:") || !o || !z)
			continue;
		fo = (unsigned)atoi(o + 7);
		fz = (unsigned)atoi(z + 5);
		if (fo + fz > *end)
			*end = fo + fz;
		if (rc == 0 || !field || !strstr(line, want))
			continue;
		*off = fo;
		*size = fz;
		rc = 0;
	}
	fclose(f);
	return field ? rc : 0;
}

static int tp_field_of(const char *root, const char *name,
		       const char *field, unsigned *off, unsigned *size)
{
	unsigned end;

	return tp_format(root, name, field, off, size, &end);
}

/* Whether FIELD of tracepoint NAME is at byte OFF, SIZE bytes long:
 * the layout a BPF program reads (perf_bpf.bpf.c). */
static bool tp_field_is(const char *root, const char *name,
			const char *field, unsigned off, unsigned size)
{
	unsigned o, z;

	return tp_field_of(root, name, field, &o, &z) == 0 && o == off &&
	       z == size;
}

/* Find the tracefs with the syscalls events; mount it when it is not and
 * we may (root).  Returns the root or NULL with WHY filled in; NOTE gets
 * what was done. */
static const char *find_tracefs(char *why, size_t wsize, char *note,
				size_t nsize)
{
	size_t i;

	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++)
		if (tp_id_of(tracefs_dirs[i], "sys_enter_munmap") > 0)
			return tracefs_dirs[i];
	if (access("/sys/kernel/tracing", F_OK) != 0) {
		snprintf(why, wsize, "the kernel has no tracefs (/sys/kernel/tracing)");
		return NULL;
	}
	if (access("/sys/kernel/tracing/events", F_OK) == 0) {
		snprintf(why, wsize, "the kernel has no syscalls tracepoints (CONFIG_FTRACE_SYSCALLS)");
		return NULL;
	}
	if (geteuid() != 0) {
		snprintf(why, wsize, "tracefs is not mounted on /sys/kernel/tracing, and only root may mount it");
		return NULL;
	}
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0) {
		snprintf(why, wsize, "cannot mount tracefs on /sys/kernel/tracing: %s",
			 strerror(errno));
		return NULL;
	}
	snprintf(note, nsize, "mounted tracefs on /sys/kernel/tracing; ");
	if (tp_id_of(tracefs_dirs[0], "sys_enter_munmap") > 0)
		return tracefs_dirs[0];
	snprintf(why, wsize, "the kernel has no syscalls tracepoints (CONFIG_FTRACE_SYSCALLS)");
	return NULL;
}

static void free_perf(struct mt_perf *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < (size_t)f->ncpu * MT_PERF_SHARDS; i++)
		mt_perf_ring_unmap(&f->ring[i]);
	/* the programs first: they write into the rings' events */
	mt_perf_bpf_free(f->bpf);
	mt_perf_close_all(f->fds, f->nfds);
	free(f->fds);
	free(f->ring);
	free(f->ring_fd);
	free(f->lead);
	free(f->cpu_ok);
	free(f->touched.v);
	free(f->suspects.v);
	free(f->pf);
	mt_perf_srcs_free(&f->srcs);
	free(f);
}

/* One more tracepoint ID, not a syscall's: in every thread's group,
 * or per CPU (CW, open_cw()). */
static void add_tp(struct mt_perf *f, int id, bool cw)
{
	f->tp_id[f->ntp] = id;
	f->tp_enter[f->ntp] = false;
	f->tp_cw[f->ntp] = cw;
	f->tp_nr[f->ntp] = -1;
	f->ntp++;
}

/* Whether tracepoint I is one of every thread's groups. */
static bool in_group(const struct mt_perf *f, size_t i)
{
	return !(f->cw && f->tp_cw[i]) && !f->tp_bpf[i];
}

/* The arguments of system call CALL's entry record: its fields after
 * __syscall_nr, 8 bytes each from offset 16 (tracefs's
 * events/syscalls/sys_enter_CALL/format); -ENOENT without one. */
static int tp_nargs(const char *root, const char *call)
{
	char name[80];
	unsigned off, size, end;
	int err;

	snprintf(name, sizeof(name), "syscalls/sys_enter_%s", call);
	err = tp_format(root, name, NULL, &off, &size, &end);
	if (err)
		return err;
	return end > 16 ? (int)((end - 16 + 7) / 8) : 0;
}

/* The system calls' records through BPF programs (perf_bpf.c) where the
 * kernel and the privileges allow them, unless the environment's
 * MAPTAP_PERF_BPF=0 asks for tracepoint events (tests, A/B runs;
 * docs/tracer.md).  Only with the events per CPU (f->cw): the programs'
 * records come through bpf-output events per CPU, opened with them. */
static void try_bpf(struct mt_perf *f, const char *tracefs)
{
	const char *env = getenv("MAPTAP_PERF_BPF");
	const char *lock = "mmap_lock/mmap_lock_acquire_returned";
	const char *gone = "sched/sched_process_exit";
	uint32_t arch = maptap_syscall_native_arch();
	size_t i;
	int err = 0;

	if (!f->cw) {
		snprintf(f->bpf_why, sizeof(f->bpf_why),
			 "every event in the threads' groups");
		return;
	}
	if (env && !strcmp(env, "0")) {
		snprintf(f->bpf_why, sizeof(f->bpf_why),
			 "MAPTAP_PERF_BPF=0");
		return;
	}
	/* the layouts mt_newtask() and mt_exit() read (perf_bpf.bpf.c) */
	f->gone_id = tp_id_of(tracefs, gone);
	if (f->gone_id <= 0 || !tp_field_is(tracefs, gone, "pid", 24, 4) ||
	    !tp_field_is(tracefs, gone, "group_dead", 32, 1)) {
		snprintf(f->bpf_why, sizeof(f->bpf_why),
			 "sched_process_exit says no group_dead where its program reads it");
		return;
	}
	/* (its fields as new_perf() read them) */
	if (f->newtask_id <= 0 || f->nt_pid_off != 8 ||
	    f->nt_flags_off != 32 || f->nt_flags_size != 8) {
		snprintf(f->bpf_why, sizeof(f->bpf_why),
			 "task_newtask's record is not as its program reads it");
		return;
	}
	f->bpf = mt_perf_bpf_new(f->bpf_why, sizeof(f->bpf_why));
	if (!f->bpf)
		return;
	for (i = 0; i < f->ntp && !err; i++) {
		if (f->tp_nr[i] < 0)
			continue;
		if (f->tp_enter[i]) {
			/* one program per count of arguments, at most 6 */
			int n = tp_nargs(tracefs, maptap_syscall_lookup(
						arch, f->tp_nr[i])->name);

			if (n < 0 || n > 6) {
				f->tp_nr[i] = -1;	/* an event, then */
				continue;
			}
			f->tp_nargs[i] = (unsigned)n;
		}
		err = mt_perf_bpf_route(f->bpf, f->tp_nr[i], f->tp_id[i],
					f->tp_enter[i], f->tp_stack[i]);
	}
	if (err) {
		snprintf(f->bpf_why, sizeof(f->bpf_why),
			 "cannot route the calls to its programs: %s",
			 strerror(-err));
		mt_perf_bpf_free(f->bpf);
		f->bpf = NULL;
		return;
	}
	for (i = 0; i < f->ntp; i++)
		f->tp_bpf[i] = f->tp_nr[i] >= 0;
	/* The lock's too, laid out as mt_lock() reads it: then the
	 * tracepoint has no probe at all until lock_on() (the kernel
	 * looks up the mm's memory cgroup at every taking of a lock while
	 * one is registered, __mmap_lock_do_trace_acquire_returned()). */
	if (f->lock_id > 0 && tp_field_is(tracefs, lock, "mm", 8, 8) &&
	    tp_field_is(tracefs, lock, "memcg_id", 16, 8) &&
	    tp_field_is(tracefs, lock, "write", 24, 1) &&
	    tp_field_is(tracefs, lock, "success", 25, 1)) {
		f->lock_bpf = true;
		for (i = 0; i < f->ntp; i++)
			if (f->tp_id[i] == f->lock_id)
				f->tp_bpf[i] = true;
	}
}

/* Give the system calls back to tracepoint events (open_cw() failed). */
static void drop_bpf(struct mt_perf *f, const char *why)
{
	size_t i;

	if (!f->bpf)
		return;
	mt_perf_bpf_free(f->bpf);
	f->bpf = NULL;
	f->lock_bpf = false;
	snprintf(f->bpf_why, sizeof(f->bpf_why), "%s", why);
	for (i = 0; i < f->ntp; i++)
		f->tp_bpf[i] = false;
}

static struct mt_perf *new_perf(const char *tracefs, bool stacks, char *why,
			       size_t wsize)
{
	struct mt_perf *f = calloc(1, sizeof(*f));
	long n = sysconf(_SC_NPROCESSORS_CONF);
	unsigned pid_size = 0, sig_size = 0;
	size_t i;

	if (!f || n <= 0)
		goto nomem;
	f->ncpu = (int)n;
	f->nshard = 1;
	f->cpu_ok = calloc((size_t)n, sizeof(int));
	f->ring_fd = malloc((size_t)n * MT_PERF_SHARDS * sizeof(int));
	f->lead = malloc((size_t)n * sizeof(int));
	f->ring = calloc((size_t)n * MT_PERF_SHARDS, sizeof(*f->ring));
	f->pf = calloc((size_t)n * MT_PERF_SHARDS + 1, sizeof(*f->pf));
	if (!f->cpu_ok || !f->ring_fd || !f->lead || !f->ring || !f->pf)
		goto nomem;
	for (i = 0; i < (size_t)n * MT_PERF_SHARDS; i++)
		f->ring_fd[i] = -1;
	for (i = 0; i < (size_t)n; i++)
		f->cpu_ok[i] = 1;
	f->stacks = stacks;
	/* unless the kernel refuses them (open_cw()); the environment's
	 * MAPTAP_PERF_TASK_EVENTS=1 (docs/tracer.md) puts them in the
	 * groups, for tests and A/B runs */
	f->cw = !getenv("MAPTAP_PERF_TASK_EVENTS");
	for (i = 0; i < TP_COUNT; i++) {
		int k;

		if (tp_list[i].stack == TP_STACK_ONLY && !stacks)
			continue;
		for (k = 0; k < 2; k++) {
			const struct maptap_syscall *sc;
			char name[64];
			int id;

			if (!(k ? tp_list[i].exit : tp_list[i].enter))
				continue;
			snprintf(name, sizeof(name), "sys_%s_%s",
				 k ? "exit" : "enter", tp_list[i].call);
			id = tp_id_of(tracefs, name);
			if (id <= 0)
				continue;	/* a call this kernel lacks */
			/* its number, for the BPF programs (try_bpf()) */
			sc = maptap_syscall_by_name(
				maptap_syscall_native_arch(), tp_list[i].call);
			f->tp_nr[f->ntp] = sc && sc->nr < MT_PERF_BPF_MAX_NR ?
					   sc->nr : -1;
			f->tp_id[f->ntp] = id;
			f->tp_enter[f->ntp] = !k;
			f->tp_stack[f->ntp] = stacks && !k &&
					      tp_list[i].stack != TP_NO_STACK;
			f->tp_stack_only[f->ntp] =
				tp_list[i].stack == TP_STACK_ONLY;
			f->tp_cw[f->ntp] = tp_list[i].cpu_wide;
			f->ntp++;
		}
	}
	/* When a munmap took the mm's lock, to order it against the MMAP2
	 * records of other threads (unmap_exit()). */
	f->lock_id = tp_id_of(tracefs, "mmap_lock/mmap_lock_acquire_returned");
	if (f->lock_id > 0)
		add_tp(f, f->lock_id, false);
	else
		f->lock_id = -1;
	/* Who shares the mm, whatever the call (on_fork()). */
	f->newtask_id = tp_id_of(tracefs, "task/task_newtask");
	if (f->newtask_id > 0 &&
	    tp_field_of(tracefs, "task/task_newtask", "pid",
			&f->nt_pid_off, &pid_size) == 0 && pid_size == 4 &&
	    tp_field_of(tracefs, "task/task_newtask", "clone_flags",
			&f->nt_flags_off, &f->nt_flags_size) == 0 &&
	    (f->nt_flags_size == 4 || f->nt_flags_size == 8))
		add_tp(f, f->newtask_id, true);
	else
		f->newtask_id = -1;
	/* A fatal signal's number: the status of a process it ends. */
	f->sig_id = tp_id_of(tracefs, "signal/signal_deliver");
	if (f->sig_id > 0 &&
	    tp_field_of(tracefs, "signal/signal_deliver", "sig", &f->sig_off,
			&sig_size) == 0 && sig_size == 4 &&
	    tp_field_of(tracefs, "signal/signal_deliver", "sa_handler",
			&f->sig_handler_off, &sig_size) == 0 &&
	    sig_size == 8)
		add_tp(f, f->sig_id, true);
	else
		f->sig_id = -1;
	/* Which fatal signal a traced sender sent: the kernel hands it
	 * to an untraced target as SIGKILL (complete_signal()). */
	f->gen_id = tp_id_of(tracefs, "signal/signal_generate");
	if (f->gen_id > 0 && f->sig_id > 0 &&
	    tp_field_of(tracefs, "signal/signal_generate", "sig",
			&f->gen_sig_off, &sig_size) == 0 && sig_size == 4 &&
	    tp_field_of(tracefs, "signal/signal_generate", "pid",
			&f->gen_pid_off, &sig_size) == 0 && sig_size == 4 &&
	    tp_field_of(tracefs, "signal/signal_generate", "result",
			&f->gen_result_off, &sig_size) == 0 && sig_size == 4)
		add_tp(f, f->gen_id, true);
	else
		f->gen_id = -1;
	try_bpf(f, tracefs);
	return f;
nomem:
	snprintf(why, wsize, "out of memory");
	free_perf(f);
	return NULL;
}

/* ---- opening events ---- */

static void attr_base(struct mt_perf *f, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME;
	a->sample_id_all = 1;
	a->inherit = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_hv = 1;
	a->watermark = 1;
	/* Wake early, never fill up: at 1/32 of a ring (256 KiB of 8 MiB;
	 * a ring of a shard is smaller, nshard_for()). */
	a->wakeup_watermark = MT_PERF_PAGES * 4096 / 32 / f->nshard;
	/* Records lost just before the end have no PERF_RECORD_LOST yet
	 * (the kernel writes one once the ring has room): read(2) gives
	 * the count (count_unreported_lost()). */
	a->read_format = PERF_FORMAT_LOST;
	if (f->launch) {
		a->disabled = 1;
		a->enable_on_exec = 1;
	}
}

static int keep_fd(struct mt_perf *f, int fd)
{
	return mt_fds_push(&f->fds, &f->nfds, &f->capfds, 64, fd);
}

/* The ring of CPU that the thread being opened writes into. */
static int ring_at(const struct mt_perf *f, int cpu)
{
	return f->shard * f->ncpu + cpu;
}

/* A ring of CPU that is open (a group was opened there), or -1. */
static int any_ring(const struct mt_perf *f, int cpu)
{
	int k;

	for (k = 0; k < f->nshard; k++)
		if (f->ring_fd[k * f->ncpu + cpu] >= 0)
			return k * f->ncpu + cpu;
	return -1;
}

/* Rings per CPU for an attach to a process of NTHREADS threads: one
 * per 8 threads, a power of two, at most MT_PERF_SHARDS (4: a ring of
 * 2 MiB; with 8 of 1 MiB a thread making 4 mapping threads at a time
 * beside 200 idle ones lost 1,000-4,000 records in 2 runs of 3, with 16
 * of 512 KiB 13,000-18,000 in every run -- a fresh helper's finding).
 *
 * Each event of a task made by an inherited clone wakes, as it exits,
 * every event that writes into its parent event's ring: the kernel's
 * perf_event_exit_event() calls perf_event_wakeup() on the parent,
 * whose ring_buffer_wakeup() walks the ring's whole event list
 * (kernel/events/core.c).  With one ring per CPU that list held every
 * group of every thread found at the attach, 30 events each: a
 * thread's exit cost (2 x 30) x (30 x N) wakeups on 2 CPUs, N the
 * threads found -- 200 idle threads beside one that makes threads
 * took its creations from 1,500/s to 80/s, and slowed other programs
 * on the machine (bench/tracer/threadrate.sh).  Dealt out among 4
 * rings, each list holds a quarter of them: 59/s -> 286/s. */
static int nshard_for(size_t nthreads)
{
	int n = 1;

	while (n < MT_PERF_SHARDS && (size_t)n * 2 * 8 <= nthreads)
		n *= 2;
	return n;
}

/* Open A on TID (-1: every task) and CPU, in the group of LEADER (an
 * fd, or -1 for a new group); its records go to that CPU's ring of the
 * current shard. */
static int open_one(struct mt_perf *f, struct perf_event_attr *a, pid_t tid,
		    int cpu, int leader)
{
	int fd = (int)syscall(SYS_perf_event_open, a, tid, cpu, leader,
			      PERF_FLAG_FD_CLOEXEC);
	int r = ring_at(f, cpu), pages = MT_PERF_PAGES / f->nshard;
	int err;

	if (fd < 0)
		return -errno;
	if (keep_fd(f, fd)) {
		close(fd);
		return -ENOMEM;
	}
	if (f->ring_fd[r] < 0) {
		err = mt_perf_ring_map(&f->ring[r], fd, pages);
		if (err == -EPERM)	/* perf_event_mlock_kb: 512 KiB */
			err = mt_perf_ring_map(&f->ring[r], fd,
					       MT_PERF_PAGES / 32);
		if (err == -EPERM && (r = any_ring(f, cpu)) >= 0)
			goto share;	/* a user's limit: one ring a CPU */
		if (err)
			return err;
		f->ring_fd[r] = fd;
		return 0;
	}
share:
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, f->ring_fd[r]) != 0)
		return -errno;
	return 0;
}

/* Whether TID is exiting or gone: perf_event_open(2) on a task that
 * exits meanwhile fails (ENODEV, as on an offline CPU, or EINVAL for a
 * group member once the task's context is gone).  PF_EXITING in the
 * flags of /proc/TID/stat (field 9, proc(5); include/linux/sched.h) is
 * set before do_exit() tears the task's events down. */
static bool thread_ending(pid_t tid)
{
	const long pf_exiting = 0x4;
	long flags;

	return mt_proc_stat_field(tid, 9, &flags) != 0 ||
	       (flags & pf_exiting);
}

/* Close the fds opened from index FROM on. */
static void drop_fds(struct mt_perf *f, size_t from)
{
	while (f->nfds > from)
		close(f->fds[--f->nfds]);
}

/* A's attributes for tracepoint I: a sample per hit, its raw record,
 * and the user registers and stack where it takes them. */
static void tp_attr(struct mt_perf *f, size_t i, struct perf_event_attr *a)
{
	attr_base(f, a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = (uint64_t)f->tp_id[i];
	a->sample_period = 1;
	a->sample_type |= PERF_SAMPLE_RAW;
	if (f->tp_stack[i]) {
		a->sample_type |= PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = REGS_MASK;
		a->sample_stack_user = MAPTAP_CALL_STACK_BYTES;
	}
}

/* The group of TID on CPU: the dummy event leading the tracepoints. */
static int open_group(struct mt_perf *f, pid_t tid, int cpu)
{
	struct perf_event_attr a;
	int err, leader;
	size_t i;

	attr_base(f, &a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = a.mmap2 = a.mmap_data = 1;
	a.comm = a.comm_exec = 1;
	a.task = 1;
	/* At an attach, off until the thread's every group is open
	 * (open_thread()). */
	a.disabled = 1;
	err = open_one(f, &a, tid, cpu, -1);
	if (err)
		return err;
	leader = f->fds[f->nfds - 1];
	for (i = 0; i < f->ntp; i++) {
		if (!in_group(f, i))
			continue;
		tp_attr(f, i, &a);
		/* The lock's records are off until an mm has two threads
		 * (lock_on()). */
		if (f->tp_id[i] == f->lock_id && !f->lock_from) {
			a.disabled = 1;
			a.enable_on_exec = 0;
		}
		err = open_one(f, &a, tid, cpu, leader);
		if (err)
			return err;
		/* Write locks only (a filter the kernel refuses leaves
		 * them all: on_sample() looks too). */
		if (f->tp_id[i] == f->lock_id)
			ioctl(f->fds[f->nfds - 1], PERF_EVENT_IOC_SET_FILTER,
			      "write == 1 && success == 1");
	}
	return 0;
}

/* While TID's groups are opened, an event that keeps TID's perf context
 * where it is: a context switch between two tasks whose contexts are
 * equivalent clones (a thread and one it just made, with our events
 * inherited) swaps the contexts instead of scheduling their events
 * (perf_event_context_sched_out()), so the group leader opened a moment
 * ago may now be in the other task's context, and every member opened
 * after it is refused (EINVAL) until the group is opened again: on a
 * thread that makes threads without a pause, 30-60 tries, and the 64
 * ran out in 1 attach in 10 to such a process.  A context holding an
 * event with inherit and PERF_SAMPLE_READ is never swapped so
 * (nr_no_switch_fast, since Linux 6.12; list_add_event() counts it in
 * whatever state): a dummy event so made, off, is that pin.  It is
 * closed once the groups are open, and the swaps, which save work at
 * every switch between a process's threads, come back.  Returns its fd,
 * or -1 where the kernel refuses it (older ones: the retries remain). */
static int pin_context(pid_t tid)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_TID;
	a.inherit = 1;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* open_thread()'s groups, with PIN (an fd to close, or -1) held open
 * meanwhile (pin_context()); each group opened again counts in
 * *RETRIES. */
static int open_groups(struct mt_perf *f, pid_t tid, int pin,
		       uint64_t *retries)
{
	int cpu, err = 0, tries, opened = 0;

	for (cpu = 0; cpu < f->ncpu; cpu++) {
		int r = ring_at(f, cpu);
		bool offline = false;

		f->lead[cpu] = -1;
		if (!f->cpu_ok[cpu])
			continue;
		/* A group member may be refused (ENODEV, EINVAL) while the
		 * thread lives on, when the kernel has just moved its
		 * context: a thread that forks has children whose contexts
		 * are clones of its own, and a context switch between two
		 * such tasks on one CPU swaps their contexts
		 * (perf_event_context_sched_out()), the group leader's
		 * with them.  The group is opened again; with the target
		 * and maptap on one CPU that takes more tries (8 ran out
		 * in 1-3 attaches in 100 to a forking target, 32 never in
		 * 100). */
		for (tries = 0; tries < MT_PERF_OPEN_TRIES; tries++) {
			size_t from = f->nfds;
			bool owner = f->ring_fd[r] < 0;

			err = open_group(f, tid, cpu);
			if (!err) {
				f->lead[cpu] = f->fds[from];
				break;
			}
			if (thread_ending(tid)) {
				err = -ESRCH;
				break;
			}
			if (owner && f->ring_fd[r] >= 0) {
				/* The ring its leader mapped has no record
				 * yet (the leader is off until enabled):
				 * it goes with the group. */
				mt_perf_ring_unmap(&f->ring[r]);
				f->ring_fd[r] = -1;
			}
			drop_fds(f, from);
			(*retries)++;
			/* ENODEV is an offline CPU too: only then is it
			 * left out (taking a refused online one for
			 * offline lost its records). */
			offline = err == -ENODEV && !mt_cpu_online(cpu);
			if (offline || (err != -ENODEV && err != -EINVAL))
				break;
		}
		if (offline && any_ring(f, cpu) < 0) {
			f->cpu_ok[cpu] = 0;
			err = 0;
			continue;
		}
		if (err)
			break;
		opened++;
	}
	if (pin >= 0)
		close(pin);
	if (err)
		return err;
	return opened ? 0 : -ENODEV;
}

/* Turn on the groups open_groups() opened on TID (their leaders, off
 * until all were open). */
static int enable_groups(struct mt_perf *f, pid_t tid)
{
	int cpu;

	for (cpu = 0; cpu < f->ncpu; cpu++) {
		if (f->lead[cpu] < 0)
			continue;
		if (ioctl(f->lead[cpu], PERF_EVENT_IOC_ENABLE, 0) != 0)
			return thread_ending(tid) ? -ESRCH : -errno;
	}
	return 0;
}

/* Open every event on thread TID, on every CPU: per CPU one group, the
 * dummy event leading the tracepoints.  The kernel schedules a task's
 * events in and out at each of its context switches; a group is one
 * entry in the context's tree, scheduled as a whole, where 28 single
 * events were 28 (a server that blocks and wakes twice per request paid
 * 1.97x CPU with single events, 1.25x with one group: bench/README.md,
 * "Attaching without stops").
 *
 * A task made by TID gets the groups TID has when copy_process() is at
 * perf_event_init_task() (kernel/fork.c, kernel/events/core.c), and
 * its FORK record is written near the end of copy_process().  At an
 * attach the groups are opened off and enabled once all are open
 * (enabling one enables its inherited copies too:
 * perf_event_for_each_child()): a clone whose entry record is read
 * began after every group was open, and its task has them all; a
 * clone begun before may have made a task with some or none of them,
 * told by its creator's perf_clone_armed (on_fork()).  At a launch
 * they are enabled at the exec (attr_base()).  Groups opened again
 * count in *RETRIES (stats.group_retries).  Returns 0, -ESRCH when the
 * thread is gone, or another -errno. */
static int open_thread(struct mt_perf *f, pid_t tid, uint64_t *retries)
{
	int err;

	f->shard = (f->shard + 1) % f->nshard;
	err = open_groups(f, tid, pin_context(tid), retries);

	if (err)
		return err;
	if (f->launch)
		return 0;	/* enabled at the exec */
	return enable_groups(f, tid);
}

/* The tracepoints of the calls a program makes seldom (exec, clone,
 * exit, prctl, pkey_mprotect, shmdt, io_destroy, shmat and io_setup's
 * stacks, and the
 * task_newtask and signal tracepoints), opened once on every CPU for
 * every task (pid -1) instead of in every thread's groups: they then
 * cost the target nothing.  Every event in a task's perf context costs
 * it at each of its mmaps, whatever the event: perf_event_mmap() walks
 * the context's whole event list (perf_iterate_sb() ->
 * perf_iterate_ctx(), kernel/events/core.c), and with one group per CPU
 * a thread's context holds (1 + tracepoints) x CPUs events.  With
 * perf record stand-ins, the dummy event and munmap's two tracepoints
 * cost an mmap+munmap loop 1.33x its untraced time, the dummy and 28
 * syscall tracepoints 1.59x; the seldom ones per CPU cost it nothing
 * measurable (bench/README.md, "The seldom calls' tracepoints per
 * CPU").  The price is records
 * of other processes' such calls in the rings (on_sample() drops them)
 * and their cost to those processes: a record each, on calls that
 * themselves take microseconds.
 *
 * Opened before any group, off (the groups' rings are theirs: the
 * first f->ncw of f->fds); enable_cw() turns them on, in the order
 * opened: on every CPU the tracepoints that end something (the calls'
 * exits, task_newtask, the signals'), then the calls' entries.  Where
 * the kernel refuses one, none is kept and the groups carry them all
 * (f->cw false). */
static void open_cw(struct mt_perf *f)
{
	struct perf_event_attr a;
	uint64_t id = 0;
	int cpu, err = 0, entries, k;
	size_t i;

	if (!f->cw || f->nfds)
		return;
	/* With f->bpf: per CPU the bpf-output events its programs write
	 * into (with the user stack and without), in that CPU's ring, and
	 * one event per call carrying a program (perf_bpf.c). */
	for (cpu = 0; f->bpf && cpu < f->ncpu && !err; cpu++) {
		if (!f->cpu_ok[cpu])
			continue;
		for (k = 0; k < 1 + f->stacks && !err; k++) {
			attr_base(f, &a);
			a.type = PERF_TYPE_SOFTWARE;
			a.config = PERF_COUNT_SW_BPF_OUTPUT;
			a.sample_period = 1;
			a.sample_type |= PERF_SAMPLE_RAW;
			if (k)
				a.sample_type |= PERF_SAMPLE_REGS_USER |
						 PERF_SAMPLE_STACK_USER;
			a.sample_regs_user = k ? REGS_MASK : 0;
			a.sample_stack_user = k ? MAPTAP_CALL_STACK_BYTES : 0;
			a.inherit = 0;
			a.enable_on_exec = 0;
			a.disabled = 1;
			err = open_one(f, &a, -1, cpu, -1);
			if (!err)
				err = mt_perf_bpf_output(f->bpf, cpu,
							 f->fds[f->nfds - 1],
							 k);
		}
	}
	for (entries = 0; entries < 2 && !err; entries++) {
		for (cpu = 0; cpu < f->ncpu && !err; cpu++) {
			if (!f->cpu_ok[cpu])
				continue;
			for (i = 0; i < f->ntp && !err; i++) {
				if (!f->tp_cw[i] || f->tp_bpf[i] ||
				    (int)f->tp_enter[i] != entries)
					continue;
				tp_attr(f, i, &a);
				a.inherit = 0;
				a.enable_on_exec = 0;
				a.disabled = 1;
				err = open_one(f, &a, -1, cpu, -1);
			}
		}
		if (!entries)
			f->ncw_ends = f->nfds;
	}
	/* the programs, off until enable_cw() (mt_perf_bpf_phase()) */
	for (cpu = 0; f->bpf && cpu < f->ncpu && !f->cpu_ok[cpu]; cpu++)
		;
	f->bpf_cpu = cpu;
	for (i = 0; f->bpf && i < f->ntp && !err; i++) {
		if (f->tp_bpf[i] && f->tp_nr[i] >= 0)
			err = mt_perf_bpf_attach(f->bpf, f->tp_id[i],
						 f->tp_enter[i] ?
						 MT_PERF_BPF_ENTER :
						 MT_PERF_BPF_EXIT,
						 f->tp_nargs[i], cpu);
	}
	if (!err && f->bpf)
		err = mt_perf_bpf_attach(f->bpf, f->newtask_id,
					 MT_PERF_BPF_NEWTASK, 0, cpu);
	if (!err && f->bpf)
		err = mt_perf_bpf_attach(f->bpf, f->gone_id, MT_PERF_BPF_GONE,
					 0, cpu);
	/* a launch: the lock's records from the exec (mt_perf_launch()) */
	if (!err && f->lock_bpf && f->lock_from) {
		err = mt_perf_bpf_attach(f->bpf, f->lock_id, MT_PERF_BPF_LOCK,
					 0, cpu);
		f->lock_attached = !err;
	}
	if (!err && f->nfds &&
	    ioctl(f->fds[f->nfds - 1], PERF_EVENT_IOC_ID, &id) != 0)
		err = -errno;
	if (err || !f->nfds) {
		for (i = 0; i < (size_t)f->ncpu * MT_PERF_SHARDS; i++) {
			mt_perf_ring_unmap(&f->ring[i]);
			f->ring_fd[i] = -1;
		}
		drop_bpf(f, "the events per CPU were refused");
		mt_perf_close_all(f->fds, f->nfds);
		f->nfds = 0;
		f->ncw_ends = 0;
		f->cw = false;
		return;
	}
	/* ids only grow: every group's are above (perf_dedup.c) */
	f->cw_id_max = id;
	f->ncw = f->nfds;
}

/* Turn on open_cw()'s events: at an attach once every thread's groups
 * are on, so that a clone's entry record still says its task has them
 * (on_sample()); at a launch at once (their records of the command
 * count from its exec: on_sample()).
 *
 * One by one, so in an order: every entry after every event that ends
 * what it begins.  A call whose entry record is read then has its exit
 * record, and a clone its task_newtask, which the pending FORK record
 * waits for (on_fork()).  Turned on the other way (CPU by CPU, each
 * CPU's in tp_list order), a fork between clone's entry and
 * task_newtask on its CPU left the child waiting for a record that
 * never came, its own EXIT record dropped meanwhile (no process yet),
 * and the child said "gone without an exit record" (perfmode.py 4b,
 * 1 attach in 100-300 to a forking target; test_perf_cwenable, with a
 * pause after each, in every run).  Returns 0 or -errno. */
static int enable_cw(struct mt_perf *f)
{
	size_t i;

	for (i = 0; i < f->ncw; i++) {
		if (i == f->ncw_ends && f->bpf) {
			mt_perf_bpf_phase(f->bpf, MT_PERF_BPF_EXITS);
			if (f->cw_pause_us)
				usleep(f->cw_pause_us);
		}
		if (ioctl(f->fds[i], PERF_EVENT_IOC_ENABLE, 0) != 0)
			return -errno;
		if (f->cw_pause_us)
			usleep(f->cw_pause_us);
	}
	if (f->bpf) {
		if (f->ncw_ends >= f->ncw)
			mt_perf_bpf_phase(f->bpf, MT_PERF_BPF_EXITS);
		mt_perf_bpf_phase(f->bpf, MT_PERF_BPF_ALL);
		f->bpf_all = true;
		if (f->lock_attached && !f->lock_from)
			f->lock_from = mt_now_ns();	/* lock_on() */
	}
	return 0;
}

/* The mmap_lock_acquire_returned records order a munmap or mprotect
 * against the mappings other threads of its mm make while it is in the
 * kernel (pending_unmaps()).  An mm with one thread has no such race,
 * and the tracepoint fires at every taking of the lock, page faults'
 * included: about 1.7 us per mmap+munmap pair, a tenth of the pair's
 * own cost (bench/README.md, "Attaching without stops").  So the lock's
 * events are opened off, and turned on, in every group opened and to
 * come, once some mm has a second thread (perf_thread_add()).  Enabling
 * an event enables its inherited copies too (perf_event_for_each_
 * child()).  Records are then complete for every lock taken after
 * f->lock_from; a call that entered before it is ordered without them
 * (lock_orders()).  Once on, they stay on.  Every group is 1 + (its
 * tracepoints: in_group()) fds in f->fds, after the f->ncw per CPU
 * (open_group(), open_cw()).
 *
 * With f->lock_bpf the lock is no event of the groups: its program
 * (mt_lock(), perf_bpf.bpf.c) is attached here, and until then the
 * tracepoint has no probe at all -- a probe registered, even of an
 * event that is off, makes the kernel look up the mm's memory cgroup
 * at every taking of the lock by any process
 * (__mmap_lock_do_trace_acquire_returned()).  Its records count from
 * enable_cw()'s turning every record on, if that comes later. */
static void lock_on(struct mt_perf *f)
{
	size_t i, pos = f->ntp, group = 1;
	bool ok = true;

	if (f->lock_id <= 0 || f->lock_from)
		return;
	if (f->lock_bpf) {
		/* Its program (tried again at the next thread); its records
		 * are complete from now on, or from enable_cw()'s turning
		 * them all on, whichever comes last. */
		if (!f->lock_attached &&
		    mt_perf_bpf_attach(f->bpf, f->lock_id, MT_PERF_BPF_LOCK, 0,
				       f->bpf_cpu) == 0)
			f->lock_attached = true;
		if (f->lock_attached && f->bpf_all)
			f->lock_from = mt_now_ns();
		return;
	}
	for (i = 0; i < f->ntp; i++) {
		if (!in_group(f, i))
			continue;
		if (f->tp_id[i] == f->lock_id)
			pos = group - 1;
		group++;
	}
	if (pos == f->ntp)
		return;
	for (i = f->ncw + 1 + pos; i < f->nfds; i += group)
		if (ioctl(f->fds[i], PERF_EVENT_IOC_ENABLE, 0) != 0)
			ok = false;	/* tried again at the next thread */
	if (ok)
		f->lock_from = mt_now_ns();
}

/* Whether thread O's call in flight is ordered by the lock's records:
 * it entered after they were complete (lock_on()). */
static bool lock_orders(const struct mt_perf *f, const struct mt_thread *o)
{
	return f->lock_from && o->perf_enter_ns >= f->lock_from;
}

/* mt_thread_add() for the perf source: an mm with a second thread, or
 * shared by a second process (clone(CLONE_VM)), needs the lock's
 * records from now on (lock_on()). */
static struct mt_thread *perf_thread_add(struct maptap_session *s, pid_t tid,
					 struct mt_proc *p)
{
	struct mt_thread *t = mt_thread_add(s, tid, p);

	if (t && (p->nthreads > 1 || p->mm->refs > 1))
		lock_on(s->perf);
	return t;
}

/* Raise the soft limit of open files to the hard one: a set of events
 * per thread and CPU. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* ---- choosing the source ---- */

/* -v's line (maptap_session_events()): perf mode, why, and how the
 * system calls are read; again once open_cw() has run (it may give the
 * calls back to tracepoint events). */
static void events_note(struct maptap_session *s)
{
	struct mt_perf *f = s->perf;

	if (f->bpf)
		snprintf(s->events_why, sizeof(s->events_why),
			 "%s; system calls through BPF programs",
			 f->events_base);
	else
		snprintf(s->events_why, sizeof(s->events_why),
			 "%s; system calls by tracepoint events (no BPF: %s)",
			 f->events_base, f->bpf_why);
}

bool mt_perf_choose(struct maptap_session *s, bool launch, int *err)
{
	char why[200] = "", note[80] = "";
	const char *tracefs;

	*err = 0;
	if (s->opts.events == MAPTAP_EVENTS_PTRACE) {
		snprintf(s->events_why, sizeof(s->events_why),
			 "ptrace (asked for)");
		return false;
	}
	tracefs = find_tracefs(why, sizeof(why), note, sizeof(note));
	if (tracefs) {
		s->perf = new_perf(tracefs, s->opts.call_stacks, why,
				   sizeof(why));
		if (s->perf) {
			s->perf->launch = launch;
			s->perf->cw_pause_us = s->perf_test_cw_pause_us;
		}
	}
	if (s->perf) {
		snprintf(s->perf->events_base, sizeof(s->perf->events_base),
			 "%sperf events (%s)", note,
			 s->opts.events == MAPTAP_EVENTS_PERF ? "asked for" :
			 "the kernel and privileges allow them");
		events_note(s);
		return true;
	}
	if (s->opts.events == MAPTAP_EVENTS_PERF) {
		*err = mt_error(s, -EOPNOTSUPP,
				"--events=perf: cannot use perf events: %s",
				why);
		return false;
	}
	snprintf(s->events_why, sizeof(s->events_why),
		 "ptrace: perf events cannot be used: %s", why);
	return false;
}

/* A failed perf_event_open() at attach: in auto mode, fall back to
 * ptrace (returns false); else an error. */
static bool open_failed(struct maptap_session *s, int err, pid_t pid)
{
	const char *hint = err == -EACCES || err == -EPERM ?
		" (needs CAP_PERFMON or root, or a lower /proc/sys/kernel/perf_event_paranoid)" :
		err == -EMFILE ? " (too many open files: a set of events per thread and CPU)" :
		"";

	free_perf(s->perf);
	s->perf = NULL;
	if (s->opts.events == MAPTAP_EVENTS_AUTO) {
		snprintf(s->events_why, sizeof(s->events_why),
			 "ptrace: perf events cannot be used on process %d: perf_event_open: %s%s",
			 (int)pid, strerror(-err), hint);
		return false;
	}
	mt_error(s, err, "cannot open perf events on process %d: %s%s",
		 (int)pid, strerror(-err), hint);
	return true;
}

/* ---- the model ---- */

static void hint_of(struct maptap_mm_hint *h, struct mt_proc *p, pid_t tid,
		    const struct maptap_syscall *sc, uint64_t time)
{
	memset(h, 0, sizeof(*h));
	h->pid = p->pid;
	h->tid = tid;
	h->time_ns = time;
	h->syscall_nr = sc ? sc->nr : -1;
	h->syscall = sc ? sc->name : NULL;
}

static void range_add(struct pf_ranges *r, pid_t pid, uint64_t lo,
		      uint64_t hi, uint64_t since, uint64_t khash, bool verify)
{
	size_t i;

	if (lo >= hi)
		return;
	for (i = 0; i < r->n; i++) {
		struct pf_range *x = &r->v[i];

		if (x->pid == pid && x->lo <= hi && lo <= x->hi) {
			if (lo < x->lo || hi > x->hi || khash != x->khash)
				x->khash = 0;	/* a read of less */
			if (lo < x->lo)
				x->lo = lo;
			if (hi > x->hi)
				x->hi = hi;
			if (since > x->since)
				x->since = since;
			x->verify |= verify;
			return;
		}
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		struct pf_range *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return;	/* the next --verify or resync finds it */
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = (struct pf_range){ pid, lo, hi, since, since, khash,
					  verify };
}

static void touch(struct mt_perf *f, struct mt_proc *p, uint64_t lo,
		  uint64_t hi)
{
	range_add(&f->touched, p->pid, lo, hi, 0, 0, false);
}

static void exec_wait_end(struct maptap_session *s, struct mt_proc *p,
			  const char *path, size_t len);
static int copy_vma(const struct maptap_vma *v, void *arg);
static struct maptap_mm *fork_image(const struct mt_mm *mm);
static void fork_point(struct maptap_session *s, struct mt_proc *p,
		       struct mt_thread *t, uint64_t time);
static void dontcopy(struct mt_mm *mm, uint64_t lo, uint64_t hi, bool on);
static void read_dontcopy(struct mt_proc *p);
static void prefork_exit(struct maptap_session *s, struct mt_thread *t,
			 const struct maptap_syscall *sc, uint64_t time,
			 uint64_t lo, uint64_t hi);

/* Where the model's changes go: nowhere while P's image is being built
 * by its execve (from its COMM record to its exit record), which the
 * kernel does in steps -- the whole image mapped read-only, then each
 * segment again in place (MAP_FIXED), the bss, the stack -- each with
 * its own record; the image is logged once complete, as ptrace's read
 * at the exec stop gives it (exec_snapshot()). */
static maptap_event_fn emit_fn(const struct mt_proc *p)
{
	return p->perf_in_exec ? NULL : mt_emit_cb;
}

/* P's execve ended (its exit record, TIME) or will not be seen to end
 * (the process's end, a detach, a resync, another exec): its exec event
 * if it still waits for its image's path (exec_wait_end()), then the
 * image it built as its snapshot -- a map event for each VMA, with no
 * system call, as ptrace mode's exec snapshot (a fresh helper saw the
 * steps logged as protect and replace events of execve). */
static void exec_snapshot(struct maptap_session *s, struct mt_proc *p,
			  uint64_t time)
{
	struct maptap_mm_hint h;
	struct maptap_mm *m;

	exec_wait_end(s, p, NULL, 0);
	if (!p->perf_in_exec)
		return;
	p->perf_in_exec = false;
	m = maptap_mm_new();
	if (!m)
		return;
	maptap_vma_buf_clear(&s->buf2);
	maptap_mm_foreach(p->mm->model, 0, MT_TOP, copy_vma, &s->buf2);
	maptap_vma_buf_finish(&s->buf2);
	maptap_mm_free(p->mm->model);
	p->mm->model = m;
	hint_of(&h, p, p->pid, NULL, time);
	h.snapshot = true;
	maptap_mm_update(p->mm->model, 0, MT_TOP, s->buf2.v, s->buf2.n, &h,
			 mt_emit_cb, s);
	if (p->perf_ready_why) {
		enum maptap_ready_why why =
			(enum maptap_ready_why)(p->perf_ready_why - 1);

		p->perf_ready_why = 0;
		mt_ready(s, p, p->pid, why);
	}
}

/* A whole read of P's mm, its changes as events without a call. */
static void resync_full(struct maptap_session *s, struct mt_proc *p)
{
	exec_snapshot(s, p, mt_now_ns());
	/* The break seen last may be older than the read (a brk's record
	 * lost): the next shrink takes the old one from the heap read
	 * (apply_brk()). */
	p->mm->brk = 0;
	if (mt_refresh_full(s, p, p->pid, false) == 0)
		s->stats.resyncs++;
}

/* resync_full(), and the records P's model counts from are those after
 * it (P->perf_since): what came before is in the read. */
static void resync_from_now(struct maptap_session *s, struct mt_proc *p)
{
	p->perf_since = mt_now_ns();
	resync_full(s, p);
}

/* Replace the model of [LO, HI) (and [LO2, HI2) when not empty) by a
 * read of the kernel's, in the name of call SC of TID. */
static void apply_read(struct maptap_session *s, struct mt_proc *p,
		       pid_t tid, const struct maptap_syscall *sc,
		       uint64_t time, uint64_t lo, uint64_t hi, uint64_t lo2,
		       uint64_t hi2, bool in_place)
{
	struct maptap_mm_hint h;
	struct maptap_vma *all = NULL;
	size_t n;

	if (mt_ensure_reader(s, p))
		return;
	hint_of(&h, p, tid, sc, time);
	h.in_place = in_place;
	maptap_vma_buf_clear(&s->buf);
	if (maptap_maps_read_range(p->mm->reader, lo, hi, &s->buf))
		return;
	s->stats.refreshes++;
	touch(s->perf, p, lo, hi);
	if (lo2 >= hi2 || (lo2 < hi && lo < hi2)) {
		if (lo2 < hi2) {	/* overlapping: one range */
			lo = lo < lo2 ? lo : lo2;
			hi = hi > hi2 ? hi : hi2;
			maptap_vma_buf_clear(&s->buf);
			if (maptap_maps_read_range(p->mm->reader, lo, hi,
						   &s->buf))
				return;
		}
		maptap_mm_update(p->mm->model, lo, hi, s->buf.v, s->buf.n, &h,
				 mt_emit_cb, s);
		return;
	}
	maptap_vma_buf_clear(&s->buf2);
	if (maptap_maps_read_range(p->mm->reader, lo2, hi2, &s->buf2))
		return;
	touch(s->perf, p, lo2, hi2);
	all = malloc((s->buf.n + s->buf2.n + 1) * sizeof(*all));
	if (!all)
		return;
	n = 0;
	/* Address order, a VMA in both reads once. */
	{
		size_t i = 0, j = 0;

		while (i < s->buf.n || j < s->buf2.n) {
			const struct maptap_vma *x;

			if (j >= s->buf2.n ||
			    (i < s->buf.n && s->buf.v[i].start <= s->buf2.v[j].start))
				x = &s->buf.v[i++];
			else
				x = &s->buf2.v[j++];
			if (n && all[n - 1].start == x->start)
				continue;
			all[n++] = *x;
		}
	}
	h.move_old = lo;
	h.move_old_len = hi - lo;
	h.move_new = lo2;
	h.move_new_len = hi2 - lo2;
	if (lo < lo2)
		maptap_mm_update2(p->mm->model, lo, hi, lo2, hi2, all, n, &h,
				  mt_emit_cb, s);
	else
		maptap_mm_update2(p->mm->model, lo2, hi2, lo, hi, all, n, &h,
				  mt_emit_cb, s);
	free(all);
}

/* X cut to [LO, HI): a file mapping's offset moves with its start. */
static void clip(struct maptap_vma *x, uint64_t lo, uint64_t hi)
{
	if (x->start < lo) {
		if (x->inode)
			x->offset += lo - x->start;
		x->start = lo;
	}
	if (x->end > hi)
		x->end = hi;
}

struct collect {
	struct maptap_vma_buf *buf;
	uint64_t lo, hi;
	uint32_t perms;
};

static int collect_prot(const struct maptap_vma *v, void *arg)
{
	struct collect *c = arg;
	struct maptap_vma x = *v;

	clip(&x, c->lo, c->hi);
	x.perms = (x.perms & MAPTAP_PERM_S) | c->perms;
	return maptap_vma_buf_push(c->buf, &x) ? -1 : 0;
}

/* mprotect(2) succeeded on [LO, HI): the same mappings, new permissions. */
static void apply_protect(struct maptap_session *s, struct mt_proc *p,
			  pid_t tid, const struct maptap_syscall *sc,
			  uint64_t time, uint64_t lo, uint64_t hi,
			  uint64_t prot)
{
	struct collect c = { &s->buf2, lo, hi, 0 };
	struct maptap_mm_hint h;

	if (prot & PROT_READ)
		c.perms |= MAPTAP_PERM_R;
	if (prot & PROT_WRITE)
		c.perms |= MAPTAP_PERM_W;
	if (prot & PROT_EXEC)
		c.perms |= MAPTAP_PERM_X;
	maptap_vma_buf_clear(&s->buf2);
	if (maptap_mm_foreach(p->mm->model, lo, hi, collect_prot, &c) != 0)
		return;
	maptap_vma_buf_finish(&s->buf2);
	hint_of(&h, p, tid, sc, time);
	maptap_mm_update(p->mm->model, lo, hi, s->buf2.v, s->buf2.n, &h,
			 mt_emit_cb, s);
	touch(s->perf, p, lo, hi);
}

/* ---- records ---- */

struct pf_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
};

/* The sample_id trailer of a record other than a sample. */
static bool trailer(const struct perf_event_header *h, struct pf_sample_id *sid)
{
	if (h->size < sizeof(*h) + sizeof(*sid))
		return false;
	memcpy(sid, (const uint8_t *)h + h->size - sizeof(*sid), sizeof(*sid));
	return true;
}

static uint64_t record_time(const struct perf_event_header *h)
{
	struct pf_sample_id sid;
	uint64_t t;

	if (h->type == PERF_RECORD_SAMPLE) {
		/* { header; u64 id; u32 pid, tid; u64 time; ... } */
		if (h->size < sizeof(*h) + 24)
			return 0;
		memcpy(&t, (const uint8_t *)h + sizeof(*h) + 16, 8);
		return t;
	}
	return trailer(h, &sid) ? sid.time : 0;
}

static struct mt_thread *thread_of(struct maptap_session *s,
				   struct mt_proc *p, pid_t tid)
{
	struct mt_thread *t = mt_thread_find(s, tid);

	if (t)
		return t->proc == p ? t : NULL;
	return perf_thread_add(s, tid, p);
}

static int count_vma(const struct maptap_vma *v, void *arg)
{
	(void)v;
	++*(size_t *)arg;
	return 0;
}

void mt_perf_mremap_src_free(struct mt_thread *t)
{
	if (!t->perf_mremap_src)
		return;
	maptap_vma_buf_free(t->perf_mremap_src);
	free(t->perf_mremap_src);
	t->perf_mremap_src = NULL;
}

/* Sibling O's mremap took the mm's lock before a mapping over [LO, HI)
 * of P by SELF (the lock's records order them: pending_unmaps()), so it
 * has run: what of its old range the mapping takes, the mremap freed
 * (moved, or cut off in place; mremap_to(), move_vma(), mm/mremap.c).
 * Its exit record, still to come, moves or cuts the model's old range,
 * which by then holds the sibling's mapping there: the move carried
 * that mapping to the new place and unmapped it from the old (a storm
 * of 250 threads: "model none, kernel rw-p" where a sibling's mmap took
 * pages an mremap had just moved away, its MMAP2 record written before
 * the mremap's exit record).  So the old range as the model has it now,
 * before the mapping, is kept for the exit, and the mapping's range
 * with it (O->after): apply_mremap().  The part the mapping takes is
 * unmapped now, in the mremap's name. */
static void mremap_ran(struct maptap_session *s, struct mt_proc *p,
		       struct mt_thread *o, const struct mt_thread *self,
		       uint64_t lo, uint64_t hi, uint64_t time)
{
	uint64_t a = PAGE_DOWN(o->args[0]), b = a + PAGE_UP(o->args[1]);
	struct maptap_mm_hint h;

	if (!o->perf_lock_ns || !(a < hi && lo < b))
		return;
	if (!o->perf_mremap_src) {
		o->perf_mremap_src = calloc(1, sizeof(*o->perf_mremap_src));
		if (o->perf_mremap_src &&
		    maptap_mm_foreach(p->mm->model, a, b, copy_vma,
				      o->perf_mremap_src) != 0)
			mt_perf_mremap_src_free(o);
		if (!o->perf_mremap_src) {
			o->n_after = 5;	/* unknown: its exit reads */
			return;
		}
		maptap_vma_buf_finish(o->perf_mremap_src);
	}
	if (o->n_after < 4)
		o->after[o->n_after] = (struct mt_after){
			self ? self->tid : p->pid, NULL, lo, hi };
	o->n_after++;
	/* Freed by the mremap, in its name, before the mapping's event. */
	if (lo < a)
		lo = a;
	if (hi > b)
		hi = b;
	hint_of(&h, o->proc, o->tid, o->call, time);
	maptap_mm_update(p->mm->model, lo, hi, NULL, 0, &h, mt_emit_cb, s);
	touch(s->perf, p, lo, hi);
}

/* A new mapping at [LO, HI) of P, by thread SELF at TIME, where the
 * model still has memory: a sibling's munmap entered before and not yet
 * out freed it (the kernel unmaps between the entry and the exit, and
 * the exit's record comes after this one).  Apply that munmap now, in
 * its name; its exit then applies nothing (refresh.c does the same for
 * ptrace stops: report_pending_unmaps()).
 *
 * ORDERED: only the siblings whose calls the lock's records order
 * (lock_orders()), over the record's whole VMA; else only the others,
 * over a part where the record and the model differ.  An ordered
 * munmap that ran before is applied wherever it meets the new VMA, also
 * where the model's memory looks like the new mapping's: a sibling's
 * freed page that the kernel handed to this mmap at once, anonymous and
 * rw-p like it, was no difference, so the munmap was not applied first;
 * its exit then unmapped the new page, and the mmap's own munmap
 * unmapped one page less (perfmode.py's mapstorm: 12,770-12,777 pages
 * logged for 12,776 in about 1 run in 8 with two storms at once).  An
 * ordered madvise(MADV_DONTFORK or MADV_DOFORK) that ran before sets
 * its mark here (dontcopy()); at its exit, after this mapping, the mark
 * would cover a new VMA that the kernel never marked.
 *
 * fork_point() calls it too, with the whole address space and SELF the
 * forking thread: what ran before dup_mmap()'s copy is in the child. */
static void pending_unmaps(struct maptap_session *s, struct mt_proc *p,
			   struct mt_thread *self, uint64_t lo, uint64_t hi,
			   uint64_t time, bool ordered)
{
	struct maptap_mm_hint h;
	size_t i, n = 0;

	maptap_mm_foreach(p->mm->model, lo, hi, count_vma, &n);
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = mt_thread_at(s, i);
		uint64_t a, b, a2, b2;

		if (!o || o == self ||
		    !o->call || o->proc->mm != p->mm ||
		    lock_orders(s->perf, o) != ordered)
			continue;
		if (ordered && o->call->nr == SYS_madvise &&
		    (o->args[2] == MADV_DONTFORK ||
		     o->args[2] == MADV_DOFORK)) {
			/* It ran before: its mark now, which its exit
			 * would set after this mapping (which ends a mark
			 * where it lands) or this fork's copy (whose child
			 * dup_mmap() gave the marked VMAs or not). */
			a = PAGE_DOWN(o->args[0]);
			b = PAGE_UP(o->args[0] + o->args[1]);
			if (o->perf_lock_ns && !o->reported && a < hi &&
			    lo < b) {
				dontcopy(p->mm, a, b,
					 o->args[2] == MADV_DONTFORK);
				o->reported = true;
			}
			continue;
		}
		/* With the lock's records the order is exact: a sibling's
		 * munmap or mprotect that took the mm's lock before this
		 * mapping (which holds the same lock) has run, and is
		 * applied first; one that has not will run after it, and
		 * is applied at its exit. */
		if (ordered && o->call->range == MAPTAP_RANGE_MREMAP) {
			mremap_ran(s, p, o, self, lo, hi, time);
			continue;
		}
		if (ordered) {
			bool prot = o->call->nr == SYS_mprotect ||
				    o->call->nr == SYS_pkey_mprotect;

			if ((!prot && o->call->range != MAPTAP_RANGE_UNMAP) ||
			    !o->perf_lock_ns || o->reported ||
			    maptap_syscall_range(o->call, o->args, 0, &a, &b,
						 &a2, &b2) != 1 ||
			    !(a < hi && lo < b))
				continue;
			if (prot) {
				apply_protect(s, p, o->tid, o->call, time, a, b,
					      o->args[2]);
			} else {
				hint_of(&h, o->proc, o->tid, o->call, time);
				maptap_mm_update(p->mm->model, a, b, NULL, 0,
						 &h, mt_emit_cb, s);
				touch(s->perf, p, a, b);
			}
			o->reported = true;
			continue;
		}
		if (o->call->range != MAPTAP_RANGE_UNMAP ||
		    maptap_syscall_range(o->call, o->args, 0, &a, &b, &a2,
					 &b2) != 1 ||
		    !(a < hi && lo < b))
			continue;
		/* Its exit reads what is here then: this mapping may have
		 * come before the munmap ran or after (unmap_exit()). */
		if (o->n_after < 4)
			o->after[o->n_after] = (struct mt_after){
				self ? self->tid : p->pid, NULL, lo, hi };
		o->n_after++;
		/* Without the lock's records: memory still in the model
		 * where this mapping lands was most likely freed by it. */
		if (!n || o->reported)
			continue;
		hint_of(&h, o->proc, o->tid, o->call, time);
		maptap_mm_update(p->mm->model, a, b, NULL, 0, &h, mt_emit_cb, s);
		touch(s->perf, p, a, b);
		o->reported = true;
	}
}

/* munmap T of [LO, HI) returned 0.  Its range is gone, unless it was
 * applied already (pending_unmaps()).  What other threads mapped there
 * while it was in the kernel (T->after: their MMAP2 records came between
 * its entry and exit) may be from before it ran (gone) or after (there):
 * a read of those ranges says which.  A MAP_FIXED mapping over memory it
 * had not freed yet made pending_unmaps() take it early; the read puts
 * right what it unmapped too soon. */
static void unmap_exit(struct maptap_session *s, struct mt_thread *t,
		       const struct maptap_syscall *sc, uint64_t time,
		       uint64_t lo, uint64_t hi)
{
	struct mt_proc *p = t->proc;
	struct maptap_mm_hint h;
	uint64_t x = lo, y;
	int i, n = t->n_after;

	hint_of(&h, p, t->tid, sc, time);
	if (lock_orders(s->perf, t)) {
		/* Ordered by the lock (pending_unmaps()): applied already
		 * when a mapping came after it ran; else all of it now. */
		if (!t->reported) {
			maptap_mm_update(p->mm->model, lo, hi, NULL, 0, &h,
					 mt_emit_cb, s);
			touch(s->perf, p, lo, hi);
		}
		return;
	}
	if (n > 4) {	/* too many to tell apart: the kernel's now */
		if (!t->reported)
			maptap_mm_update(p->mm->model, lo, hi, NULL, 0, &h,
					 mt_emit_cb, s);
		apply_read(s, p, t->tid, sc, time, lo, hi, 0, 0, false);
		return;
	}
	/* Unmapped: the range but for those mappings, which a read
	 * settles (in this munmap's name where they are gone). */
	while (!t->reported && x < hi) {
		y = hi;
		for (i = 0; i < n; i++) {
			if (t->after[i].lo <= x && x < t->after[i].hi)
				break;
			if (t->after[i].lo > x && t->after[i].lo < y)
				y = t->after[i].lo;
		}
		if (i < n) {
			x = t->after[i].hi;
			continue;
		}
		maptap_mm_update(p->mm->model, x, y, NULL, 0, &h, mt_emit_cb, s);
		touch(s->perf, p, x, y);
		x = y;
	}
	for (i = 0; i < n; i++) {
		uint64_t a = t->after[i].lo > lo ? t->after[i].lo : lo;
		uint64_t b = t->after[i].hi < hi ? t->after[i].hi : hi;

		if (a < b)
			apply_read(s, p, t->tid, sc, time, a, b, 0, 0, false);
	}
}

struct pieces {
	uint64_t r[8][2];
	size_t n;		/* > 8: more than kept */
};

static void add_piece(uint64_t lo, uint64_t hi, const struct maptap_vma *model,
		      const struct maptap_vma *kernel, void *arg)
{
	struct pieces *pc = arg;

	(void)model;
	(void)kernel;
	if (pc->n < 8) {
		pc->r[pc->n][0] = lo;
		pc->r[pc->n][1] = hi;
	}
	pc->n++;
}

static void exec_wait_end(struct maptap_session *s, struct mt_proc *p,
			  const char *path, size_t len);

/* Most records of P held back while its exec event waits: the kernel
 * gives one (the [stack] of __bprm_mm_init()) before the image's. */
#define MT_MAX_HELD	16

/* Keep a copy of the MMAP2 record R (LEN bytes, at TIME) of P until its
 * exec event (exec_wait_end()).  0 when kept; -ENOMEM, or -ENOSPC when
 * MT_MAX_HELD are held already: the caller ends the wait. */
static int hold_record(struct mt_proc *p, const uint8_t *r, size_t len,
		       uint64_t time)
{
	struct mt_held_rec *h;
	uint8_t *copy;

	if (p->perf_exec_wait.nheld == MT_MAX_HELD)
		return -ENOSPC;
	if (!p->perf_exec_wait.held) {
		p->perf_exec_wait.held = calloc(MT_MAX_HELD, sizeof(*h));
		if (!p->perf_exec_wait.held)
			return -ENOMEM;
	}
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, r, len);
	h = &p->perf_exec_wait.held[p->perf_exec_wait.nheld++];
	h->time = time;
	h->len = len;
	h->rec = copy;
	return 0;
}

static void on_mmap2(struct maptap_session *s, const uint8_t *r, size_t len,
		     uint64_t time)
{
	/* { u32 pid, tid; u64 addr, len, pgoff; u32 maj, min; u64 ino,
	 *   ino_generation; u32 prot, flags; char filename[]; sample_id } */
	uint32_t pid, tid, maj, min, prot, flags;
	uint64_t addr, size, pgoff, ino;
	const char *name;
	size_t nlen, max;
	struct maptap_vma v;
	struct maptap_mm_hint h;
	struct mt_proc *p;
	struct mt_thread *t;
	bool heap;

	if (len < 64 + sizeof(struct pf_sample_id))
		return;
	memcpy(&pid, r, 4);
	memcpy(&tid, r + 4, 4);
	memcpy(&addr, r + 8, 8);
	memcpy(&size, r + 16, 8);
	memcpy(&pgoff, r + 24, 8);
	memcpy(&maj, r + 32, 4);
	memcpy(&min, r + 36, 4);
	memcpy(&ino, r + 40, 8);
	memcpy(&prot, r + 56, 4);
	memcpy(&flags, r + 60, 4);
	p = mt_proc_find(s, (pid_t)pid);
	if (p && p->perf_exec_wait.on) {
		/* The exec event comes first: execve's [stack] record
		 * (before the image's) waits for it. */
		if (!(ino || maj || min) && !hold_record(p, r, len, time))
			return;
		name = (const char *)r + 64;
		max = len - 64 - sizeof(struct pf_sample_id);
		exec_wait_end(s, p, (ino || maj || min) ? name : NULL,
			      strnlen(name, max));
	}
	if (!p || !p->ready || time < p->perf_since)
		return;
	t = thread_of(s, p, (pid_t)tid);
	/* Within a call whose exit applies what it did (mremap, ...).  A
	 * brk(2) that grows the heap maps it with do_brk_flags(), which
	 * gives this record: the heap, as /proc/PID/maps names it. */
	if (t && t->call && t->call->range != MAPTAP_RANGE_BRK)
		return;
	heap = t && t->call;
	/* A mapping that no sampled call of T made (exec's, a call not
	 * traced) has no call stack: T's is an older call's. */
	if (t && t->perf_stack && !heap && t->perf_stack->nr != SYS_mmap &&
	    t->perf_stack->nr != SYS_shmat && t->perf_stack->nr != SYS_io_setup)
		t->perf_stack->ok = false;
	name = (const char *)r + 64;
	max = len - 64 - sizeof(struct pf_sample_id);
	nlen = strnlen(name, max);
	if (strcmp(name, "//anon") == 0)
		nlen = 0;
	if (heap && !ino) {
		name = "[heap]";
		nlen = 6;
	}
	memset(&v, 0, sizeof(v));
	v.start = PAGE_DOWN(addr);
	v.end = PAGE_UP(addr + size);
	if (ino || maj || min) {
		v.inode = ino;
		v.dev_major = maj;
		v.dev_minor = min;
		v.offset = pgoff;
	}
	if (prot & PROT_READ)
		v.perms |= MAPTAP_PERM_R;
	if (prot & PROT_WRITE)
		v.perms |= MAPTAP_PERM_W;
	if (prot & PROT_EXEC)
		v.perms |= MAPTAP_PERM_X;
	if (flags & MAP_SHARED)
		v.perms |= MAPTAP_PERM_S;
	v.name = nlen ? name : "";
	v.name_len = nlen;
	v.kind = maptap_vma_kind_of(v.name, v.name_len, v.inode);
	/* The record gives the VMA after the kernel merged the new mapping
	 * with its neighbours: the new part is where it differs from the
	 * model. */
	{
		struct pieces pc = { .n = 0 };
		size_t i;

		maptap_mm_verify_range(p->mm->model, v.start, v.end, &v, 1,
				       add_piece, &pc);
		if (pc.n > 8) {
			pc.n = 1;
			pc.r[0][0] = v.start;
			pc.r[0][1] = v.end;
		}
		pending_unmaps(s, p, t, v.start, v.end, time, true);
		for (i = 0; i < pc.n; i++)
			pending_unmaps(s, p, t, pc.r[i][0], pc.r[i][1], time,
				       false);
	}
	hint_of(&h, p, (pid_t)tid, heap ? t->call : maptap_syscall_lookup(
		maptap_syscall_native_arch(), SYS_mmap), time);
	h.in_place = heap;
	if (p->perf_in_exec) {
		/* The new image, mapped by execve itself: its snapshot, as
		 * ptrace's read at the exec stop gives it. */
		hint_of(&h, p, (pid_t)tid, maptap_syscall_lookup(
			maptap_syscall_native_arch(), SYS_execve), time);
		h.snapshot = true;
	}
	/* The record gives the VMA after the kernel merged the new mapping
	 * with its neighbours (mmap_region() reports the merged VMA): the
	 * new part is known only for a file mapping, which merges with
	 * nothing in practice.  An anonymous mapping over one just like it
	 * (MAP_FIXED) is then no event. */
	if (v.inode && !h.snapshot) {
		h.fresh_lo = v.start;
		h.fresh_hi = v.end;
	}
	/* a new VMA: no MADV_DONTFORK of an old one applies to it */
	dontcopy(p->mm, v.start, v.end, false);
	maptap_mm_update(p->mm->model, v.start, v.end, &v, 1, &h, emit_fn(p),
			 s);
	touch(s->perf, p, v.start, v.end);
	s->stats.map_calls++;
}

/* The end of the [heap] that the model of MM has from ADDR up, its
 * pieces (an mprotect of part of it splits it) taken together; ADDR
 * when it has none there. */
static uint64_t heap_end(const struct mt_mm *mm, uint64_t addr)
{
	const struct maptap_vma *v;

	while ((v = maptap_mm_find(mm->model, addr)) &&
	       v->kind == MAPTAP_VMA_HEAP)
		addr = v->end;
	return addr;
}

/* brk(2) returned RET, the new break.  Growing, the kernel gave a
 * PERF_RECORD_MMAP2 of the heap, taken as [heap] (on_mmap2()); shrinking
 * gives none: the kernel unmaps from the new break to the old one, both
 * page-aligned (brk() in mm/mmap.c: do_vmi_align_munmap() of
 * [PAGE_ALIGN(brk), PAGE_ALIGN(mm->brk))).  The old break is the last
 * one seen.  None is after an attach or a whole read: the old break is
 * then where the model's heap ends, above the new one (the end of a
 * [heap] VMA is its page-aligned break: fs/proc/task_mmu.c names
 * [heap] what vma_is_initial_heap() says is below it).  Skipped there,
 * a shrink that was an attached process's first brk left the pages it
 * freed in the model for good (the log replayed them as mapped, 3
 * attaches in 3; ptrace mode reads the range: refresh.c,
 * brk_range()). */
static void apply_brk(struct maptap_session *s, struct mt_proc *p, pid_t tid,
		      const struct maptap_syscall *sc, uint64_t time,
		      int64_t ret)
{
	uint64_t old = p->mm->brk, now = (uint64_t)ret;
	struct maptap_mm_hint h;

	if (ret <= 0)
		return;
	p->mm->brk = now;
	if (!old)
		old = heap_end(p->mm, PAGE_UP(now));
	if (PAGE_UP(now) >= PAGE_UP(old))
		return;
	hint_of(&h, p, tid, sc, time);
	h.in_place = true;
	maptap_mm_update(p->mm->model, PAGE_UP(now), PAGE_UP(old), NULL, 0,
			 &h, mt_emit_cb, s);
	touch(s->perf, p, PAGE_UP(now), PAGE_UP(old));
}

struct shift {
	struct maptap_vma_buf *buf;
	uint64_t lo, hi;	/* the part taken */
	int64_t by;		/* added to each address */
};

static int shift_vma(const struct maptap_vma *v, void *arg)
{
	struct shift *c = arg;
	struct maptap_vma x = *v;

	clip(&x, c->lo, c->hi);
	x.start += (uint64_t)c->by;
	x.end += (uint64_t)c->by;
	return maptap_vma_buf_push(c->buf, &x) ? -1 : 0;
}

/* Mark [LO, HI) of MM as MADV_DONTFORK'd (ON) or not.  A fork child
 * gets every VMA of its parent but those (VM_DONTCOPY: dup_mmap(),
 * kernel/fork.c), and neither /proc/PID/maps nor PROCMAP_QUERY shows
 * the flag: the madvise records say, in their order, and a mapping
 * made or unmapped over a range ends its mark (new_process()); what
 * was marked before the records began is read from smaps
 * (read_dontcopy()).  The marks are a model of their own, with no
 * events. */
static void dontcopy(struct mt_mm *mm, uint64_t lo, uint64_t hi, bool on)
{
	struct maptap_vma v;

	if (lo >= hi || (!on && !mm->perf_dontcopy))
		return;
	if (!mm->perf_dontcopy && !(mm->perf_dontcopy = maptap_mm_new()))
		return;
	memset(&v, 0, sizeof(v));
	v.start = lo;
	v.end = hi;
	v.name = "";	/* the model copies name_len bytes of it */
	maptap_mm_update(mm->perf_dontcopy, lo, hi, &v, on ? 1 : 0, NULL,
			 NULL, NULL);
}

/* Whether smaps' VmFlags line LINE has the flag "dc" (VM_DONTCOPY):
 * two letters a flag, each followed by a space (show_smap_vma_flags(),
 * fs/proc/task_mmu.c). */
static bool flags_dc(const char *line)
{
	const char *f;

	for (f = line + 8; (f = strstr(f, " dc")); f += 3)
		if (f[3] == ' ' || f[3] == '\n' || !f[3])
			return true;
	return false;
}

/* The marks of P's mm as the kernel has them now, from the VmFlags of
 * /proc/PID/smaps (the only place that shows VM_DONTCOPY).  A mark made
 * before maptap's records began -- before an attach, or while records
 * were lost -- has no madvise record: a child forked after an attach
 * to a process that had marked a page was given the page (its log had
 * a page its maps did not).  Read with the full read of an attach or a
 * resync after lost records, whose time the records after it count
 * from (p->perf_since).  smaps walks the page tables of every VMA, so
 * only then: the records keep the marks. */
static void read_dontcopy(struct mt_proc *p)
{
	unsigned long long a, b, lo = 0, hi = 0;
	char path[64], *line = NULL;
	size_t cap = 0;
	bool have = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)p->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	maptap_mm_free(p->mm->perf_dontcopy);
	p->mm->perf_dontcopy = NULL;
	while (getline(&line, &cap, f) > 0) {
		/* a VMA's first line: "START-END PERMS ..." (a field's
		 * line may begin with hex letters: "FilePmdMapped:") */
		if (sscanf(line, "%llx-%llx ", &a, &b) == 2 &&
		    strchr(line, ' ') > strchr(line, '-')) {
			lo = a;
			hi = b;
			have = true;
			continue;
		}
		if (have && strncmp(line, "VmFlags:", 8) == 0) {
			if (flags_dc(line))
				dontcopy(p->mm, lo, hi, true);
			have = false;
		}
	}
	free(line);
	fclose(f);
}

struct dc_move {
	struct mt_mm *mm;
	uint64_t lo, hi;	/* the part moved */
	int64_t by;
};

static int dc_moved(const struct maptap_vma *v, void *arg)
{
	struct dc_move *c = arg;
	struct maptap_vma x = *v;

	clip(&x, c->lo, c->hi);
	if (x.start < x.end)
		dontcopy(c->mm, x.start + (uint64_t)c->by,
			 x.end + (uint64_t)c->by, true);
	return 0;
}

/* mremap(2) of [A, A + OLEN) to [NEW, NEW + NLEN) returned: the marks
 * go with the VMAs (the flags move with them), a grown VMA's new part
 * takes its mark. */
static void dontcopy_mremap(struct mt_mm *mm, uint64_t a, uint64_t olen,
			    uint64_t new, uint64_t nlen)
{
	struct dc_move c = { mm, a, a + (nlen < olen ? nlen : olen),
			     (int64_t)(new - a) };
	bool last;

	if (!mm->perf_dontcopy || !olen)
		return;
	last = maptap_mm_find(mm->perf_dontcopy, a + olen - 1) != NULL;
	if (new != a) {
		dontcopy(mm, new, new + nlen, false);
		maptap_mm_foreach(mm->perf_dontcopy, c.lo, c.hi, dc_moved, &c);
		dontcopy(mm, a, a + olen, false);
	} else if (nlen < olen) {
		dontcopy(mm, a + nlen, a + olen, false);
	}
	if (nlen > olen)
		dontcopy(mm, new + olen, new + nlen, last);
}

/* Whether K (N VMAs, sorted) and M (NM, sorted, clipped to [LO, HI))
 * map every page of [LO, HI) alike: the same pages, permissions, name
 * (unless NAMES: an anonymous page's may differ) and backing (dev,
 * inode, file offset); only where VMAs begin and end may differ. */
static bool same_pages(const struct maptap_vma *k, size_t n,
		       const struct maptap_vma *m, size_t nm, uint64_t lo,
		       uint64_t hi, bool names)
{
	uint64_t a = lo;
	size_t i = 0, j = 0;

	while (a < hi) {
		const struct maptap_vma *x, *y;
		bool kin, min;

		while (i < n && k[i].end <= a)
			i++;
		while (j < nm && m[j].end <= a)
			j++;
		kin = i < n && k[i].start <= a;
		min = j < nm && m[j].start <= a;
		if (kin != min)
			return false;
		if (!kin) {
			uint64_t b = hi;

			if (i < n && k[i].start < b)
				b = k[i].start;
			if (j < nm && m[j].start < b)
				b = m[j].start;
			a = b;
			continue;
		}
		x = &k[i];
		y = &m[j];
		if (x->perms != y->perms || x->inode != y->inode ||
		    x->dev_major != y->dev_major ||
		    x->dev_minor != y->dev_minor ||
		    ((!names || maptap_vma_has_file(x)) &&
		     (x->name_len != y->name_len ||
		      (x->name_len &&
		       memcmp(x->name, y->name, x->name_len)))) ||
		    (maptap_vma_has_file(x) &&
		     x->offset + (a - x->start) != y->offset + (a - y->start)))
			return false;
		a = x->end < y->end ? x->end : y->end;
	}
	return true;
}

/* madvise(2) or prctl(PR_SET_VMA) (NAMES) of [LO, HI) by TID returned
 * 0.  An advice changes no page's permissions, name or backing; it may
 * split or merge VMAs (MADV_DONTFORK, MADV_HUGEPAGE, MADV_MERGEABLE,
 * ...: flags that /proc/PID/maps does not show), which only a read can
 * tell; PR_SET_VMA_ANON_NAME changes anonymous pages' names too.  The
 * read is later than the call, by the records still to be applied:
 * where the kernel's pages there differ from the model's otherwise, a
 * later call changed them (and its record will say so), and taking them
 * now would put its effect before the calls between (an mremap then
 * moved the model's idea of those pages: perfmode.py's storm with
 * madvise).  Then the range is left to the batch's confirmation. */
static void apply_advice(struct maptap_session *s, struct mt_proc *p,
			 pid_t tid, const struct maptap_syscall *sc,
			 uint64_t time, uint64_t lo, uint64_t hi, bool names)
{
	struct shift c = { &s->buf2, lo, hi, 0 };
	struct maptap_mm_hint h;

	if (mt_ensure_reader(s, p))
		return;
	maptap_vma_buf_clear(&s->buf);
	if (maptap_maps_read_range(p->mm->reader, lo, hi, &s->buf))
		return;
	s->stats.refreshes++;
	touch(s->perf, p, lo, hi);
	maptap_vma_buf_clear(&s->buf2);
	if (maptap_mm_foreach(p->mm->model, lo, hi, shift_vma, &c) != 0)
		return;
	maptap_vma_buf_finish(&s->buf2);
	if (!same_pages(s->buf.v, s->buf.n, s->buf2.v, s->buf2.n, lo, hi,
			names))
		return;
	hint_of(&h, p, tid, sc, time);
	maptap_mm_update(p->mm->model, lo, hi, s->buf.v, s->buf.n, &h,
			 mt_emit_cb, s);
}

/* Push the VMAs of T's mremap's old range within [C->lo, C->hi),
 * shifted by C->by, into C->buf: as the model had them before a
 * sibling mapped over them (mremap_ran()), else as it has them. */
static int mremap_source(struct mt_proc *p, struct mt_thread *t,
			 struct shift *c)
{
	size_t i;

	if (!t->perf_mremap_src)
		return maptap_mm_foreach(p->mm->model, c->lo, c->hi,
					 shift_vma, c);
	for (i = 0; i < t->perf_mremap_src->n; i++) {
		const struct maptap_vma *v = &t->perf_mremap_src->v[i];

		if (v->start < c->hi && c->lo < v->end && shift_vma(v, c))
			return -1;
	}
	return 0;
}

/* Push the model's VMAs over what siblings mapped in [LO, HI) after T's
 * mremap ran (T->after, mremap_ran()), each page once, into BUF: its
 * exit leaves them where they are. */
static int mremap_keep(struct mt_proc *p, struct mt_thread *t,
		       struct maptap_vma_buf *buf, uint64_t lo, uint64_t hi)
{
	uint64_t r[4][2], x0, x1;
	int i, j, n = 0;

	for (i = 0; i < t->n_after && i < 4; i++) {
		x0 = t->after[i].lo > lo ? t->after[i].lo : lo;
		x1 = t->after[i].hi < hi ? t->after[i].hi : hi;
		if (x0 >= x1)
			continue;
		for (j = n; j > 0 && r[j - 1][0] > x0; j--) {
			r[j][0] = r[j - 1][0];
			r[j][1] = r[j - 1][1];
		}
		r[j][0] = x0;
		r[j][1] = x1;
		n++;
	}
	for (i = 0; i < n; i++) {
		struct shift c = { buf, r[i][0], r[i][1], 0 };

		/* overlapping ranges: from where the one before ended */
		if (i && r[i - 1][1] > c.lo)
			c.lo = r[i - 1][1];
		if (c.lo < c.hi &&
		    maptap_mm_foreach(p->mm->model, c.lo, c.hi, shift_vma,
				      &c) != 0)
			return -1;
		if (i && r[i - 1][1] > r[i][1])
			r[i][1] = r[i - 1][1];
	}
	return 0;
}

static int vma_cmp(const void *x, const void *y)
{
	const struct maptap_vma *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Push into BUF the model's VMAs of [LO, HI) that face no VMA of the
 * first NSRC entries of BUF (the moved ones, in address order).  Since
 * Linux 6.17 a move's source may be several VMAs with holes between
 * them; each VMA's move unmaps only its own place in the target
 * (mm/mremap.c, remap_move()), so what the target has facing a hole
 * stays (a fresh helper's finding: the log lacked those pages).  A
 * source of one VMA covering the range leaves no hole. */
static int mremap_holes(struct mt_proc *p, struct maptap_vma_buf *buf,
			size_t nsrc, uint64_t lo, uint64_t hi)
{
	uint64_t at = lo, end;
	size_t i;

	for (i = 0; i <= nsrc; i++) {
		end = i < nsrc ? buf->v[i].start : hi;
		if (end > at) {
			struct shift c = { buf, at, end, 0 };

			if (maptap_mm_foreach(p->mm->model, at, end, shift_vma,
					      &c))
				return -1;
		}
		if (i < nsrc && buf->v[i].end > at)
			at = buf->v[i].end;
	}
	return 0;
}

/* mremap(2) of thread T returned NEW, its arguments in T->args (old
 * address, old size, new size, flags).  Its effect follows from the
 * model: in place, the VMA at the old end grows or the tail goes; moved,
 * the old range's VMAs go to NEW (the old range stays mapped with
 * MREMAP_DONTUNMAP), grown or cut to the new size. */
static void apply_mremap(struct maptap_session *s, struct mt_proc *p,
			 struct mt_thread *t, const struct maptap_syscall *sc,
			 uint64_t time, uint64_t new)
{
	uint64_t a = PAGE_DOWN(t->args[0]), olen = PAGE_UP(t->args[1]);
	uint64_t nlen = PAGE_UP(t->args[2]), lo, hi;
	struct shift c = { &s->buf2, 0, 0, 0 };
	struct maptap_mm_hint h;
	bool dontunmap = t->args[3] & 4;	/* MREMAP_DONTUNMAP */
	size_t nsrc;

	hint_of(&h, p, t->tid, sc, time);
	maptap_vma_buf_clear(&s->buf2);
	if (t->n_after > 4)	/* siblings' mappings not kept */
		goto read;
	if (new == a) {
		/* In place: what stays, the VMA at the end grown or cut, over
		 * the larger of the two ranges (the events' old extents are
		 * the mapping's before the call). */
		h.in_place = true;
		if (nlen == olen || !olen || !nlen)
			return;
		c.lo = a;
		c.hi = a + (nlen < olen ? nlen : olen);
		if (mremap_source(p, t, &c) != 0 || !s->buf2.n)
			goto read;
		nsrc = s->buf2.n;
		if (mremap_keep(p, t, &s->buf2, c.hi, a + olen) != 0)
			goto read;
		maptap_vma_buf_finish(&s->buf2);
		if (nlen > olen)
			s->buf2.v[nsrc - 1].end = a + nlen;
		qsort(s->buf2.v, s->buf2.n, sizeof(*s->buf2.v), vma_cmp);
		hi = a + (nlen > olen ? nlen : olen);
		maptap_mm_update(p->mm->model, a, hi, s->buf2.v, s->buf2.n,
				 &h, mt_emit_cb, s);
		touch(s->perf, p, a, hi);
		return;
	}
	/* Moved: the old range's VMAs at NEW. */
	c.lo = a;
	c.hi = a + (nlen < olen ? nlen : olen);
	c.by = (int64_t)(new - a);
	if (!olen || mremap_source(p, t, &c) != 0 || !s->buf2.n)
		goto read;
	nsrc = s->buf2.n;
	if (mremap_keep(p, t, &s->buf2, a, a + olen) != 0)
		goto read;
	if (nlen == olen &&
	    mremap_holes(p, &s->buf2, nsrc, new, new + nlen) != 0)
		goto read;
	maptap_vma_buf_finish(&s->buf2);
	if (nlen > olen)	/* grown while moved: the last VMA goes on */
		s->buf2.v[nsrc - 1].end = new + nlen;
	qsort(s->buf2.v, s->buf2.n, sizeof(*s->buf2.v), vma_cmp);
	if (dontunmap || (new < a + olen && a < new + nlen)) {
		/* Only the new range changes (or an overlap no mremap(2)
		 * accepts): no move event. */
		maptap_mm_update(p->mm->model, new, new + nlen, s->buf2.v,
				 s->buf2.n, &h, mt_emit_cb, s);
		touch(s->perf, p, new, new + nlen);
		return;
	}
	h.move_old = a;
	h.move_old_len = olen;
	h.move_new = new;
	h.move_new_len = nlen;
	if (a < new)
		maptap_mm_update2(p->mm->model, a, a + olen, new, new + nlen,
				  s->buf2.v, s->buf2.n, &h, mt_emit_cb, s);
	else
		maptap_mm_update2(p->mm->model, new, new + nlen, a, a + olen,
				  s->buf2.v, s->buf2.n, &h, mt_emit_cb, s);
	touch(s->perf, p, a, a + olen);
	touch(s->perf, p, new, new + nlen);
	return;
read:
	/* Nothing in the model to move (an attach's first calls): the
	 * kernel's ranges now. */
	lo = a;
	hi = a + olen;
	apply_read(s, p, t->tid, sc, time, lo, hi,
		   new == a ? 0 : new, new == a ? 0 : new + nlen, new == a);
}

/* A mapping call that failed.  Most change nothing, but mprotect(2)
 * works VMA by VMA from the start of its range and fails with ENOMEM at
 * the first hole, the VMAs before it already changed
 * (do_mprotect_pkey(), mm/mprotect.c); it can fail the same way later
 * on (EACCES: a VMA that refuses the new protection).  ENOMEM: the
 * change is predicted for the model's VMAs contiguous from the start;
 * any other failure of an mprotect, and a call applied early as if it
 * would succeed: its range is confirmed against the kernel after the
 * batch, as every applied change is. */
static void failed_exit(struct maptap_session *s, struct mt_thread *t,
			const struct maptap_syscall *sc, uint64_t time,
			int64_t ret)
{
	struct mt_proc *p = t->proc;
	const struct maptap_vma *v;
	uint64_t lo = 0, hi = 0, lo2 = 0, hi2 = 0, end;

	if (maptap_syscall_range(sc, t->args, 0, &lo, &hi, &lo2, &hi2) != 1 ||
	    lo >= hi)
		return;
	if (t->reported) {
		/* applied at a sibling's mapping as if it would succeed
		 * (pending_unmaps()): the kernel says what is there */
		touch(s->perf, p, lo, hi);
		return;
	}
	if (sc->nr != SYS_mprotect && sc->nr != SYS_pkey_mprotect)
		return;
	if (ret != -ENOMEM) {
		touch(s->perf, p, lo, hi);
		return;
	}
	for (end = lo; end < hi; end = v->end) {
		v = maptap_mm_find(p->mm->model, end);
		if (!v)
			break;
	}
	if (end > hi)
		end = hi;
	if (end > lo)
		apply_protect(s, p, t->tid, sc, time, lo, end, t->args[2]);
}

static void call_exit(struct maptap_session *s, struct mt_thread *t,
		      int64_t ret, uint64_t time)
{
	const struct maptap_syscall *sc = t->call;
	struct mt_proc *p = t->proc;
	uint64_t lo = 0, hi = 0, lo2 = 0, hi2 = 0;
	int r;

	t->call = NULL;
	if (!p->ready || time < p->perf_since)
		return;
	s->stats.map_calls++;
	if (sc->range == MAPTAP_RANGE_BRK) {
		uint64_t old = p->mm->brk;

		apply_brk(s, p, t->tid, sc, time, ret);
		if (t->perf_prefork && old && ret > 0)
			prefork_exit(s, t, sc, time,
				     PAGE_UP(old < (uint64_t)ret ?
					     old : (uint64_t)ret),
				     PAGE_UP(old < (uint64_t)ret ?
					     (uint64_t)ret : old));
		t->perf_prefork = 0;
		return;
	}
	/* ENOMEM: a hole in the range, the advice taken where it is
	 * mapped (madvise(2)) */
	if (sc->nr == SYS_madvise && (ret == 0 || ret == -ENOMEM) &&
	    !t->reported &&	/* marked already (pending_unmaps()) */
	    (t->args[2] == MADV_DONTFORK || t->args[2] == MADV_DOFORK))
		dontcopy(p->mm, PAGE_DOWN(t->args[0]),
			 PAGE_UP(t->args[0] + t->args[1]),
			 t->args[2] == MADV_DONTFORK);
	if (ret < 0 && ret >= -4095) {
		failed_exit(s, t, sc, time, ret);
		return;
	}
	r = maptap_syscall_range(sc, t->args, ret, &lo, &hi, &lo2, &hi2);
	if (r == 2) {
		resync_full(s, p);
		return;
	}
	if (r != 1)
		return;
	if (sc->range == MAPTAP_RANGE_UNMAP) {
		dontcopy(p->mm, lo, hi, false);
		unmap_exit(s, t, sc, time, lo, hi);
		return;
	}
	if (sc->nr == SYS_mprotect || sc->nr == SYS_pkey_mprotect) {
		if (t->reported)
			return;	/* applied before a mapping that came after */
		apply_protect(s, p, t->tid, sc, time, lo, hi, t->args[2]);
		return;
	}
	if (sc->range == MAPTAP_RANGE_MREMAP) {
		dontcopy_mremap(p->mm, PAGE_DOWN(t->args[0]),
				PAGE_UP(t->args[1]), (uint64_t)ret,
				PAGE_UP(t->args[2]));
		apply_mremap(s, p, t, sc, time, (uint64_t)ret);
		if (t->perf_prefork) {
			uint64_t a = PAGE_DOWN(t->args[0]);
			uint64_t olen = PAGE_UP(t->args[1]);
			uint64_t nlen = PAGE_UP(t->args[2]);

			prefork_exit(s, t, sc, time, a,
				     a + (olen > nlen ? olen : nlen));
			if ((uint64_t)ret != a)
				prefork_exit(s, t, sc, time, (uint64_t)ret,
					     (uint64_t)ret + nlen);
			t->perf_prefork = 0;
		}
		mt_perf_mremap_src_free(t);
		return;
	}
	if (sc->nr == SYS_madvise || sc->range == MAPTAP_RANGE_PRCTL) {
		apply_advice(s, p, t->tid, sc, time, lo, hi,
			     sc->range == MAPTAP_RANGE_PRCTL);
		return;
	}
	apply_read(s, p, t->tid, sc, time, lo, hi, lo2, hi2, false);
}

/* The exit record of call NR of T, returning RET at TIME, with no entry
 * record before it: T was in the call when the entries' records came on
 * -- an attach turns the exits' on first (enable_cw()), a thread's
 * group's all at once -- or its entry was among records lost.  The
 * kernel makes the change between the two records, and when the exit
 * comes after the attach's read began (P->perf_since) the change may
 * have come after that read, which then lacks it: PROCMAP_QUERY looks
 * the VMAs up without waiting for the mm's lock (per-VMA locks,
 * fs/proc/task_mmu.c), so a brk or mprotect that entered before and
 * waits there for a sibling's MAP_POPULATE makes its change once the
 * read is over (a brk loop beside such a sibling: the shrink missed in
 * 2 attaches of 5; dropped, its pages stayed in the model).  A brk's
 * return value says all it did (apply_brk()).  Any other call's range
 * is in its entry record only: P is read whole after the round, as
 * after a lost record (after_batch()), its changes without a call --
 * that read has other threads' later changes too. */
static void entryless_exit(struct maptap_session *s, struct mt_thread *t,
			   int nr, int64_t ret, uint64_t time)
{
	const struct maptap_syscall *sc = maptap_syscall_lookup(
		maptap_syscall_native_arch(), nr);
	struct mt_proc *p = t->proc;

	/* a call whose exit record was lost is over too */
	t->call = NULL;
	if (!sc || sc->cls != MAPTAP_SC_MAP || !p->ready ||
	    time < p->perf_since)
		return;
	s->stats.map_calls++;
	if (sc->range == MAPTAP_RANGE_BRK)
		apply_brk(s, p, t->tid, sc, time, ret);
	else
		p->perf_reread = true;
}

static void fork_done(struct maptap_session *s, struct mt_thread *t,
		      int shared);

/* Whether SIG's default action ends the process (signal(7): Term and
 * Core, and every real-time signal). */
static bool sig_kills(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGSTOP: case SIGTSTP:
	case SIGTTIN: case SIGTTOU: case SIGURG: case SIGWINCH:
		return false;
	default:
		return sig > 0 && sig < 65;
	}
}

/* A signal_generate record (RAW, RSIZE bytes): some task sent SIG to
 * thread TO (result 0: it was queued).  A fatal signal reaches every
 * thread of a process it ends as SIGKILL (complete_signal(),
 * kernel/signal.c): the signal_deliver records then say SIGKILL, and
 * this one says which.  Any sender: with the per-CPU events (open_cw())
 * a shell's kill(1) is seen too; in the groups, only a traced one's. */
static void sig_sent(struct maptap_session *s, const uint8_t *raw,
		     uint32_t rsize)
{
	struct mt_perf *f = s->perf;
	int32_t sig, to, result;
	struct mt_thread *d;

	if (rsize < f->gen_sig_off + 4 || rsize < f->gen_pid_off + 4 ||
	    rsize < f->gen_result_off + 4)
		return;
	memcpy(&sig, raw + f->gen_sig_off, 4);
	memcpy(&to, raw + f->gen_pid_off, 4);
	memcpy(&result, raw + f->gen_result_off, 4);
	d = mt_thread_find(s, (pid_t)to);
	if (!result && d && d->proc && sig != SIGKILL && sig_kills(sig))
		d->proc->perf_sig_sent = sig;
}

/* Whether a SIGKILL that thread T of P takes is an exec's end of the
 * other threads: another thread of P is in execve (its entry record),
 * and de_thread() kills the rest (zap_other_threads(), fs/exec.c)
 * without a signal of its own.  They end with exit code 0, not by the
 * signal: do_group_exit() takes 0 while signal->group_exec_task is set
 * and no group exit is under way (kernel/exit.c), as waitpid shows
 * ptrace mode.  A SIGKILL sent from outside during the exec kills the
 * exec'ing thread too, whose own delivery then sets the status. */
static bool exec_zaps(struct maptap_session *s, const struct mt_proc *p,
		      const struct mt_thread *t)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		const struct mt_thread *o = mt_thread_at(s, i);

		if (o && o != t && o->proc == p && o->perf_exec)
			return true;
	}
	return false;
}

/* Keep the user registers and stack of the entry sample R (LEN bytes,
 * the header's excluded) of call NR as T's, from byte OFF: after RAW
 * come { u64 abi; u64 regs[weight(REGS_MASK)] } and { u64 size; char
 * data[size]; u64 dyn_size } (no dyn_size when size is 0), as
 * linux/perf_event.h lays a sample out.  One buffer a thread, made at
 * its first sampled call; T keeps none when the sample has none (a
 * thread without a user context) or it is malformed. */
static void take_stack(struct maptap_session *s, struct mt_thread *t,
		       int nr, const uint8_t *r, size_t len, size_t off)
{
	struct mt_perf_stack *k = t->perf_stack;
	uint64_t abi, size, dyn, pr[PR_COUNT] = { 0 };
	int i;

	if (!k) {
		k = malloc(sizeof(*k));
		if (!k)
			return;
		t->perf_stack = k;
	}
	k->ok = false;
	if (off > len || len - off < 8)
		return;
	memcpy(&abi, r + off, 8);
	off += 8;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	for (i = 0; i < PR_COUNT; i++) {
		if (!(REGS_MASK >> i & 1))
			continue;
		if (len - off < 8)
			return;
		memcpy(&pr[i], r + off, 8);
		off += 8;
	}
	if (len - off < 8)
		return;
	memcpy(&size, r + off, 8);
	off += 8;
	if (!size || size > len - off || len - off - size < 8)
		return;
	memcpy(&dyn, r + off + size, 8);
	if (dyn > size)
		dyn = size;
	if (dyn > sizeof(k->data))
		dyn = sizeof(k->data);
	memcpy(k->data, r + off, dyn);
	mt_perf_regs_user(pr, &k->regs);
	k->len = (size_t)dyn;
	k->nr = nr;
	k->gen = s->perf->stack_gen;
	k->ok = true;
}

int mt_perf_call_stack(const struct maptap_session *s,
		       const struct mt_thread *t,
		       struct user_regs_struct *regs, const void **stack,
		       size_t *len)
{
	const struct mt_perf_stack *k = t->perf_stack;

	if (!s->perf || !k || !k->ok || k->gen != s->perf->stack_gen)
		return -ENOENT;
	*regs = k->regs;
	*stack = k->data;
	*len = k->len;
	return 0;
}

void mt_perf_stack_free(struct mt_perf_stack *k)
{
	free(k);
}

static void on_sample(struct maptap_session *s, const uint8_t *r, size_t len)
{
	/* { u64 id; u32 pid, tid; u64 time; u32 size; raw } and raw is
	 * { u16 common_type; u8 flags, preempt; i32 pid; i32 nr; pad;
	 *   u64 args[6] | i64 ret } (tracefs events/syscalls/.../format) */
	struct mt_perf *f = s->perf;
	uint32_t pid, tid, rsize;
	uint16_t type;
	int32_t nr;
	uint64_t id, time;
	const uint8_t *raw;
	struct mt_proc *p;
	struct mt_thread *t;
	bool enter = false, known = false, stack = false, stack_only = false;
	size_t i;

	if (len < 28 + 16)
		return;
	memcpy(&id, r, 8);
	memcpy(&pid, r + 8, 4);
	memcpy(&tid, r + 12, 4);
	memcpy(&time, r + 16, 8);
	memcpy(&rsize, r + 24, 4);
	/* A launched command's records from the events per CPU (open_cw())
	 * count from its exec, as its groups' do (enable_on_exec): before
	 * it, it is maptap's own child. */
	if (f->cw && f->launch && !f->cw_exec && id <= f->cw_id_max)
		return;
	raw = r + 28;
	if (rsize < 12 || 28 + (size_t)rsize > len)
		return;		/* vfork's entry has no argument */
	memcpy(&type, raw, 2);
	memcpy(&nr, raw + 8, 4);
	for (i = 0; i < f->ntp; i++) {
		if (f->tp_id[i] == type) {
			enter = f->tp_enter[i];
			stack = f->tp_stack[i];
			stack_only = f->tp_stack_only[i];
			known = true;
			break;
		}
	}
	if (!known)
		return;
	if (type == f->gen_id) {
		sig_sent(s, raw, rsize);
		return;
	}
	p = mt_proc_find(s, (pid_t)pid);
	if (!p)
		return;
	t = thread_of(s, p, (pid_t)tid);
	if (!t)
		return;
	/* A thread's stack is its last call's: an exec's, a clone's
	 * entry ends the one before. */
	if (enter && t->perf_stack)
		t->perf_stack->ok = false;
	if (stack)
		take_stack(s, t, nr, r, len, 28 + (size_t)rsize);
	if (stack_only)
		return;
	if (type == f->lock_id) {
		/* { ...; mm; u64 memcg_id; bool write, success } */
		if (rsize < 26 || !raw[24] || !raw[25])
			return;
		t->perf_lock_ns = time;
		/* T's first write lock in a fork is dup_mmap()'s (copy_
		 * process() takes no other, and none with CLONE_VM): the
		 * child's mm is copied now, when the records are
		 * complete since the call entered (lock_on()). */
		if (t->perf_clone_ns && !t->perf_fork_image &&
		    !t->perf_clone_vm && f->lock_from &&
		    t->perf_clone_ns >= f->lock_from)
			fork_point(s, p, t, time);
		return;
	}
	if (type == f->sig_id) {
		/* get_signal() takes SIG for T; with its default action one
		 * that terminates (signal(7)) ends the whole process with
		 * it, unless an exit_group or another signal did first. */
		int32_t sig;
		uint64_t handler;

		if (rsize < f->sig_off + 4 || rsize < f->sig_handler_off + 8)
			return;
		memcpy(&sig, raw + f->sig_off, 4);
		memcpy(&handler, raw + f->sig_handler_off, 8);
		if (sig == SIGKILL && p->perf_sig_sent > 0)
			sig = p->perf_sig_sent;
		else if (sig == p->perf_sig_sent)
			p->perf_sig_sent = 0;	/* delivered as itself */
		if (sig == SIGKILL && exec_zaps(s, p, t))
			return;
		if (handler == (uint64_t)(uintptr_t)SIG_DFL &&
		    sig_kills(sig) && p->perf_status < 0)
			p->perf_status = sig;
		return;
	}
	if (type == f->newtask_id) {
		/* T made a task (copy_process(), before its FORK record):
		 * whether it shares T's mm, for on_fork() */
		int32_t child;
		uint64_t flags = 0;

		if (rsize < f->nt_pid_off + 4 ||
		    rsize < f->nt_flags_off + f->nt_flags_size)
			return;
		memcpy(&child, raw + f->nt_pid_off, 4);
		memcpy(&flags, raw + f->nt_flags_off, f->nt_flags_size);
		if (t->perf_fork.pid && t->perf_fork.pid == (uint32_t)child)
			fork_done(s, t, (flags & CLONE_VM) ? 1 : 0);
		return;
	}
	if (enter) {
		const struct maptap_syscall *sc = maptap_syscall_lookup(
			maptap_syscall_native_arch(), nr);
		size_t n = rsize > 16 ? (rsize - 16) / 8 : 0;

		if (!sc)
			return;
		if (sc->cls == MAPTAP_SC_EXEC) {
			t->perf_exec = true;
			return;
		}
		if (nr == SYS_vfork || nr == SYS_fork ||
		    sc->cls == MAPTAP_SC_CLONE ||
		    sc->cls == MAPTAP_SC_CLONE3) {
			uint64_t flags = 0;

			/* Its task has every group of T (open_thread()). */
			t->perf_clone_armed = false;
			t->perf_clone_ns = time;
			maptap_mm_free(t->perf_fork_image);
			t->perf_fork_image = NULL;
			if (n)
				memcpy(&flags, raw + 16, 8);
			t->perf_clone_vm = nr == SYS_vfork ||
					   (sc->cls == MAPTAP_SC_CLONE &&
					    (flags & CLONE_VM));
			return;
		}
		if (nr == SYS_exit_group || nr == SYS_exit) {
			uint64_t code = 0;

			if (n)
				memcpy(&code, raw + 16, 8);
			if (nr == SYS_exit_group)
				p->perf_status = (int)((code & 0xff) << 8);
			else if (t->tid == p->pid)
				p->perf_leader_status =
					(int)((code & 0xff) << 8);
			else	/* its own status (do_exit(), kernel/exit.c) */
				t->own_status =
					(int)((code & 0xff) << 8);
			return;
		}
		t->perf_exec = false;	/* a failed execve is over */
		t->perf_clone_ns = 0;	/* and a clone */
		t->perf_prefork = 0;
		memset(t->args, 0, sizeof(t->args));
		memcpy(t->args, raw + 16, (n > 6 ? 6 : n) * 8);
		t->call = sc;
		t->perf_enter_ns = time;
		t->reported = false;
		t->n_after = 0;
		t->perf_lock_ns = 0;
		mt_perf_mremap_src_free(t);
		return;
	}
	if (nr == SYS_execve || nr == SYS_execveat) {
		int64_t ret = 0;

		exec_snapshot(s, p, time);	/* its image is complete */
		if (rsize >= 24)
			memcpy(&ret, raw + 16, 8);
		if (ret < 0)	/* failed: no exec under way (exec_zaps()) */
			t->perf_exec = false;
		return;
	}
	if (rsize >= 24) {
		int64_t ret;

		memcpy(&ret, raw + 16, 8);
		if (t->call && t->call->nr == nr)
			call_exit(s, t, ret, time);
		else
			entryless_exit(s, t, nr, ret, time);
	}
}

static void proc_event(struct maptap_event *ev, enum maptap_event_kind kind,
		       pid_t pid, pid_t tid, uint64_t time)
{
	mt_event_init(ev, kind, pid, tid);
	ev->time_ns = time;
}

/* Copy parent's model into CHILD's as its snapshot. */
static int copy_vma(const struct maptap_vma *v, void *arg)
{
	return maptap_vma_buf_push(arg, v) ? -1 : 0;
}

static int dc_cut(const struct maptap_vma *v, void *arg)
{
	return maptap_mm_update(arg, v->start, v->end, NULL, 0, NULL, NULL,
				NULL);
}

/* What a fork child of MM gets, as the model has MM now: every VMA but
 * those marked MADV_DONTFORK (dontcopy()), which dup_mmap() skips
 * (VM_DONTCOPY, kernel/fork.c).  NULL without memory. */
static struct maptap_mm *fork_image(const struct mt_mm *mm)
{
	struct maptap_mm *m = maptap_mm_copy(mm->model);

	if (m && mm->perf_dontcopy &&
	    maptap_mm_foreach(mm->perf_dontcopy, 0, MT_TOP, dc_cut, m)) {
		maptap_mm_free(m);
		return NULL;
	}
	return m;
}

/* Thread T of P, in a fork (a clone, fork or vfork call), took P's mm
 * lock for writing at TIME: that is dup_mmap() (kernel/fork.c), which
 * copies the mm for the child under mmap_write_lock_killable(oldmm), so
 * the child has exactly what the mm held then.  Its FORK record is
 * written only at the end of copy_process(), and its task_newtask
 * (which new_process() waits for) after that: a sibling thread's
 * munmap, mprotect, mmap or madvise that took the lock after the copy
 * and whose records came before either was in the snapshot, though
 * the child never had it; one that took the lock before the copy and
 * whose exit record came after was missing from it, though the child
 * has it (a helper's storm: 4-9 children in 100 off by a page).  So
 * the child's image is taken here, in the records' order: first the
 * siblings' calls that the lock's records say ran before this copy
 * (pending_unmaps()), then the model, without the pages marked
 * MADV_DONTFORK. */
static void fork_point(struct maptap_session *s, struct mt_proc *p,
		       struct mt_thread *t, uint64_t time)
{
	size_t i;

	if (!p->ready || time < p->perf_since)
		return;
	pending_unmaps(s, p, t, 0, MT_TOP, time, true);
	t->perf_fork_image = fork_image(p->mm);
	t->perf_fork_ns = time;
	/* A sibling's mremap or brk that ran before the copy says what
	 * it changed only at its exit (the new address, the new break):
	 * then (prefork_exit()). */
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = mt_thread_at(s, i);

		if (!o || o == t || !o->call || o->proc->mm != p->mm ||
		    !lock_orders(s->perf, o) || !o->perf_lock_ns ||
		    (o->call->range != MAPTAP_RANGE_MREMAP &&
		     o->call->range != MAPTAP_RANGE_BRK))
			continue;
		o->perf_prefork = t->tid;
		o->perf_prefork_ns = time;
	}
}

struct dc_in {
	struct maptap_mm *m;
	uint64_t lo, hi;
};

/* dc_cut() within [lo, hi) only */
static int dc_cut_in(const struct maptap_vma *v, void *arg)
{
	struct dc_in *c = arg;
	uint64_t a = v->start > c->lo ? v->start : c->lo;
	uint64_t b = v->end < c->hi ? v->end : c->hi;

	if (a >= b)
		return 0;
	return maptap_mm_update(c->m, a, b, NULL, 0, NULL, NULL, NULL);
}

/* Thread T's call (mremap, brk) took the mm's lock before the copy of
 * a fork (fork_point(), by thread T->perf_prefork) and has now ended:
 * the child has what it changed in [LO, HI), which the image taken at
 * the copy did not.  The parent's model there, now that the call is
 * applied, without its MADV_DONTFORK pages, goes into that image, or
 * into the child's model (with events, in T's name) when the child
 * was made already.  A limit: a change to the range after the copy and
 * before this exit (by the child, or by another thread of the parent)
 * is copied too, or overwritten. */
static void prefork_exit(struct maptap_session *s, struct mt_thread *t,
			 const struct maptap_syscall *sc, uint64_t time,
			 uint64_t lo, uint64_t hi)
{
	struct mt_thread *ft = mt_thread_find(s, t->perf_prefork);
	uint64_t ns = t->perf_prefork_ns;
	struct maptap_mm *dst = NULL, *m;
	struct mt_proc *c = NULL;
	struct maptap_mm_hint h;
	struct dc_in cut;

	if (!ft || lo >= hi)
		return;
	if (ft->perf_fork_image && ft->perf_fork_ns == ns)
		dst = ft->perf_fork_image;
	else if (ft->perf_fork.image && ft->perf_fork.image_ns == ns)
		dst = ft->perf_fork.image;
	else if (ft->perf_child && ft->perf_child_ns == ns)
		c = mt_proc_find(s, ft->perf_child);
	if (c && (c->mm == t->proc->mm || !c->ready))
		c = NULL;
	if (!dst && !c)
		return;
	m = maptap_mm_new();
	if (!m)
		return;
	maptap_vma_buf_clear(&s->buf2);
	if (maptap_mm_foreach(t->proc->mm->model, lo, hi, copy_vma,
			      &s->buf2) == 0) {
		maptap_vma_buf_finish(&s->buf2);
		maptap_mm_update(m, lo, hi, s->buf2.v, s->buf2.n, NULL, NULL,
				 NULL);
		cut = (struct dc_in){ m, lo, hi };
		if (t->proc->mm->perf_dontcopy)
			maptap_mm_foreach(t->proc->mm->perf_dontcopy, lo, hi,
					  dc_cut_in, &cut);
		maptap_vma_buf_clear(&s->buf2);
		maptap_mm_foreach(m, lo, hi, copy_vma, &s->buf2);
		maptap_vma_buf_finish(&s->buf2);
		if (dst) {
			maptap_mm_update(dst, lo, hi, s->buf2.v, s->buf2.n,
					 NULL, NULL, NULL);
		} else {
			hint_of(&h, c, t->tid, sc, time);
			maptap_mm_update(c->mm->model, lo, hi, s->buf2.v,
					 s->buf2.n, &h, mt_emit_cb, s);
			touch(s->perf, c, lo, hi);
		}
	}
	maptap_mm_free(m);
}

/* Process PID (first thread TID) made by thread PTID of process PPID at
 * TIME: SHARED 1 when it shares its creator's mm (task_newtask said so),
 * 0 when not, -1 when that is to be guessed: the creator's vfork or
 * clone(CLONE_VM) entry, and for clone3 (its flags are in memory) the
 * kernel, while both still run (docs/tracer.md, "Limits of perf
 * mode").  IMG, taken over and freed: what a fork child got
 * (fork_point(), on_fork()); NULL, the parent's model now.  IMG_NS: the
 * time of its copy (fork_point()), or 0. */
static void new_process(struct maptap_session *s, uint32_t pid,
			uint32_t ppid, uint32_t tid, uint32_t ptid,
			uint64_t time, int shared, struct maptap_mm *img,
			uint64_t img_ns)
{
	struct maptap_event ev;
	struct maptap_mm_hint h;
	struct mt_proc *parent, *p;
	struct mt_thread *pt;
	struct mt_mm *mm;

	parent = mt_proc_find(s, (pid_t)ppid);
	if (!parent || mt_proc_find(s, (pid_t)pid))
		goto out;
	if (shared < 0) {
		pt = mt_thread_find(s, (pid_t)ptid);
		shared = (pt && pt->perf_clone_vm) ||
			 mt_same_mm(parent->pid, (pid_t)pid) == 1;
	}
	if (shared) {
		p = mt_proc_new(s, (pid_t)pid, parent->mm);
		if (!p)
			goto out;
		parent->mm->refs++;
	} else {
		mm = mt_mm_new();
		p = mm ? mt_proc_new(s, (pid_t)pid, mm) : NULL;
		if (!p) {
			mt_mm_put(mm);
			goto out;
		}
	}
	/* The BPF programs follow it from its start (mt_newtask()); not
	 * added again here: it may have ended, and its pid be another
	 * process's, by the time its FORK record is read. */
	/* Its image is the parent's at the fork: /proc/PID/exe, read this
	 * late, may be what it exec'd since, or gone. */
	free(p->exe);
	p->exe = parent->exe ? strdup(parent->exe) : NULL;
	memcpy(p->comm, parent->comm, sizeof(p->comm));
	if (!perf_thread_add(s, (pid_t)tid, p))
		goto out;
	proc_event(&ev, p->mm == parent->mm ? MAPTAP_EV_CLONE : MAPTAP_EV_FORK,
		   parent->pid, (pid_t)ptid, time);
	ev.child = (pid_t)pid;
	ev.path = p->exe;
	mt_emit(s, &ev);
	if (p->mm != parent->mm) {
		/* The child's mm is the parent's at the copy (fork_point()),
		 * or at the FORK record without the lock's records; the
		 * parent's model now only when neither was taken. */
		if (!img)
			img = fork_image(parent->mm);
		maptap_vma_buf_clear(&s->buf2);
		if (img)
			maptap_mm_foreach(img, 0, MT_TOP, copy_vma, &s->buf2);
		maptap_vma_buf_finish(&s->buf2);
		p->mm->brk = parent->mm->brk;
		/* and its start_stack (mt_check_main_stack()) */
		p->mm->stack_addr = parent->mm->stack_addr;
		hint_of(&h, p, (pid_t)pid, NULL, time);
		h.snapshot = true;
		maptap_mm_update(p->mm->model, 0, MT_TOP, s->buf2.v, s->buf2.n,
				 &h, mt_emit_cb, s);
		/* for a sibling's call that the copy came after, whose
		 * exit is still to come (prefork_exit()) */
		pt = mt_thread_find(s, (pid_t)ptid);
		if (pt && img_ns) {
			pt->perf_child = (pid_t)pid;
			pt->perf_child_ns = img_ns;
		}
	}
	mt_ready(s, p, (pid_t)pid, MAPTAP_READY_FORK);
out:
	maptap_mm_free(img);
}

/* T's pending FORK record, with what its task_newtask said (SHARED as
 * new_process() takes it). */
static void fork_done(struct maptap_session *s, struct mt_thread *t,
		      int shared)
{
	uint32_t pid = t->perf_fork.pid;
	struct maptap_mm *img = t->perf_fork.image;

	t->perf_fork.pid = 0;
	t->perf_fork.image = NULL;
	new_process(s, pid, t->perf_fork.ppid, t->perf_fork.tid,
		    t->perf_fork.ptid, t->perf_fork.time, shared, img,
		    t->perf_fork.image_ns);
}

/* Pending FORK records whose task_newtask cannot come any more, or all
 * of them (ALL: no more records will be read), made without it
 * (new_process() then asks kcmp(2)).  copy_process() writes the
 * creator's task_newtask after its FORK record and before the child
 * can run, so it comes unless records were lost this round (f->lost);
 * it may come rounds later when the creator is preempted, or its vCPU
 * held, between the two: giving up one round after the FORK record
 * logged a posix_spawn child that exec'd meanwhile as a fork with a
 * copy of the model (kcmp then says "another mm"; perfmode.py "spawn
 * (-x)" under load).  MT_PERF_NEWTASK_MAX_NS bounds the wait for a
 * creator whose events lack the tracepoint. */
static void forks_flush(struct maptap_session *s, bool all)
{
	struct mt_perf *f = s->perf;
	size_t i, left = 0;

	if (!f->forks_pending)
		return;
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = mt_thread_at(s, i);

		if (!t || !t->perf_fork.pid)
			continue;
		if (all || f->lost || t->perf_fork.time +
		    MT_PERF_NEWTASK_MAX_NS < f->prev_applied_ns)
			fork_done(s, t, -1);
		else
			left++;
	}
	f->forks_pending = left;
}

static int take_thread(struct maptap_session *s, struct mt_proc *p,
		       pid_t tid);

/* The clone event of thread TID that PTID of PARENT made at TIME. */
static void thread_event(struct maptap_session *s, struct mt_proc *parent,
			 uint32_t ptid, uint32_t tid, uint64_t time)
{
	struct maptap_event ev;

	proc_event(&ev, MAPTAP_EV_CLONE, parent->pid, (pid_t)ptid, time);
	ev.child = (pid_t)tid;
	ev.thread = true;
	mt_emit(s, &ev);
}

static void on_fork(struct maptap_session *s, const uint8_t *r, size_t len,
		    uint64_t time)
{
	/* { u32 pid, ppid; u32 tid, ptid; u64 time; sample_id } */
	uint32_t pid, ppid, tid, ptid;
	struct mt_proc *parent;
	struct mt_thread *pt;
	struct maptap_mm *img;
	uint64_t img_ns;

	if (len < 24)
		return;
	memcpy(&pid, r, 4);
	memcpy(&ppid, r + 4, 4);
	memcpy(&tid, r + 8, 4);
	memcpy(&ptid, r + 12, 4);
	parent = mt_proc_find(s, (pid_t)ppid);
	if (!parent)
		return;
	pt = mt_thread_find(s, (pid_t)ptid);
	if (pt && pt->perf_clone_armed) {
		/* A clone begun before PT's events were all on: its task
		 * may have some of them, or none (open_thread()).  A
		 * thread gets its own, and the mm is read whole, as at
		 * the attach; a process is not followed, as under ptrace
		 * (a fork in progress at PTRACE_SEIZE makes an untraced
		 * child: kernel_clone() decides before copy_process()). */
		if (pid == ppid && !mt_thread_find(s, (pid_t)tid) &&
		    take_thread(s, parent, (pid_t)tid) > 0) {
			thread_event(s, parent, ptid, tid, time);
			resync_from_now(s, parent);
		}
		return;
	}
	/* Its clone call made its task; the image, if any, is this
	 * child's (fork_point()) */
	img = pt ? pt->perf_fork_image : NULL;
	img_ns = img ? pt->perf_fork_ns : 0;
	if (pt) {
		pt->perf_clone_ns = 0;
		pt->perf_fork_image = NULL;
	}
	if (pid == ppid) {	/* a new thread */
		maptap_mm_free(img);
		if (mt_thread_find(s, (pid_t)tid))
			return;
		if (perf_thread_add(s, (pid_t)tid, parent))
			thread_event(s, parent, ptid, tid, time);
		return;
	}
	if (mt_proc_find(s, (pid_t)pid)) {
		maptap_mm_free(img);
		return;
	}
	/* The kernel writes the creator's task_newtask, whose clone_flags
	 * say whether the child shares the mm, just after this record
	 * (copy_process()), and the child runs only after both: wait for
	 * it (on_sample()). */
	if (s->perf->newtask_id > 0 && pt) {
		if (pt->perf_fork.pid)
			fork_done(s, pt, -1);
		/* Without the lock's records (fork_point()), the child's
		 * image is the model at this record, not at its
		 * task_newtask: the records between are not the child's
		 * (they came after dup_mmap(), which is before this). */
		if (!img && !pt->perf_clone_vm && parent->ready &&
		    time >= parent->perf_since)
			img = fork_image(parent->mm);
		pt->perf_fork.image = img;
		pt->perf_fork.image_ns = img_ns;
		pt->perf_fork.pid = pid;
		pt->perf_fork.ppid = ppid;
		pt->perf_fork.tid = tid;
		pt->perf_fork.ptid = ptid;
		pt->perf_fork.time = time;
		s->perf->forks_pending++;
		return;
	}
	new_process(s, pid, ppid, tid, ptid, time, -1, img, img_ns);
}

static void forget_proc_threads(struct maptap_session *s, struct mt_proc *p,
				pid_t keep)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = mt_thread_at(s, i);

		if (t && t->proc == p &&
		    t->tid != keep)
			mt_thread_del(s, t);
	}
}

/* What an exec maps without a record: [vsyscall] (the same in every
 * process, at the top of the address space: read from maptap's own
 * maps, as the target may be gone by now), as the image's snapshot.  [stack] follows after the batch (mt_check_main_stack()). */
static void exec_specials(struct maptap_session *s, struct mt_proc *p,
			  uint64_t time)
{
	const uint64_t lo = 0xffffffffff600000ULL;
	struct maptap_maps_reader *self = NULL;
	struct maptap_mm_hint h;
	int err;

	/* Ours is the target's: the kernel's gate page, in every mm. */
	if (maptap_maps_open(getpid(), s->opts.maps_source, &self))
		return;
	maptap_vma_buf_clear(&s->buf);
	err = maptap_maps_read_range(self, lo, MT_TOP, &s->buf);
	maptap_maps_close(self);
	if (err || !s->buf.n)
		return;
	hint_of(&h, p, p->pid, NULL, time);
	h.snapshot = true;
	maptap_mm_update(p->mm->model, lo, MT_TOP, s->buf.v, s->buf.n, &h,
			 emit_fn(p), s);
}

/* The exec event of P at TIME (its COMM record), the thread FORMER
 * having called execve, and what follows it: the special mappings of the
 * new image and the ready callback.  Takes OLD_EXE (freed). */
static void exec_event(struct maptap_session *s, struct mt_proc *p,
		       uint64_t time, pid_t former, char *old_exe)
{
	enum maptap_ready_why why;
	struct maptap_event ev;

	proc_event(&ev, MAPTAP_EV_EXEC, p->pid, p->pid, time);
	ev.former_tid = former;
	ev.path = p->exe;
	ev.old_path = old_exe;
	ev.syscall = "execve";
	mt_emit(s, &ev);
	free(old_exe);
	exec_specials(s, p, time);
	why = s->launched && p->pid == s->launched_pid && !p->ready ?
	      MAPTAP_READY_LAUNCH : MAPTAP_READY_EXEC;
	/* Its records are applied from now on; its begin (on_ready) comes
	 * after its snapshot, as in ptrace mode: a process.begin probe
	 * found no module and no execname() (a fresh helper's finding). */
	if (p->perf_in_exec) {
		p->ready = true;
		p->perf_ready_why = (int)why + 1;
	} else {
		mt_ready(s, p, p->pid, why);
	}
}

/* The exec of P waited for its image's path (on_exec()): PATH, from the first
 * file-backed MMAP2 record of P after the exec -- the image's first
 * PT_LOAD, or its interpreter's for a script, as load_elf_binary()
 * maps it before the dynamic linker (fs/binfmt_elf.c); /proc/PID/exe is
 * that file (d_path(), as the record's).  NULL when no such record came
 * (the process's exit, the end of the run): the path stays unknown. */
static void exec_wait_end(struct maptap_session *s, struct mt_proc *p,
			  const char *path, size_t len)
{
	struct mt_held_rec *held;
	size_t i, n;

	if (!p->perf_exec_wait.on)
		return;
	p->perf_exec_wait.on = false;
	if (path && len) {
		free(p->exe);
		p->exe = strndup(path, len);
	}
	exec_event(s, p, p->perf_exec_wait.time, p->perf_exec_wait.former,
		   p->perf_exec_wait.old_exe);
	p->perf_exec_wait.old_exe = NULL;
	/* Then the records that came before the image's, in order. */
	held = p->perf_exec_wait.held;
	n = p->perf_exec_wait.nheld;
	p->perf_exec_wait.held = NULL;
	p->perf_exec_wait.nheld = 0;
	for (i = 0; i < n; i++) {
		on_mmap2(s, held[i].rec, held[i].len, held[i].time);
		free(held[i].rec);
	}
	free(held);
}

static void on_exec(struct maptap_session *s, struct mt_proc *p,
		    uint32_t tid, uint64_t time)
{
	pid_t former = p->pid;
	char *old_exe;
	size_t i;

	(void)tid;
	exec_snapshot(s, p, time);	/* an exec right after an exec */
	/* The thread that exec'd: the one in execve (its entry record). */
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = mt_thread_at(s, i);

		if (o && o->proc == p &&
		    o->perf_exec) {
			former = o->tid;
			if (o->tid != p->pid)
				break;
		}
	}
	/* A non-leader thread that exec'd has the leader's tid now, and
	 * every other thread is gone (execve(2)). */
	forget_proc_threads(s, p, p->pid);
	p->perf_leader_gone = false;	/* the exec'ing thread leads now */
	if (!mt_thread_find(s, p->pid))
		mt_thread_add(s, p->pid, p);
	else
		mt_thread_find(s, p->pid)->perf_exec = false;
	if (p->mm->refs > 1) {	/* leave the mm of a vfork parent */
		struct mt_mm *mm = mt_mm_new();

		if (!mm)
			return;
		mt_mm_put(p->mm);
		p->mm = mm;
	} else {
		maptap_mm_free(p->mm->model);
		p->mm->model = maptap_mm_new();
		maptap_mm_free(p->mm->perf_dontcopy);
		p->mm->perf_dontcopy = NULL;
		maptap_maps_close(p->mm->reader);
		p->mm->reader = NULL;
		p->mm->brk = 0;
		p->mm->stack_addr = 0;
	}
	old_exe = p->exe;
	p->exe = strdup("");
	/* The new image starts empty; its mappings come as records, from
	 * the exec on (the records are read later than they happen: a read
	 * now would show what the program did since).  Its [stack] has no
	 * record: mt_check_main_stack() after the batch.  Its path too is
	 * the record's: /proc/PID/exe, read now, may be gone (a short
	 * command) or name a later exec's image; the event waits for the
	 * image's first mapping (exec_wait_end()). */
	p->perf_since = 0;
	p->perf_in_exec = true;
	p->perf_exec_wait.on = true;
	p->perf_exec_wait.time = time;
	p->perf_exec_wait.former = former;
	p->perf_exec_wait.old_exe = old_exe;
}

static void on_comm(struct maptap_session *s, const struct perf_event_header *h,
		    const uint8_t *r, size_t len, uint64_t time)
{
	bool exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
	uint32_t pid, tid;
	struct mt_proc *p;

	if (len < 8)
		return;
	memcpy(&pid, r, 4);
	memcpy(&tid, r + 4, 4);
	p = mt_proc_find(s, (pid_t)pid);
	if (!p)
		return;
	/* A rename (prctl(PR_SET_NAME), a write to /proc/PID/comm) is no
	 * exec; the main thread's is the process's name (/proc/PID/comm). */
	if (!exec && tid != pid)
		return;
	if (exec) {
		s->perf->cw_exec = true;
		on_exec(s, p, tid, time);
	}
	/* { u32 pid, tid; char comm[]; } (perf_event_open(2)): the new
	 * name, kept for when /proc no longer has the process */
	len -= 8;
	if (len >= sizeof(p->comm))
		len = sizeof(p->comm) - 1;
	memcpy(p->comm, r + 8, len);
	p->comm[len] = '\0';
}

static void proc_gone(struct maptap_session *s, struct mt_proc *p,
		      pid_t tid, uint64_t time)
{
	struct maptap_event ev;
	int status = p->perf_status >= 0 ? p->perf_status :
		     p->perf_leader_status;
	long code;
	char state;

	/* A zombie still there says its status itself (proc(5), field
	 * 52): a fatal signal another process sent reaches get_signal()
	 * as SIGKILL (complete_signal(), kernel/signal.c). */
	if (mt_proc_state(p->pid, &state) == 0 && state == 'Z' &&
	    mt_proc_stat_field(p->pid, 52, &code) == 0)
		status = (int)code;
	exec_snapshot(s, p, time);
	forget_proc_threads(s, p, 0);
	if (s->launched && p->pid == s->launched_pid && !s->launched_reaped) {
		int st;

		/* Its exit record comes before it is a zombie: soon. */
		if (waitpid(p->pid, &st, __WALL) == p->pid) {
			s->launched_reaped = true;
			s->exit_status = status = st;
		}
	} else if (s->launched && p->pid == s->launched_pid) {
		/* Reaped by the run loop before its exit record was read
		 * (mt_perf_run()): its status is the one waitpid gave, a
		 * death by a signal included (was logged "exit status 0":
		 * a fault's SIGSEGV, -T's SIGTERM; a fresh helper's
		 * finding). */
		status = s->exit_status;
	}
	proc_event(&ev, MAPTAP_EV_EXIT, p->pid, tid, time);
	ev.status = status < 0 ? 0 : status;
	ev.group_exit = true;
	mt_emit(s, &ev);
	/* Its BPF programs' table let it go at its last thread's exit
	 * (mt_exit()): taken out again here, long after, the pid might be
	 * a new child's. */
	mt_proc_del(s, p);
}

static void on_exit_rec(struct maptap_session *s, const uint8_t *r,
			size_t len, uint64_t time)
{
	uint32_t pid, tid;
	struct maptap_event ev;
	struct mt_proc *p;
	struct mt_thread *t;
	int own = -1;

	if (len < 24)
		return;
	memcpy(&pid, r, 4);
	memcpy(&tid, r + 8, 4);
	p = mt_proc_find(s, (pid_t)pid);
	if (!p)
		return;
	t = mt_thread_find(s, (pid_t)tid);
	if (t && t->proc == p) {
		own = t->own_status;
		mt_thread_del(s, t);
	}
	/* The leader's exit is the process's, as ptrace reports it (its
	 * zombie waits for the other threads, exit(3) of
	 * kernel/exit.c): held until the last thread's.  One that an exec
	 * from another thread ended (de_thread()) is no exit at all
	 * (on_exec()). */
	if ((pid_t)tid == p->pid && p->nthreads > 0) {
		p->perf_leader_gone = true;
		return;
	}
	if (p->nthreads > 0 || p->perf_leader_gone) {
		/* In an exit_group, each thread's status is the group's;
		 * a thread that called exit(2) has its own. */
		proc_event(&ev, MAPTAP_EV_EXIT, p->pid, (pid_t)tid, time);
		ev.status = own >= 0 ? own :
			    p->perf_status < 0 ? 0 : p->perf_status;
		mt_emit(s, &ev);
		if (p->nthreads > 0)
			return;
	}
	proc_gone(s, p, p->perf_leader_gone ? p->pid : (pid_t)tid, time);
}

/* Whether record H, read from the ring of CPU, is a copy to drop: a
 * thread with two sets of maptap's events has each record written
 * twice (perf_dedup.c). */
static bool duplicate(struct maptap_session *s,
		      const struct perf_event_header *h, int cpu)
{
	struct mt_perf *f = s->perf;
	struct pf_sample_id sid;
	struct mt_thread *t;
	int src;

	if (f->srcs.n < 2)	/* one set of events: no copies */
		return false;
	if (h->type == PERF_RECORD_SAMPLE) {
		/* { header; u64 id; u32 pid, tid; ... } */
		if (h->size < sizeof(*h) + 16)
			return false;
		memcpy(&sid.id, (const uint8_t *)(h + 1), 8);
		memcpy(&sid.tid, (const uint8_t *)(h + 1) + 12, 4);
		/* an event per CPU, not inherited: one copy */
		if (f->cw && sid.id <= f->cw_id_max)
			return false;
	} else if (h->type == PERF_RECORD_MMAP2 ||
		   h->type == PERF_RECORD_COMM ||
		   h->type == PERF_RECORD_FORK ||
		   h->type == PERF_RECORD_EXIT) {
		if (!trailer(h, &sid))
			return false;
	} else {
		return false;
	}
	src = mt_perf_srcs_find(&f->srcs, sid.id);
	t = mt_thread_find(s, (pid_t)sid.tid);
	if (t && !mt_perf_dup_keep(&t->perf_dup, f->ncpu, cpu, src))
		return true;
	/* The EXIT record's second copy finds the thread gone. */
	return h->type == PERF_RECORD_EXIT &&
	       mt_perf_exit_again(&f->srcs, (pid_t)sid.tid, cpu, src);
}

static void on_record(struct maptap_session *s,
		      const struct perf_event_header *h, int cpu)
{
	const uint8_t *r = (const uint8_t *)(h + 1);
	size_t len = h->size - sizeof(*h);
	uint64_t time = record_time(h);

	if (duplicate(s, h, cpu)) {
		s->stats.dup_records++;
		return;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, r, len);
		break;
	case PERF_RECORD_MMAP2:
		on_mmap2(s, r, len, time);
		break;
	case PERF_RECORD_COMM:
		on_comm(s, h, r, len, time);
		break;
	case PERF_RECORD_FORK:
		on_fork(s, r, len, time);
		break;
	case PERF_RECORD_EXIT:
		on_exit_rec(s, r, len, time);
		break;
	case PERF_RECORD_LOST:
		/* { u64 id; u64 lost; sample_id } */
		if (len >= 16) {
			uint64_t lost;

			memcpy(&lost, r + 8, 8);
			s->stats.lost_records += lost;
		}
		s->perf->lost = true;
		s->perf->stack_gen++;
		break;
	default:
		break;
	}
}

/* ---- confirmation ---- */

struct diff_ctx {
	struct maptap_session *s;
	struct mt_proc *p;
	bool report;		/* --verify's: say it */
	size_t real;
};

static void on_diff(uint64_t lo, uint64_t hi, const struct maptap_vma *model,
		    const struct maptap_vma *kernel, void *arg)
{
	struct diff_ctx *c = arg;
	char mp[5] = "none", kp[5] = "none";

	/* The main stack grows in page faults: checked on its own. */
	if (kernel && kernel->kind == MAPTAP_VMA_STACK &&
	    (!model || model->kind == MAPTAP_VMA_STACK))
		return;
	c->real++;
	if (!c->report)
		return;
	c->s->stats.verify_diffs++;
	if (model)
		maptap_perms_str(model->perms, mp);
	if (kernel)
		maptap_perms_str(kernel->perms, kp);
	mt_diag(c->s, "verify: pid %d: [0x%llx, 0x%llx) model %s %s, kernel %s %s",
		(int)c->p->pid, (unsigned long long)lo, (unsigned long long)hi,
		mp, model ? model->name : "", kp, kernel ? kernel->name : "");
}

/* A hash of the VMAs in V[0..N), to tell whether a range of the kernel's
 * changed between two reads (never 0). */
static uint64_t vmas_hash(const struct maptap_vma *v, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i, k;

	for (i = 0; i < n; i++) {
		uint64_t f[6] = { v[i].start, v[i].end, v[i].offset,
				  v[i].inode, v[i].perms,
				  (uint64_t)v[i].dev_major << 32 | v[i].dev_minor };

		for (k = 0; k < 6; k++)
			h = (h ^ f[k]) * 1099511628211ULL;
		for (k = 0; k < v[i].name_len; k++)
			h = (h ^ (uint8_t)v[i].name[k]) * 1099511628211ULL;
	}
	return h ? h : 1;
}

/* Read [LO, HI) of P's mm from the kernel into s->buf (all of it when
 * LO 0 and HI MT_TOP); 0 or -errno. */
static int read_range(struct maptap_session *s, struct mt_proc *p,
		      uint64_t lo, uint64_t hi)
{
	int err = mt_ensure_reader(s, p);

	if (err)
		return err;
	maptap_vma_buf_clear(&s->buf);
	if (lo == 0 && hi == MT_TOP)
		return maptap_maps_read_all(p->mm->reader, &s->buf);
	return maptap_maps_read_range(p->mm->reader, lo, hi, &s->buf);
}

/* Compare [LO, HI) of P's model with the kernel's read in s->buf; true
 * when they differ.  RESYNC: make the model the kernel's there (REPORT:
 * as --verify). */
static bool check_read(struct maptap_session *s, struct mt_proc *p,
		       uint64_t lo, uint64_t hi, bool resync, bool report)
{
	struct diff_ctx c = { s, p, report, 0 };
	struct maptap_mm_hint h;
	bool all = lo == 0 && hi == MT_TOP;

	if (!resync)
		c.report = false;
	maptap_mm_verify_range(p->mm->model, lo, all ? UINT64_MAX : hi,
			       s->buf.v, s->buf.n, on_diff, &c);
	if (!c.real)
		return false;
	if (resync) {
		hint_of(&h, p, p->pid, NULL, mt_now_ns());
		h.in_place = true;
		maptap_mm_update(p->mm->model, lo, hi, s->buf.v, s->buf.n, &h,
				 mt_emit_cb, s);
		s->stats.confirm_resyncs++;
	}
	return true;
}

static bool overlaps(const struct pf_ranges *r, const struct pf_range *x)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].pid == x->pid && r->v[i].lo < x->hi &&
		    x->lo < r->v[i].hi)
			return true;
	return false;
}

/* Whether a thread of P's mm is in a mapping call, entered before X was
 * found, that may change X's range: the kernel may have made its change
 * and its exit record, which applies it, is still to come (a thread
 * preempted inside munmap for 11 ms under load).  mremap and brk may
 * change ranges their arguments do not say: any range. */
static bool in_call_over(struct maptap_session *s, struct mt_proc *p,
			 const struct pf_range *x)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = mt_thread_at(s, i);
		uint64_t a = 0, b = 0, a2 = 0, b2 = 0;

		if (!o || !o->call ||
		    o->proc->mm != p->mm || o->perf_enter_ns > x->since)
			continue;
		if (o->call->range == MAPTAP_RANGE_MREMAP ||
		    o->call->range == MAPTAP_RANGE_BRK ||
		    maptap_syscall_range(o->call, o->args, 0, &a, &b, &a2,
					 &b2) != 1)
			return true;
		if ((a < x->hi && x->lo < b) || (a2 < x->hi && x->lo < b2))
			return true;
	}
	return false;
}

/* After a round: a suspect is settled, and resynced from the kernel,
 * once every record older than its finding is read (f->applied_ns), no
 * call that was in the kernel then can still change its range, and the
 * kernel's range is what it was then (else it is found again: a change
 * made since has its record to come); or after MT_PERF_SUSPECT_MAX_NS
 * whatever.  A record over its range (the round touched it) ends it:
 * the touched ranges are confirmed, a difference becoming a suspect. */
static void confirm(struct maptap_session *s, uint64_t now)
{
	struct mt_perf *f = s->perf;
	size_t i, k = 0;

	for (i = 0; i < f->suspects.n; i++) {
		struct pf_range x = f->suspects.v[i];
		struct mt_proc *p = mt_proc_find(s, x.pid);
		bool old = now - x.first >= MT_PERF_SUSPECT_MAX_NS;
		uint64_t h;

		if (!p || overlaps(&f->touched, &x))
			continue;	/* gone, or confirmed again below */
		if (!old && (f->applied_ns <= x.since ||
			     in_call_over(s, p, &x))) {
			f->suspects.v[k++] = x;
			continue;
		}
		if (read_range(s, p, x.lo, x.hi))
			continue;
		h = vmas_hash(s->buf.v, s->buf.n);
		if (!old && h != x.khash) {
			x.khash = h;
			x.since = mt_now_ns();
			f->suspects.v[k++] = x;
			continue;
		}
		check_read(s, p, x.lo, x.hi, true, x.verify);
	}
	f->suspects.n = k;
	for (i = 0; i < f->touched.n; i++) {
		struct pf_range *x = &f->touched.v[i];
		struct mt_proc *p = mt_proc_find(s, x->pid);

		if (!p || read_range(s, p, x->lo, x->hi) ||
		    !check_read(s, p, x->lo, x->hi, false, false))
			continue;
		if (f->suspects.n < MT_PERF_MAX_SUSPECTS)
			range_add(&f->suspects, x->pid, x->lo, x->hi,
				  mt_now_ns(), vmas_hash(s->buf.v, s->buf.n),
				  false);
		else
			f->lost = true;	/* too many: read it all */
	}
	f->touched.n = 0;
}

struct verify_collect {
	struct mt_perf *f;
	pid_t pid;
	uint64_t now;
};

static void verify_collect(uint64_t lo, uint64_t hi,
			   const struct maptap_vma *model,
			   const struct maptap_vma *kernel, void *arg)
{
	struct verify_collect *c = arg;

	if (kernel && kernel->kind == MAPTAP_VMA_STACK &&
	    (!model || model->kind == MAPTAP_VMA_STACK))
		return;
	if (c->f->suspects.n < MT_PERF_MAX_SUSPECTS)
		range_add(&c->f->suspects, c->pid, lo, hi, c->now, 0, true);
}

/* --verify: a whole check of every mm now and then; its differences are
 * suspects, reported if they last (confirm()). */
static void verify_all(struct maptap_session *s, uint64_t now)
{
	struct mt_perf *f = s->perf;
	struct mt_proc *p;

	if (!s->opts.verify || now < f->next_verify_ns)
		return;
	for (p = s->procs; p; p = p->next) {
		struct verify_collect c = { f, p->pid, 0 };

		if (!p->ready || read_range(s, p, 0, MT_TOP))
			continue;
		c.now = mt_now_ns();
		maptap_mm_verify(p->mm->model, s->buf.v, s->buf.n,
				 verify_collect, &c);
	}
	f->next_verify_ns = mt_now_ns() + MT_PERF_VERIFY_GAP_NS;
}

/* ---- the loop ---- */

/* Apply record H of time T, read in the round after the one that took
 * the records older than f->prev_applied_ns.  One older than that came
 * late (written more than MT_PERF_SETTLE_NS after its time was taken: a
 * vCPU held by the host, say): records of other CPUs that came after it
 * were applied before it, so the models may be wrong, as after a lost
 * record: each is read whole after the round, and it is said. */
static void apply_record(struct maptap_session *s,
			 const struct perf_event_header *h, uint64_t t,
			 int cpu)
{
	struct mt_perf *f = s->perf;

	if (t && t < f->prev_applied_ns) {
		if (!f->lost)
			mt_diag(s, "perf: a record came %llu us late (its time before the last round's cutoff): the models are read whole",
				(unsigned long long)(f->prev_applied_ns - t) / 1000);
		f->lost = true;
	}
	on_record(s, h, cpu);
}

/* Read every ring, records merged by time.  ALL false: only records
 * older than MT_PERF_SETTLE_NS before the rings were looked at: a record
 * is written after its time is taken, and the rings are looked at one
 * after the other, so a later look at one ring may find a record older
 * than one already taken from another (perf's "finished round").  ALL:
 * every record (nothing more can come).  Returns the records read. */
static size_t drain(struct maptap_session *s, bool all)
{
	struct mt_perf *f = s->perf;
	uint64_t now = mt_now_ns();
	uint64_t cutoff = all ? UINT64_MAX : now - MT_PERF_SETTLE_NS;
	int c, nring = f->ncpu * f->nshard;
	size_t n = 0;

	/* ALL takes younger records too, but one whose time was taken just
	 * before NOW may not be written yet: only those older than the
	 * usual cutoff are sure to be in. */
	f->prev_applied_ns = f->applied_ns;
	f->applied_ns = now - MT_PERF_SETTLE_NS;

	for (c = 0; c < nring; c++)
		if (f->ring[c].map)
			mt_perf_ring_begin(&f->ring[c]);
	for (;;) {
		const struct perf_event_header *best = NULL;
		uint64_t bt = 0;
		int bc = -1;

		for (c = 0; c < nring; c++) {
			const struct perf_event_header *h;
			uint64_t t;

			if (!f->ring[c].map)
				continue;
			h = mt_perf_ring_peek(&f->ring[c]);
			if (!h)
				continue;
			t = record_time(h);
			if (t >= cutoff)
				continue;
			if (!best || t < bt) {
				best = h;
				bt = t;
				bc = c;
			}
		}
		if (!best)
			break;
		/* Peek again: another ring's peek may have reused its own
		 * copy buffer only, so BEST is still valid. */
		apply_record(s, best, bt, bc % f->ncpu);
		mt_perf_ring_next(&f->ring[bc]);
		n++;
	}
	for (c = 0; c < nring; c++) {
		if (!f->ring[c].map)
			continue;
		mt_perf_ring_end(&f->ring[c]);
	}
	forks_flush(s, all);
	return n;
}

/* What follows a round of records, at time NOW. */
static void after_batch(struct maptap_session *s, uint64_t now)
{
	struct mt_perf *f = s->perf;
	struct mt_proc *p;
	size_t i;

	if (f->bpf && mt_perf_bpf_failed(f->bpf) != f->bpf_failed) {
		/* records its programs could not write (no PERF_RECORD_LOST
		 * says them) or a process they could not follow: as lost */
		uint64_t n = mt_perf_bpf_failed(f->bpf);

		s->stats.lost_records += n - f->bpf_failed;
		f->bpf_failed = n;
		f->lost = true;
		f->stack_gen++;
	}
	if (f->lost) {
		/* As at an attach: the records older than the read that are
		 * still to come are in it (their changes read, not applied
		 * again: an unmap and a map again of what it read). */
		f->lost = false;
		f->touched.n = f->suspects.n = 0;
		/* A clone's entry record may be among the lost: its child
		 * is followed (on_fork()), the loss said already.  A call's
		 * exit record may be among them too, or have been applied
		 * before an entry that came late: a call held as in flight
		 * then never ends, and pending_unmaps() applies it again at
		 * any later mapping over its range (a stale munmap unmapped a
		 * sibling's new pages, a stale mprotect set its permissions
		 * on them).  No call is in flight after the read; one that
		 * is ends with an exit alone (entryless_exit()). */
		for (i = 0; i < s->threads.cap; i++) {
			struct mt_thread *t = mt_thread_at(s, i);

			if (t) {
				t->perf_clone_armed = false;
				t->call = NULL;
				mt_perf_mremap_src_free(t);
			}
		}
		for (p = s->procs; p; p = p->next) {
			/* Its image's record may be among the lost: the
			 * image /proc names now is the best left. */
			if (p->perf_exec_wait.on) {
				char *exe = mt_proc_exe(p->pid);

				exec_wait_end(s, p, exe, exe ? strlen(exe) : 0);
				free(exe);
			}
			p->perf_reread = false;
			if (!p->ready)
				continue;
			resync_from_now(s, p);
			read_dontcopy(p);
		}
		return;
	}
	/* A call's exit alone (entryless_exit()); as above, for P only. */
	for (p = s->procs; p; p = p->next) {
		if (!p->perf_reread)
			continue;
		p->perf_reread = false;
		if (!p->ready)
			continue;
		resync_from_now(s, p);
	}
	confirm(s, now);
	/* Not in the middle of an exec (from its COMM record to its
	 * execve's exit record): execve builds the new stack at the top
	 * (__bprm_mm_init()) and setup_arg_pages() moves it down later,
	 * without a record, so a read then would keep a [stack] that is
	 * about to move. */
	for (p = s->procs; p; p = p->next)
		if (p->ready && !p->perf_in_exec)
			mt_check_main_stack(s, p, p->pid);
	verify_all(s, now);
}

/* Whether process PID has ended: gone from /proc, or a zombie with no
 * thread left.  A zombie leader is not the process's end while other
 * threads run on: it called SYS_exit before them, or an exec from
 * another thread is ending it (de_thread()); /proc/PID/stat shows the
 * leader's state, and Threads: (proc(5)) counts it with the others
 * until the last is gone (release_task() of kernel/exit.c). */
static bool proc_ended(pid_t pid, bool *exists)
{
	char state;
	long n;

	*exists = mt_proc_state(pid, &state) == 0;
	if (!*exists)
		return true;
	if (state != 'Z' && state != 'X')
		return false;
	return mt_proc_status_long(pid, "Threads:", &n) != 0 || n <= 1;
}

/* Processes whose exit record was lost: ended (proc_ended()), their
 * records all read. */
static void reap_silent(struct maptap_session *s)
{
	struct mt_proc *p, *next;

	for (p = s->procs; p; p = next) {
		bool exists;

		next = p->next;
		if (!proc_ended(p->pid, &exists)) {
			p->perf_gone = 0;	/* it lives (again) */
			continue;
		}
		if (s->launched && p->pid == s->launched_pid &&
		    !s->launched_reaped && exists)
			continue;	/* its exit record is on its way */
		/* Its exit record, older than this look, is still to come
		 * until every record older than it was read: a round's
		 * cutoff is behind the clock, and a round may be late (a
		 * busy maptap read its children's exit records after this
		 * look, and said them gone, with status 0, 4 attaches in 25
		 * to a forking target). */
		if (!p->perf_gone) {
			p->perf_gone = mt_now_ns();
			continue;
		}
		if (s->perf->applied_ns <= p->perf_gone)
			continue;
		/* The command killed before its exec (a signal to the whole
		 * process group, as timeout(1) sends): its events, enabled
		 * by the exec (enable_on_exec), had nothing to say, and
		 * waitpid gave its status.  Nothing was lost. */
		if (s->launched && p->pid == s->launched_pid &&
		    s->launched_reaped && !p->ready) {
			proc_gone(s, p, p->pid, mt_now_ns());
			continue;
		}
		s->stats.lost_threads += (uint64_t)p->nthreads;
		mt_diag(s, "pid %d: gone without an exit record (records lost: its last changes may be missing)",
			(int)p->pid);
		proc_gone(s, p, p->pid, mt_now_ns());
	}
}

/* Records the kernel dropped that no PERF_RECORD_LOST has told of:
 * each event's own count (PERF_FORMAT_LOST: { u64 value; u64 lost; }),
 * said and counted when it exceeds what the records told. */
static void count_unreported_lost(struct maptap_session *s)
{
	struct mt_perf *f = s->perf;
	uint64_t v[2], sum = 0;
	size_t i;

	for (i = 0; i < f->nfds; i++)
		if (read(f->fds[i], v, sizeof(v)) == sizeof(v))
			sum += v[1];
	if (sum > s->stats.lost_records) {
		mt_diag(s, "perf: %llu records lost at the end (a full ring): the models may miss their changes",
			(unsigned long long)(sum - s->stats.lost_records));
		s->stats.lost_records = sum;
	}
}

static void detach_all(struct maptap_session *s, const char *why)
{
	struct maptap_event ev;

	drain(s, true);
	after_batch(s, mt_now_ns());
	count_unreported_lost(s);
	free_perf(s->perf);
	s->perf = NULL;
	while (s->procs) {
		struct mt_proc *p = s->procs;

		exec_snapshot(s, p, mt_now_ns());
		mt_event_init(&ev, MAPTAP_EV_DETACH, p->pid, p->pid);
		ev.reason = why;
		mt_emit(s, &ev);
		forget_proc_threads(s, p, 0);
		mt_proc_del(s, p);
	}
}

int mt_perf_run(struct maptap_session *s, uint64_t deadline)
{
	struct mt_perf *f = s->perf;
	uint64_t req;
	int signo;

	while (s->procs && s->perf) {
		uint64_t now;
		nfds_t n = 0;
		int c, timeout = MT_PERF_POLL_MS;
		char buf[64];

		req = __atomic_exchange_n(&s->detach_req, 0, __ATOMIC_SEQ_CST);
		if (req && s->launched) {
			for (signo = 1; signo < 64; signo++)
				if ((req >> signo & 1) && !s->launched_reaped)
					kill(s->launched_pid, signo);
		} else if (req) {
			detach_all(s, "signal");
			return 0;
		}
		for (c = 0; c < f->ncpu * f->nshard; c++)
			if (f->ring_fd[c] >= 0)
				f->pf[n++] = (struct pollfd){ f->ring_fd[c],
							      POLLIN, 0 };
		f->pf[n++] = (struct pollfd){ s->wake[0], POLLIN, 0 };
		if (f->suspects.n)
			timeout = 1;
		now = mt_now_ns();
		if (deadline) {
			if (now >= deadline)
				return 1;
			if ((deadline - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((deadline - now) / 1000000) + 1;
		}
		if (poll(f->pf, n, timeout) < 0 && errno != EINTR)
			return -errno;
		while (read(s->wake[0], buf, sizeof(buf)) > 0)
			;
		drain(s, false);
		after_batch(s, mt_now_ns());
		if (s->launched && !s->launched_reaped) {
			int st;

			if (waitpid(s->launched_pid, &st, __WALL | WNOHANG) ==
			    s->launched_pid) {
				s->launched_reaped = true;
				s->exit_status = st;
				drain(s, true);
				after_batch(s, mt_now_ns());
			}
		}
		reap_silent(s);
	}
	if (s->perf) {
		drain(s, true);
		after_batch(s, mt_now_ns());
		count_unreported_lost(s);
	}
	free_perf(s->perf);
	s->perf = NULL;
	return 0;
}

/* ---- attach and launch ---- */

/* Open the events on TID of P: 1, 0 when it is gone, -errno. */
static int take_thread(struct maptap_session *s, struct mt_proc *p,
		       pid_t tid)
{
	struct mt_perf *f = s->perf;
	size_t from = f->nfds;
	int err = open_thread(f, tid, &s->stats.group_retries);
	struct mt_thread *t;
	uint64_t id;

	if (err == -ESRCH)
		return 0;
	if (err)
		return err;
	/* Its events are a source (perf_dedup.c): the first fd left has
	 * the lowest id (perf_event_open(2), PERF_EVENT_IOC_ID). */
	if (f->nfds > from &&
	    ioctl(f->fds[from], PERF_EVENT_IOC_ID, &id) == 0 &&
	    mt_perf_srcs_add(&f->srcs, id) < 0)
		return -ENOMEM;
	t = perf_thread_add(s, tid, p);
	if (!t)
		return -ENOMEM;
	t->perf_clone_armed = true;
	return 1;
}

/* Open the events on every thread of P, rescanning until no new one
 * appears. */
static int open_all(struct maptap_session *s, struct mt_proc *p)
{
	pid_t *tids;
	size_t n;
	int err;

	/* Its rings, by the threads it has now (nshard_for()): set once,
	 * before the first is opened. */
	if (!s->perf->nfds) {
		if (mt_proc_tids(p->pid, &tids, &n) == 0) {
			s->perf->nshard = nshard_for(n);
			free(tids);
		}
		open_cw(s->perf);
		events_note(s);
	}
	/* Its calls' records, before its groups: a process it makes from
	 * then on is followed by the kernel (mt_newtask()). */
	if (s->perf->bpf) {
		err = mt_perf_bpf_follow(s->perf->bpf, p->pid);
		if (err)
			return err;
	}
	err = mt_proc_each_new_tid(s, p, take_thread);
	if (err)
		return err;
	return enable_cw(s->perf);
}

int mt_perf_attach(struct maptap_session *s, pid_t pid, bool *fallback)
{
	struct maptap_event ev;
	struct mt_proc *p;
	struct mt_mm *mm;
	int err;

	*fallback = false;
	err = mt_check_target(s, pid, false);
	if (err)
		return err;
	raise_nofile();
	mm = mt_mm_new();
	p = mm ? mt_proc_new(s, pid, mm) : NULL;
	if (!p) {
		mt_mm_put(mm);
		return mt_error(s, -ENOMEM, "out of memory");
	}
	err = open_all(s, p);
	if (err) {
		forget_proc_threads(s, p, 0);
		mt_proc_del(s, p);
		if (err == -ESRCH || err == -ENOENT)
			return mt_error(s, -ESRCH, "no such process: %d",
					(int)pid);
		if (!open_failed(s, err, pid))
			*fallback = true;
		return *fallback ? 0 : err;
	}
	/* As in ptrace mode (attach.c): unreadable maps refuse the
	 * attach before its event is logged. */
	err = mt_ensure_reader(s, p);
	if (err && err != -ESRCH) {
		forget_proc_threads(s, p, 0);
		mt_proc_del(s, p);
		return mt_error(s, err, "cannot read the maps of process %d: %s",
				(int)pid, strerror(-err));
	}
	proc_event(&ev, MAPTAP_EV_ATTACH, pid, pid, mt_now_ns());
	ev.path = p->exe;
	mt_emit(s, &ev);
	/* Records from before this read began are in it. */
	p->perf_since = mt_now_ns();
	err = mt_refresh_full(s, p, pid, true);
	if (err && err != -ESRCH) {
		detach_all(s, "error");
		return mt_error(s, err, "cannot read the maps of process %d: %s",
				(int)pid, strerror(-err));
	}
	read_dontcopy(p);
	mt_ready(s, p, pid, MAPTAP_READY_ATTACH);
	return 0;
}

int mt_perf_launch(struct maptap_session *s, pid_t pid)
{
	int err;

	raise_nofile();
	/* The lock's records from the exec on, with the rest: the gate
	 * (lock_on()) leaves the calls made between a process's second
	 * thread and maptap's reading of its FORK record unordered, and a
	 * sibling's freed page that the kernel handed to a new anonymous
	 * mapping at once, alike to it, is then no difference the model
	 * can see (pending_unmaps()): the map and the unmap of that page
	 * went unlogged (perfmode.py's mapstorm, its first rounds, 1 run in
	 * 20 with two storms at once).  A launched command starts its
	 * threads at once more often than not. */
	if (s->perf->lock_id > 0)
		s->perf->lock_from = 1;
	open_cw(s->perf);
	events_note(s);
	err = s->perf->bpf ? mt_perf_bpf_follow(s->perf->bpf, pid) : 0;
	if (!err)
		err = open_thread(s->perf, pid, &s->stats.group_retries);
	if (!err)
		err = enable_cw(s->perf);
	if (err)
		return mt_error(s, err, "cannot open perf events on the command: %s",
				strerror(-err));
	return 0;
}

void mt_perf_free(struct maptap_session *s)
{
	if (!s->perf)
		return;
	if (s->launched) {
		/* The command dies with us, as under ptrace (EXITKILL). */
		free_perf(s->perf);
		s->perf = NULL;
		if (!s->launched_reaped && s->launched_pid > 0) {
			kill(s->launched_pid, SIGKILL);
			waitpid(s->launched_pid, NULL, __WALL);
			s->launched_reaped = true;
		}
		while (s->procs) {
			forget_proc_threads(s, s->procs, 0);
			mt_proc_del(s, s->procs);
		}
		return;
	}
	detach_all(s, "end");
}

/* ---- for tests only (testsuite/unit/test_perf_settle.c) ---- */

int mt_perf_test_new(struct maptap_session *s)
{
	struct mt_perf *f = calloc(1, sizeof(*f));
	size_t i;

	if (!f)
		return -ENOMEM;
	/* No CPU, no ring: records come from mt_perf_test_record(). */
	f->lock_id = -1;
	f->newtask_id = -1;
	for (i = 0; i < TP_COUNT && f->ntp + 2 <= TP_MAX; i++) {
		f->tp_id[f->ntp] = (int)(1000 + 2 * i);
		f->tp_stack_only[f->ntp] = tp_list[i].stack == TP_STACK_ONLY;
		f->tp_enter[f->ntp++] = true;
		f->tp_id[f->ntp] = (int)(1001 + 2 * i);
		f->tp_enter[f->ntp++] = false;
	}
	free_perf(s->perf);
	s->perf = f;
	return 0;
}

int mt_perf_test_lock(struct maptap_session *s)
{
	struct mt_perf *f = s->perf;

	if (f->ntp + 1 > TP_MAX)
		return -1;
	f->lock_id = 999;
	add_tp(f, f->lock_id, false);
	f->lock_from = 1;
	return f->lock_id;
}

int mt_perf_test_newtask(struct maptap_session *s)
{
	struct mt_perf *f = s->perf;

	if (f->ntp + 1 > TP_MAX)
		return -1;
	f->newtask_id = 998;
	f->nt_pid_off = 8;
	f->nt_flags_off = 16;
	f->nt_flags_size = 8;
	add_tp(f, f->newtask_id, false);
	return f->newtask_id;
}

long mt_perf_test_bpf_tgids(const struct maptap_session *s)
{
	return s->perf && s->perf->bpf ? mt_perf_bpf_count(s->perf->bpf) :
	       -ENOSYS;
}

void mt_perf_test_cw_pause(struct maptap_session *s, unsigned us)
{
	s->perf_test_cw_pause_us = us;
}

int mt_perf_test_tp(const char *call, bool enter)
{
	size_t i;

	for (i = 0; i < TP_COUNT; i++)
		if (strcmp(tp_list[i].call, call) == 0)
			return (int)(1000 + 2 * i + !enter);
	return -1;
}

void mt_perf_test_record(struct maptap_session *s,
			 const struct perf_event_header *h)
{
	apply_record(s, h, record_time(h), 0);
}

void mt_perf_test_round(struct maptap_session *s, uint64_t applied,
			uint64_t now)
{
	s->perf->applied_ns = applied;
	forks_flush(s, false);	/* as drain() ends */
	after_batch(s, now);
	reap_silent(s);
	s->perf->prev_applied_ns = applied;
}
