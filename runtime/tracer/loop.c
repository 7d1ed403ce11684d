/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* loop.c -- the ptrace stop state machine (docs/tracer.md).
 *
 * Every stop a tracee reports comes through mt_handle_status(), which
 * decides what it is, acts, and resumes the thread exactly once:
 *
 *   syscall-entry stop (SIGTRAP|0x80, op ENTRY)    save nr and arguments
 *   seccomp stop (PTRACE_EVENT_SECCOMP)             save, resume to exit;
 *                                                   another filter's: ENOSYS
 *   syscall-exit stop (SIGTRAP|0x80, op EXIT)       refresh, emit events
 *   PTRACE_EVENT_FORK/VFORK/CLONE                   register the child
 *   PTRACE_EVENT_EXEC                               rebuild the model
 *   PTRACE_EVENT_EXIT                               last look: main stack,
 *                                                   --verify of all of it
 *   PTRACE_EVENT_STOP + SIGTRAP                     our interrupt, or a new
 *                                                   child's first stop
 *   PTRACE_EVENT_STOP + stop signal                 group-stop: PTRACE_LISTEN
 *   any other stop                                  signal-delivery: inject
 *   exited / killed                                 forget the thread
 *
 * On the way, the session's hooks see the stops they asked for:
 * on_syscall at the entry and exit of the selected calls (after the
 * call's own events at an exit), on_ready once a process's model is
 * complete.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#ifndef CLONE_UNTRACED
#define CLONE_UNTRACED 0x00800000	/* <linux/sched.h> */
#endif

#ifndef PTRACE_TRACEME
#define PTRACE_TRACEME 0
#endif
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1		/* si_code of a filter's SIGSYS, <linux/signal.h> */
#endif

void mt_resume(struct maptap_session *s, struct mt_thread *t, int sig)
{
	enum __ptrace_request req = PTRACE_CONT;

	/* Attach mode (no filter) stops at every syscall entry and exit;
	 * launch mode only needs the exit of a call it has seen enter. */
	if (!s->use_seccomp || t->call || t->hooked || t->proc->notif)
		req = PTRACE_SYSCALL;
	/* A refresh of its mm failed: read it whole before it runs on. */
	if (t->proc->mm->stale && !s->detaching)
		mt_resync(s, t->proc, t->tid);
	t->stopped = false;
	if (ptrace(req, t->tid, 0L, (long)sig) != 0 && errno != ESRCH)
		mt_diag(s, "cannot resume thread %d: %s", (int)t->tid,
			strerror(errno));
}

static void set_call(struct mt_thread *t, const struct maptap_syscall *sc,
		     const uint64_t args[6], uint64_t sp)
{
	if (t->call && t->call->cls == MAPTAP_SC_MAP)
		t->proc->mm->in_call--;
	t->call = sc;
	t->reported = false;
	t->n_after = 0;
	if (!sc)
		return;
	memcpy(t->args, args, sizeof(t->args));
	t->sp = sp;
	if (sc->cls == MAPTAP_SC_MAP)
		t->proc->mm->in_call++;
}

static void event_init(struct maptap_event *ev, enum maptap_event_kind kind,
		       pid_t pid, pid_t tid)
{
	mt_event_init(ev, kind, pid, tid);
}

/* Whether on_syscall wants call NR (of the native ABI). */
static bool wants_call(const struct maptap_session *s, uint64_t nr)
{
	const struct maptap_session_opts *o = &s->opts;

	if (!o->on_syscall)
		return false;
	if (o->all_syscalls)
		return true;
	return nr < MAPTAP_SYSCALL_SET_BITS &&
	       (o->syscalls[nr / 64] >> (nr % 64) & 1);
}

/* Fill in what every stop of thread T reports (INFO, and the table's
 * name of ST->nr) and hand ST to on_syscall. */
static void hook_call(struct maptap_session *s, struct mt_thread *t,
		      struct maptap_syscall_stop *st,
		      const struct __ptrace_syscall_info *info)
{
	const struct maptap_syscall *sc =
		maptap_syscall_lookup(maptap_syscall_native_arch(), st->nr);
	int rc;

	st->pid = t->proc->pid;
	st->tid = t->tid;
	st->name = sc ? sc->name : NULL;
	st->pc = info->instruction_pointer;
	st->sp = info->stack_pointer;
	st->time_ns = mt_now_ns();
	if (!s->quiet && (rc = s->opts.on_syscall(st, s->opts.arg)) != 0)
		mt_callback_stop(s, rc, "on_syscall");
}

/* An exec of the launched command before its program runs: its own
 * execve (and execvp's tries of the PATH before it), which stap's
 * syscall probes see; its other calls then are maptap's code. */
static bool launch_exec(const struct maptap_session *s,
			const struct mt_thread *t, int nr)
{
	const struct maptap_syscall *sc;

	if (t->proc->pid != s->launched_pid)
		return false;
	sc = maptap_syscall_lookup(maptap_syscall_native_arch(), nr);
	return sc && sc->cls == MAPTAP_SC_EXEC;
}

/* An entry stop (seccomp or syscall-entry): report it when on_syscall
 * wants the call, and remember it so its exit is reported too.  Calls
 * of a launched command before its exec are maptap's own but for the
 * exec itself (launch_exec()): not reported. */
static void hook_entry(struct maptap_session *s, struct mt_thread *t,
		       const struct __ptrace_syscall_info *info)
{
	bool seccomp = info->op == PTRACE_SYSCALL_INFO_SECCOMP;
	struct maptap_syscall_stop st;

	t->hooked = false;
	memset(&st, 0, sizeof(st));
	st.nr = (int)(seccomp ? info->seccomp.nr : info->entry.nr);
	if (info->arch != maptap_syscall_native_arch() ||
	    (!t->proc->ready && !launch_exec(s, t, st.nr)) ||
	    !wants_call(s, (uint64_t)(uint32_t)st.nr))
		return;
	memcpy(st.args, seccomp ? info->seccomp.args : info->entry.args,
	       sizeof(st.args));
	t->hooked = true;
	t->hook_nr = st.nr;
	memcpy(t->hook_args, st.args, sizeof(t->hook_args));
	hook_call(s, t, &st, info);
}

/* An exit stop: report it when its entry was. */
static void hook_exit(struct maptap_session *s, struct mt_thread *t,
		      const struct __ptrace_syscall_info *info)
{
	struct maptap_syscall_stop st;

	if (!t->hooked)
		return;
	t->hooked = false;
	memset(&st, 0, sizeof(st));
	st.is_return = true;
	st.nr = t->hook_nr;
	memcpy(st.args, t->hook_args, sizeof(st.args));
	st.ret = info->exit.rval;
	hook_call(s, t, &st, info);
}

void mt_ready(struct maptap_session *s, struct mt_proc *p, pid_t tid,
	      enum maptap_ready_why why)
{
	p->ready = true;
	if (s->opts.on_ready && !s->quiet)
		s->opts.on_ready(p->pid, tid, why, s->opts.arg);
}

/* Let go of thread T at the stop it is in, delivering SIG (0: none),
 * log a detach event saying WHY, and forget it (and its process with its
 * last thread).  Under the seccomp filter, UNFILTERED is why the thread
 * could not be given the filter that lets its calls through (inject.c),
 * 0 when it was: without it the thread keeps maptap's filter with nobody
 * to answer it, which is worth a warning. */
static void detach_thread(struct maptap_session *s, struct mt_thread *t,
			  int sig, const char *why, int unfiltered)
{
	struct maptap_event ev;
	struct mt_proc *p = t->proc;

	event_init(&ev, MAPTAP_EV_DETACH, p->pid, t->tid);
	ev.reason = why;
	mt_emit(s, &ev);
	if (s->use_seccomp && unfiltered)
		mt_diag(s, "pid %d: let go for %s; it keeps maptap's seccomp filter (cannot add the one that lets its calls through: %s), so its mapping calls now need a tracer that sets PTRACE_O_TRACESECCOMP (use --no-seccomp to avoid this)",
			(int)p->pid, why, strerror(-unfiltered));
	set_call(t, NULL, NULL, 0);
	mt_uprobe_let_go(s, t);
	ptrace(PTRACE_DETACH, t->tid, 0L, (long)sig);
	mt_thread_del(s, t);
	/* Its mm is still traced through its siblings (or a vfork parent)
	 * and it may change it unseen: mt_verify() resyncs such an mm
	 * instead of calling the difference the model's fault. */
	if (p->nthreads > 0 || p->mm->refs > 1)
		p->mm->untraced++;
	if (p->nthreads == 0)
		mt_proc_del(s, p);
}

/* Let go of T for WHY, at a stop we hold: under the filter, first give
 * it the filter that lets its calls through (inject.c).  AT_SYSCALL: T
 * is at the entry of the call it makes next (PTRACE_TRACEME), made again
 * once let go; else at our interrupt's stop.  T may be gone after. */
static void let_go(struct maptap_session *s, struct mt_thread *t,
		   bool at_syscall, const char *why)
{
	int err = 0, sig = 0;

	if (s->use_seccomp)
		err = mt_release_filter(s, t, at_syscall, &sig);
	if (err == -ESRCH)
		return;		/* it died meanwhile: handled */
	detach_thread(s, t, sig, why, err);
}

static bool filter_skipped(struct mt_thread *t, int nr, int64_t rval);

/* The exit stop of the call T is in, described by INFO: the call's
 * events (a mapping call whose entry was seen), then its on_syscall exit,
 * which sees their effect.  A call that a filter of the target killed or
 * trapped never ran and never returns: neither. */
static void exit_stop(struct maptap_session *s, struct mt_thread *t,
		      const struct __ptrace_syscall_info *info)
{
	t->entered = false;
	/* An exit without a seen entry (a call in progress when we
	 * attached) changed nothing the snapshot missed. */
	if ((t->call || t->hooked) &&
	    filter_skipped(t, t->call ? t->call->nr : t->hook_nr,
			   info->exit.rval)) {
		t->hooked = false;
	} else if (t->call && t->call->cls == MAPTAP_SC_MAP) {
		s->stats.map_calls++;
		mt_complete_call(s, t, info->exit.rval);
	}
	set_call(t, NULL, NULL, 0);
	hook_exit(s, t, info);
}

/* At a syscall stop (SIGTRAP|0x80) of T, which is let go at it: when it
 * is a call's exit, finish that call first (exit_stop()).  Returns
 * whether it was an exit stop. */
static bool finish_at_exit(struct maptap_session *s, struct mt_thread *t)
{
	struct __ptrace_syscall_info info;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(info),
		   &info) <= 0 || info.op != PTRACE_SYSCALL_INFO_EXIT)
		return false;
	exit_stop(s, t, &info);
	return true;
}

/* At STATUS, an interrupt's or group-stop's stop of T that is to let T
 * go: when a breakpoint's SIGTRAP is queued behind it
 * (mt_uprobe_trap_queued()), resume T to that signal's stop, where it
 * is let go instead (detach_at_stop(), detach_running()).  Returns
 * whether T was resumed. */
static bool take_queued_trap(struct maptap_session *s, struct mt_thread *t,
			     int status)
{
	if (!WIFSTOPPED(status) || status >> 16 != PTRACE_EVENT_STOP ||
	    !mt_uprobe_trap_queued(s, t) ||
	    ptrace(PTRACE_CONT, t->tid, 0L, 0L) != 0)
		return false;
	t->stopped = false;
	return true;
}

/* Stop thread T (running) and detach it, handling whatever stop comes
 * first so that no signal is lost: used when a traced process is about
 * to be attached by another traced process.  A thread that cannot stop
 * now (a vfork parent) stays ours: its stop may never come, and waiting
 * for it would hang maptap; the other tracer's attach then fails as it
 * would against any tracer.  RELEASE: under the filter, give it the
 * filter that lets its calls through (let_go()).
 *
 * Any ptrace stop takes the place of a pending PTRACE_INTERRUPT
 * (ptrace(2); kernel/signal.c, ptrace_stop(): "any trap clears pending
 * STOP trap"): a thread that reaches a seccomp stop, a syscall stop or a
 * signal-delivery stop after the interrupt was sent never makes the
 * interrupt's own stop.  So every stop ends the wait: the interrupt's,
 * a group-stop's and a call's exit (the call finished first) are where T
 * is let go; any other is handled as usual and the interrupt sent
 * again, and the next stop comes at the latest at that call's exit.
 * (Waiting for PTRACE_EVENT_STOP alone hung maptap for ever when the
 * thread was in a mapping call's stop at the interrupt, as a thread of
 * an ASan program starting up when LeakSanitizer attaches to it; and a
 * thread asleep in a call resumed with PTRACE_SYSCALL reported, at every
 * interrupt, that call's exit, then slept again in its restart.) */
static void apply_deferred(struct maptap_session *s, struct mt_thread *t);

static void detach_running(struct maptap_session *s, struct mt_thread *t,
			   const char *why, bool release)
{
	pid_t r, tid = t->tid;
	bool at_exit = false;
	int status;

	if (ptrace(PTRACE_INTERRUPT, tid, 0L, 0L) != 0)
		return;
	for (;;) {
		/* Its stop may have been taken already (waitq.c). */
		r = mt_waitq_take(s, tid, &status) ? tid :
		    waitpid(tid, &status, __WALL | WNOHANG);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return;
		if (r > 0 && take_queued_trap(s, t, status))
			continue;
		if (r > 0 && (!WIFSTOPPED(status) || !s->use_seccomp ||
			      status >> 16 == PTRACE_EVENT_STOP))
			break;
		if (r > 0 && WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			t->stopped = true;
			at_exit = finish_at_exit(s, t);
			if (at_exit)
				break;
		}
		if (r > 0) {
			/* Under the filter, T is let go where it can be given
			 * the filter that lets its calls through (inject.c);
			 * a stop that comes first is handled as usual. */
			mt_handle_status(s, tid, status);
			t = mt_thread_find(s, tid);
			if (!t)
				return;	/* gone, or let go meanwhile */
			if (ptrace(PTRACE_INTERRUPT, tid, 0L, 0L) != 0 &&
			    errno != ESRCH)
				return;
			continue;
		}
		if (mt_thread_unstoppable(t, false) ||
		    __atomic_load_n(&s->detach_req, __ATOMIC_SEQ_CST)) {
			mt_diag(s, "pid %d: thread %d cannot stop now to be let go for %s",
				(int)t->proc->pid, (int)t->tid, why);
			return;
		}
		mt_wait_tick(s);
	}
	if (!WIFSTOPPED(status)) {
		mt_handle_status(s, t->tid, status);
		return;
	}
	t->stopped = true;
	/* This stop is its next stop: a call of its that took no exit
	 * stop is read now, before it goes (its last mmap, munmap or
	 * mprotect was missing from the log when another traced process
	 * attached to it). */
	if (t->proc->mm->deferred)
		apply_deferred(s, t);
	/* Without the filter, let go at any stop: a call's exit is
	 * finished first. */
	if (!at_exit && WSTOPSIG(status) == (SIGTRAP | 0x80))
		at_exit = finish_at_exit(s, t);
	if (s->use_seccomp && release) {
		/* From a call's exit stop as from the interrupt's: the
		 * registers are the same (inject.c). */
		let_go(s, t, false, why);
		return;
	}
	/* A signal-delivery stop (no event, not a syscall stop): deliver
	 * the signal on the way out, but a breakpoint's: its instruction
	 * runs again, the original back (mt_uprobe_let_go()). */
	if (status >> 16 == 0 && WSTOPSIG(status) != (SIGTRAP | 0x80) &&
	    !(WSTOPSIG(status) == SIGTRAP && mt_uprobe_trap_detach(s, t)))
		detach_thread(s, t, WSTOPSIG(status), why, 0);
	else
		detach_thread(s, t, 0, why, 0);
}

/* ptrace(2) called by a tracee.  PTRACE_TRACEME: let go of the caller so
 * its parent can trace it.  PTRACE_ATTACH/SEIZE of a thread we trace: let
 * go of that thread so the call succeeds.  Returns true when T itself
 * was let go (do not resume it). */
static bool on_tracee_ptrace(struct maptap_session *s, struct mt_thread *t)
{
	long req = (long)t->args[0];
	pid_t target = (pid_t)t->args[1];
	struct mt_thread *victim;

	if (req == PTRACE_TRACEME) {
		let_go(s, t, true, "ptrace(PTRACE_TRACEME) by the process");
		return true;
	}
	if (req != PTRACE_ATTACH && req != PTRACE_SEIZE)
		return false;
	victim = mt_thread_find(s, target);
	if (!victim || victim == t)
		return false;
	/* A tracer that asks for seccomp stops gets maptap's, as its own
	 * filter's (strace --seccomp-bpf): the thread keeps the filter as
	 * is, which also leaves that tracer's own filter in charge. */
	detach_running(s, victim, "ptrace(PTRACE_ATTACH) by a traced process",
		       !(req == PTRACE_SEIZE &&
			 (t->args[3] & PTRACE_O_TRACESECCOMP)));
	return false;
}

/* clone(2) or clone3(2) with CLONE_UNTRACED makes a child the kernel does
 * not attach to us even with PTRACE_O_TRACECLONE (ptrace(2)).  One that
 * shares the mm (LeakSanitizer's StopTheWorld thread) would change it
 * unseen, and under our seccomp filter its mapping calls would fail with
 * ENOSYS.  Clear the flag at the entry stop, where the kernel has not yet
 * read the arguments: the child is then followed like any other.  The
 * flags are the first argument of clone and the first field of clone3's
 * struct clone_args (<linux/sched.h>).  Returns 0 or -errno. */
static int keep_traced(struct mt_thread *t, const struct maptap_syscall *sc,
		       const uint64_t args[6])
{
	long word;

	if (sc->cls == MAPTAP_SC_CLONE3) {
		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, t->tid, (void *)args[0], NULL);
		if (errno)
			return -errno;
		if (!(word & CLONE_UNTRACED))
			return 0;
		word &= ~(long)CLONE_UNTRACED;
		return ptrace(PTRACE_POKEDATA, t->tid, (void *)args[0],
			      (void *)word) ? -errno : 0;
	}
	if (sc->cls != MAPTAP_SC_CLONE || !(args[0] & CLONE_UNTRACED))
		return 0;
#if defined(__x86_64__)
	word = (long)(args[0] & ~(uint64_t)CLONE_UNTRACED);
	return ptrace(PTRACE_POKEUSER, t->tid,
		      (void *)offsetof(struct user_regs_struct, rdi),
		      (void *)word) ? -errno : 0;
#else
	return -ENOSYS;
#endif
}

/* seccomp(2) entered by T with ARGS: a filter installed with a
 * listener (SECCOMP_FILTER_FLAG_NEW_LISTENER, the only way to get one)
 * may send any call to SECCOMP_RET_USER_NOTIF, which outranks maptap's
 * TRACE: such a call makes no seccomp stop, and its supervisor may let
 * it run (SECCOMP_USER_NOTIF_FLAG_CONTINUE) or answer for it.  It still
 * passes the syscall-entry and -exit stops, which come before and after
 * any filter (kernel/entry/common.c): from now on, T's process stops at
 * every call (mt_resume()), as without maptap's filter, and its children
 * too.  Marked before the call runs, so none of T's calls is missed.  The
 * filter is T's alone, but with SECCOMP_FILTER_FLAG_TSYNC every thread of
 * the process gets it: interrupt the others, so that each is resumed
 * with PTRACE_SYSCALL from a stop made before it returns to user space. */
static void watch_filter(struct maptap_session *s, struct mt_thread *t,
			 const uint64_t args[6])
{
	struct mt_proc *p = t->proc;
	size_t i;

	if (args[0] != SECCOMP_SET_MODE_FILTER ||
	    !(args[1] & SECCOMP_FILTER_FLAG_NEW_LISTENER))
		return;
	p->notif = true;
	if (!(args[1] & SECCOMP_FILTER_FLAG_TSYNC))
		return;
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = mt_thread_at(s, i);

		if (o && o != t &&
		    o->proc == p && !o->stopped)
			ptrace(PTRACE_INTERRUPT, o->tid, 0L, 0L);
	}
}

/* may_defer()'s rule for mmap (below): an anonymous mmap is deferred
 * too (refresh.c, find_deferred_map()): where it put its mapping is
 * found at the next stop by reading the model's gaps with PROCMAP_QUERY,
 * first where the last mapping went, so only with that source.  Only MAP_ANONYMOUS: a call that failed is
 * found nowhere only after every gap long enough was read, and an
 * anonymous mmap fails only when memory or address space runs out
 * (ENOMEM), where a file's fails for a bad descriptor or mode too
 * (EBADF, EACCES, ENODEV: mmap(2)).  Not MAP_HUGETLB (its length is
 * rounded to a huge page) nor MAP_GROWSDOWN (its VMA grows like a
 * stack); MAP_FIXED or MAP_FIXED_NOREPLACE only into a range the model
 * has empty, where anything found is its mapping (over a mapping, a
 * failed call and a new mapping like the old cannot be told apart by a
 * read). */
static bool may_defer_map(const struct mt_mm *mm, const uint64_t args[6])
{
	uint64_t len = (args[1] + 4095ULL) & ~4095ULL, g0, g1;

	if (!mm->reader ||
	    maptap_maps_source_of(mm->reader) != MAPTAP_MAPS_QUERY ||
	    len == 0 || len >= (1ULL << 47) ||
	    !(args[3] & MAP_ANONYMOUS) ||
	    (args[3] & (MAP_HUGETLB | MAP_GROWSDOWN)))
		return false;
	if (!(args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)))
		return true;
	return (args[0] & 4095ULL) == 0 &&
	       maptap_mm_gap(mm->model, args[0], &g0, &g1) &&
	       g1 - args[0] >= len;
}

/* Fewer stops (issue 16, docs/model.md "When an event is emitted"):
 * a munmap, mprotect, pkey_mprotect or madvise, or an mremap that stays
 * in place (no MREMAP_MAYMOVE, MREMAP_FIXED, MREMAP_DONTUNMAP), changes
 * nothing outside the range its arguments give.  Where no other thread
 * can touch the mm meanwhile -- the only traced thread of the only
 * process using it, none let go of, no supervisor filter -- such a call
 * resumes from its seccomp stop without an exit stop; its change is
 * read (one PROCMAP_QUERY over the range: a call that failed changed
 * nothing and makes no event) at the thread's next stop, before that
 * stop is handled, or at the first stop of a thread or process it
 * creates sharing the mm (apply_deferred()).  Not when on_syscall
 * asked for the call: its exit is reported at the exit stop; nor
 * unless the session said its events need no stop of their own
 * (opts.defer_calls: a backtrace at the next stop would not be the
 * call's). */
static bool may_defer(const struct maptap_session *s,
		      const struct mt_thread *t,
		      const struct maptap_syscall *sc, const uint64_t args[6])
{
	const struct mt_proc *p = t->proc;

	if (!s->opts.defer_calls || !s->use_seccomp || t->entered ||
	    t->hooked || p->notif ||
	    s->detaching || p->nthreads != 1 || p->mm->refs != 1 ||
	    p->mm->untraced || p->mm->stale || sc->cls != MAPTAP_SC_MAP)
		return false;
	switch (sc->nr) {
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_pkey_mprotect:
	case SYS_madvise:
		return true;
	case SYS_mremap:
		return !(args[3] & (MREMAP_MAYMOVE | MREMAP_FIXED |
				    MREMAP_DONTUNMAP));
	case SYS_mmap:
		return may_defer_map(p->mm, args);
	default:
		return false;
	}
}

/* Complete the deferred call of T: read its range and emit what
 * changed, in its name.  T has no call pending: it was resumed past
 * the deferred call's entry without an exit stop, and this is its first
 * stop since (or the first stop of a thread it made after the call). */
static void complete_deferred(struct maptap_session *s, struct mt_thread *t)
{
	const struct maptap_syscall *sc = t->deferred;
	int64_t ret = 0;

	t->deferred = NULL;
	t->proc->mm->deferred--;
	set_call(t, sc, t->deferred_args, 0);
	/* An mremap in place returns its own address: its range covers
	 * both sizes (maptap_syscall_range()). */
	if (sc->range == MAPTAP_RANGE_MREMAP)
		ret = (int64_t)(t->args[0] & ~4095ULL);
	t->confirm = true;
	s->stats.map_calls++;
	mt_complete_call(s, t, ret);
	t->confirm = false;
	set_call(t, NULL, NULL, 0);
}

/* At a stop of T: complete the deferred calls of its mm first (T's own,
 * or, at the first stop of a thread T's creator made after its call,
 * the creator's), so that events stay in order per mm. */
static void apply_deferred(struct maptap_session *s, struct mt_thread *t)
{
	struct mt_mm *mm = t->proc->mm;
	size_t i;

	if (t->deferred)
		complete_deferred(s, t);
	if (mm->deferred <= 0) {
		mm->deferred = 0;
		return;
	}
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = mt_thread_at(s, i);

		if (o && o->deferred &&
		    o->proc->mm == mm)
			complete_deferred(s, o);
	}
	mm->deferred = 0;	/* recounted: none left */
}

/* Entry of a call (seccomp stop or syscall-entry stop).  Returns true
 * when T must not be resumed (it was let go). */
static bool on_entry(struct maptap_session *s, struct mt_thread *t,
		     uint32_t arch, uint64_t nr, const uint64_t args[6],
		     uint64_t sp)
{
	const struct maptap_syscall *sc = maptap_syscall_lookup(arch, (int)nr);

	if (!sc && arch != maptap_syscall_native_arch()) {
		mt_diag(s, "pid %d: a system call of another ABI (audit arch 0x%x, nr %llu) is not decoded",
			(int)t->proc->pid, arch, (unsigned long long)nr);
		return false;
	}
	if (sc && (sc->cls == MAPTAP_SC_CLONE || sc->cls == MAPTAP_SC_CLONE3)) {
		if (keep_traced(t, sc, args))
			mt_diag(s, "pid %d: cannot keep the child of a CLONE_UNTRACED call traced",
				(int)t->proc->pid);
		set_call(t, NULL, NULL, 0);	/* its exit needs no stop */
		return false;
	}
	if (arch == maptap_syscall_native_arch() && nr == SYS_seccomp)
		watch_filter(s, t, args);
	if (!sc || sc->cls == MAPTAP_SC_NONE) {
		set_call(t, NULL, NULL, 0);
		return false;
	}
	set_call(t, sc, args, sp);
	if (may_defer(s, t, sc, args)) {
		set_call(t, NULL, NULL, 0);	/* no exit stop */
		t->deferred = sc;
		memcpy(t->deferred_args, args, sizeof(t->deferred_args));
		t->proc->mm->deferred++;
		return false;
	}
	if (sc->cls == MAPTAP_SC_PTRACE && t->entered && s->use_seccomp) {
		/* An entry stop in a launched process (listener filter):
		 * let go here, and the call would meet maptap's filter with
		 * no tracer, which fails it with ENOSYS.  Its seccomp stop
		 * comes next (on_syscall_stop()). */
		set_call(t, NULL, NULL, 0);
		return false;
	}
	if (sc->cls == MAPTAP_SC_PTRACE) {
		bool gone = on_tracee_ptrace(s, t);

		if (!gone)
			set_call(t, NULL, NULL, 0);
		return gone;
	}
	/* A successful exec is handled at PTRACE_EVENT_EXEC; a failed one
	 * changed nothing.  Launch mode need not stop at its exit.  The
	 * old image's stack may have grown since its last call: its last
	 * chance to be seen. */
	if (sc->cls == MAPTAP_SC_EXEC && t->proc->ready)
		mt_check_main_stack(s, t->proc, t->tid);
	if (sc->cls == MAPTAP_SC_EXEC && s->use_seccomp)
		set_call(t, NULL, NULL, 0);
	return false;
}

/* Make the call thread T is stopped in at its seccomp stop fail with
 * ENOSYS without running: number -1 makes the kernel skip it, and the
 * return register, which the caller then sees, is set to -ENOSYS
 * (seccomp(2), SECCOMP_RET_TRACE).  Returns 0 or -errno. */
static int skip_call(struct mt_thread *t)
{
#if defined(__x86_64__)
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, t->tid, 0L, &r) != 0)
		return -errno;
	r.orig_rax = (unsigned long long)-1LL;
	r.rax = (unsigned long long)-(long long)ENOSYS;
	return ptrace(PTRACE_SETREGS, t->tid, 0L, &r) ? -errno : 0;
#else
	(void)t;
	return -ENOSYS;
#endif
}

/* A seccomp stop that another filter of the target asked for (its data
 * is not MT_SECCOMP_DATA).  Without maptap no tracer would take it, and
 * the kernel would fail the call with ENOSYS (kernel/seccomp.c,
 * __seccomp_filter): do the same, so the target behaves as untraced.
 * When maptap's filter traced the call too, this is still right: of
 * equal actions the kernel reports the first one seen, and it runs the
 * newest filter first (seccomp(2)); maptap's, installed before the
 * command's exec, is older than any the command installs, so the
 * target's data wins and the call, untraced, fails as well.  Nothing
 * ran, so no event; on_syscall sees the entry and, at the exit, -ENOSYS. */
static void foreign_trace(struct maptap_session *s, struct mt_thread *t,
			  const struct __ptrace_syscall_info *info)
{
	int err;

	if (!t->entered)	/* else its entry stop reported it */
		hook_entry(s, t, info);
	set_call(t, NULL, NULL, 0);
	err = skip_call(t);
	if (err)
		mt_diag(s, "pid %d: cannot fail call %llu with ENOSYS for the target's own seccomp filter: %s",
			(int)t->proc->pid,
			(unsigned long long)info->seccomp.nr, strerror(-err));
}

/* Whether call NR, at its exit stop with return value RVAL in thread
 * T, never ran: a seccomp filter killed the thread or trapped the
 * call (SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_TRAP).  The kernel then
 * rolls the registers back for the core dump or the SIGSYS handler
 * (kernel/seccomp.c, syscall_rollback()), so the return value read is
 * the call's number, and it queues on the thread a SIGSYS with
 * si_code SYS_SECCOMP and si_syscall NR, delivered after this stop.
 * No mapping call returns its own number (a page-aligned address or 0),
 * and few others do, so the peek is made only then. */
static bool filter_skipped(struct mt_thread *t, int nr, int64_t rval)
{
	struct __ptrace_peeksiginfo_args a = { .off = 0, .flags = 0,
					       .nr = 8 };
	siginfo_t si[8];
	long i, n;

	if (rval != nr)
		return false;
	n = ptrace(PTRACE_PEEKSIGINFO, t->tid, &a, si);
	for (i = 0; i < n; i++)
		if (si[i].si_signo == SIGSYS && si[i].si_code == SYS_SECCOMP &&
		    si[i].si_syscall == nr)
			return true;
	return false;
}

/* At the seccomp stop of a ptrace(2) call whose entry stop came first:
 * act on it now (on_tracee_ptrace()).  Returns true when T was let go. */
static bool ptrace_at_seccomp(struct maptap_session *s, struct mt_thread *t,
			      const struct __ptrace_syscall_info *info)
{
	const struct maptap_syscall *sc =
		maptap_syscall_lookup(info->arch, (int)info->seccomp.nr);
	bool gone;

	if (!sc || sc->cls != MAPTAP_SC_PTRACE)
		return false;
	set_call(t, sc, info->seccomp.args, info->stack_pointer);
	gone = on_tracee_ptrace(s, t);
	if (!gone)
		set_call(t, NULL, NULL, 0);
	return gone;
}

static void on_syscall_stop(struct maptap_session *s, struct mt_thread *t,
			    bool seccomp)
{
	struct __ptrace_syscall_info info;

	if (seccomp)
		s->stats.seccomp_stops++;
	else
		s->stats.syscall_stops++;
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(info),
		   &info) <= 0) {
		mt_resume(s, t, 0);
		return;
	}
	switch (info.op) {
	case PTRACE_SYSCALL_INFO_ENTRY:
		t->entered = true;
		hook_entry(s, t, &info);
		if (on_entry(s, t, info.arch, info.entry.nr, info.entry.args,
			     info.stack_pointer))
			return;
		break;
	case PTRACE_SYSCALL_INFO_SECCOMP:
		if (info.seccomp.ret_data != MT_SECCOMP_DATA) {
			foreign_trace(s, t, &info);
			break;
		}
		/* The second stop of a call whose entry stop was handled
		 * (a process with a listener filter): nothing new, but for
		 * ptrace, which is let go of here (on_entry()). */
		if (t->entered) {
			if (ptrace_at_seccomp(s, t, &info))
				return;
			break;
		}
		hook_entry(s, t, &info);
		if (on_entry(s, t, info.arch, info.seccomp.nr,
			     info.seccomp.args, info.stack_pointer))
			return;
		break;
	case PTRACE_SYSCALL_INFO_EXIT:
		exit_stop(s, t, &info);
		break;
	default:
		break;
	}
	mt_resume(s, t, 0);
}

/* A thread we have not seen: an auto-attached child whose first stop
 * came before its creator's fork/clone event.  Register it now.
 * STOPPED: it is in that first stop (else it has yet to report it). */
static struct mt_thread *adopt(struct maptap_session *s, pid_t tid,
			       pid_t creator, bool stopped);

/* PTRACE_GETEVENTMSG of thread TID's EVENT stop into *MSG: 0, or -1 when
 * TID is no longer in that stop.  A ptrace-stop is killable: a thread
 * that a fatal signal wakes there goes on to exit, and its exit sets the
 * event message to its exit code whether or not it stops again
 * (kernel/exit.c, ptrace_event(PTRACE_EVENT_EXIT); kernel/signal.c,
 * ptrace_do_notify()).  Read then, that code (15 for SIGTERM) was taken
 * for a new child's pid: a fork of "process 15" was logged, its maps
 * read and a PTRACE_DETACH aimed at it.  The stop's siginfo is read after
 * the message: while it is still this stop's (si_code SIGTRAP |
 * EVENT << 8, ptrace(2)), so was the message. */
static int event_msg(pid_t tid, int event, unsigned long *msg)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETEVENTMSG, tid, 0L, msg) != 0)
		return -1;
	if (ptrace(PTRACE_GETSIGINFO, tid, 0L, &si) != 0 ||
	    si.si_code != (SIGTRAP | event << 8))
		return -1;
	return 0;
}

static void on_new_child(struct maptap_session *s, struct mt_thread *t,
			 int event)
{
	unsigned long msg = 0;
	struct mt_thread *c;

	/* Not this stop's message: T is being killed, and its child, if
	 * any, is adopted at its own first stop or exit. */
	if (event_msg(t->tid, event, &msg) != 0)
		return;
	c = mt_thread_find(s, (pid_t)msg);
	if (c) {
		/* Adopted at its own first stop, which came first. */
		c->early = false;
		return;
	}
	/* Its first stop and its exit (or its let-go) came first: it was
	 * adopted and dropped already, and is not ours any more. */
	if (mt_gone_early_take(s, (pid_t)msg))
		return;
	adopt(s, (pid_t)msg, t->tid, false);
}

static struct mt_thread *adopt(struct maptap_session *s, pid_t tid,
			       pid_t creator, bool stopped)
{
	struct maptap_event ev;
	struct mt_proc *p, *parent;
	struct mt_thread *t, *ct;
	long tgid = 0, ppid = 0;
	int same;

	if (mt_proc_status_long(tid, "Tgid:", &tgid) != 0)
		return NULL;
	p = mt_proc_find(s, (pid_t)tgid);
	if (p) {
		/* A new thread of a process we trace. */
		t = mt_thread_add(s, tid, p);
		if (!t)
			return NULL;
		t->stopped = stopped;
		event_init(&ev, MAPTAP_EV_CLONE, p->pid,
			   creator ? creator : p->pid);
		ev.child = tid;
		ev.thread = true;
		mt_emit(s, &ev);
		return t;
	}
	/* A new process: its creator is CREATOR or, when its own stop came
	 * first, its parent. */
	ct = creator ? mt_thread_find(s, creator) : NULL;
	if (!ct && mt_proc_status_long(tid, "PPid:", &ppid) == 0)
		ct = mt_thread_find(s, (pid_t)ppid);
	parent = ct ? ct->proc : NULL;
	same = parent ? mt_same_mm(parent->pid, tid) : 0;
	if (same == 1) {
		p = mt_proc_new(s, tid, parent->mm);
		if (!p)
			return NULL;
		parent->mm->refs++;
	} else {
		struct mt_mm *mm = mt_mm_new();

		p = mm ? mt_proc_new(s, tid, mm) : NULL;
		if (!p) {
			mt_mm_put(mm);
			return NULL;
		}
	}
	p->notif = parent && parent->notif;	/* filters are inherited */
	t = mt_thread_add(s, tid, p);
	if (!t)
		return NULL;
	t->stopped = stopped;
	if (ct)		/* its text holds the breakpoints: their table too */
		mt_uprobe_fork(s, ct, p, t);
	event_init(&ev, same == 1 ? MAPTAP_EV_CLONE : MAPTAP_EV_FORK,
		   parent ? parent->pid : 0, ct ? ct->tid : 0);
	ev.child = tid;
	ev.path = p->exe;
	mt_emit(s, &ev);
	if (same != 1)
		mt_refresh_full(s, p, tid, true);
	mt_ready(s, p, tid, MAPTAP_READY_FORK);
	return t;
}

static void on_exec(struct maptap_session *s, struct mt_thread *t)
{
	unsigned long former = 0;
	struct mt_proc *p = t->proc;
	struct maptap_event ev;
	char *old_exe;

	/* A thread killed in this stop: its own tid (event_msg()). */
	if (event_msg(t->tid, PTRACE_EVENT_EXEC, &former) != 0)
		former = (unsigned long)t->tid;
	if ((pid_t)former != t->tid) {
		/* A non-leader thread exec'd and took the leader's tid; the
		 * former tid is gone without an exit report (ptrace(2)).
		 * Its execve returns under the leader's tid. */
		struct mt_thread *f = mt_thread_find(s, (pid_t)former);

		t->hooked = f && f->hooked;
		if (t->hooked) {
			t->hook_nr = f->hook_nr;
			memcpy(t->hook_args, f->hook_args, sizeof(t->hook_args));
		}
		if (f && f != t)
			mt_thread_del(s, f);
	}
	set_call(t, NULL, NULL, 0);
	/* A new mm: leave the one shared with a vfork parent. */
	if (p->mm->refs > 1) {
		struct mt_mm *mm = mt_mm_new();

		if (mm) {
			mt_mm_put(p->mm);
			p->mm = mm;
		}
	} else {
		maptap_mm_free(p->mm->model);
		p->mm->model = maptap_mm_new();
		maptap_maps_close(p->mm->reader);
		p->mm->reader = NULL;
		p->mm->brk = 0;
		p->mm->in_call = 0;
		p->mm->stack_addr = 0;
		p->mm->verify_next_ns = 0;
	}
	mt_uprobe_exec(s, t);	/* breakpoints went with the old image */
	old_exe = p->exe;
	p->exe = mt_proc_exe(p->pid);
	mt_proc_comm(p->pid, p->comm);
	event_init(&ev, MAPTAP_EV_EXEC, p->pid, t->tid);
	ev.former_tid = (pid_t)former;
	ev.path = p->exe;
	ev.old_path = old_exe;
	ev.syscall = "execve";
	mt_emit(s, &ev);
	free(old_exe);
	mt_refresh_full(s, p, t->tid, true);
	/* The launched command's first exec is where its own program
	 * begins; before it, the process ran maptap's code. */
	mt_ready(s, p, t->tid, p->pid == s->launched_pid && !p->ready ?
		 MAPTAP_READY_LAUNCH : MAPTAP_READY_EXEC);
}

/* T died inside a mapping call: its exit stop never comes (ptrace_stop()
 * does not stop a task with a fatal signal pending, kernel/signal.c),
 * and the call may have run -- a munmap runs to its end before the
 * signal is taken.  Left alone, the change was missing from the model
 * until a full --verify found and resynced it ("verify: ... model rw-p,
 * kernel none": 5 runs in 10 of a thread tree killed by SIGTERM).  What
 * it may have changed is read now, in its name, while its siblings keep
 * the mm: a range its arguments give is read there (as a deferred call
 * is confirmed, complete_deferred()), any other mm whole. */
static void settle_killed_call(struct maptap_session *s, struct mt_thread *t)
{
	struct mt_mm *mm = t->proc->mm;
	uint64_t errors = s->stats.refresh_errors;
	bool stale = mm->stale, snapshot = mm->stale_snapshot;
	int err;

	switch (t->call->range) {
	case MAPTAP_RANGE_ADDR_LEN:
	case MAPTAP_RANGE_UNMAP:
		t->confirm = true;
		s->stats.map_calls++;
		err = mt_complete_call(s, t, 0);
		t->confirm = false;
		break;
	default:
		err = mt_refresh_full(s, t->proc, t->tid, false);
		break;
	}
	if (err == -ESRCH) {
		/* The kill took the mm with the last thread: nothing is
		 * left to be missed, and no refresh failed. */
		s->stats.refresh_errors = errors;
		mm->stale = stale;
		mm->stale_snapshot = snapshot;
	}
	set_call(t, NULL, NULL, 0);
}

static void on_exit_status(struct maptap_session *s, struct mt_thread *t,
			   int status)
{
	struct mt_proc *p = t->proc;
	struct maptap_event ev;
	int own = t->own_status;

	if (t->call && t->call->cls == MAPTAP_SC_MAP && p->ready &&
	    p->nthreads > 1 && !s->detaching)
		settle_killed_call(s, t);
	event_init(&ev, MAPTAP_EV_EXIT, p->pid, t->tid);
	ev.status = status;
	mt_thread_del(s, t);
	ev.group_exit = p->nthreads == 0;
	if (p->nthreads > 0) {
		/* A thread reaped once its process is exiting as a whole
		 * reports the group's status (wait_task_zombie(),
		 * kernel/exit.c): one that had called exit(2) with its own
		 * code, reaped after the last thread's exit, was logged
		 * with the last one's.  Its exit stop's message is the code
		 * do_exit() took (ptrace(2)).  The process's own status is
		 * waitpid's, as its parent sees it. */
		if (own >= 0)
			ev.status = own;
		mt_emit(s, &ev);	/* one thread of several */
		return;
	}
	if (p->pid == s->launched_pid)
		s->exit_status = status;
	mt_emit(s, &ev);
	mt_proc_del(s, p);
}

/* While detaching: finish what this stop owes (a call's events, a new
 * child's registration), then let the thread go at this very stop with
 * the signal it was to receive, if any. */
static void detach_at_stop(struct maptap_session *s, struct mt_thread *t,
			   int status)
{
	int sig = WSTOPSIG(status), event = status >> 16, deliver = 0;

	if (take_queued_trap(s, t, status))
		return;
	if (sig == (SIGTRAP | 0x80)) {
		if (t->hooked || (t->call && t->call->cls == MAPTAP_SC_MAP))
			finish_at_exit(s, t);
	} else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
		   event == PTRACE_EVENT_CLONE) {
		on_new_child(s, t, event);
	} else if (event == 0) {
		/* A breakpoint's trap is not the target's. */
		deliver = sig == SIGTRAP && mt_uprobe_trap_detach(s, t) ? 0 : sig;
	}
	/* The end of tracing: what the main stack grew since its last
	 * call is seen now or never. */
	if (t->tid == t->proc->pid && t->proc->ready)
		mt_check_main_stack(s, t->proc, t->tid);
	detach_thread(s, t, deliver, "signal", 0);
}

static int handle_status(struct maptap_session *s, pid_t tid, int status)
{
	struct mt_thread *t = mt_thread_find(s, tid);
	int sig, event;

	s->stats.stops++;
	/* We are the launched command's parent as well as its tracer: its
	 * exit reaches us even after we let go of it (a debugger or
	 * LeakSanitizer took it over), and its status is ours to pass on. */
	if (tid == s->launched_pid &&
	    (WIFEXITED(status) || WIFSIGNALED(status))) {
		s->exit_status = status;
		s->launched_reaped = true;
	}
	if (!t) {
		if (!WIFSTOPPED(status)) {
			/* A new child killed before its first stop, whose
			 * creator's event is still to come: that event must
			 * not adopt it.  (No other tracee we do not know
			 * reports an exit: one we let go reports nothing,
			 * but the launched command, whose parent we are.) */
			if (tid != s->launched_pid)
				mt_gone_early_add(s, tid);
			return 0;
		}
		t = adopt(s, tid, 0, true);
		if (!t) {
			ptrace(PTRACE_DETACH, tid, 0L, 0L);
			return 0;
		}
		/* Its creator's event is still to come. */
		t->early = true;
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		on_exit_status(s, t, status);
		return 0;
	}
	if (!WIFSTOPPED(status))
		return 0;
	t->fresh = false;
	t->stopped = true;
	if (t->proc->mm->deferred)
		apply_deferred(s, t);
	if (t->late) {
		/* The attach snapshot was read while this thread could not
		 * stop; whatever it changed meanwhile is found now. */
		t->late = false;
		if (!s->detaching)
			mt_refresh_full(s, t->proc, t->tid, false);
	}
	if (s->detaching) {
		detach_at_stop(s, t, status);
		return 0;
	}
	sig = WSTOPSIG(status);
	event = status >> 16;
	if (sig == (SIGTRAP | 0x80)) {
		on_syscall_stop(s, t, false);
		return 0;
	}
	switch (event) {
	case PTRACE_EVENT_SECCOMP:
		on_syscall_stop(s, t, true);
		return 0;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		/* The child's snapshot shows the stack as it is now: the
		 * parent's model should too. */
		if (t->proc->ready)
			mt_check_main_stack(s, t->proc, t->tid);
		/* fall through */
	case PTRACE_EVENT_CLONE:
		on_new_child(s, t, event);
		mt_resume(s, t, 0);
		return 0;
	case PTRACE_EVENT_EXIT: {
		unsigned long msg;

		/* Its own status (on_exit_status()). */
		if (event_msg(t->tid, PTRACE_EVENT_EXIT, &msg) == 0)
			t->own_status = (int)msg;
		mt_exit_stop(s, t);
		mt_resume(s, t, 0);
		return 0;
	}
	case PTRACE_EVENT_EXEC:
		on_exec(s, t);
		mt_resume(s, t, 0);
		return 0;
	case PTRACE_EVENT_STOP:
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU) {
			/* Group-stop: stay stopped as without maptap, but let
			 * us see SIGCONT and SIGKILL (ptrace(2), PTRACE_LISTEN). */
			t->group_stopped = true;
			t->stopped = false;
			ptrace(PTRACE_LISTEN, t->tid, 0L, 0L);
			return 0;
		}
		t->group_stopped = false;
		mt_resume(s, t, 0);
		return 0;
	case 0:
		/* A hit of a breakpoint probe (maptap/uprobe.h) is handled
		 * and resumed there, its SIGTRAP never delivered. */
		if (sig == SIGTRAP && mt_uprobe_trap(s, t))
			return 0;
		/* Signal-delivery-stop: deliver the signal unchanged. */
		mt_resume(s, t, sig);
		return 0;
	default:
		mt_resume(s, t, 0);
		return 0;
	}
}

int mt_handle_status(struct maptap_session *s, pid_t tid, int status)
{
	/* The child a request made to end a blocking wait: reaped. */
	if (tid == __atomic_load_n(&s->wake_child, __ATOMIC_SEQ_CST) &&
	    (WIFEXITED(status) || WIFSIGNALED(status))) {
		__atomic_store_n(&s->wake_child, 0, __ATOMIC_SEQ_CST);
		return s->stop_rc;
	}
	handle_status(s, tid, status);
	return s->stop_rc;
}

/* Detach every thread (attach mode): interrupt each, and detach it at
 * whatever stop it reports next; mt_resume() detaches while s->detaching. */
static void start_detach(struct maptap_session *s)
{
	size_t i;

	s->detaching = true;
	/* Every original byte back before any thread is let go: one let
	 * go with an int3 ahead would die of its SIGTRAP. */
	mt_uprobe_restore_all(s);
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = mt_thread_at(s, i);

		if (t)
			ptrace(PTRACE_INTERRUPT, t->tid, 0L, 0L);
	}
}

/* While detaching, with no stop pending: a thread that cannot stop now
 * (a vfork parent, asleep until its child execs, maybe never) would hold
 * the detach forever.  Forget it: ptrace(2) cannot let go of a thread
 * that is not in a stop, but the kernel does when the tracer exits
 * (kernel/ptrace.c, exit_ptrace()), and clears our pending interrupt. */
static void let_go_unstoppable(struct maptap_session *s)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = mt_thread_at(s, i);

		if (!t || t->stopped ||
		    !mt_thread_unstoppable(t, false))
			continue;
		mt_diag(s, "pid %d: thread %d cannot stop now (a vfork parent waiting for its child's exec, or in an uninterruptible sleep for 2 s): it is let go when maptap exits",
			(int)t->proc->pid, (int)t->tid);
		detach_thread(s, t, 0, "signal", 0);
	}
}

/* Sleep until a detach request or 1 ms passed: for the short waits
 * outside the run loop, which must not block on a stop that may never
 * come.  The request itself is left for the caller to see. */
void mt_wait_tick(struct maptap_session *s)
{
	struct pollfd pf = { .fd = s->wake[0], .events = POLLIN };
	struct timespec ts = { 0, 1000000 };

	ppoll(&pf, 1, &ts, NULL);
}

/* Whether the run goes on: something left to trace or threads let go
 * of under the filter to answer (listeners), and no callback ended the
 * session (s->stop_rc, returned by the run). */
static bool tracing(const struct maptap_session *s)
{
	return !s->stop_rc &&
	       (s->threads.n > 0 || (s->launched && !s->launched_reaped) ||
		s->listeners.n > 0);
}

/* Act on the detach requests made since the last look (a signal handler
 * may make one at any time).  A request made after this look leaves a
 * byte in the wake-up pipe, so the next wait (wait_chld()) ends at once
 * and the loop takes it; none is lost between this look and that wait. */
static void take_detach_request(struct maptap_session *s)
{
	uint64_t req;
	int signo;

	req = __atomic_exchange_n(&s->detach_req, 0, __ATOMIC_SEQ_CST);
	if (!req)
		return;
	if (s->launched) {
		/* The filter needs us: pass each signal on, to the command
		 * while it lives; once it is reaped (its pid may be another
		 * process's by now), to the traced processes it left, which
		 * hold their pids until maptap reaps them (before: sent to
		 * the reaped pid, and maptap went on while they lived). */
		for (signo = 1; signo < 64; signo++) {
			struct mt_proc *p;

			if (!(req >> signo & 1))
				continue;
			if (!s->launched_reaped && s->launched_pid > 0) {
				kill(s->launched_pid, signo);
				continue;
			}
			for (p = s->procs; p; p = p->next)
				kill(p->pid, signo);
		}
	} else if (!s->detaching) {
		start_detach(s);
	}
}

/* Whether the kernel sends us SIGCHLD at a tracee's stop: not when it
 * is ignored or has SA_NOCLDSTOP (kernel/signal.c,
 * do_notify_parent_cldstop). */
static bool chld_at_stops(void)
{
	struct sigaction sa;

	return sigaction(SIGCHLD, NULL, &sa) == 0 &&
	       sa.sa_handler != SIG_IGN && !(sa.sa_flags & SA_NOCLDSTOP);
}

/* Sleep until a SIGCHLD (blocked, read from CHLD_FD, a signalfd) is
 * pending, a detach request was made (the wake-up pipe), a signal
 * handler ran, or NS nanoseconds passed; without SIGCHLD at stops, 1 ms
 * at most.  Every outcome is fine: the caller looks again. */
static void wait_chld(struct maptap_session *s, int chld_fd, uint64_t ns,
		      bool signalled)
{
	/* After these two, the listeners (listeners.c): a notification
	 * ends the sleep too. */
	struct pollfd local[2], *pf = mt_listeners_pollfds(s, local);
	struct signalfd_siginfo si;
	struct timespec ts;
	char buf[64];

	if (!signalled && ns > 1000000)
		ns = 1000000;
	ts.tv_sec = (time_t)(ns / 1000000000ULL);
	ts.tv_nsec = (long)(ns % 1000000000ULL);
	pf[0] = (struct pollfd){ .fd = chld_fd, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
	if (ppoll(pf, 2 + s->listeners.n, &ts, NULL) <= 0)
		return;
	/* One read each: SIGCHLD is not queued (one pending at most), and
	 * a byte left in the pipe only ends the next sleep early.  The
	 * requests are taken by the caller's next look: a handler sets
	 * the bit before it writes the byte. */
	if ((pf[0].revents & POLLIN) && read(chld_fd, &si, sizeof(si)) < 0)
		return;
	if ((pf[1].revents & POLLIN) && read(s->wake[0], buf, sizeof(buf)) < 0)
		return;
}

/* The wait for the next stop (issue 16).  Sleeping in ppoll(2) until
 * SIGCHLD costs a wake-up per stop, about 4 us on a small VM: the
 * tracee's next stop usually comes within tens of microseconds of its
 * resume, so the run loop first looks for it by waitpid(WNOHANG) and
 * sched_yield() (which also lets the tracee run when it shares our CPU)
 * for up to s->spin_ns.  A look that finds a stop doubles the time, up
 * to MT_SPIN_MAX_NS; one that finds none halves it, and below
 * MT_SPIN_MIN_NS it is 0: a target that stops seldom (idle, or doing
 * work between its calls) costs no CPU after a few misses.  A sleep
 * that ends in a stop sooner than MT_SPIN_MAX_NS turns the looking on
 * again.  (sched_yield() alone, not a pause instruction: the tracee
 * needs the CPU more than we need a quick look.) */
#define MT_SPIN_MAX_NS 200000ULL
#define MT_SPIN_MIN_NS 10000ULL

/* Whether the run loop may wait for the next stop in a blocking
 * waitpid(2) (opts.block_wait): nothing but a stop or a signal can need
 * it meanwhile -- no deadline, no listener, no detach under way -- and
 * a tracee is there to stop. */
static bool may_block(const struct maptap_session *s, uint64_t deadline)
{
	return s->opts.block_wait && !deadline && !s->listeners.n &&
	       !s->detaching && s->threads.n > 0;
}

/* The next stop by one blocking waitpid(-1), the floor's wait (issue 16,
 * bench/README.md): its tid with *STATUS; 0 when a signal handler ran
 * (EINTR) or a detach request is pending, for the loop to look again;
 * -1 with errno from waitpid(2).  A request made before in_block is set
 * is seen below; one made after it, on this thread (opts.block_wait),
 * makes a child that exits at once (maptap_session_request_detach()),
 * whose report ends the wait: either way the wait ends. */
static pid_t block_for_stop(struct maptap_session *s, int *status)
{
	pid_t tid;
	int err;

	if (mt_waitq_pop(s, &tid, status))
		return tid;
	__atomic_store_n(&s->in_block, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->detach_req, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&s->in_block, 0, __ATOMIC_SEQ_CST);
		return 0;
	}
	if (s->fault)
		(void)s->fault(s->fault_arg, MT_FAULT_BLOCK, NULL);
	tid = waitpid(-1, status, __WALL);
	err = errno;
	__atomic_store_n(&s->in_block, 0, __ATOMIC_SEQ_CST);
	if (tid > 0)
		mt_waitq_drain(s);
	else if (tid < 0 && err == EINTR)
		return 0;
	errno = err;
	return tid;
}

/* Look for a stop for up to s->spin_ns, as above.  Returns its tid with
 * *STATUS, 0 when none came or something else needs the loop (a detach
 * request, the DEADLINE), or -1 with errno from waitpid(2). */
static pid_t spin_wait(struct maptap_session *s, int *status,
		       uint64_t deadline)
{
	uint64_t t0, now;
	pid_t tid;

	if (mt_waitq_pop(s, &tid, status))
		return tid;
	if (!s->spin_ns || s->listeners.n || s->detaching ||
	    may_block(s, deadline))
		return 0;
	t0 = mt_now_ns();
	for (;;) {
		sched_yield();
		tid = mt_wait_any(s, status);
		if (tid > 0) {
			s->spin_ns = s->spin_ns * 2 > MT_SPIN_MAX_NS ?
				     MT_SPIN_MAX_NS : s->spin_ns * 2;
			return tid;
		}
		if (tid < 0)
			return tid;
		/* A request from a signal handler: the loop takes it. */
		if (__atomic_load_n(&s->detach_req, __ATOMIC_SEQ_CST))
			return 0;
		now = mt_now_ns();
		if (deadline && now >= deadline)
			return 0;
		if (now - t0 >= s->spin_ns)
			break;
	}
	s->spin_ns /= 2;
	if (s->spin_ns < MT_SPIN_MIN_NS)
		s->spin_ns = 0;
	return 0;
}

/* Trace until tracing ends or, unless DEADLINE is 0, until DEADLINE,
 * with SIGCHLD blocked and read from CHLD_FD: every stop already
 * reported is taken with WNOHANG; when there is none it is looked for a
 * while (spin_wait()), and only then does the loop sleep, in ppoll(2),
 * until the next SIGCHLD, a detach request or the deadline.  A SIGCHLD
 * or a request that comes between the two ends the sleep at once, so no
 * stop and no request waits for the deadline.  A busy tracee could
 * report stops forever: past the deadline, at most one more stop per
 * traced thread is handled before returning. */
static int run_until(struct maptap_session *s, uint64_t deadline,
		     int chld_fd)
{
	bool signalled = chld_at_stops();
	uint64_t slept = 0;	/* when the last sleep began; 0 none since */
	size_t late = 0;
	pid_t tid = 0;
	int status;

	while (tracing(s)) {
		uint64_t now;

		take_detach_request(s);
		mt_listeners_poll(s);
		if (tid == 0 && may_block(s, deadline)) {
			tid = block_for_stop(s, &status);
			if (tid == 0)
				continue;	/* a signal or a request */
		}
		if (tid == 0)
			tid = mt_wait_any(s, &status);
		if (tid < 0) {
			if (errno == EINTR) {
				tid = 0;
				continue;
			}
			if (errno != ECHILD)
				return -errno;
			/* Nothing is left to wait for: the records must
			 * agree, or say what they lost. */
			s->launched_reaped = true;
			if (s->threads.n)
				mt_forget_lost(s, "gone without an exit report");
			if (!s->listeners.n)
				break;
			tid = 0;	/* answer the listeners until they end */
		}
		now = mt_now_ns();
		if (tid > 0) {
			if (slept && now - slept < MT_SPIN_MAX_NS)
				s->spin_ns = MT_SPIN_MAX_NS / 2;
			slept = 0;
			mt_handle_status(s, tid, status);
			if (deadline && now >= deadline &&
			    ++late > s->threads.n)
				return tracing(s) ? 1 : 0;
			/* The thread just resumed stops again soon, most
			 * likely: look for it before sleeping. */
			tid = tracing(s) ? spin_wait(s, &status, deadline) : 0;
			continue;
		}
		if (deadline && now >= deadline)
			return 1;
		if (s->detaching) {
			let_go_unstoppable(s);
			if (!tracing(s))
				break;
		}
		/* Detaching, look again for threads that went to sleep
		 * where they cannot stop (let_go_unstoppable()). */
		slept = now;
		wait_chld(s, chld_fd, deadline ? deadline - now : UINT64_MAX,
			  signalled && !s->detaching);
	}
	return 0;
}

int maptap_session_run_until(struct maptap_session *s, uint64_t deadline_ns)
{
	sigset_t chld, old;
	int rc, fd;

	if (s->perf) {	/* the perf event source: perf_source.c */
		rc = mt_perf_run(s, deadline_ns);
		if (s->stop_rc) {
			rc = s->stop_rc;
			s->stop_rc = 0;
		}
		return rc;
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);
	fd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return rc;
	}
	s->run_tid = (pid_t)syscall(SYS_gettid);
	rc = run_until(s, deadline_ns, fd);
	close(fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (s->stop_rc) {
		/* Once: a caller that runs on traces quietly to the end. */
		rc = s->stop_rc;
		s->stop_rc = 0;
	}
	return rc;
}

int maptap_session_run(struct maptap_session *s)
{
	return maptap_session_run_until(s, 0);
}
