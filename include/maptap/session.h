/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/session.h -- a tracing session: the ptrace tracer and the models
 * of every address space it follows.
 *
 * A session launches a command (maptap_session_launch) or attaches to a
 * running process (maptap_session_attach), then maptap_session_run() waits
 * for ptrace stops and turns them into events (maptap/event.h) until every
 * traced process has exited or the session is asked to detach.  It follows
 * fork, vfork, clone and exec.  The ptrace stop handling is documented in
 * docs/tracer.md.
 *
 * Threads: a session belongs to the thread that created it; ptrace(2)
 * requires every request for a tracee to come from the thread that attached
 * it.  Only maptap_session_request_detach() may be called from elsewhere
 * (it is async-signal-safe).  Two sessions may coexist in one process as
 * long as they trace different processes, each from its own thread; they
 * share no state.
 */
#ifndef MAPTAP_SESSION_H
#define MAPTAP_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
/* sigset_t: POSIX has it in <signal.h> and <sys/select.h>; glibc's
 * <signal.h> leaves it out in strict ISO C (-std=c99 without
 * _POSIX_C_SOURCE), <sys/select.h> always defines it. */
#include <sys/select.h>
#include <sys/types.h>

#include <maptap/event.h>
#include <maptap/maps.h>
#include <maptap/mm.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

struct maptap_session;
struct user_regs_struct;	/* <sys/user.h> */

/* Bits of maptap_session_opts.syscalls: system call numbers 0 to
 * MAPTAP_SYSCALL_SET_BITS - 1 of the native ABI. */
#define MAPTAP_SYSCALL_SET_BITS 512
#define MAPTAP_SYSCALL_SET_WORDS (MAPTAP_SYSCALL_SET_BITS / 64)

/* One system-call stop handed to maptap_session_opts.on_syscall.  Valid
 * during the callback only.  The thread TID is in a ptrace stop for the
 * whole callback, so its registers (maptap_session_get_regs()) and memory
 * (maptap_read_user()) may be read. */
struct maptap_syscall_stop {
	pid_t pid;		/* tgid */
	pid_t tid;
	bool is_return;		/* false: entry; true: exit */
	int nr;			/* number in the native ABI, also one the
				 * table does not know (then NAME is NULL) */
	const char *name;	/* from maptap/syscalls.h, or NULL */
	uint64_t args[6];	/* the entry arguments (given at exit too) */
	int64_t ret;		/* at exit: the return value, -errno on
				 * failure (syscall(2)); 0 at entry */
	uint64_t pc;		/* user instruction pointer at the stop */
	uint64_t sp;		/* user stack pointer at the stop */
	uint64_t time_ns;	/* CLOCK_MONOTONIC, ns */
};

/* Receives system-call stops.  Return 0 to go on; non-zero ends the
 * session, as for maptap_session_opts.on_event. */
typedef int (*maptap_syscall_fn)(const struct maptap_syscall_stop *st,
				 void *arg);

/* Why a process's model became complete (see on_ready). */
enum maptap_ready_why {
	MAPTAP_READY_ATTACH,	/* maptap_session_attach() */
	MAPTAP_READY_LAUNCH,	/* the launched command's first exec */
	MAPTAP_READY_EXEC,	/* a new program image */
	MAPTAP_READY_FORK,	/* a new process (fork, vfork, clone
				 * without CLONE_VM or with it) */
};

/* Where a session takes the changes of an address space from
 * (docs/tracer.md, "Event sources"; maptap(1), --events). */
enum maptap_events_source {
	/* ptrace(2) stops at the mapping calls (a seccomp filter in launch
	 * mode, every call's entry and exit in attach mode). */
	MAPTAP_EVENTS_PTRACE = 0,
	/* perf_event_open(2) records (MMAP2, COMM, FORK, EXIT) and the
	 * syscalls tracepoints of the mapping calls, read from rings: the
	 * target is never stopped.  Needs CAP_PERFMON (or root, or
	 * perf_event_paranoid <= -1 for the tracepoints' raw data) and
	 * tracefs (mounted by maptap on /sys/kernel/tracing when root and
	 * it is not).  No on_syscall, no breakpoint probes, no registers:
	 * maptap_session_get_regs() fails with -EBUSY. */
	MAPTAP_EVENTS_PERF,
	/* maptap_session_attach(): PERF where the kernel and privileges
	 * allow it, else PTRACE; maptap_session_launch(): PTRACE.
	 * maptap_session_events() says which and why. */
	MAPTAP_EVENTS_AUTO,
};

/* Options of a session.  Zero-initialize, then set what you need. */
struct maptap_session_opts {
	/* Receives every event; may be NULL.  Return 0 to go on.  A
	 * non-zero return (of on_event or on_syscall) ends the session:
	 * the stop being handled is finished and its thread resumed, the
	 * models stay up to date, but no callback (on_event, on_syscall,
	 * on_ready) is made again, not even for the rest of that stop's
	 * events; maptap_session_run() or maptap_session_run_until()
	 * returns the value, once, and maptap_session_errmsg() names the
	 * callback.  Return a negative value (-ECANCELED) to tell it from
	 * run_until's 1.  The session still holds its tracees: free it
	 * (maptap_session_free() lets go as it always does) or run it
	 * again, which traces to the end without callbacks. */
	maptap_event_fn on_event;
	void *arg;			/* passed to on_event and on_diag */
	/* Warnings and --verify findings, one line each without newline
	 * (e.g. "verify: pid 12: [0x1000, 0x2000) model r-xp, kernel ---p").
	 * NULL: counted in the stats only. */
	void (*on_diag)(const char *line, void *arg);
	enum maptap_maps_source maps_source;
	/* After every refresh, compare the model of that mm with a full read
	 * of /proc/PID/maps and report each difference through on_diag. */
	bool verify;
	/* Launch without the seccomp filter: stop on every system call as in
	 * attach mode.  Slower, but a process that later hands itself to
	 * another tracer (gdb) keeps working; see maptap(1). */
	bool no_seccomp;
	/* System-call stops for scripts (process.syscall, syscall.NAME).
	 * ON_SYSCALL receives the entry and the exit of every call whose
	 * number has its bit set in SYSCALLS, or of every call, known or not,
	 * when ALL_SYSCALLS.  At an exit, the events of the call (a mapping
	 * call's range events) come before the exit's on_syscall, so the
	 * models and module layer already show its effect.  In launch mode
	 * the seccomp filter is widened to stop on exactly these calls as
	 * well; a call outside the set costs nothing more than before.
	 * A launched command's calls before its first exec are the
	 * caller's code (the child's set-up), not reported, but for the
	 * exec itself (execve, execveat: the command's own, with the failed
	 * tries of execvp's PATH search before it), whose entry comes
	 * before on_ready's MAPTAP_READY_LAUNCH and whose return after, as
	 * stap's syscall.execve sees it.
	 * NULL ON_SYSCALL: no system-call stops beyond the mapping calls. */
	maptap_syscall_fn on_syscall;
	uint64_t syscalls[MAPTAP_SYSCALL_SET_WORDS];
	bool all_syscalls;
	/* Called once the model of process PID is complete: after the
	 * snapshot events of an attach, the launched command's first exec,
	 * an exec, or a fork.  TID is the thread that is (or will be, for a
	 * FORK child that has not reported its first stop yet) stopped.
	 * The process's begin probes run here.  May be NULL. */
	void (*on_ready)(pid_t pid, pid_t tid, enum maptap_ready_why why,
			 void *arg);
	/* The signal state a launched command starts with.  Every signal
	 * the caller catches starts at SIG_DFL, as execve(2) would leave
	 * it, but from the fork on: a signal that reaches the command
	 * before its exec acts as it would after, and never runs the
	 * caller's handler in the child.  With LAUNCH_SIGNALS, the signals
	 * in LAUNCH_SIGIGN start ignored, all others at SIG_DFL, and the
	 * mask is LAUNCH_SIGMASK: a caller that changes its own dispositions
	 * gives the ones it was started with, so that the command runs as
	 * it would untraced (a shell starts a background job with SIGINT
	 * and SIGQUIT ignored: POSIX, "Shell Command Language" 2.11; an
	 * ignored SIGPIPE would turn a broken pipe into EPIPE errors).
	 * Without it, the command keeps the caller's ignored signals and
	 * mask at maptap_session_launch() time, as fork(2) and execve(2)
	 * would give them. */
	bool launch_signals;
	sigset_t launch_sigign;
	sigset_t launch_sigmask;
	/* Fewer stops (issue 16): on_event never reads the registers, stack
	 * or memory of the thread an event names (no backtrace of the call
	 * that made it).  Then, in launch mode with the filter, a munmap,
	 * mprotect, pkey_mprotect, madvise, in-place mremap or anonymous
	 * mmap of a single-threaded mm makes no exit stop: its change is
	 * read (an mmap's mapping looked for in the model's gaps), and its
	 * events emitted, at the thread's next stop, where the thread is
	 * past the call (docs/model.md, "When an event is emitted").
	 * False (the default): every mapping call's events come at its own
	 * exit stop, with the thread still in the call. */
	bool defer_calls;
	/* A cheaper wait (issue 16): when no deadline, listener or detach
	 * is in progress, wait for the next stop in a blocking waitpid(2)
	 * -- one system call per stop -- instead of looking for it a while
	 * and then sleeping in ppoll(2) on a signalfd, which costs about
	 * 8 us more per stop on a small VM (bench/README.md).  The caller
	 * promises that maptap_session_request_detach() is called only on
	 * the session's own thread (from a signal handler running there, or
	 * between runs): a signal that arrives during the wait ends it with
	 * EINTR, and there and just before it the request also makes a
	 * child process that exits at once, whose exit report ends the
	 * wait (the caller sees a SIGCHLD for it).  A request from another
	 * thread is taken at the next stop.  False (the default): the
	 * ppoll(2) wait, which a request from any thread ends. */
	bool block_wait;
	/* The event source (enum maptap_events_source); 0 is PTRACE.  With
	 * PERF or AUTO, ON_SYSCALL and breakpoint probes are not served by
	 * perf events: a caller that needs them asks for PTRACE. */
	enum maptap_events_source events;
	/* PERF: keep, for each thread, the user registers and the top
	 * MAPTAP_CALL_STACK_BYTES of user stack at the entry of its
	 * mapping calls (the entry tracepoints sample them, and mmap's,
	 * shmat's and io_setup's entries are opened for it), so that a
	 * caller can unwind the call of an event without a stop:
	 * maptap_session_get_call_stack().  Each sampled call costs the
	 * kernel a copy of that much stack and takes as much room in the
	 * rings, which hold about 900 such calls per CPU between two
	 * reads (records lost are resynced, docs/tracer.md).  PTRACE
	 * ignores it: its threads are stopped at their calls. */
	bool call_stacks;
};

/* The user stack copied at each sampled call entry with call_stacks:
 * as `perf record --call-graph dwarf`'s default.  Enough for the
 * frames of a mapping call from main() or a thread's start in most
 * programs; a deeper call site ends its unwind "truncated". */
#define MAPTAP_CALL_STACK_BYTES 8192

/* Counters of a session, for benchmarks and -v. */
struct maptap_session_stats {
	uint64_t stops;		/* every ptrace stop handled */
	uint64_t seccomp_stops;	/* PTRACE_EVENT_SECCOMP stops */
	uint64_t syscall_stops;	/* syscall-entry and -exit stops */
	uint64_t map_calls;	/* address-space calls seen to completion */
	uint64_t refreshes;	/* range refreshes */
	uint64_t full_reads;	/* whole-mm reads (attach, exec, fork, resync) */
	uint64_t events;	/* events delivered */
	uint64_t verify_diffs;	/* differences --verify found */
	uint64_t lost_threads;	/* records dropped for threads the kernel
				 * no longer reports (waitpid said ECHILD,
				 * or the session was freed): each was
				 * also said through on_diag and logged
				 * as a `detach` event */
	uint64_t refresh_errors;	/* refreshes that failed (reads of the
					 * maps: -ENOMEM, -EIO, -ESRCH...),
					 * resyncs that failed included */
	uint64_t resyncs;	/* whole-mm reads after such a failure, or
				 * after lost perf records */
	/* perf events only: */
	uint64_t lost_records;	/* records the kernel dropped (ring full:
				 * PERF_RECORD_LOST); each loss resyncs */
	uint64_t confirm_resyncs;	/* ranges where the model, after the
					 * records, still differed from the
					 * kernel: read again */
	uint64_t dup_records;	/* copies of a record dropped: a thread
				 * that carries two sets of maptap's
				 * events (inherited and its own, from an
				 * attach) has each record written twice
				 * (docs/tracer.md) */
	uint64_t group_retries;	/* a thread's event group opened again at
				 * an attach: a member was refused (EINVAL,
				 * ENODEV) because the kernel had moved the
				 * thread's perf context, its group leader
				 * with it, to the thread it just made
				 * (docs/tracer.md, "What is opened") */
};

/* Create a session with OPTS (copied).  Returns 0 and *OUT, or -ENOMEM. */
int maptap_session_new(const struct maptap_session_opts *opts,
		       struct maptap_session **out);

/* Free S; a session still tracing is detached first (launched commands are
 * killed: they carry a seccomp filter that needs a tracer, see
 * maptap_session_run()).  NULL allowed. */
void maptap_session_free(struct maptap_session *s);

/* Start ARGV[0] with ARGV (searched in PATH as execvp(3) does) as a traced
 * child, held before its first instruction until maptap_session_run(),
 * with the signal state opts.launch_signals says.
 * Unless opts.no_seccomp, the child installs a seccomp filter that stops it
 * only on address-space calls (SECCOMP_RET_TRACE), and the session uses
 * PTRACE_O_EXITKILL so a tracer that dies never leaves it running with a
 * filter that would make those calls fail with ENOSYS.  Filters the
 * command installs itself act as they would untraced (docs/tracer.md,
 * "Other seccomp filters in the target").  Returns 0 and the
 * child's pid in *PID, or -errno: -ENOENT/-EACCES/-ENOEXEC when the command
 * cannot be executed (the message, naming it, is in maptap_session_errmsg),
 * -EAGAIN (fork failed), -EPERM (ptrace refused). */
int maptap_session_launch(struct maptap_session *s, char *const argv[],
			  pid_t *pid);

/* Attach to every thread of process PID (PTRACE_SEIZE each tid in
 * /proc/PID/task, rescanning until no new tid appears), read its maps and
 * emit "attach" and the snapshot.  Nothing is left attached on failure.
 * Returns 0, or -errno with a message in maptap_session_errmsg():
 * -ESRCH no such process, -EBUSY already traced (the message names the
 * TracerPid), -EPERM/-EACCES permission denied, -EINVAL a zombie or a
 * kernel thread. */
int maptap_session_attach(struct maptap_session *s, pid_t pid);

/* Trace until every traced process has exited (returns 0) or
 * maptap_session_request_detach() was called (every thread is detached and
 * runs on as before; returns 0).  A launched command cannot run on without
 * its tracer (its seccomp filter), so a detach request forwards the signal
 * number given to maptap_session_request_detach() to it instead and keeps
 * tracing until it exits.  For the same reason, threads let go of under
 * the filter (for another tracer: docs/tracer.md, "Tracees that trace")
 * are answered until they and what they created have ended: tracing
 * ends only then.  Returns -errno when waiting itself fails, or the
 * non-zero value a callback returned (see on_event).  It blocks SIGCHLD
 * in the calling thread while it runs, as maptap_session_run_until()
 * does.
 *
 * Errors while tracing.  A failure to read a traced process's maps during
 * the run (-ENOMEM, -EIO, -ESRCH for a process being killed) does not end
 * the session: the model of that address space may then miss a change,
 * so the failure is counted (stats.refresh_errors) and the whole map is
 * read again before one of its threads runs on, its changes coming as
 * resync events (syscall_nr -1; flagged snapshot when a snapshot read
 * was lost), counted in stats.resyncs.  A resync that fails too is
 * counted and tried again at the next stop of one of its threads.  No
 * other failure is silent: a callback's non-zero return ends the session
 * (on_event), waiting failing ends the run (-errno). */
int maptap_session_run(struct maptap_session *s);

/* Ask a running maptap_session_run() to detach.  SIGNO is the signal that
 * asked (SIGINT, SIGTERM, SIGHUP; 1 to 63), or 0.  Async-signal-safe (it
 * keeps errno).  Every request counts, whenever it is made: one made
 * before the run, or just before it sleeps, is acted on at once; two
 * made close together are both kept (a launched command gets both
 * signals, in signal-number order). */
void maptap_session_request_detach(struct maptap_session *s, int signo);

/* The wait(2) status of the launched command once it has ended, or -1. */
int maptap_session_exit_status(const struct maptap_session *s);

/* The model of the address space of process PID, or NULL if PID is not
 * traced.  Valid until the next maptap_session_run() step. */
const struct maptap_mm *maptap_session_mm(const struct maptap_session *s,
					  pid_t pid);

/* The program image process PID runs, as the session knows it: into
 * *EXE its executable's path (the path of the last exec or attach event
 * for PID: readlink of /proc/PID/exe then, or in perf mode the path of
 * the image's first file mapping; "" when neither could be had), into
 * *COMM its command name (/proc/PID/comm at that exec, attach or fork,
 * or perf's PERF_RECORD_COMM of the exec: at most 15 bytes, the
 * kernel's TASK_COMM_LEN - 1; "" when unknown).  Both strings are the
 * session's, valid until the next maptap_session_run() step; either
 * pointer may be NULL.  For a process /proc no longer shows (a short
 * command whose perf records are read after its end) these are what it
 * ran; a later prctl(PR_SET_NAME) is not seen.  Any thread, but not
 * during a run on another.  Returns 0, or -ESRCH when PID is not
 * traced by S. */
int maptap_session_proc(const struct maptap_session *s, pid_t pid,
			const char **exe, const char **comm);

/* Read the user registers of thread TID into *REGS (PTRACE_GETREGS,
 * ptrace(2)).  Only while TID is in a ptrace stop the session holds: in
 * on_event, on_syscall and on_ready callbacks for that thread.  Returns 0,
 * -ESRCH when TID is not a traced thread of S, -EBUSY when it is not
 * stopped (running, or not yet reported its first stop), or -errno from
 * ptrace. */
int maptap_session_get_regs(struct maptap_session *s, pid_t tid,
			    struct user_regs_struct *regs);

/* The user registers and stack of thread TID at the entry of the
 * mapping call that caused the event being delivered, in a PERF session
 * opened with call_stacks (the thread ran on: this is the kernel's copy
 * from the call's entry tracepoint).  Valid in an on_event callback for
 * an event of TID whose syscall_nr is >= 0 (not a snapshot); elsewhere
 * it may be an older call's.  *REGS gets the general registers (rip,
 * rsp, rbp...; flags and segment registers are 0); *STACK (owned by S,
 * valid until the callback returns) the *LEN bytes of stack from
 * regs->rsp upwards (at most MAPTAP_CALL_STACK_BYTES, fewer where the
 * stack ends), to hand to maptap_unwind_sample().  Not thread-safe:
 * call it from the thread running S.  Returns 0, -EINVAL for a NULL
 * argument, -ESRCH when TID is not a traced thread of S, -ENOENT when
 * no stack is held for its current call (a PTRACE session, call_stacks
 * off, the call's record lost, a mapping made by exec itself). */
int maptap_session_get_call_stack(struct maptap_session *s, pid_t tid,
				  struct user_regs_struct *regs,
				  const void **stack, size_t *len);

/* Read up to LEN bytes at user address ADDR of process PID into BUF with
 * process_vm_readv(2) (falling back to /proc/PID/mem, proc(5), where that
 * is refused).  The caller must be allowed to ptrace PID (a traced
 * process always is).  Returns the number of bytes read, which is short
 * when the range runs into an unmapped page; -EFAULT when not even the
 * first byte is readable; -ESRCH when PID is gone; -EPERM. */
ssize_t maptap_read_user(pid_t pid, uint64_t addr, void *buf, size_t len);

/* Like maptap_session_run(), but returns 1 when the CLOCK_MONOTONIC time
 * DEADLINE_NS (ns) is reached while tracees are still being traced, so
 * the caller can run timers and call it again.  DEADLINE_NS 0: no
 * deadline.  A stop that arrives before the deadline is always handled
 * first; no event is lost or reordered by returning.  Returns 0 when
 * tracing ended, 1 at the deadline, -errno when waiting fails, a
 * callback's non-zero value when it ended the session (on_event).  It
 * blocks SIGCHLD in the calling thread while it runs and waits for it
 * (a signalfd(2)) and for detach requests with ppoll(2) (docs/tracer.md):
 * a multi-threaded caller must keep SIGCHLD blocked in its other
 * threads. */
int maptap_session_run_until(struct maptap_session *s, uint64_t deadline_ns);

/* The event source S uses since its attach or launch (PTRACE before
 * either) into *USED (may be NULL), and a line saying which and why
 * ("perf events (the kernel and privileges allow them)", "ptrace: perf
 * events cannot be used: ..."), owned by S, "" before the choice. */
const char *maptap_session_events(const struct maptap_session *s,
				  enum maptap_events_source *used);

/* Copy the counters of S into *OUT. */
void maptap_session_get_stats(const struct maptap_session *s,
			      struct maptap_session_stats *out);

/* The message of the last failure of S ("" if none); valid until the next
 * call on S. */
const char *maptap_session_errmsg(const struct maptap_session *s);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
