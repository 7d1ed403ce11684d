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

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <maptap/event.h>
#include <maptap/maps.h>
#include <maptap/mm.h>

#ifdef __cplusplus
extern "C" {
#endif

struct maptap_session;

/* Options of a session.  Zero-initialize, then set what you need. */
struct maptap_session_opts {
	maptap_event_fn on_event;	/* receives every event; may be NULL */
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
};

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
};

/* Create a session with OPTS (copied).  Returns 0 and *OUT, or -ENOMEM. */
int maptap_session_new(const struct maptap_session_opts *opts,
		       struct maptap_session **out);

/* Free S; a session still tracing is detached first (launched commands are
 * killed: they carry a seccomp filter that needs a tracer, see
 * maptap_session_run()).  NULL allowed. */
void maptap_session_free(struct maptap_session *s);

/* Start ARGV[0] with ARGV (searched in PATH as execvp(3) does) as a traced
 * child, held before its first instruction until maptap_session_run().
 * Unless opts.no_seccomp, the child installs a seccomp filter that stops it
 * only on address-space calls (SECCOMP_RET_TRACE), and the session uses
 * PTRACE_O_EXITKILL so a tracer that dies never leaves it running with a
 * filter that would make those calls fail with ENOSYS.  Returns 0 and the
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
 * tracing until it exits.  Returns -errno when waiting itself fails. */
int maptap_session_run(struct maptap_session *s);

/* Ask a running maptap_session_run() to detach.  SIGNO is the signal that
 * asked (SIGINT, SIGTERM, SIGHUP), or 0.  Async-signal-safe. */
void maptap_session_request_detach(struct maptap_session *s, int signo);

/* The wait(2) status of the launched command once it has ended, or -1. */
int maptap_session_exit_status(const struct maptap_session *s);

/* The model of the address space of process PID, or NULL if PID is not
 * traced.  Valid until the next maptap_session_run() step. */
const struct maptap_mm *maptap_session_mm(const struct maptap_session *s,
					  pid_t pid);

/* Copy the counters of S into *OUT. */
void maptap_session_get_stats(const struct maptap_session *s,
			      struct maptap_session_stats *out);

/* The message of the last failure of S ("" if none); valid until the next
 * call on S. */
const char *maptap_session_errmsg(const struct maptap_session *s);

#ifdef __cplusplus
}
#endif
#endif
