/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target_int.h -- the run of a target (struct run, behind I->tgt), shared
 * by target.c (the session, signals, launch and attach, the report,
 * the processes seen) and fire.c (which probes an event fires, in what
 * order, and the lifetime points).  Private to translator/interp/.
 */
#ifndef TR_TARGET_INT_H
#define TR_TARGET_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include <maptap/maptap.h>

#include "interp.h"

/* A process the run has seen become ready. */
struct proc {
	pid_t pid;
	char *exe;		/* the session's at its begin (maptap_session_proc()) */
	char comm[32];		/* its comm then (the same), for end probes */
};

/* Probes of one kind of point, in source order. */
struct plist {
	const struct tr_dprobe **v;
	int n;
};

#define N_EVBITS (MAPTAP_EV_KIND_COUNT + 2)

struct run {
	struct tr_target pub;		/* I->tgt */
	struct interp *I;
	struct plist by_event[N_EVBITS];
	struct plist by_point[4];	/* enum tr_proc_point */
	struct plist syscalls;
	struct plist perf;		/* PK_PERF */
	struct plist uprobes;		/* breakpoint probes; id = index */
	struct proc *procs;
	size_t nprocs, cap;
	/* The unloads of the current batch of events (one pid, one time:
	 * one system call's changes); [0, sent) have fired. */
	struct maptap_module_event *unloads;
	size_t nunloads, unloads_cap, unloads_sent;
	pid_t batch_pid;
	uint64_t batch_ns;
	struct maptap_report *rep;	/* --report; NULL without */
	struct tr_profile *prof;	/* --profile; NULL without */
	const char *events_need;	/* what kept auto on ptrace (-v), or
					 * NULL */
	bool traced;			/* the launch or attach was made */
	char **argv;			/* -c, split */
	char *cmd_copy;			/* the words of ARGV */
	bool launched;
	bool began;			/* a process became ready (begin) */
	bool killed_by_exit;		/* exit() ended the command */
	bool failed;
	bool signals_set;
	struct sigaction saved[3];
	/* the entry values of .return probes' calls in progress
	 * (dwvars.h), oldest first */
	struct tr_entry_frame **frames;
	size_t nframes, frames_cap;
	/* the registers at the entries of calls in progress, for entry
	 * probes that read entry values (dwvars.h), oldest first */
	struct entry_regs *eregs;
	size_t neregs, eregs_cap;
};

/* A thread's registers at the entry of a call of probe DPI's function,
 * and that call's CFA (rsp + 8 there: above the return address). */
struct entry_regs {
	pid_t tid;
	int dpi;
	uint64_t cfa;
	struct user_regs_struct regs;
};

/* target.c: the processes seen (their begin has fired), by pid; forget
 * one at its end; whether probe DP's process("PATH")/process(PID) is
 * process PID running EXE.  The report's share of a module event. */
struct proc *tr_proc_find(struct run *r, pid_t pid);
void tr_proc_forget(struct run *r, pid_t pid);
bool tr_proc_matches(const struct tr_dprobe *dp, pid_t pid,
		     const char *exe);
void tr_report_module_event(struct run *r,
			    const struct maptap_module_event *me);

/* fire.c: sort the script's probes by what fires them, and the system
 * calls they need into SO. */
void tr_index_probes(struct run *r, struct maptap_session_opts *so);
/* Script output after a handler (FLUSH: and flush the stream). */
void tr_output(struct interp *I, bool flush);
/* The context a handler sees (pid(), tid(), the event...). */
void tr_set_ctx(struct run *r, pid_t pid, pid_t tid, bool stopped);
void tr_clear_ctx(struct run *r);
/* After a handler: exit() stops tracing as tr_target_finish() says. */
void tr_after_handler(struct run *r);
/* Run the probes of L (CHECK_PROC: those whose process(..) matches the
 * context's pid running EXE), in source order, until exit(). */
void tr_fire(struct run *r, const struct plist *l, const char *exe,
	     bool check_proc);
/* Fire lifetime point PT of thread TID of process PID running EXE;
 * COMM: its name when the task is gone, else NULL. */
void tr_fire_point(struct run *r, enum tr_proc_point pt, pid_t pid,
		   pid_t tid, bool stopped, const char *exe,
		   const char *comm);
/* The module-event order (target.c's header comment): a new batch at
 * an event of another call; the module layer's callback, which fires a
 * load at once and holds an unload; the held unloads, fired after the
 * range event that made them; the bss of a module this batch unloaded. */
void tr_batch_begin(struct run *r, const struct maptap_event *ev);
int tr_on_module_event(const struct maptap_module_event *me, void *arg);
void tr_fire_unloads(struct run *r);
bool tr_bss_of_unloaded(struct run *r, const struct maptap_event *ev,
			struct maptap_module_desc *desc);
/* The lifetime points EV means (end at exec and exit, thread begin and
 * end); a process's begin is on_ready's. */
void tr_lifetime(struct run *r, const struct maptap_event *ev);

#endif
