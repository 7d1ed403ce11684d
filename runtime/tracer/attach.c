/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* attach.c -- attach to a running process (maptap -x PID).
 *
 * Seize every thread, rescanning /proc/PID/task until no new tid appears
 * (threads created meanwhile by seized threads are attached by the kernel
 * through PTRACE_O_TRACECLONE; those created by not-yet-seized ones are
 * found by the rescan).  Then interrupt them all and wait until each has
 * stopped, so that the snapshot of the maps is read while nothing in the
 * process can change them.  Stops other than our interrupt that arrive
 * meanwhile are kept and handled afterwards, so no signal is lost.  A
 * thread that cannot stop now (a vfork parent) does not hold up the
 * others: it is late, and its first stop resyncs the model (loop.c).
 */
#include "tracer_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* Yama's ptrace restriction, when the kernel has it (Documentation/
 * admin-guide/LSM/Yama.rst): the likely cause of an EPERM from ptrace
 * there, and only there. */
#define YAMA_SCOPE "/proc/sys/kernel/yama/ptrace_scope"

struct held {
	pid_t tid;
	int status;
};

int mt_check_target(struct maptap_session *s, pid_t pid, bool ptrace)
{
	long tracer = 0, tgid = 0;
	char state;
	int err;

	if (pid <= 0)
		return mt_error(s, -ESRCH, "no such process: %d", (int)pid);
	err = mt_proc_status_long(pid, "Tgid:", &tgid);
	if (err)
		return mt_error(s, -ESRCH, "no such process: %d", (int)pid);
	if (tgid != pid)
		return mt_error(s, -EINVAL,
				"%d is a thread of process %ld; give the process id",
				(int)pid, tgid);
	if (mt_proc_state(pid, &state) == 0 && (state == 'Z' || state == 'X'))
		return mt_error(s, -EINVAL, "process %d is a zombie", (int)pid);
	if (mt_proc_is_kthread(pid) == 1)
		return mt_error(s, -EINVAL,
				"process %d is a kernel thread: it has no user address space",
				(int)pid);
	/* perf events do not conflict with a tracer. */
	if (ptrace &&
	    mt_proc_status_long(pid, "TracerPid:", &tracer) == 0 && tracer)
		return mt_error(s, -EBUSY,
				"process %d is already traced by process %ld",
				(int)pid, tracer);
	if (pid == getpid())
		return mt_error(s, -EINVAL, "maptap cannot trace itself");
	return 0;
}

static int seize_one(struct maptap_session *s, struct mt_proc *p, pid_t tid)
{
	struct mt_thread *t;

	if (mt_thread_find(s, tid))
		return 0;
	if (ptrace(PTRACE_SEIZE, tid, 0L, (unsigned long)MT_PTRACE_OPTS) != 0) {
		long tracer = 0;
		int err = errno;
		char state = 0;

		if (err == ESRCH)
			return 0;	/* the thread ended meanwhile: normal */
		/* A thread created by one we seized since the scan began is
		 * already ours (PTRACE_O_TRACECLONE attached it): its first
		 * stop, or its creator's clone event, registers it. */
		if (err == EPERM &&
		    mt_proc_status_long(tid, "TracerPid:", &tracer) == 0 &&
		    tracer == getpid())
			return 0;
		/* A thread that has ended but is still listed (a zombie
		 * until released, or already gone): ptrace_attach() refuses
		 * a task with an exit_state with EPERM, not ESRCH
		 * (kernel/ptrace.c).  A process creating and ending threads
		 * met the scan so 1 attach in 30 ("permission denied
		 * attaching"). */
		if (err == EPERM && tid != p->pid &&
		    (mt_proc_state(tid, &state) != 0 || state == 'Z' ||
		     state == 'X'))
			return 0;
		return -err;
	}
	t = mt_thread_add(s, tid, p);
	if (!t)
		return -ENOMEM;
	t->fresh = true;
	ptrace(PTRACE_INTERRUPT, tid, 0L, 0L);
	return 1;
}

/* Seize until a scan finds no thread we do not have. */
static int seize_all(struct maptap_session *s, struct mt_proc *p)
{
	return mt_proc_each_new_tid(s, p, seize_one);
}

static int keep_held(struct held **held, size_t *nheld, size_t *cap,
		     pid_t tid, int status)
{
	if (*nheld == *cap) {
		struct held *nh = realloc(*held, (*cap = *cap ? 2 * *cap : 8) *
					  sizeof(**held));

		if (!nh)
			return -ENOMEM;
		*held = nh;
	}
	(*held)[(*nheld)++] = (struct held){ tid, status };
	return 0;
}

/* The number of fresh threads that may still stop; those that cannot
 * (mt_thread_unstoppable(): a vfork parent) become late when LOOK. */
static size_t count_fresh(struct maptap_session *s, bool look)
{
	size_t i, n = 0;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = mt_thread_at(s, i);

		if (!t || !t->fresh || t->late)
			continue;
		if (look && mt_thread_unstoppable(t, true)) {
			t->late = true;
			mt_diag(s, "pid %d: thread %d cannot stop now (a vfork parent waiting for its child's exec, or in an uninterruptible sleep for 2 s): the maps are read without it, and it is traced from its first stop",
				(int)t->proc->pid, (int)t->tid);
			continue;
		}
		n++;
	}
	return n;
}

/* A detach request came: read the maps without the threads still on
 * their way to a stop; the run loop lets everyone go. */
static void make_late(struct maptap_session *s)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = mt_thread_at(s, i);

		if (t && t->fresh)
			t->late = true;
	}
}

/* Wait until every fresh thread has stopped, or cannot stop now, or a
 * detach request came; keep other stops in HELD.  Never blocks: a stop
 * we asked for may never come (a vfork parent sleeps until its child
 * execs), and a request must end the wait whenever it comes. */
static int wait_all_stopped(struct maptap_session *s, struct held **held,
			    size_t *nheld)
{
	size_t cap = 0;

	*held = NULL;
	*nheld = 0;
	for (;;) {
		struct mt_thread *t;
		int status;
		pid_t tid;

		if (!count_fresh(s, false))
			return 0;
		tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (tid == 0) {
			/* Nothing pending: leave out who cannot stop. */
			if (!count_fresh(s, true))
				return 0;
			if (__atomic_load_n(&s->detach_req, __ATOMIC_SEQ_CST)) {
				make_late(s);
				return 0;
			}
			mt_wait_tick(s);
			continue;
		}
		t = mt_thread_find(s, tid);
		if (t && t->fresh && !t->late) {
			/* Stopped (or gone): the snapshot may be read. */
			t->fresh = false;
			t->stopped = WIFSTOPPED(status);
			if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP &&
			    status >> 16 == PTRACE_EVENT_STOP) {
				t->held = true;
				continue;
			}
		}
		if (keep_held(held, nheld, &cap, tid, status))
			return -ENOMEM;
	}
}

static void undo(struct maptap_session *s, struct mt_proc *p)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = mt_thread_at(s, i);

		if (!t || t->proc != p)
			continue;
		ptrace(PTRACE_DETACH, t->tid, 0L, 0L);
		mt_thread_del(s, t);
	}
	mt_proc_del(s, p);
}

int maptap_session_attach(struct maptap_session *s, pid_t pid)
{
	struct maptap_event ev;
	struct held *held;
	struct mt_proc *p;
	struct mt_mm *mm;
	size_t i, nheld;
	long mode = 0;
	bool fallback = false;
	int err = 0;

	/* The perf event source, when chosen: perf_source.c. */
	if (mt_perf_choose(s, false, &err)) {
		err = mt_perf_attach(s, pid, &fallback);
		if (!fallback) {
			s->perf_used = !err;
			return err;
		}
	}
	if (!err)
		err = mt_check_target(s, pid, true);
	if (err)
		return err;
	mm = mt_mm_new();
	p = mm ? mt_proc_new(s, pid, mm) : NULL;
	if (!p) {
		mt_mm_put(mm);
		return mt_error(s, -ENOMEM, "out of memory");
	}
	/* Filters installed before the attach may have a listener
	 * (loop.c, watch_filter()); whether one has cannot be read. */
	p->notif = mt_proc_status_long(pid, "Seccomp:", &mode) == 0 &&
		   mode == 2;	/* SECCOMP_MODE_FILTER */
	err = seize_all(s, p);
	if (err) {
		long tracer = 0;

		undo(s, p);
		if (err == -EPERM &&
		    mt_proc_status_long(pid, "TracerPid:", &tracer) == 0 && tracer)
			return mt_error(s, -EBUSY,
					"process %d is already traced by process %ld",
					(int)pid, tracer);
		if ((err == -EPERM || err == -EACCES) &&
		    access(YAMA_SCOPE, F_OK) == 0)
			return mt_error(s, err,
					"permission denied attaching to process %d (ptrace: %s; see " YAMA_SCOPE ")",
					(int)pid, strerror(-err));
		if (err == -EPERM || err == -EACCES)
			return mt_error(s, err,
					"permission denied attaching to process %d (ptrace: %s; it may belong to another user or be undumpable, or a security module forbids it: ptrace(2), \"Ptrace access mode checking\")",
					(int)pid, strerror(-err));
		return mt_error(s, err, "cannot attach to process %d: %s",
				(int)pid, strerror(-err));
	}
	err = wait_all_stopped(s, &held, &nheld);
	if (err) {
		free(held);
		undo(s, p);
		return mt_error(s, err, "cannot attach to process %d: %s",
				(int)pid, strerror(-err));
	}
	/* Maps that cannot be read refuse the attach before anything is
	 * logged (root on another user namespace's init: EACCES): a log
	 * of an attach and its "detach error" was left of a process never
	 * traced.  Gone (-ESRCH) is the refresh's to find. */
	err = mt_ensure_reader(s, p);
	if (err && err != -ESRCH) {
		free(held);
		undo(s, p);
		return mt_error(s, err, "cannot read the maps of process %d: %s",
				(int)pid, strerror(-err));
	}
	memset(&ev, 0, sizeof(ev));
	ev.kind = MAPTAP_EV_ATTACH;
	ev.pid = ev.tid = pid;
	ev.time_ns = mt_now_ns();
	ev.syscall_nr = -1;
	ev.path = p->exe;
	ev.vma.name = ev.old.name = "";
	mt_emit(s, &ev);
	err = mt_refresh_full(s, p, pid, true);
	if (err && err != -ESRCH) {
		free(held);
		undo(s, p);
		return mt_error(s, err, "cannot read the maps of process %d: %s",
				(int)pid, strerror(-err));
	}
	/* Every thread is still stopped: the process's begin. */
	mt_ready(s, p, pid, MAPTAP_READY_ATTACH);
	/* Let everyone run: first the stops that came in meanwhile, then the
	 * threads that stopped for our interrupt. */
	for (i = 0; i < nheld; i++)
		mt_handle_status(s, held[i].tid, held[i].status);
	free(held);
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = mt_thread_at(s, i);

		if (!t || !t->held)
			continue;
		t->held = false;
		mt_resume(s, t, 0);
	}
	return 0;
}
