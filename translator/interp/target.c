/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.c -- pass 5 with traced processes: one maptap_session and one
 * module layer, and the probes their events fire (docs/probes.md).
 *
 * Every event goes through the module layer first, so that the event's
 * module and segment are known to its probes.  A load fires before the
 * range event that made it (its probes may already symbolize the new
 * mapping); an unload is held until the range event that removed the
 * module's last VMA has fired, since the module is gone only then.
 *
 * Lifetime probes follow stap's process rules: begin when a process's
 * model is ready (attach, the command's first exec, each exec, each
 * fork); end at the last thread's exit and, for the old image, at an
 * exec (before the new image's begin); thread.begin at a clone that
 * makes a thread; thread.end at the exit of a thread that is not the
 * last.
 *
 * With --report every event and module event also goes to the report
 * (maptap/report.h), with the stack of the thread that caused it when
 * the report wants one; the report is printed when tracing has ended,
 * after the end probes' output.
 *
 * Here: the session and its callbacks, the report, the processes seen,
 * signals, launch and attach, the run.  Which probes an event fires,
 * and the ordering and lifetime rules above, are fire.c's.
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <maptap/maptap.h>
#include <maptap/report.h>
#include <maptap/tvar.h>

#include "dwvars.h"
#include "interp.h"
#include "profile.h"
#include "sdt_vars.h"
#include "target.h"
#include "target_int.h"

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };

/* The one piece of process-wide state: a signal handler has no argument,
 * so it finds the session to stop through this pointer (set while the
 * session runs, cleared after), as main.c's log did. */
static struct maptap_session *volatile signal_session;

static struct run *run_of(struct interp *I)
{
	return (struct run *)I->tgt;
}

bool tr_target_wanted(const struct interp *I)
{
	const struct tr_options *o = I->s->opts;

	return o && (o->target_cmd || o->target_pid);
}

/* ---- the report (--report) ---- */

/* Frames per walk: -D MAXBACKTRACE, as the stack functions take it. */
static unsigned stack_depth(const struct run *r)
{
	int64_t v = r->I->s->limits.maxbacktrace;

	return v > 0 && v < 100000 ? (unsigned)v : MAPTAP_MAXBACKTRACE;
}

/* The frames a report's walk may take when MAXBACKTRACE held no call
 * site: glibc's deepest mapping paths (a malloc in a dlopen) are about
 * 25 frames. */
#define REPORT_DEEP_FRAMES 256

/* The stack of thread TID of PID at the stop of TIME_NS into *OUT, from
 * the per-stop walk the backtrace functions share (tr_stack_raw()), so
 * a stop is walked once for the report, --stacks and a script's
 * ubacktrace().  Returns the number of frames, 0 when there is none
 * (the report then says "no stack"). */
static unsigned stop_stack(struct run *r, pid_t pid, pid_t tid,
			   uint64_t time_ns, const struct maptap_frame **out)
{
	enum maptap_unwind_end end;
	int n;

	n = tr_stack_raw(&r->pub, pid, tid, time_ns, stack_depth(r), out,
			 &end);
	/* Every frame within MAXBACKTRACE was libc's or the loader's: the
	 * site lies deeper (a malloc inside dlopen), so walk on, once. */
	if (n > 0 && end == MAPTAP_UNWIND_TRUNCATED &&
	    !maptap_report_has_site(r->rep, pid, *out, (unsigned)n)) {
		const struct maptap_frame *deep;
		int m = tr_stack_raw(&r->pub, pid, tid, time_ns,
				     REPORT_DEEP_FRAMES, &deep, &end);

		if (m > 0) {
			*out = deep;
			n = m;
		}
	}
	return n > 0 ? (unsigned)n : 0;
}

/* EV (with its module desc) into the report; -ENOMEM leaves a report
 * that says it is incomplete. */
static void report_event(struct run *r, const struct maptap_event *ev)
{
	const struct maptap_frame *f = NULL;
	unsigned n = 0;

	/* A vfork child's modules are its parent's (maptap/report.h). */
	if (maptap_report_wants_stack(ev))
		n = stop_stack(r, maptap_report_mm_owner(r->rep, ev->pid),
			       ev->tid, ev->time_ns, &f);
	maptap_report_event(r->rep, ev, f, n);
}

/* A module event into the report.  Only one that a system call made can
 * be a dlopen or dlclose: the loads of a snapshot (attach, exec) and
 * the unloads at an exit take no stack. */
void tr_report_module_event(struct run *r,
			    const struct maptap_module_event *me)
{
	const struct maptap_frame *f = NULL;
	unsigned n = 0;

	if (me->syscall)
		n = stop_stack(r, maptap_report_mm_owner(r->rep, me->pid),
			       me->tid, me->time_ns, &f);
	maptap_report_module_event(r->rep, me, f, n);
}

static int report_open(struct run *r)
{
	struct maptap_report_opts ro = { 0 };

	if (!r->I->s->opts->report)
		return 0;
	return maptap_report_new(r->pub.mods, &ro, &r->rep);
}

/* Print the report where the output goes, after everything the script
 * printed; a stream that already failed gets nothing more. */
static void report_print(struct run *r)
{
	struct interp *I = r->I;
	int rc;

	if (!r->rep || !r->traced || I->out_failed)
		return;
	rc = I->s->opts->json ? maptap_report_print_json(r->rep, I->outf) :
	     maptap_report_print_text(r->rep, I->outf);
	if (rc == 0 && fflush(I->outf))
		rc = -(errno ? errno : EIO);
	if (rc < 0)
		fprintf(I->s->err, "maptap: cannot write the report: %s\n",
			strerror(-rc));
}

/* ---- processes ---- */

struct proc *tr_proc_find(struct run *r, pid_t pid)
{
	size_t i;

	for (i = 0; i < r->nprocs; i++)
		if (r->procs[i].pid == pid)
			return &r->procs[i];
	return NULL;
}

/* Remember PID's executable at its begin; returns the entry. */
static struct proc *proc_begin(struct run *r, pid_t pid)
{
	struct proc *p = tr_proc_find(r, pid);
	const char *exe, *comm;

	if (!p) {
		if (r->nprocs == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 16;
			struct proc *v = realloc(r->procs, cap * sizeof(*v));

			if (!v)
				return NULL;
			r->procs = v;
			r->cap = cap;
		}
		p = &r->procs[r->nprocs++];
		p->pid = pid;
		p->exe = NULL;
	}
	free(p->exe);
	p->exe = NULL;
	p->comm[0] = '\0';
	/* The session's, not /proc's: perf mode reads a short command's
	 * records after /proc has forgotten it, or shows a later image. */
	if (maptap_session_proc(r->pub.sess, pid, &exe, &comm) == 0) {
		if (exe[0])
			p->exe = strdup(exe);
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	}
	return p;
}

void tr_proc_forget(struct run *r, pid_t pid)
{
	struct proc *p = tr_proc_find(r, pid);

	if (!p)
		return;
	free(p->exe);
	*p = r->procs[--r->nprocs];
}

/* process("PATH") / process(PID) of DP against process PID running EXE. */
bool tr_proc_matches(const struct tr_dprobe *dp, pid_t pid,
		     const char *exe)
{
	if (dp->proc_pid && dp->proc_pid != pid)
		return false;
	if (dp->proc_path && (!exe || strcmp(dp->proc_path, exe)))
		return false;
	return true;
}

/* --profile: name the samples taken so far against the model as it is
 * before EV changes it, and follow the threads EV starts and ends. */
static void profile_event(struct run *r, const struct maptap_event *ev)
{
	switch (ev->kind) {
	case MAPTAP_EV_CLONE:
		tr_profile_drain(r->prof);
		if (ev->thread)
			tr_profile_thread(r->prof, ev->pid, ev->child, false);
		break;
	case MAPTAP_EV_EXEC:	/* on_ready opens the new image's */
		tr_profile_stop(r->prof, ev->pid, 0);
		break;
	case MAPTAP_EV_EXIT:
	case MAPTAP_EV_DETACH:
		tr_profile_stop(r->prof, ev->pid,
				ev->kind == MAPTAP_EV_EXIT && ev->group_exit ?
				0 : ev->tid);
		break;
	default:
		tr_profile_drain(r->prof);
	}
}

/* DP names the module of WHERE: its path, or its inode under another
 * name (a link) with the same base name. */
static bool up_module_is(const struct tr_dprobe *dp,
			 const struct maptap_module_info *mi)
{
	const char *a, *b;

	if (!strcmp(dp->up_module, mi->path))
		return true;
	if (!dp->up_ino || dp->up_ino != mi->inode)
		return false;
	a = strrchr(dp->up_module, '/');
	b = strrchr(mi->path, '/');
	return a && b && !strcmp(a, b);
}

/* Breakpoint probes go in when the text VMA that holds their address
 * is mapped (or mapped again: ld.so maps a library's text with
 * MAP_FIXED over its first, read-only mapping; or made executable),
 * for every load bias the module layer computes. */
static void place_uprobes(struct run *r, const struct maptap_event *ev,
			  const struct maptap_module_desc *w)
{
	int i, rc;

	if (ev->kind != MAPTAP_EV_MAP && ev->kind != MAPTAP_EV_REPLACE &&
	    ev->kind != MAPTAP_EV_PROTECT)
		return;
	tr_sdt_semaphores(r->pub.sess, (const struct tr_dprobe *const *)
			  r->uprobes.v, r->uprobes.n, ev, w, up_module_is,
			  r->I->s->err);
	/* A shared mapping's page is the file's: an int3 written there
	 * would change the file (the kernel lets FOLL_FORCE copy on write
	 * only in private mappings). */
	if (!w || !w->has_module || !w->has_segment ||
	    !(w->segment.p_flags & 1 /* PF_X */) ||
	    !(ev->vma.perms & MAPTAP_PERM_X) || (ev->vma.perms & MAPTAP_PERM_S))
		return;
	for (i = 0; i < r->uprobes.n; i++) {
		const struct tr_dprobe *dp = r->uprobes.v[i];
		uint64_t addr = dp->up_vaddr;

		if (!dp->up_abs) {
			if (!up_module_is(dp, &w->module))
				continue;
			addr += w->module.bias;
		}
		if (addr < ev->vma.start || addr >= ev->vma.end)
			continue;
		if (dp->up_ifunc)
			rc = maptap_uprobe_insert_ifunc(r->pub.sess, ev->pid,
							dp->up_ifunc,
							w->module.bias, i,
							dp->is_return);
		else
			rc = maptap_uprobe_insert(r->pub.sess, ev->pid, addr,
						  i, dp->is_return);
		/* an entry probe reading entry values away from the entry
		 * hears its function's entry, under an id of its own */
		if (!rc && !dp->up_ifunc && !dp->is_return &&
		    dp->up_entry_regs)
			rc = maptap_uprobe_insert(r->pub.sess, ev->pid,
						  addr - dp->up_vaddr +
						  dp->up_fentry,
						  i + r->uprobes.n, false);
		/* a .return probe reading entry values hears its calls
		 * past the prologue (dwvars.h) */
		if (!rc && !dp->up_ifunc && dp->is_return &&
		    dp->up_entry.n)
			rc = maptap_uprobe_insert(r->pub.sess, ev->pid,
						  addr - dp->up_vaddr +
						  dp->up_body, i, false);
		if (rc)
			fprintf(r->I->s->err,
				"WARNING: pid %d: cannot place %s at 0x%llx: %s\n",
				(int)ev->pid, dp->name,
				(unsigned long long)addr, strerror(-rc));
	}
}

/* The frames of .return probes' entry values: pushed at the entry hit,
 * taken at the matching return (the same thread and probe, rsp after the
 * return equal to the call's CFA).  A frame whose CFA is at or below a
 * new entry's of that thread is stale (longjmp, an exception, a return
 * not seen), as maptap/uprobe.h's shadow stack drops them; at most
 * MAX_FRAMES are kept. */
#define MAX_FRAMES 4096

static void frame_drop(struct run *r, size_t i)
{
	tr_entry_frame_free(r->frames[i]);
	memmove(&r->frames[i], &r->frames[i + 1],
		(r->nframes - i - 1) * sizeof(*r->frames));
	r->nframes--;
}

static void entry_save(struct run *r, const struct tr_dprobe *dp,
		       const struct maptap_uprobe_hit *h)
{
	struct tr_entry_frame *fr;
	size_t i;

	if (r->nframes == MAX_FRAMES)
		frame_drop(r, 0);
	if (r->nframes == r->frames_cap) {
		size_t cap = r->frames_cap ? 2 * r->frames_cap : 16;
		struct tr_entry_frame **v = realloc(r->frames,
						    cap * sizeof(*v));

		if (!v)
			return;
		r->frames = v;
		r->frames_cap = cap;
	}
	fr = tr_interp_save_entry(r->I, dp);
	if (!fr)
		return;
	fr->tid = h->tid;
	fr->sp = (uint64_t)fr->v[0].l;
	fr->id = h->id;
	for (i = r->nframes; i-- > 0;)
		if (r->frames[i]->tid == h->tid && r->frames[i]->sp <= fr->sp)
			frame_drop(r, i);
	r->frames[r->nframes++] = fr;
}

/* The frame of return hit H, taken off the list (the caller frees it),
 * or NULL when its entry was not seen. */
static struct tr_entry_frame *entry_find(struct run *r,
					 const struct maptap_uprobe_hit *h)
{
	uint64_t sp = h->regs->rsp;	/* the CFA of the call */
	struct tr_entry_frame *fr;
	size_t i;

	for (i = r->nframes; i-- > 0;) {
		fr = r->frames[i];
		if (fr->tid != h->tid || fr->id != h->id || fr->sp != sp)
			continue;
		memmove(&r->frames[i], &r->frames[i + 1],
			(r->nframes - i - 1) * sizeof(*r->frames));
		r->nframes--;
		return fr;
	}
	return NULL;
}

/* The entry hit of probe DPI's function: keep the registers.  Older
 * ones of the thread at or below this CFA are stale (calls that
 * returned); at most MAX_FRAMES are kept. */
static void eregs_save(struct run *r, int dpi,
		       const struct maptap_uprobe_hit *h)
{
	uint64_t cfa = h->regs->rsp + 8;
	size_t i, k = 0;

	for (i = 0; i < r->neregs; i++)
		if (r->eregs[i].tid != h->tid || r->eregs[i].dpi != dpi ||
		    r->eregs[i].cfa > cfa)
			r->eregs[k++] = r->eregs[i];
	r->neregs = k;
	if (r->neregs == MAX_FRAMES) {
		memmove(r->eregs, r->eregs + 1,
			(r->neregs - 1) * sizeof(*r->eregs));
		r->neregs--;
	}
	if (r->neregs == r->eregs_cap) {
		size_t cap = r->eregs_cap ? 2 * r->eregs_cap : 16;
		struct entry_regs *v = realloc(r->eregs, cap * sizeof(*v));

		if (!v)
			return;
		r->eregs = v;
		r->eregs_cap = cap;
	}
	r->eregs[r->neregs].tid = h->tid;
	r->eregs[r->neregs].dpi = dpi;
	r->eregs[r->neregs].cfa = cfa;
	r->eregs[r->neregs++].regs = *h->regs;
}

/* The registers at the entry of the call hit H is in (probe DPI): the
 * newest of the thread whose CFA is the hit's, or NULL. */
static const struct user_regs_struct *eregs_find(struct run *r, int dpi,
						 const struct tr_dprobe *dp,
						 const struct maptap_uprobe_hit *h)
{
	struct maptap_tvar_frame f = { 0 };
	int64_t cfa;
	size_t i;

	f.pid = h->pid;
	f.regs = h->regs;
	f.read = maptap_read_user;
	f.bias = h->addr - dp->up_vaddr;
	if (maptap_tvar_read_long(dp->up_cfa, &f, &cfa))
		return NULL;
	for (i = r->neregs; i-- > 0;)
		if (r->eregs[i].tid == h->tid && r->eregs[i].dpi == dpi &&
		    r->eregs[i].cfa == (uint64_t)cfa)
			return &r->eregs[i].regs;
	return NULL;
}

static int on_uprobe(const struct maptap_uprobe_hit *h, void *arg)
{
	struct run *r = arg;
	struct tr_entry_frame *fr = NULL;
	const struct tr_dprobe *dp;
	struct proc *p;

	if (h->id >= r->uprobes.n && h->id < 2 * r->uprobes.n &&
	    !h->is_return) {
		eregs_save(r, h->id - r->uprobes.n, h);	/* hidden entry */
		return 0;
	}
	if (h->id < 0 || h->id >= r->uprobes.n || r->I->exit_requested)
		return 0;
	dp = r->uprobes.v[h->id];
	if (dp->proc_path) {
		p = tr_proc_find(r, h->pid);
		if (!tr_proc_matches(dp, h->pid, p ? p->exe : NULL))
			return 0;
	}
	tr_clear_ctx(r);
	r->pub.up = h;
	tr_set_ctx(r, h->pid, h->tid, true);
	if (dp->is_return && !h->is_return) {
		entry_save(r, dp, h);
		tr_clear_ctx(r);
		return 0;
	}
	if (dp->is_return && dp->up_entry.n)
		fr = entry_find(r, h);
	if (fr) {
		r->pub.entry = fr->v;
		r->pub.nentry = fr->n;
	}
	if (dp->up_entry_regs)
		r->pub.entry_regs = eregs_find(r, h->id, dp, h);
	tr_interp_run_probe(r->I, dp);
	tr_entry_frame_free(fr);
	tr_output(r->I, false);
	tr_after_handler(r);
	tr_clear_ctx(r);
	return 0;
}

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct run *r = arg;
	struct maptap_module_desc desc;
	struct maptap_event e = *ev;
	const struct plist *l = &r->by_event[ev->kind];

	if (r->prof)
		profile_event(r, ev);
	/* The module layer opens the mapped files now, while the target is
	 * stopped at this event; its module events come during the call. */
	tr_batch_begin(r, ev);
	if (maptap_modules_event(r->pub.mods, ev, &desc, tr_on_module_event,
				 r) == 0 &&
	    (desc.has_module || tr_bss_of_unloaded(r, ev, &desc)))
		e.where = &desc;
	if (r->rep)
		report_event(r, &e);
	if (r->uprobes.n)
		place_uprobes(r, ev, e.where);
	if (l->n && !r->I->exit_requested) {
		tr_clear_ctx(r);
		r->pub.ev = &e;
		tr_set_ctx(r, ev->pid, ev->tid, ev->kind != MAPTAP_EV_EXIT &&
			ev->kind != MAPTAP_EV_DETACH);
		tr_fire(r, l, NULL, false);
	}
	tr_fire_unloads(r);
	if (!r->I->exit_requested)
		tr_lifetime(r, &e);
	tr_clear_ctx(r);
	if (ev->kind >= MAPTAP_EV_ATTACH)
		tr_output(r->I, true);
	return 0;
}

static int on_syscall(const struct maptap_syscall_stop *st, void *arg)
{
	struct run *r = arg;
	struct proc *p = tr_proc_find(r, st->pid);
	const struct plist *l = &r->syscalls;
	unsigned nr = (unsigned)st->nr;
	int i;

	tr_clear_ctx(r);
	r->pub.sc = st;
	tr_set_ctx(r, st->pid, st->tid, true);
	for (i = 0; i < l->n && !r->I->exit_requested; i++) {
		const struct tr_dprobe *dp = l->v[i];

		if (dp->is_return != st->is_return)
			continue;
		if (!dp->all_syscalls && (nr >= MAPTAP_SYSCALL_SET_BITS ||
		    !(dp->syscalls[nr / 64] >> (nr % 64) & 1)))
			continue;
		if (!tr_proc_matches(dp, st->pid, p ? p->exe : NULL))
			continue;
		tr_interp_run_probe(r->I, dp);
		tr_output(r->I, false);
		tr_after_handler(r);
	}
	tr_clear_ctx(r);
	return 0;
}

static void on_ready(pid_t pid, pid_t tid, enum maptap_ready_why why,
		     void *arg)
{
	struct run *r = arg;
	struct proc *p = proc_begin(r, pid);

	if (r->prof)
		tr_profile_thread(r->prof, pid, tid,
				  why == MAPTAP_READY_ATTACH);
	r->began = true;
	if (r->I->exit_requested)
		return;
	tr_fire_point(r, TR_PROC_BEGIN, pid, tid, why != MAPTAP_READY_FORK,
		   p ? p->exe : NULL, NULL);
	tr_clear_ctx(r);
	tr_output(r->I, true);
}

static void on_diag(const char *line, void *arg)
{
	struct run *r = arg;

	tr_interp_flush(r->I);
	fprintf(r->I->s->err, "maptap: %s\n", line);
}

/* ---- signals ---- */

static void on_signal(int signo, siginfo_t *si, void *uc)
{
	struct maptap_session *s = signal_session;

	(void)uc;
	if (!s)
		return;
	/* A ^C from the terminal reached a launched command directly (same
	 * process group); only a signal sent to maptap alone is passed on. */
	if (si->si_code == SI_KERNEL)
		signo = 0;
	maptap_session_request_detach(s, signo);
}

static void set_signals(struct run *r)
{
	struct sigaction sa;
	sigset_t set;
	size_t k;

	signal_session = r->pub.sess;
	r->signals_set = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: waits must return */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	for (k = 0; k < 3; k++) {
		sigaction(stop_sigs[k], &sa, &r->saved[k]);
		sigaddset(&set, stop_sigs[k]);
	}
	signal(SIGPIPE, SIG_IGN);
	/* schedule.c blocks them for its own waits; here a handler takes
	 * them, so that a wait for the tracee returns at once. */
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void restore_signals(struct run *r)
{
	size_t k;

	signal_session = NULL;
	for (k = 0; r->signals_set && k < 3; k++)
		sigaction(stop_sigs[k], &r->saved[k], NULL);
}

/* ---- the command line of -c ---- */

/* Split CMD into words; hand it to /bin/sh -c when it needs a shell
 * (quotes, expansions, redirections, pipelines, ...).  The words point
 * into *COPY, which the caller frees with the vector. */
static char **split_command(const char *cmd, char **copy)
{
	static const char shell_chars[] = "|&;<>()$`\\\"'*?[#~=%{}\n";
	size_t n = 0, i;
	char **argv, *tok, *save;

	*copy = strdup(cmd);
	for (i = 0; cmd[i]; i++)
		if (cmd[i] != ' ' && cmd[i] != '\t' &&
		    (i == 0 || cmd[i - 1] == ' ' || cmd[i - 1] == '\t'))
			n++;
	argv = calloc(n + 4, sizeof(*argv));
	if (!argv || !*copy)
		return argv;
	if (strpbrk(cmd, shell_chars)) {
		argv[0] = "/bin/sh";
		argv[1] = "-c";
		argv[2] = *copy;
		return argv;
	}
	n = 0;
	for (tok = strtok_r(*copy, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	return argv;
}

/* ---- the run ---- */

static int fail(struct run *r, const char *what, const char *why)
{
	tr_interp_flush(r->I);
	fprintf(r->I->s->err, "maptap: %s%s%s\n", what, why ? ": " : "",
		why ? why : "");
	r->failed = true;
	return -1;
}

/* -v: which event source the session took, and why. */
static void say_events(struct run *r)
{
	if (!r->I->s->opts->verbose)
		return;
	if (r->events_need)	/* auto, kept on ptrace by the script */
		fprintf(r->I->s->err, "maptap: events: ptrace: %s need the "
			"target stopped at its calls\n", r->events_need);
	else
		fprintf(r->I->s->err, "maptap: events: %s\n",
			maptap_session_events(r->pub.sess, NULL));
}

/* The event source: --events, or auto for -x and ptrace for -c.  What
 * needs the target stopped at a call (syscall probes, breakpoint
 * probes) keeps ptrace in auto mode and is refused with --events=perf
 * (docs/tracer.md, "Event sources").  The user stacks of --stacks and
 * --report need no stop: perf events copy them at each call's entry
 * (call_stacks).  Returns 0 or -1. */
static int choose_events(struct run *r, struct maptap_session_opts *so)
{
	const struct tr_options *o = r->I->s->opts;
	const char *need = r->syscalls.n ? "syscall probes" :
			   r->uprobes.n ? "breakpoint probes" : NULL;

	so->events = o->events >= 0 ? (enum maptap_events_source)o->events :
		     o->target_pid ? MAPTAP_EVENTS_AUTO : MAPTAP_EVENTS_PTRACE;
	if (!need || so->events == MAPTAP_EVENTS_PTRACE)
		return 0;
	if (so->events == MAPTAP_EVENTS_PERF) {
		fprintf(r->I->s->err,
			"maptap: --events=perf: %s need the target stopped at its calls; use --events=ptrace\n",
			need);
		return -1;
	}
	so->events = MAPTAP_EVENTS_PTRACE;
	r->events_need = need;	/* said by say_events() */
	return 0;
}

static int launch(struct run *r)
{
	pid_t pid;
	int err;

	r->argv = split_command(r->I->s->opts->target_cmd, &r->cmd_copy);
	if (!r->argv || !r->cmd_copy)
		return fail(r, "out of memory", NULL);
	if (!r->argv[0])
		return fail(r, "-c: the command is empty", NULL);
	err = maptap_session_launch(r->pub.sess, r->argv, &pid);
	if (err)
		return fail(r, maptap_session_errmsg(r->pub.sess), NULL);
	if (r->I->s->opts->events == MAPTAP_EVENTS_PERF || r->events_need)
		say_events(r);
	r->launched = true;
	r->traced = true;
	r->pub.target_pid = pid;
	return 0;
}

/* The probes of one sample of timer.profile / perf.*: the thread runs
 * on, so the handler's context is the sample's registers and stack. */
static void fire_sample(const struct maptap_profile_sample *s,
			const struct tr_dprobe *const *v, int n, void *arg)
{
	struct run *r = arg;
	struct plist l = { (const struct tr_dprobe **)v, n };
	struct proc *p = tr_proc_find(r, s->pid);
	char path[64];

	if (r->I->exit_requested)
		return;
	tr_clear_ctx(r);
	r->pub.sample = s;
	/* the last samples of a process are read at its exit, when /proc
	 * may no longer show it: execname() is then its name at begin */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)s->pid,
		 (int)s->tid);
	if (p && access(path, F_OK) != 0)
		r->pub.comm = p->comm;
	tr_set_ctx(r, s->pid, s->tid, false);
	tr_fire(r, &l, NULL, false);
	tr_clear_ctx(r);
}

/* --profile and the script's sampling probes. */
static int profile_open(struct run *r)
{
	struct tr_profile_cfg cfg;
	FILE *err = r->I->s->err;
	int i;

	if (tr_profile_cfg_of(r->I->s->opts, &cfg, err) ||
	    tr_profile_new(&r->pub, &cfg, err, &r->prof)) {
		r->failed = true;
		return -1;
	}
	for (i = 0; i < r->perf.n; i++)
		if (tr_profile_add_probe(r->prof, r->perf.v[i])) {
			r->failed = true;
			return -1;
		}
	tr_profile_set_fire(r->prof, fire_sample, r);
	return 0;
}

int tr_target_open(struct interp *I)
{
	const struct tr_options *o = I->s->opts;
	struct maptap_session_opts so = { 0 };
	struct run *r = calloc(1, sizeof(*r));

	I->tgt = r ? &r->pub : NULL;
	if (!r) {
		fputs("maptap: out of memory\n", I->s->err);
		return -1;
	}
	r->I = I;
	r->pub.target_pid = o->target_pid;
	tr_index_probes(r, &so);
	so.on_event = on_event;
	so.on_diag = on_diag;
	so.on_ready = on_ready;
	so.on_syscall = r->syscalls.n ? on_syscall : NULL;
	so.arg = r;
	so.maps_source = (enum maptap_maps_source)o->maps_source;
	so.verify = o->verify;
	so.no_seccomp = o->no_seccomp;
	/* A script that reads no thread's registers, stack or memory (no
	 * tr_builtin_at_stop() built-in) sees nothing at an event that the
	 * next stop would change: calls may complete there (issue 16).  So
	 * does the default log, whose stack functions run only with
	 * --stacks.  --stacks and --report unwind the call, which must be
	 * at its own stop then; so must a call that on_syscall asked for
	 * (the session keeps its exit stop). */
	so.defer_calls = !o->stacks && !o->report &&
			 (o->own_output || !r->I->el->at_stop);
	/* maptap's one thread is the session's, and its only detach
	 * requests come from its own SIGINT/SIGTERM/SIGHUP handlers (no
	 * SA_RESTART, set_signals()) and its own code: the blocking wait's
	 * promise (maptap/session.h). */
	so.block_wait = true;
	/* In perf mode the same stacks are the copies taken at the calls'
	 * entries (builtins_stack.c). */
	so.call_stacks = o->stacks || o->report;
	if (choose_events(r, &so)) {
		r->failed = true;
		return -1;
	}
	/* The command starts with the signals maptap was started with,
	 * not the handlers and SIGPIPE disposition maptap sets for itself. */
	if (o->sigstate) {
		so.launch_signals = true;
		so.launch_sigign = o->sigstate->ignored;
		so.launch_sigmask = o->sigstate->mask;
	}
	if (maptap_modules_new(NULL, &r->pub.mods) ||
	    maptap_session_new(&so, &r->pub.sess) || report_open(r) ||
	    (r->uprobes.n &&
	     maptap_uprobe_set_handler(r->pub.sess, on_uprobe, r)))
		return fail(r, "out of memory", NULL);
	if ((o->profile || r->perf.n) && profile_open(r))
		return -1;
	set_signals(r);
	if (o->target_cmd)
		return launch(r);
	return 0;
}

int tr_target_attach(struct interp *I)
{
	struct run *r = run_of(I);

	if (r->launched || !I->s->opts->target_pid)
		return 0;
	if (maptap_session_attach(r->pub.sess, I->s->opts->target_pid))
		return fail(r, maptap_session_errmsg(r->pub.sess), NULL);
	say_events(r);
	r->traced = true;
	return 0;
}

/* maptap_session_run_until() with --profile: the rings are drained
 * every few milliseconds (-D PROFILE_DRAIN_MS) while the target runs,
 * since a thread that makes no system call gives no event that would
 * drain them. */
static int profile_wait(struct run *r, int64_t deadline_ns)
{
	struct timespec ts;
	int64_t now, until;
	int rc;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		until = now + tr_profile_drain_ns(r->prof);
		if (deadline_ns >= 0 && deadline_ns < until)
			until = deadline_ns;
		rc = maptap_session_run_until(r->pub.sess, (uint64_t)until);
		tr_profile_drain(r->prof);
		if (rc != 1 || until == deadline_ns)
			return rc;
	}
}

bool tr_target_wait(struct interp *I, int64_t deadline_ns)
{
	struct run *r = run_of(I);
	int rc;

	if (r->failed)
		return false;
	rc = r->prof ? profile_wait(r, deadline_ns) :
	     maptap_session_run_until(r->pub.sess, deadline_ns < 0 ? 0 :
				      (uint64_t)deadline_ns);
	if (rc < 0) {
		fail(r, "waiting for the target", strerror(-rc));
		return false;
	}
	return rc == 1;
}

void tr_target_finish(struct interp *I, bool timeout)
{
	struct run *r = run_of(I);

	if (r->failed)
		return;
	if (I->exit_requested)
		tr_after_handler(r);
	else if (timeout)
		maptap_session_request_detach(r->pub.sess, r->launched ?
					      SIGTERM : 0);
	while (tr_target_wait(I, -1))
		;
	tr_profile_drain(r->prof);
	tr_output(I, true);
}

/* -v: what the stack walks cost (the report's and the script's). */
static void print_unwind_stats(struct run *r)
{
	struct maptap_unwind_stats u;

	if (!r->pub.unw)
		return;
	maptap_unwinder_get_stats(r->pub.unw, &u);
	fprintf(r->I->s->err,
		"maptap: %llu backtraces, %llu frames (%llu by frame pointer, "
		"%llu by .debug_frame), %llu stack page reads\n",
		(unsigned long long)u.backtraces,
		(unsigned long long)u.frames, (unsigned long long)u.fp_frames,
		(unsigned long long)u.debug_frames,
		(unsigned long long)u.page_reads);
}

static void print_stats(struct run *r)
{
	struct maptap_session_stats st;

	maptap_session_get_stats(r->pub.sess, &st);
	fprintf(r->I->s->err,
		"maptap: %llu stops (%llu seccomp, %llu syscall), %llu mapping calls, "
		"%llu range refreshes, %llu full reads, %llu events, %llu verify differences, "
		"%llu failed refreshes, %llu resyncs after them\n",
		(unsigned long long)st.stops, (unsigned long long)st.seccomp_stops,
		(unsigned long long)st.syscall_stops, (unsigned long long)st.map_calls,
		(unsigned long long)st.refreshes, (unsigned long long)st.full_reads,
		(unsigned long long)st.events, (unsigned long long)st.verify_diffs,
		(unsigned long long)st.refresh_errors,
		(unsigned long long)st.resyncs);
	if (st.lost_records || st.confirm_resyncs ||
	    r->I->s->opts->events == MAPTAP_EVENTS_PERF ||
	    r->I->s->opts->target_pid)
		fprintf(r->I->s->err,
			"maptap: %llu perf records lost, %llu ranges read again after a confirmation, %llu duplicate records dropped, %llu event groups opened again\n",
			(unsigned long long)st.lost_records,
			(unsigned long long)st.confirm_resyncs,
			(unsigned long long)st.dup_records,
			(unsigned long long)st.group_retries);
	if (r->uprobes.n)
		fprintf(r->I->s->err, "maptap: %llu breakpoint probe hits\n",
			(unsigned long long)maptap_uprobe_hits(r->pub.sess));
	if (st.lost_threads)
		fprintf(r->I->s->err,
			"maptap: %llu threads lost (gone without an exit report)\n",
			(unsigned long long)st.lost_threads);
	print_unwind_stats(r);
}

/* Print the profile after the report, as the report is printed. */
static void profile_print(struct run *r)
{
	struct interp *I = r->I;
	int rc;

	if (!r->prof || !r->traced || I->out_failed)
		return;
	rc = tr_profile_print(r->prof, I->outf, I->s->err,
			      I->s->opts->verbose);
	if (rc < 0)
		fprintf(I->s->err, "maptap: cannot write the profile: %s\n",
			strerror(-rc));
}

static int exit_code_of(int status)
{
	if (status < 0)
		return 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int tr_target_close(struct interp *I)
{
	struct run *r = run_of(I);
	int code = 0, i;

	if (!r)
		return 1;
	restore_signals(r);
	if (r->failed)
		code = 1;
	else if (r->launched && !r->killed_by_exit)
		code = exit_code_of(maptap_session_exit_status(r->pub.sess));
	/* 127 from a command that never began is maptap's own child
	 * failing its execvp (a "#!" interpreter that does not exist, a
	 * file the kernel will not run), which said why on stderr: as
	 * every other command that cannot be executed, status 1
	 * (maptap(1), EXIT STATUS). */
	if (code == 127 && r->launched && !r->began)
		code = 1;
	if (r->pub.sess && I->s->opts->verbose)
		print_stats(r);
	report_print(r);
	profile_print(r);
	tr_profile_free(r->prof);
	maptap_report_free(r->rep);
	maptap_session_free(r->pub.sess);
	maptap_unwinder_free(r->pub.unw);
	tr_stack_cache_free(r->pub.stk);
	free(r->pub.tvc);
	maptap_modules_free(r->pub.mods);
	for (i = 0; i < N_EVBITS; i++)
		free(r->by_event[i].v);
	for (i = 0; i < 4; i++)
		free(r->by_point[i].v);
	free(r->syscalls.v);
	free(r->perf.v);
	free(r->uprobes.v);
	while (r->nframes)
		frame_drop(r, r->nframes - 1);
	free(r->frames);
	free(r->eregs);
	while (r->nprocs)
		free(r->procs[--r->nprocs].exe);
	free(r->procs);
	free(r->unloads);
	free(r->argv);
	free(r->cmd_copy);
	free(r);
	I->tgt = NULL;
	return code;
}
