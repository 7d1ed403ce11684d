/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracer.h -- private: the session's objects and the ptrace state machine.
 *
 * Objects: a session owns threads (one per traced tid, in a hash table),
 * processes (one per traced tgid) and address spaces (struct mt_mm, shared
 * by the processes of one mm: threads, vfork and CLONE_VM children).
 * docs/tracer.md describes the stop handling in full.
 */
#ifndef MAPTAP_RUNTIME_TRACER_H
#define MAPTAP_RUNTIME_TRACER_H

#include <config.h>

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <maptap/maptap.h>

/* One address space (the kernel's struct mm_struct). */
struct mt_mm {
	int refs;			/* processes using it */
	struct maptap_mm *model;
	struct maptap_maps_reader *reader;	/* bound to this mm */
	uint64_t brk;			/* last program break seen; 0 unknown */
	int in_call;			/* threads between entry and exit of a MAP call */
};

/* One process (thread group). */
struct mt_proc {
	pid_t pid;			/* tgid */
	struct mt_mm *mm;
	char *exe;			/* readlink of /proc/PID/exe, malloc'd */
	int nthreads;
	bool ready;			/* on_ready called: the program is the
					 * traced one (a launched command is
					 * maptap's own code until its exec) */
	struct mt_proc *next;
};

/* One traced thread. */
struct mt_thread {
	pid_t tid;
	struct mt_proc *proc;
	const struct maptap_syscall *call;	/* pending call, or NULL */
	uint64_t args[6];		/* its entry arguments */
	uint64_t sp;			/* stack pointer at entry */
	bool reported;			/* its effect was already reported, in
					 * its name, by another thread's refresh */
	struct mt_after {		/* sibling mapping calls that returned
					 * while this call was pending, over its
					 * range (a munmap's) or anywhere (a
					 * placed mmap's): who, and where */
		pid_t tid;
		const struct maptap_syscall *sc;
		uint64_t lo, hi;
	} after[4];
	int n_after;			/* > 4: more than kept */
	bool hooked;			/* on_syscall saw the entry of the call
					 * in progress: report its exit */
	int hook_nr;			/* that call's number */
	uint64_t hook_args[6];		/* and its entry arguments */
	bool stopped;			/* in a ptrace stop we hold now (not
					 * resumed, not in PTRACE_LISTEN) */
	bool group_stopped;		/* in PTRACE_LISTEN */
	bool fresh;			/* seized, first stop not yet seen */
	bool early;			/* adopted at its own first stop: its
					 * creator's fork/clone event is still
					 * to come */
	bool held;			/* stopped by our interrupt at attach */
	bool late;			/* could not stop at attach (vfork
					 * parent): the snapshot was read
					 * without it; resync at its first stop */
};

struct mt_thread_table {
	struct mt_thread **slot;	/* open addressing, NULL = empty */
	size_t cap;			/* power of two */
	size_t n;
	size_t tombs;
};

/* Children whose record was dropped (exit, let go) before their
 * creator's PTRACE_EVENT_FORK/VFORK/CLONE was handled: that event must
 * not adopt them again (docs/tracer.md, "The thread lifecycle"). */
struct mt_tid_set {
	pid_t *tid;
	size_t n, cap;
};

struct maptap_session {
	struct maptap_session_opts opts;
	bool use_seccomp;		/* launch mode with the filter */
	bool launched;
	pid_t launched_pid;
	int exit_status;		/* of the launched command, or -1 */
	bool launched_reaped;		/* its exit status is known */
	struct mt_thread_table threads;
	struct mt_tid_set gone_early;
	struct mt_proc *procs;
	/* Detach requests not yet acted on, from signal handlers: bit N
	 * for signal N (1-63), bit 0 for one without a signal.  Set and
	 * taken atomically, so that two close together are both kept. */
	uint64_t detach_req;
	int wake[2];			/* self-pipe: a request ends the wait */
	bool detaching;
	struct maptap_vma_buf buf;	/* scratch for reads */
	struct maptap_vma_buf buf2;
	struct maptap_session_stats stats;
	uint64_t last_ns;
	char errmsg[512];
};

/* session.c */
int mt_error(struct maptap_session *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mt_diag(struct maptap_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t mt_now_ns(void);
void mt_event_init(struct maptap_event *ev, enum maptap_event_kind kind,
		   pid_t pid, pid_t tid);
int mt_emit(struct maptap_session *s, struct maptap_event *ev);
struct mt_thread *mt_thread_find(struct maptap_session *s, pid_t tid);
struct mt_thread *mt_thread_add(struct maptap_session *s, pid_t tid,
				struct mt_proc *proc);
void mt_thread_del(struct maptap_session *s, struct mt_thread *t);
void mt_gone_early_add(struct maptap_session *s, pid_t tid);
bool mt_gone_early_take(struct maptap_session *s, pid_t tid);
void mt_forget_lost(struct maptap_session *s, const char *why);
struct mt_proc *mt_proc_find(struct maptap_session *s, pid_t pid);
struct mt_proc *mt_proc_new(struct maptap_session *s, pid_t pid,
			    struct mt_mm *mm);
void mt_proc_del(struct maptap_session *s, struct mt_proc *p);
struct mt_mm *mt_mm_new(void);
void mt_mm_put(struct mt_mm *mm);

/* refresh.c: bring models up to date and emit their events */
int mt_refresh_full(struct maptap_session *s, struct mt_proc *p, pid_t tid,
		    bool snapshot);
int mt_complete_call(struct maptap_session *s, struct mt_thread *t,
		     int64_t ret);
void mt_verify(struct maptap_session *s, struct mt_proc *p);

/* procfs.c: small readers of /proc */
int mt_proc_status_long(pid_t pid, const char *field, long *out);
int mt_proc_state(pid_t pid, char *state);
int mt_proc_stat_field(pid_t pid, int field, long *out);
int mt_proc_is_kthread(pid_t pid);
bool mt_thread_unstoppable(pid_t tid);
char *mt_proc_exe(pid_t pid);
int mt_proc_tids(pid_t pid, pid_t **tids, size_t *n);
int mt_same_mm(pid_t a, pid_t b);

/* seccomp.c */
int mt_seccomp_install(const struct maptap_session_opts *opts);

/* user_mem.c: the /proc/PID/mem path of maptap_read_user(), on its own
 * so the tests can reach it where process_vm_readv(2) works. */
ssize_t mt_read_user_procmem(pid_t pid, uint64_t addr, void *buf,
			     size_t len);

/* loop.c: the ptrace stop state machine */
int mt_handle_status(struct maptap_session *s, pid_t tid, int status);
void mt_resume(struct maptap_session *s, struct mt_thread *t, int sig);
void mt_ready(struct maptap_session *s, struct mt_proc *p, pid_t tid,
	      enum maptap_ready_why why);
void mt_wait_tick(struct maptap_session *s);

#define MT_PTRACE_OPTS (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | \
			PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
			PTRACE_O_TRACEEXEC)

#endif
