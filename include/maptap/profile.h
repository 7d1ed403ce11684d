/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/profile.h -- sampling profiles of traced threads with
 * perf_event_open(2).
 *
 * A profiler opens one perf event per thread it is given (the caller
 * follows the session's threads: maptap/session.h's on_ready and the
 * clone, exec and exit events), samples that thread's user instruction
 * pointer, registers and a copy of the top of its user stack, and keeps
 * them in the event's mmap(2) ring buffer.  Nothing stops the thread:
 * the kernel writes the ring at each sample, and maptap_profile_drain()
 * reads it whenever the caller likes.  The caller drains before it
 * changes its model of an address space (before every event reaches
 * maptap_modules_event(), and at the end), so that each sample is named
 * against the model as it was when the sample was taken: a sample taken
 * just before a dlclose(3) still names the unloaded library.
 *
 * The events (perf_event_open(2), "Arguments"):
 *   - type PERF_TYPE_SOFTWARE config PERF_COUNT_SW_CPU_CLOCK (default)
 *     or PERF_COUNT_SW_TASK_CLOCK, or any type/config the caller gives
 *     (PERF_TYPE_HARDWARE counters where the machine has them);
 *   - one event per thread (pid = TID, cpu = -1), no inherit: every new
 *     thread and process is opened when the session reports it, while
 *     it is still held in its first ptrace stop;
 *   - PERF_FLAG_FD_CLOEXEC, so that a command the caller starts later
 *     does not inherit the descriptors;
 *   - use_clockid with CLOCK_MONOTONIC, the clock of maptap's event
 *     times (maptap/event.h), so samples and events share one time line;
 *   - sample_type PERF_SAMPLE_IP | TID | TIME | CPU | PERIOD |
 *     REGS_USER | STACK_USER; sample_regs_user holds the general
 *     registers of the x86_64 psABI that CFI can name (DWARF 0-16);
 *   - exclude_hv; exclude_kernel only when the kernel refuses to sample
 *     kernel mode (perf_event_paranoid(2) and no CAP_PERFMON): a sample
 *     taken in the kernel keeps the user registers and stack of the
 *     system call it is in (PERF_SAMPLE_REGS_USER), with user_mode false.
 *
 * PERF_RECORD_LOST records (the ring was full) are counted, per profiler
 * and per thread, and never dropped silently: see maptap_profile_stats.
 *
 * Threads: a profiler is not thread-safe; one owner at a time.  It keeps
 * no global state; two profilers share nothing.
 */
#ifndef MAPTAP_PROFILE_H
#define MAPTAP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

struct user_regs_struct;	/* <sys/user.h> */

/* Default sampling frequency, samples per second of the thread's CPU
 * time.  stap's timer.profile fires at every scheduler tick (CONFIG_HZ,
 * 250 to 1000); perf record's default is 4000.  1000 keeps the cost of
 * a stack copy per sample (STACK bytes) well under 1% of the target. */
#define MAPTAP_PROFILE_FREQ 1000

/* Default bytes of user stack copied per sample: enough for the
 * frames of ordinary C code 20 frames deep (stap's MAXBACKTRACE). */
#define MAPTAP_PROFILE_STACK 8192

/* Default ring size per thread, in pages (a power of two): about 60
 * samples of MAPTAP_PROFILE_STACK bytes, 60 ms at the default
 * frequency, for a caller that drains every few milliseconds. */
#define MAPTAP_PROFILE_PAGES 128

/* The same without stack copies (samples of about 200 bytes): some 300
 * samples.  A thread's ring is locked memory (perf_event_mlock_kb), so
 * a program of many threads should not pay for stacks it does not
 * copy. */
#define MAPTAP_PROFILE_PAGES_NO_STACK 16

/* Options of a profiler.  Zero-initialize, then set what you need. */
struct maptap_profile_opts {
	/* perf_event_attr.type and .config; both 0 (PERF_TYPE_HARDWARE,
	 * PERF_COUNT_HW_CPU_CYCLES) would be a hardware counter, so the
	 * default is asked for with DEFAULT_EVENT. */
	bool default_event;	/* PERF_TYPE_SOFTWARE, CPU_CLOCK */
	uint32_t type;
	uint64_t config;
	/* Exactly one of: samples per second (FREQ), or one sample every
	 * PERIOD units of the event (ns for the clocks).  Both 0:
	 * MAPTAP_PROFILE_FREQ. */
	uint64_t freq;
	uint64_t period;
	/* Bytes of user stack per sample (a multiple of 8, at most 65528,
	 * perf_event_open(2)); 0: MAPTAP_PROFILE_STACK.  NO_STACK: copy
	 * none (no backtraces; samples cost less). */
	uint32_t stack_bytes;
	bool no_stack;
	/* Ring data pages per thread, a power of two; 0:
	 * MAPTAP_PROFILE_PAGES, or MAPTAP_PROFILE_PAGES_NO_STACK with
	 * NO_STACK. */
	unsigned pages;
};

/* One sample, valid during the maptap_profile_drain() callback only. */
struct maptap_profile_sample {
	pid_t pid, tid;		/* the kernel's tgid and tid */
	uint64_t time_ns;	/* CLOCK_MONOTONIC, ns */
	uint32_t cpu;		/* the CPU the sample was taken on */
	uint64_t period;	/* units of the event since the last one */
	uint64_t ip;		/* the sampled instruction pointer: a
				 * kernel address when !USER_MODE */
	bool user_mode;		/* taken in user mode (PERF_RECORD_MISC_USER) */
	bool has_regs;		/* REGS is set (a thread with a user
				 * context; kernel threads have none) */
	/* The user registers (rip, rsp, rbp, the other general registers;
	 * segment registers and flags are 0).  In user mode rip == ip. */
	const struct user_regs_struct *regs;
	/* STACK_LEN bytes of user stack from regs->rsp upwards (fewer than
	 * asked for where the stack ends); NULL when none. */
	const void *stack;
	size_t stack_len;
};

/* Receives each sample; return 0 to go on, non-zero to stop the drain
 * (the sample counts as read). */
typedef int (*maptap_profile_fn)(const struct maptap_profile_sample *s,
				 void *arg);

struct maptap_profiler;

/* Create a profiler with OPTS (copied; NULL: all defaults).  Opens
 * nothing yet.  Returns 0 and *OUT, -EINVAL for a bad option (stack
 * size, pages not a power of two, both FREQ and PERIOD), -ENOMEM. */
int maptap_profiler_new(const struct maptap_profile_opts *opts,
			struct maptap_profiler **out);

/* Close every event of P and free it; samples not drained are lost.
 * NULL allowed. */
void maptap_profiler_free(struct maptap_profiler *p);

/* Start sampling thread TID of process PID.  A thread already sampled
 * is left as it is (returns 0).  Returns 0, or -errno of
 * perf_event_open(2) or mmap(2): -ENOENT/-EOPNOTSUPP when the machine
 * has no such event (a hardware counter in most VMs), -ESRCH when TID
 * is gone, -EACCES/-EPERM when perf_event_paranoid forbids it, -ENOMEM
 * (also the locked-memory limit, perf_event_mlock_kb).  The message of
 * the failure is in maptap_profile_errmsg(). */
int maptap_profile_open(struct maptap_profiler *p, pid_t pid, pid_t tid);

/* Stop sampling thread TID: close its event.  Drain first to keep its
 * last samples.  Unknown TID: nothing. */
void maptap_profile_close(struct maptap_profiler *p, pid_t tid);

/* Stop sampling every thread of process PID (an exec or its end). */
void maptap_profile_close_pid(struct maptap_profiler *p, pid_t pid);

/* Read every ring of P and hand each sample to FN, ring by ring, each
 * ring in the order the kernel wrote it (time order per thread).
 * Counts PERF_RECORD_LOST records.  Returns the number of samples read,
 * or the non-zero value FN returned, negated when positive. */
long maptap_profile_drain(struct maptap_profiler *p, maptap_profile_fn fn,
			  void *arg);

/* Check that the machine can count events of TYPE/CONFIG at all, by
 * opening one on the calling thread and closing it again.  Returns 0,
 * or -errno as maptap_profile_open() with the message in
 * maptap_profile_errmsg(). */
int maptap_profile_probe(struct maptap_profiler *p, uint32_t type,
			 uint64_t config);

/* A name for TYPE/CONFIG: "cpu-clock", "task-clock", "cycles",
 * "instructions", or "type T config C".  Returns BUF. */
const char *maptap_profile_event_name(uint32_t type, uint64_t config,
				      char *buf, size_t size);

/* Counters, for -v and the profile's header. */
struct maptap_profile_stats {
	uint64_t threads;	/* events opened */
	uint64_t open_fails;	/* maptap_profile_open() failures */
	uint64_t samples;	/* PERF_RECORD_SAMPLE read */
	uint64_t lost;		/* samples the kernel dropped
				 * (the event's PERF_FORMAT_LOST counter,
				 * or the sum of PERF_RECORD_LOST.lost) */
	uint64_t lost_records;	/* PERF_RECORD_LOST records */
	uint64_t kernel_samples;	/* samples not in user mode */
	uint64_t other_records;	/* records of other types, skipped */
	bool kernel_excluded;	/* the kernel refused kernel-mode
				 * samples: exclude_kernel was set */
};

void maptap_profile_get_stats(const struct maptap_profiler *p,
			      struct maptap_profile_stats *out);

/* The message of the last failure of P ("" if none). */
const char *maptap_profile_errmsg(const struct maptap_profiler *p);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
