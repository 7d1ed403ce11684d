/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracer_priv.h -- private: the session's objects and the ptrace state machine.
 *
 * Objects: a session owns threads (one per traced tid, in a hash table),
 * processes (one per traced tgid) and address spaces (struct mt_mm, shared
 * by the processes of one mm: threads, vfork and CLONE_VM children).
 * docs/tracer.md describes the stop handling in full.
 */
#ifndef MAPTAP_RUNTIME_TRACER_H
#define MAPTAP_RUNTIME_TRACER_H

#include <config.h>

#include <poll.h>
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
	int deferred;			/* threads with a deferred call
					 * (mt_thread.deferred); may count
					 * too many, never too few */
	int untraced;			/* threads maptap let go of that may
					 * still use it: what they change is
					 * found only by reading (resync) */
	bool stale;			/* a refresh failed: the model may miss
					 * changes until mt_resync() */
	bool stale_snapshot;		/* a snapshot read was among them */
	uint64_t map_last;		/* start of the last mapping a
					 * non-fixed mmap made; 0 none: where
					 * a deferred mmap is looked for
					 * first (find_deferred_map()) */
	uint64_t stack_addr;		/* in the main stack ([stack]): the
					 * image's start_stack; 0 not read yet */
	struct maptap_mm *perf_dontcopy;	/* perf: the ranges marked
						 * MADV_DONTFORK, which a fork
						 * child does not get; NULL none
						 * (perf_source.c, dontcopy()) */
	uint64_t verify_next_ns;	/* --verify: no full check before */
	uint64_t verify_full_ns;	/* how long the last full check took */
	struct mt_bps *bps;		/* breakpoints (uprobe.c); NULL none */
};

/* A command name's size with its NUL: the kernel's TASK_COMM_LEN
 * (include/linux/sched.h), as /proc/PID/comm shows it. */
#define MT_COMM_LEN 16

/* A thread seen in 'D' at every look (mt_dsleep_give_up()). */
struct mt_dsleep {
	uint64_t first;			/* since when, ns */
	uint64_t since;			/* ... with no progress of its
					 * process's since, ns; 0: not in 'D' */
	uint64_t cpu;			/* that process's CPU time then */
};

/* One process (thread group). */
struct mt_proc {
	pid_t pid;			/* tgid */
	struct mt_mm *mm;
	char *exe;			/* readlink of /proc/PID/exe, malloc'd */
	char comm[MT_COMM_LEN];		/* its command name (/proc/PID/comm
					 * or perf's COMM record); "" */
	int nthreads;
	bool ready;			/* on_ready called: the program is the
					 * traced one (a launched command is
					 * maptap's own code until its exec) */
	uint64_t perf_since;		/* perf: records before this time are
					 * in the last full read already */
	uint64_t perf_gone;		/* perf: first seen gone from /proc
					 * without an exit record; 0 not */
	int perf_ready_why;		/* perf: on_ready held for the exec's
					 * snapshot (exec_snapshot()): its
					 * enum maptap_ready_why + 1; 0 none */
	bool perf_in_exec;		/* perf: between the exec's record and
					 * execve's return: its snapshot */
	bool perf_reread;		/* perf: to be read whole after this
					 * round (a call's exit alone) */
	struct {			/* perf: an exec whose event waits for
					 * the path of its image (exec_wait()) */
		bool on;
		uint64_t time;		/* its COMM record's, ns */
		pid_t former;		/* the thread that called execve */
		char *old_exe;		/* malloc'd, or NULL */
		struct mt_held_rec *held; /* the records of P that came
					 * before its image's first file
					 * mapping ([stack]): malloc'd */
		size_t nheld;
	} perf_exec_wait;
	bool perf_leader_gone;		/* perf: the leader's EXIT record
					 * came while other threads live:
					 * its exit is the process's */
	int perf_status;		/* perf: wait status from its
					 * exit_group or fatal signal, -1
					 * unknown */
	int perf_leader_status;		/* perf: from the leader's exit(2),
					 * -1 none */
	int perf_sig_sent;		/* perf: a fatal signal a traced
					 * process sent it, 0 none */
	bool notif;			/* may have a seccomp filter with a
					 * listener (SECCOMP_RET_USER_NOTIF): stop
					 * at every entry and exit, trust only
					 * reads (docs/tracer.md) */
	struct mt_proc *next;
};

/* perf: a copy of a PERF_RECORD_MMAP2 body (LEN bytes, malloc'd) held
 * back until the exec event it follows (struct mt_proc.perf_exec_wait). */
struct mt_held_rec {
	uint64_t time;			/* its sample_id time, ns */
	size_t len;			/* bytes */
	uint8_t *rec;
};

/* perf_dedup.c: which of maptap's event sets a record came through
 * (a source: the events opened on one thread), and per thread which
 * source's copies of its records count (docs/tracer.md, "A thread with
 * two sets of events"). */
/* perf: the longest a FORK record waits for its creator's task_newtask
 * (perf_source.c, forks_flush()), ns. */
#define MT_PERF_NEWTASK_MAX_NS 1000000000ULL
#define MT_PERF_EXITED 256	/* tids of the last EXIT records kept */
struct mt_perf_srcs {
	uint64_t *id_lo;	/* per source, ascending: the first id the
				 * kernel gave its events */
	size_t n, cap;
	struct mt_perf_exited {		/* a ring; tid 0: empty */
		pid_t tid;
		int cpu, src;	/* where its EXIT record was read, and
				 * through which source */
	} exited[MT_PERF_EXITED];
	unsigned exited_pos;
};
struct mt_perf_dup {
	uint32_t src0;		/* 1 + the only source seen so far; 0 none */
	uint64_t src0_cpus;	/* the CPUs (below 64) it was seen on */
	uint32_t *by_cpu;	/* once a second source is seen: per CPU,
				 * 1 + the newest source seen there */
};

/* One traced thread. */
struct mt_thread {
	pid_t tid;
	struct mt_proc *proc;
	const struct maptap_syscall *call;	/* pending call, or NULL */
	uint64_t args[6];		/* its entry arguments */
	uint64_t sp;			/* stack pointer at entry */
	/* A mapping call resumed at its entry without an exit stop, its
	 * change to be read at the thread's next stop (loop.c,
	 * defer_call()), with its arguments; NULL none. */
	const struct maptap_syscall *deferred;
	uint64_t deferred_args[6];
	bool confirm;			/* the call completing was deferred:
					 * only a read says what it did */
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
	bool entered;			/* its syscall-entry stop was handled
					 * (a seccomp stop of the same call
					 * comes after it) */
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
	struct mt_dsleep dsleep;	/* mt_thread_unstoppable() */
	bool exiting;			/* past its PTRACE_EVENT_EXIT stop: it
					 * runs no more user code */
	struct mt_ustack *ustack;	/* pending returns (uprobe.c); NULL */
	bool perf_exec;			/* perf: in execve (its entry record) */
	int own_status;			/* its own wait status for its exit
					 * event when not the process's, -1
					 * unknown: ptrace, its PTRACE_EVENT_
					 * EXIT stop's message; perf, its
					 * exit(2) entry (not the leader) */
	uint64_t perf_lock_ns;		/* perf: when its pending call took
					 * the mm's lock for writing; 0 not */
	uint64_t perf_enter_ns;		/* perf: when its pending call
					 * (call) entered */
	bool perf_clone_vm;		/* perf: its last vfork/clone shares
					 * the mm */
	uint64_t perf_clone_ns;		/* perf: when its clone, fork or
					 * vfork call entered, until its
					 * FORK record or its next call; 0
					 * none in flight */
	struct maptap_mm *perf_fork_image;	/* perf: what the child of
						 * that call got, taken at
						 * the mm's copy (perf_
						 * source.c, fork_point());
						 * NULL not taken */
	uint64_t perf_fork_ns;		/* perf: the time of that copy
					 * (fork_point()); 0 none */
	pid_t perf_child;		/* perf: the last child it forked
					 * from such an image, made at */
	uint64_t perf_child_ns;		/* that copy's time */
	pid_t perf_prefork;		/* perf: the thread whose fork copied
					 * the mm after its pending call took
					 * the lock, when that call's change
					 * is known only at its exit (mremap,
					 * brk: prefork_exit()); 0 none */
	uint64_t perf_prefork_ns;	/* the time of that copy */
	bool perf_clone_armed;		/* perf: its events were opened at
					 * an attach and no clone entry of
					 * it was read since: a FORK record
					 * is of a clone begun before
					 * (on_fork()) */
	struct {			/* perf: the FORK record of a process
					 * it made, until its task_newtask
					 * says if it shares the mm */
		uint32_t pid, ppid, tid, ptid;	/* pid 0: none */
		uint64_t time;
		struct maptap_mm *image;	/* what the child got
						 * (perf_fork_image); NULL */
		uint64_t image_ns;		/* its perf_fork_ns */
	} perf_fork;
	struct mt_perf_dup perf_dup;	/* perf: the source its records
					 * count from (perf_dedup.c) */
	struct maptap_vma_buf *perf_mremap_src;	/* perf: its mremap's old
					 * range as the model had it before a
					 * sibling mapped over it (mremap_ran()),
					 * malloc'd; or NULL */
	struct mt_perf_stack *perf_stack;	/* perf with call_stacks: its
						 * last call's user stack
						 * (perf_source.c); NULL */
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

/* Stops taken from the kernel and not yet handled, oldest first
 * (waitq.c): a round of waitpid(-1) takes every pending stop, so that
 * each thread gets its turn. */
struct mt_waitq_entry {
	pid_t tid;
	int status;			/* as waitpid(2) gave it */
};

struct mt_waitq {
	struct mt_waitq_entry *e;	/* e[head .. head + n - 1] */
	size_t head, n, cap;
};

/* The listeners of the filters given to threads maptap let go of
 * (inject.c): answered from the run loop until no task uses the filter. */
struct mt_listeners {
	struct pollfd *pf;		/* 2 slots for the run loop's own fds,
					 * then the n listeners */
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
	struct mt_waitq waitq;
	struct mt_proc *procs;
	/* Detach requests not yet acted on, from signal handlers: bit N
	 * for signal N (1-63), bit 0 for one without a signal.  Set and
	 * taken atomically, so that two close together are both kept. */
	uint64_t detach_req;
	int wake[2];			/* self-pipe: a request ends the wait */
	pid_t run_tid;			/* the thread in maptap_session_run*() */
	int in_block;			/* 1 from just before a blocking
					 * waitpid to its end (atomic): a
					 * request then makes wake_child */
	pid_t wake_child;		/* a child made only to exit and so end
					 * that waitpid; its report is
					 * dropped (atomic); 0 none */
	bool detaching;
	/* A callback returned non-zero (mt_callback_stop()): no callback is
	 * made again (QUIET), and STOP_RC, until maptap_session_run_until()
	 * returns it, ends the run. */
	bool quiet;
	int stop_rc;
	struct mt_listeners listeners;
	/* How long, after a resume, the run loop looks for the next stop
	 * by polling (waitpid(WNOHANG) and sched_yield()) before it
	 * sleeps: adapted to the target (loop.c, spin_wait()); 0 sleeps
	 * at once. */
	uint64_t spin_ns;
	struct maptap_vma_buf buf;	/* scratch for reads */
	struct maptap_vma_buf buf2;
	struct maptap_session_stats stats;
	uint64_t last_ns;
	char errmsg[512];
	struct mt_uprobes *up;		/* breakpoint probes (uprobe.c); NULL */
	struct mt_perf *perf;		/* the perf event source in use
					 * (perf_source.c); NULL: ptrace */
	bool perf_used;			/* attach or launch chose perf */
	unsigned perf_test_cw_pause_us;	/* tests: mt_perf_test_cw_pause() */
	char events_why[512];		/* which source, and why */
	/* Test-only fault injection (mt_set_fault()); NULL in use. */
	int (*fault)(void *arg, int site, const struct mt_thread *t);
	void *fault_arg;
};

/* diag.c */
int mt_error(struct maptap_session *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mt_diag(struct maptap_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t mt_now_ns(void);
void mt_event_init(struct maptap_event *ev, enum maptap_event_kind kind,
		   pid_t pid, pid_t tid);
/* Hand EV to on_event (unless quiet).  Returns 0: a non-zero return of
 * on_event stops the session (mt_callback_stop()), not the producer, so
 * that the model stays whole. */
int mt_emit(struct maptap_session *s, struct maptap_event *ev);
/* mt_emit() as a model consumer (maptap_mm_* callbacks): ARG is the
 * session. */
int mt_emit_cb(const struct maptap_event *ev, void *arg);
/* refresh.c: open P's maps reader (maptap/maps.h) if not yet open.
 * Returns 0, -ESRCH when P is gone, or maptap_maps_open()'s -errno. */
int mt_ensure_reader(struct maptap_session *s, struct mt_proc *p);
/* Callback WHO ("on_event", "on_syscall") returned RC, non-zero: end the
 * session (maptap/session.h, on_event): quiet from now on, and the run
 * returns RC, with a message in errmsg. */
void mt_callback_stop(struct maptap_session *s, int rc, const char *who);

/* threads.c */
/* A slot of s->threads whose thread was deleted (open addressing keeps
 * the probe chains whole until the table is rebuilt). */
#define MT_THREAD_TOMB ((struct mt_thread *)1)

/* The thread in slot I of S's thread table (I < s->threads.cap), or
 * NULL for an empty slot or a deleted one: for the loops over every
 * thread. */
static inline struct mt_thread *mt_thread_at(const struct maptap_session *s,
					     size_t i)
{
	struct mt_thread *t = s->threads.slot[i];

	return t == MT_THREAD_TOMB ? NULL : t;
}

struct mt_thread *mt_thread_find(struct maptap_session *s, pid_t tid);
struct mt_thread *mt_thread_add(struct maptap_session *s, pid_t tid,
				struct mt_proc *proc);
void mt_thread_del(struct maptap_session *s, struct mt_thread *t);
struct mt_proc *mt_proc_find(struct maptap_session *s, pid_t pid);
struct mt_proc *mt_proc_new(struct maptap_session *s, pid_t pid,
			    struct mt_mm *mm);
void mt_proc_del(struct maptap_session *s, struct mt_proc *p);
/* Call TAKE(S, P, TID) for each thread of P in /proc/PID/task that is
 * not in the thread table, scanning again until a scan takes none (a
 * thread taken may create others meanwhile).  TAKE returns 1 when it
 * took TID, 0 when it let it go (gone meanwhile), or -errno, which ends
 * the scan and is returned.  0, or -errno of the scan (opendir(3)),
 * -ENOMEM. */
int mt_proc_each_new_tid(struct maptap_session *s, struct mt_proc *p,
			 int (*take)(struct maptap_session *s,
				     struct mt_proc *p, pid_t tid));
struct mt_mm *mt_mm_new(void);
void mt_mm_put(struct mt_mm *mm);
/* Free every thread left in S's table, and the table (session end). */
void mt_thread_table_free(struct maptap_session *s);

/* lifecycle.c */
void mt_gone_early_add(struct maptap_session *s, pid_t tid);
bool mt_gone_early_take(struct maptap_session *s, pid_t tid);
void mt_forget_lost(struct maptap_session *s, const char *why);

/* waitq.c.  mt_wait_any(): the next stop to handle, oldest taken first;
 * with several threads traced, a waitpid(-1) that finds one takes every
 * other pending stop too.  Returns its tid with *STATUS, 0 when none is
 * pending (it never blocks), or -1 with errno from waitpid(2).
 * mt_waitq_drain(): after a waitpid(-1) took a stop, queue every other
 * one already pending (with several threads).
 * mt_waitq_pop(): the oldest taken stop, false if none.
 * mt_waitq_take(): thread TID's taken stop (STATUS may be NULL), false
 * if none: a wait for one thread must look here before waitpid(TID). */
pid_t mt_wait_any(struct maptap_session *s, int *status);
void mt_waitq_drain(struct maptap_session *s);
bool mt_waitq_pop(struct maptap_session *s, pid_t *tid, int *status);
bool mt_waitq_take(struct maptap_session *s, pid_t tid, int *status);
void mt_waitq_free(struct maptap_session *s);

/* Where mt_set_fault()'s function is asked whether to fail. */
enum mt_fault_site {
	MT_FAULT_CALL,		/* mt_complete_call(), before it reads */
	MT_FAULT_REREAD,	/* mt_complete_call(), before it reads its
				 * range again because the holes of the
				 * last read reported sibling munmaps
				 * (siblings.c, mt_read_settled()) */
	MT_FAULT_FULL,		/* mt_refresh_full(), before it reads */
	MT_FAULT_WAIT,		/* mt_wait_blocking() (xol.c's wait for the
				 * thread it runs a call in, launch.c's reap):
				 * non-zero is a signal to maptap
				 * interrupting that wait (EINTR) */
	MT_FAULT_BLOCK,		/* loop.c's blocking wait for the next
				 * stop, after it looked for a detach
				 * request and before waitpid(2): where a
				 * signal handler's request is hardest to
				 * see (the return value is ignored) */
};

/* diag.c: for tests only (testsuite/unit/test_errors.c).  From now
 * on, FN(ARG, SITE, T) is called where a refresh of S is about to read
 * the kernel's maps (T: the thread whose call completes, or NULL); a
 * non-zero return, a -errno, makes that refresh fail with it, as if
 * the read had; at MT_FAULT_WAIT (T NULL), the wait returns EINTR, as
 * when a signal handler of maptap's ran.  FN NULL: no faults. */
void mt_set_fault(struct maptap_session *s,
		  int (*fn)(void *arg, int site, const struct mt_thread *t),
		  void *arg);

/* refresh.c: bring models up to date and emit their events.
 *
 * mt_refresh_full() reads P's whole mm (SNAPSHOT: its events are the
 * snapshot of a new image or process); mt_complete_call() refreshes what
 * T's mapping call, returning RET, touched.  Each returns 0 or the -errno
 * of the read that failed (-ENOMEM, -EIO, -ESRCH when the process is
 * gone, -EINVAL) and handles that failure itself: it is counted
 * (stats.refresh_errors) and the mm is marked stale, to be read whole by
 * mt_resync() before one of its threads runs on.  Callers in the stop
 * loop need not look at the value; attach uses it to refuse. */
int mt_refresh_full(struct maptap_session *s, struct mt_proc *p, pid_t tid,
		    bool snapshot);
int mt_complete_call(struct maptap_session *s, struct mt_thread *t,
		     int64_t ret);
/* If P's mm is stale, read it whole (as a snapshot when a snapshot read
 * failed), its changes as resync events; counted in stats.resyncs, or,
 * failing again, in stats.refresh_errors and left stale. */
void mt_resync(struct maptap_session *s, struct mt_proc *p, pid_t tid);
void mt_check_main_stack(struct maptap_session *s, struct mt_proc *p,
			 pid_t tid);
/* The hint of an event of P's mm caused by thread TID's call SC (NULL:
 * no call), timed now (refresh.c; siblings.c names events by it). */
void mt_hint_init(struct maptap_mm_hint *h, struct mt_proc *p, pid_t tid,
		  const struct maptap_syscall *sc);

/* siblings.c: the calls of T's siblings in flight while T's mapping
 * call completes (mt_complete_call()), over [LO, HI) of T's mm.
 * mt_unmap_raced(): a placed mmap found memory the model still has
 * there: report first the siblings' unmaps that freed it.
 * mt_read_settled(): read s->buf again until no pending sibling munmap
 * explains its holes (AGAIN: take reported ones again); 0 or a read's
 * -errno.  mt_note_after(): tell the siblings' pending calls that T
 * mapped there.  mt_unmap_exit(): T is a munmap: report it, then name
 * what a read finds there since; 0 or a -errno. */
void mt_unmap_raced(struct maptap_session *s, struct mt_thread *t,
		    uint64_t lo, uint64_t hi);
int mt_read_settled(struct maptap_session *s, struct mt_thread *t,
		    uint64_t lo, uint64_t hi, bool again);
void mt_note_after(struct maptap_session *s, struct mt_thread *t,
		   uint64_t lo, uint64_t hi);
int mt_unmap_exit(struct maptap_session *s, struct mt_thread *t,
		  uint64_t lo, uint64_t hi);
/* mt_verify() flags */
#define MT_VERIFY_FULL 1u	/* the whole map now, whatever the rate */
#define MT_VERIFY_STACK 2u	/* [stack] too: nothing can grow it now */
void mt_verify(struct maptap_session *s, struct mt_proc *p,
	       const uint64_t (*ranges)[2], size_t n, unsigned flags);
void mt_exit_stop(struct maptap_session *s, struct mt_thread *t);

/* procfs.c: small readers of /proc */
int mt_proc_status_long(pid_t pid, const char *field, long *out);
int mt_thread_sigpending(pid_t tid, uint64_t *mask);
int mt_proc_state(pid_t pid, char *state);
int mt_proc_stat_field(pid_t pid, int field, long *out);
int mt_proc_is_kthread(pid_t pid);
/* How long (ns) a thread not in vfork must be seen in 'D' before it is
 * taken for one that cannot stop now (mt_thread_unstoppable()): longer
 * than a wait for the mm's lock behind a sibling's MAP_POPULATE of
 * hundreds of MiB on a loaded machine; a thread stuck there (a dead
 * FUSE server) must not hold up the attach or the detach for good. */
#define MT_DSLEEP_NS 2000000000ULL
/* The same for a thread in vfork(2): its child most often execs within
 * a few ms; one that has not by then may never. */
#define MT_VFORK_WAIT_NS 50000000ULL
/* The longest an attach waits for a thread in 'D' while its process
 * makes progress (mt_thread_unstoppable(), PATIENT). */
#define MT_DSLEEP_MAX_NS 30000000000ULL
bool mt_thread_unstoppable(struct mt_thread *t, bool patient);
/* mt_thread_unstoppable()'s rule on one look at a thread: STATE its
 * state letter, VFORK whether it is in a vfork (looked up once it has
 * been in 'D' before), CPU its process's CPU time (any unit; 0 when not
 * PATIENT), NOW in ns.  Updates D; true: give up on the thread. */
bool mt_dsleep_give_up(struct mt_dsleep *d, char state, bool vfork,
		       uint64_t cpu, uint64_t now);
char *mt_proc_exe(pid_t pid);
void mt_proc_comm(pid_t pid, char *comm);
int mt_proc_tids(pid_t pid, pid_t **tids, size_t *n);
int mt_same_mm(pid_t a, pid_t b);
/* Whether CPU is in LIST, a CPU list as sysfs prints it ("0-3,8,10-11":
 * Documentation/ABI/stable/sysfs-devices-system-cpu); false for a
 * malformed list.  mt_cpu_online(): whether CPU is in
 * /sys/devices/system/cpu/online now (true when that cannot be read). */
bool mt_cpu_list_has(const char *list, int cpu);
bool mt_cpu_online(int cpu);

/* seccomp.c */
/* The SECCOMP_RET_DATA of every SECCOMP_RET_TRACE maptap's filter
 * returns: a seccomp stop with other data is another filter's
 * (docs/tracer.md, "Other seccomp filters in the target"). */
#define MT_SECCOMP_DATA 0x6d74u		/* "mt" */
struct sock_filter;
/* Room for every number of the set and of the table, with the blocks'
 * jumps and the fixed head and tail (well under BPF_MAXINSNS). */
#define MT_SECCOMP_PROG_MAX (MAPTAP_SYSCALL_SET_BITS + 128)
int mt_seccomp_build(struct sock_filter *prog,
		     const struct maptap_session_opts *opts, uint32_t act);
int mt_seccomp_install(const struct maptap_session_opts *opts);

/* inject.c: the address of a `syscall` instruction (0f 05) in the vDSO
 * of TID (any two such bytes will do, on an instruction boundary or
 * not), or 0 when there is none or the maps or memory cannot be read.
 * The bytes are read as they are: a breakpoint's int3 (0xcc) can hide
 * such a pair but never make one.  For calls made in a stopped thread
 * (inject.c, xol.c). */
uint64_t mt_vdso_syscall(pid_t tid);

/* inject.c: before letting go of thread T (in a ptrace stop we hold)
 * under the launch filter, make it install the filter that sends maptap's
 * calls to a listener of the session's.  AT_SYSCALL: T is at the entry
 * of its call (seccomp or syscall-entry stop), which it makes again once
 * let go; else at our interrupt's stop.  Returns 0 with T at a
 * syscall-exit stop, ready to be let go with *SIG (a signal held back
 * meanwhile, or 0); -ESRCH when T died meanwhile (already handled: T is
 * freed); another -errno when the filter could not be added, T then
 * being where it was (or, if the filter went in without a listener, at
 * an exit stop as on success). */
int mt_release_filter(struct maptap_session *s, struct mt_thread *t,
		      bool at_syscall, int *sig);

/* listeners.c: answer the let-go threads' filters */
int mt_listeners_add(struct maptap_session *s, int fd);
struct pollfd *mt_listeners_pollfds(struct maptap_session *s,
				    struct pollfd *local);
void mt_listeners_poll(struct maptap_session *s);
void mt_listeners_free(struct maptap_session *s);

/* user_mem.c: the /proc/PID/mem path of maptap_read_user(), on its own
 * so the tests can reach it where process_vm_readv(2) works. */
ssize_t mt_read_user_procmem(pid_t pid, uint64_t addr, void *buf,
			     size_t len);

/* loop.c: the ptrace stop state machine */
/* Handle the wait(2) STATUS of TID: act on the stop and resume the
 * thread (or forget it).  Returns 0, or the non-zero value a callback
 * returned (the session ends: s->stop_rc). */
int mt_handle_status(struct maptap_session *s, pid_t tid, int status);
void mt_resume(struct maptap_session *s, struct mt_thread *t, int sig);
void mt_ready(struct maptap_session *s, struct mt_proc *p, pid_t tid,
	      enum maptap_ready_why why);
void mt_wait_tick(struct maptap_session *s);
/* lifecycle.c: a blocking waitpid(TID, __WALL) that a signal to maptap
 * does not cut short (EINTR: wait again).  Returns TID or -1/errno. */
pid_t mt_wait_blocking(struct maptap_session *s, pid_t tid, int *status);

/* uprobe.c: the stop loop's hooks for breakpoint probes
 * (maptap/uprobe.h).  mt_uprobe_trap(): at a SIGTRAP signal-delivery
 * stop of T, handle a hit of one of ours and resume T; false when the
 * SIGTRAP is not ours (deliver it).  mt_uprobe_trap_detach(): the same
 * stop while detaching: put rip where the original code goes on, no
 * handler; true when it was ours (do not deliver).  mt_uprobe_restore_all():
 * every original byte back, before any thread is let go.
 * mt_uprobe_let_go(): T is about to be detached: its address space's
 * text back when it is the last thread there, or for good when other
 * threads there stay traced.  mt_uprobe_trap_queued(): whether stopped
 * T has a SIGTRAP queued while its mm has breakpoints: resume it to
 * that signal's stop before letting it go.
 * mt_uprobe_fork(): CHILD (its first thread CT) was made by thread
 * PARENT: table and shadow stack copied.  mt_uprobe_exec(): T's process
 * has a new image. */
bool mt_uprobe_trap(struct maptap_session *s, struct mt_thread *t);
bool mt_uprobe_trap_detach(struct maptap_session *s, struct mt_thread *t);
void mt_uprobe_restore_all(struct maptap_session *s);
void mt_uprobe_let_go(struct maptap_session *s, struct mt_thread *t);
bool mt_uprobe_trap_queued(struct maptap_session *s, struct mt_thread *t);
void mt_uprobe_fork(struct maptap_session *s, struct mt_thread *parent,
		    struct mt_proc *child, struct mt_thread *ct);
void mt_uprobe_exec(struct maptap_session *s, struct mt_thread *t);
void mt_bps_free(struct mt_bps *b);
void mt_ustack_free(struct mt_ustack *u);
void mt_uprobes_free(struct mt_uprobes *u);

/* attach.c: refuse a PID that cannot be attached to, with the reason
 * in errmsg (session.h, maptap_session_attach()): -ESRCH no such
 * process, -EINVAL a thread id, a zombie, a kernel thread or maptap
 * itself, and, with PTRACE, -EBUSY when another tracer has it
 * (TracerPid: of /proc/PID/status); 0 when it can be tried. */
int mt_check_target(struct maptap_session *s, pid_t pid, bool ptrace);

/* perf_source.c: the perf event source (docs/tracer.md, "Event
 * sources").  mt_perf_choose(): whether S is to use perf events for an
 * attach (LAUNCH false) or a launch; makes s->perf and says why in
 * s->events_why; false with *ERR set (and errmsg) when PERF was asked
 * for and cannot be had.  mt_perf_attach(): attach to PID without
 * stopping it; *FALLBACK when AUTO found perf_event_open refused (use
 * ptrace; s->perf is gone).  mt_perf_launch(): open the events, enabled
 * at its exec, on the forked command PID.  mt_perf_run(): the run loop
 * (maptap_session_run_until()).  mt_perf_free(): close the events. */
struct mt_perf;
struct perf_event_header;
bool mt_perf_choose(struct maptap_session *s, bool launch, int *err);
int mt_perf_attach(struct maptap_session *s, pid_t pid, bool *fallback);
int mt_perf_launch(struct maptap_session *s, pid_t pid);
int mt_perf_run(struct maptap_session *s, uint64_t deadline);
void mt_perf_free(struct maptap_session *s);
/* perf_source.c: maptap_session_get_call_stack() for thread T; frees
 * T's stack copy. */
struct user_regs_struct;
int mt_perf_call_stack(const struct maptap_session *s,
		       const struct mt_thread *t,
		       struct user_regs_struct *regs, const void **stack,
		       size_t *len);
void mt_perf_stack_free(struct mt_perf_stack *k);
void mt_perf_mremap_src_free(struct mt_thread *t);
/* perf_dedup.c.  mt_perf_srcs_add(): one more source, whose events'
 * first id is ID_LO; its index, or -ENOMEM.  mt_perf_srcs_find(): the
 * source of event id ID (the last whose first id is at most ID), or -1.
 * mt_perf_exit_again(): whether an EXIT record of TID read on CPU
 * through source SRC is a copy of one kept among the last
 * MT_PERF_EXITED (kept on that CPU through a newer source); if not, it
 * is remembered as kept.
 * mt_perf_dup_keep(): whether a record of a thread (its state D) read
 * from the ring of CPU (of NCPU) through source SRC counts: false for a
 * copy from an older source than one seen on that CPU.  On a failed
 * allocation it keeps the record (a copy too many, none lost).  Not
 * thread-safe (the session's thread). */
int mt_perf_srcs_add(struct mt_perf_srcs *ss, uint64_t id_lo);
int mt_perf_srcs_find(const struct mt_perf_srcs *ss, uint64_t id);
bool mt_perf_exit_again(struct mt_perf_srcs *ss, pid_t tid, int cpu,
			int src);
void mt_perf_srcs_free(struct mt_perf_srcs *ss);
bool mt_perf_dup_keep(struct mt_perf_dup *d, int ncpu, int cpu, int src);
void mt_perf_dup_free(struct mt_perf_dup *d);
/* perf_bpf.c: the system calls' records through BPF programs on their
 * tracepoints (docs/tracer.md, "The system calls through a BPF filter").
 * mt_perf_bpf_new() loads the programs: NULL, with WHY said, where the
 * kernel, the privileges (CAP_BPF and CAP_PERFMON) or the build
 * (--disable-bpf) do not allow them.  mt_perf_bpf_route() routes call NR
 * (below MT_PERF_BPF_MAX_NR): its entry (ENTER, with the user registers
 * and stack with STACK) or its exit is written as a record of
 * tracepoint ID.  mt_perf_bpf_output() sets the
 * bpf-output event FD (its ring) of CPU for records without or with
 * (STACK) the user stack.  mt_perf_bpf_attach() opens one disabled event
 * on tracepoint TP_ID on CPU and attaches PROG to it (for an entry, the
 * one for its NARGS arguments, at most 6): from then on every hit on any
 * CPU runs it.  mt_perf_bpf_follow() adds a process (by tgid) whose
 * calls are written; a process a followed one makes is added by the
 * kernel once every record is on, and a process whose last thread exits
 * is removed by the kernel (before its pid can be given again: maptap
 * never removes one itself).
 * mt_perf_bpf_count(): the processes followed (tests).
 * mt_perf_bpf_phase(): which
 * records the programs write, from none (as loaded) to the exits' and
 * then all: an entry written has its exit to come.  mt_perf_bpf_failed():
 * records the kernel refused plus processes not added (a full table),
 * a count that only grows.  Errors are -errno (-ENOSYS built without
 * BPF).  Not thread-safe (the session's thread). */
#define MT_PERF_BPF_MAX_NR 512
enum mt_perf_bpf_prog {
	MT_PERF_BPF_ENTER,	/* a system call's entry tracepoint */
	MT_PERF_BPF_EXIT,	/* its exit's */
	MT_PERF_BPF_NEWTASK,	/* task/task_newtask: follows children */
	MT_PERF_BPF_LOCK,	/* mmap_lock/mmap_lock_acquire_returned:
				 * the followed mms' write locks */
	MT_PERF_BPF_GONE,	/* sched/sched_process_exit: a process's
				 * last thread leaves the table */
};
enum mt_perf_bpf_phase {
	MT_PERF_BPF_OFF,
	MT_PERF_BPF_EXITS,
	MT_PERF_BPF_ALL,
};
struct mt_perf_bpf;
struct mt_perf_bpf *mt_perf_bpf_new(char *why, size_t wsize);
int mt_perf_bpf_route(struct mt_perf_bpf *b, int nr, int id, bool enter,
		      bool stack);
int mt_perf_bpf_output(struct mt_perf_bpf *b, int cpu, int fd, bool stack);
int mt_perf_bpf_attach(struct mt_perf_bpf *b, int tp_id,
		       enum mt_perf_bpf_prog prog, unsigned nargs, int cpu);
int mt_perf_bpf_follow(struct mt_perf_bpf *b, pid_t tgid);
void mt_perf_bpf_phase(struct mt_perf_bpf *b, enum mt_perf_bpf_phase ph);
uint64_t mt_perf_bpf_failed(const struct mt_perf_bpf *b);
long mt_perf_bpf_count(const struct mt_perf_bpf *b);
void mt_perf_bpf_free(struct mt_perf_bpf *b);
/* perf_source.c, for tests only (testsuite/unit/test_perf_settle.c):
 * mt_perf_test_new() gives S a perf source without events or rings
 * (-ENOMEM); mt_perf_test_tp() is the id its records of tracepoint
 * sys_enter_CALL (ENTER) or sys_exit_CALL carry; mt_perf_test_record()
 * applies record H as if read from a ring; mt_perf_test_round() does
 * what follows a round whose records up to APPLIED (CLOCK_MONOTONIC ns)
 * were applied, at time NOW (confirmation, settling, --verify, the
 * processes gone without an exit record); mt_perf_test_lock() gives
 * that source the mmap_lock tracepoint, on from the start, and returns
 * the id its records carry ({ common fields; mm; memcg_id; bool write,
 * success } as the tracefs format says); mt_perf_test_newtask() the
 * same for task_newtask ({ common fields; i32 pid; pad; u64
 * clone_flags }).  mt_perf_test_cw_pause() makes S's next attach or
 * launch in perf mode pause US microseconds after each per-CPU event
 * it turns on (enable_cw(); testsuite/unit/test_perf_cwenable.c).
 * mt_perf_test_bpf_tgids(): how many processes S's BPF programs follow
 * now (mt_perf_bpf_count()), or -ENOSYS without them. */
int mt_perf_test_new(struct maptap_session *s);
int mt_perf_test_lock(struct maptap_session *s);
int mt_perf_test_newtask(struct maptap_session *s);
int mt_perf_test_tp(const char *call, bool enter);
void mt_perf_test_cw_pause(struct maptap_session *s, unsigned us);
long mt_perf_test_bpf_tgids(const struct maptap_session *s);
void mt_perf_test_record(struct maptap_session *s,
			 const struct perf_event_header *h);
void mt_perf_test_round(struct maptap_session *s, uint64_t applied,
			uint64_t now);

#define MT_PTRACE_OPTS (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | \
			PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
			PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)

#endif
