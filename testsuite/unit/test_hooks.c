/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_hooks.c -- the session's hooks for scripts (maptap/session.h):
 * on_syscall (selected calls only, raw 64-bit arguments and return
 * values, in launch and attach mode, after a mapping call's events),
 * on_ready (after the snapshot, for launch, exec, fork and attach),
 * group_exit, maptap_session_get_regs(), maptap_read_user() and
 * maptap_session_run_until().
 *
 * The target, testsuite/targets/t_hooks.c, is built at test time with
 * $CC.  Everything the callbacks see is recorded in order and checked
 * after the run; the checks that need the stopped target (registers,
 * memory) run inside the callbacks and record their results.
 */
#include <config.h>

#include <maptap/maptap.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MARK 0x1ff
#define ENOSYS_RET (-38)

static const uint64_t pattern[6] = {
	0x0123456789abcdefULL, 0xfedcba9876543210ULL, 0x8000000000000000ULL,
	0xffffffffffffffffULL, 0x7fffffffffffffffULL, 0x5555aaaa5555aaaaULL,
};
/* What t_hooks "mem" puts at the end of its page. */
static const char known[] = "maptap read_user: known string";

enum rec_type { R_EVENT, R_SYSCALL, R_READY };

struct rec {
	enum rec_type type;
	pid_t pid, tid;
	int kind;		/* event kind, or ready why */
	bool snapshot, group_exit;
	uint64_t start, end;
	pid_t child;
	int nr;
	bool is_return;
	bool named;
	const char *name;
	int64_t ret;
	uint64_t args[6];
	uint64_t pc;
	/* checks made during the callback */
	int regs_rc;
	bool regs_match;	/* rip == pc, orig_rax == nr */
	bool pc_in_target;	/* pc in an r-x VMA of t_hooks */
	bool pc_in_exec;	/* pc in any executable VMA */
	char exe[256];		/* on_ready: /proc/PID/exe */
};

struct ctx {
	struct maptap_session *s;
	struct rec *v;
	size_t n, cap;
	/* mem mode */
	bool mem_checked;
	ssize_t whole, edge, beyond, pm_whole, pm_edge, pm_beyond;
	bool whole_same, pm_same;
	/* threads mode */
	int busy_rc;
	/* openat of /dev/null seen with its path */
	bool devnull_seen;
	char json_exit[512];
};

static const char *target;

static struct rec *add(struct ctx *c, enum rec_type type, pid_t pid,
		       pid_t tid)
{
	struct rec *r;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct rec *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			abort();
		c->v = v;
		c->cap = cap;
	}
	r = &c->v[c->n++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->pid = pid;
	r->tid = tid;
	return r;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && strcmp(s + a - b, tail) == 0;
}

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct ctx *c = arg;
	struct rec *r = add(c, R_EVENT, ev->pid, ev->tid);

	r->kind = ev->kind;
	r->snapshot = ev->snapshot;
	r->group_exit = ev->group_exit;
	r->start = ev->vma.start;
	r->end = ev->vma.end;
	r->child = ev->child;
	if (ev->kind == MAPTAP_EV_EXIT && ev->group_exit) {
		FILE *fp = fmemopen(c->json_exit, sizeof(c->json_exit) - 1,
				    "w");

		if (fp) {
			maptap_event_print_json(fp, ev);
			fclose(fp);
		}
	}
	return 0;
}

/* The executable VMA containing PC in the session's own model, or NULL. */
static const struct maptap_vma *text_at(struct ctx *c, pid_t pid, uint64_t pc)
{
	const struct maptap_mm *mm = maptap_session_mm(c->s, pid);
	const struct maptap_vma *v = mm ? maptap_mm_find(mm, pc) : NULL;

	return v && (v->perms & MAPTAP_PERM_X) ? v : NULL;
}

static void check_mem(struct ctx *c, const struct maptap_syscall_stop *st)
{
	char buf[256];
	size_t len = (size_t)st->args[1];
	uint64_t page_end = st->args[2];

	if (len > sizeof(buf))
		return;
	c->mem_checked = true;
	c->whole = maptap_read_user(st->pid, st->args[0], buf, len);
	c->whole_same = c->whole == (ssize_t)sizeof(known) &&
			memcmp(buf, known, sizeof(known)) == 0;
	c->edge = maptap_read_user(st->pid, page_end - 8, buf, 64);
	c->beyond = maptap_read_user(st->pid, page_end, buf, 16);
	memset(buf, 0, sizeof(buf));
	c->pm_whole = mt_read_user_procmem(st->pid, st->args[0], buf, len);
	c->pm_same = c->pm_whole == (ssize_t)sizeof(known) &&
		     memcmp(buf, known, sizeof(known)) == 0;
	c->pm_edge = mt_read_user_procmem(st->pid, page_end - 8, buf, 64);
	c->pm_beyond = mt_read_user_procmem(st->pid, page_end, buf, 16);
}

static int on_syscall(const struct maptap_syscall_stop *st, void *arg)
{
	struct ctx *c = arg;
	struct rec *r = add(c, R_SYSCALL, st->pid, st->tid);
	struct user_regs_struct regs;

	r->nr = st->nr;
	r->is_return = st->is_return;
	r->name = st->name;
	r->ret = st->ret;
	memcpy(r->args, st->args, sizeof(r->args));
	r->pc = st->pc;
	r->regs_rc = maptap_session_get_regs(c->s, st->tid, &regs);
	r->regs_match = r->regs_rc == 0 && regs.rip == st->pc &&
			regs.rsp == st->sp && (int)regs.orig_rax == st->nr &&
			(!st->is_return || (int64_t)regs.rax == st->ret);
	r->pc_in_exec = text_at(c, st->pid, st->pc) != NULL;
	r->pc_in_target = r->pc_in_exec &&
			  ends_with(text_at(c, st->pid, st->pc)->name,
				    "/t_hooks");
	if (st->nr == MARK && !st->is_return && st->args[1] == sizeof(known))
		check_mem(c, st);
	if (st->nr == MARK && !st->is_return && st->args[0] > 1 &&
	    st->args[1] == 0)
		c->busy_rc = maptap_session_get_regs(c->s,
						     (pid_t)st->args[0], &regs);
	if (st->name && !strcmp(st->name, "openat") && !st->is_return) {
		char path[16] = "";

		if (maptap_read_user(st->pid, st->args[1], path,
				     sizeof(path) - 1) > 0 &&
		    !strcmp(path, "/dev/null"))
			c->devnull_seen = true;
	}
	return 0;
}

static void on_ready(pid_t pid, pid_t tid, enum maptap_ready_why why,
		     void *arg)
{
	struct ctx *c = arg;
	struct rec *r = add(c, R_READY, pid, tid);
	struct user_regs_struct regs;
	char link[64];
	ssize_t n;

	r->kind = why;
	r->regs_rc = maptap_session_get_regs(c->s, tid, &regs);
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, r->exe, sizeof(r->exe) - 1);
	r->exe[n > 0 ? n : 0] = '\0';
}

static void set_bit(struct maptap_session_opts *o, int nr)
{
	o->syscalls[nr / 64] |= 1ULL << (nr % 64);
}

static int nr_of(const char *name)
{
	const struct maptap_syscall *sc =
		maptap_syscall_by_name(maptap_syscall_native_arch(), name);

	return sc ? sc->nr : -1;
}

static void opts_init(struct maptap_session_opts *o, struct ctx *c)
{
	memset(o, 0, sizeof(*o));
	memset(c, 0, sizeof(*c));
	o->on_event = on_event;
	o->on_syscall = on_syscall;
	o->on_ready = on_ready;
	o->arg = c;
	c->busy_rc = 1;
}

/* Launch the target with ARGS under OPTS and trace it to the end.
 * Returns its wait status, or -1; *PID gets its pid. */
static int launch_run(struct maptap_session_opts *o, struct ctx *c,
		      const char *mode, const char *arg, pid_t *pid,
		      struct maptap_session_stats *stats)
{
	char *argv[] = { (char *)target, (char *)mode, (char *)arg, NULL };
	int status = -1;

	if (maptap_session_new(o, &c->s))
		return -1;
	if (maptap_session_launch(c->s, argv, pid) == 0 &&
	    maptap_session_run(c->s) == 0)
		status = maptap_session_exit_status(c->s);
	if (stats)
		maptap_session_get_stats(c->s, stats);
	maptap_session_free(c->s);
	c->s = NULL;
	return status;
}

static size_t count(const struct ctx *c, enum rec_type type, int nr)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		if (c->v[i].type == type && (nr < 0 || c->v[i].nr == nr))
			n++;
	return n;
}

/* Index of the first record of TYPE/KIND (event kind or ready why) for
 * PID from index FROM, or -1.  PID 0: any. */
static long find(const struct ctx *c, size_t from, enum rec_type type,
		 int kind, pid_t pid)
{
	size_t i;

	for (i = from; i < c->n; i++)
		if (c->v[i].type == type && c->v[i].kind == kind &&
		    (!pid || c->v[i].pid == pid))
			return (long)i;
	return -1;
}

/* Index of the last snapshot event of PID, or -1. */
static long last_snapshot(const struct ctx *c, pid_t pid)
{
	long i;

	for (i = (long)c->n - 1; i >= 0; i--)
		if (c->v[i].type == R_EVENT && c->v[i].snapshot &&
		    c->v[i].pid == pid)
			return i;
	return -1;
}

static bool args_are(const struct rec *r, bool reversed)
{
	int i;

	for (i = 0; i < 6; i++)
		if (r->args[i] != pattern[reversed ? 5 - i : i])
			return false;
	return true;
}

/* The MARK calls of the "raw" target from record FROM on: entry, exit,
 * entry, exit, with the patterns, ENOSYS, pc in the target's text and
 * registers that agree. */
static void check_marks(const struct ctx *c, size_t from, const char *mode,
			int nmarks)
{
	const struct rec *m[4];
	size_t i, k = 0;
	bool regs = true, text = true;

	for (i = from; i < c->n && k < 4; i++)
		if (c->v[i].type == R_SYSCALL && c->v[i].nr == MARK)
			m[k++] = &c->v[i];
	if (!tap_int_eq((long long)k, 2 * nmarks, "MARK entries and exits"))
		return;
	tap_ok(!m[0]->is_return && m[1]->is_return, "%s: entry, then exit",
	       mode);
	tap_ok(args_are(m[0], false) && args_are(m[1], false),
	       "%s: six 64-bit arguments round-trip at entry and exit", mode);
	tap_int_eq(m[0]->ret, 0, "ret is 0 at entry");
	tap_int_eq(m[1]->ret, ENOSYS_RET, "an unknown call returns -ENOSYS");
	tap_ok(m[0]->name == NULL, "%s: no name for a number the table lacks",
	       mode);
	for (i = 0; i < k; i++) {
		regs = regs && m[i]->regs_match;
		text = text && m[i]->pc_in_target;
	}
	tap_ok(regs, "%s: get_regs in the callback agrees with the stop (rip, rsp, orig_rax, rax)",
	       mode);
	tap_ok(text, "%s: pc is in the target's own text", mode);
	if (nmarks == 2)
		tap_ok(args_are(m[2], true) && args_are(m[3], true),
		       "%s: the second call's reversed patterns", mode);
}

static void test_raw_launch(void)
{
	struct maptap_session_opts o;
	struct maptap_session_stats with, without;
	struct ctx c;
	pid_t pid;
	size_t i;
	bool only = true;
	int st;
	struct user_regs_struct regs;

	opts_init(&o, &c);
	o.on_syscall = NULL;
	st = launch_run(&o, &c, "raw", NULL, &pid, &without);
	tap_int_eq(st, 0, "raw: untraced-calls baseline run exits 0");
	free(c.v);

	opts_init(&o, &c);
	set_bit(&o, MARK);
	st = launch_run(&o, &c, "raw", NULL, &pid, &with);
	tap_int_eq(st, 0, "raw (launch): exits 0");
	for (i = 0; i < c.n; i++)
		if (c.v[i].type == R_SYSCALL && c.v[i].nr != MARK)
			only = false;
	tap_ok(only, "launch: only the selected call reaches on_syscall");
	check_marks(&c, 0, "launch", 2);
	/* The filter traces MARK and nothing else more: two more seccomp
	 * stops and two more exit stops than without on_syscall. */
	tap_int_eq((long long)(with.seccomp_stops - without.seccomp_stops), 2,
		   "launch: the widened filter stops on the 2 MARK calls only");
	tap_int_eq((long long)(with.syscall_stops - without.syscall_stops), 2,
		   "launch: one exit stop per MARK call");
	tap_int_eq(count(&c, R_READY, -1), 1, "launch: one on_ready");
	free(c.v);

	/* Without the filter every call stops; the set still decides. */
	opts_init(&o, &c);
	o.no_seccomp = true;
	set_bit(&o, MARK);
	tap_int_eq(launch_run(&o, &c, "raw", NULL, &pid, NULL), 0,
		   "raw (--no-seccomp): exits 0");
	tap_int_eq(count(&c, R_SYSCALL, -1), count(&c, R_SYSCALL, MARK),
		   "no-seccomp: only the selected call reaches on_syscall");
	check_marks(&c, 0, "no-seccomp", 2);
	free(c.v);

	opts_init(&o, &c);
	if (maptap_session_new(&o, &c.s) == 0) {
		tap_int_eq(maptap_session_get_regs(c.s, getpid(), &regs),
			   -ESRCH, "get_regs of an untraced tid: -ESRCH");
		maptap_session_free(c.s);
	}
}

static void test_select(void)
{
	struct maptap_session_opts o;
	struct ctx c;
	long entry = -1, ev = -1, exit_ = -1;
	int mmap_nr = nr_of("mmap"), openat_nr = nr_of("openat");
	bool only = true, named = true;
	pid_t pid;
	size_t i;

	opts_init(&o, &c);
	set_bit(&o, mmap_nr);
	set_bit(&o, openat_nr);
	tap_int_eq(launch_run(&o, &c, "raw", NULL, &pid, NULL), 0,
		   "openat+mmap selected: exits 0");
	for (i = 0; i < c.n; i++) {
		const struct rec *r = &c.v[i];

		if (r->type != R_SYSCALL)
			continue;
		if (r->nr != mmap_nr && r->nr != openat_nr)
			only = false;
		if (!r->name || strcmp(r->name, r->nr == mmap_nr ? "mmap" :
				       "openat"))
			named = false;
		if (r->nr == mmap_nr && !r->is_return)
			entry = (long)i;
		if (r->nr == mmap_nr && r->is_return)
			exit_ = (long)i;
	}
	tap_ok(only, "openat+mmap: no other call reaches on_syscall");
	tap_ok(named, "openat+mmap: names from the table");
	tap_ok(c.devnull_seen, "openat's path read with read_user at entry");
	/* The target's own mmap is the last one: its MAP event lies
	 * between its entry and its exit (events first, then the exit). */
	for (i = entry >= 0 ? (size_t)entry : c.n; i < c.n; i++)
		if (c.v[i].type == R_EVENT && c.v[i].kind == MAPTAP_EV_MAP &&
		    exit_ >= 0 && c.v[i].start == (uint64_t)c.v[exit_].ret &&
		    c.v[i].end == (uint64_t)c.v[exit_].ret + 4096)
			ev = (long)i;
	tap_ok(entry >= 0 && exit_ > entry && ev > entry && ev < exit_,
	       "mmap: its map event comes before on_syscall(exit) (entry %ld, event %ld, exit %ld)",
	       entry, ev, exit_);
	free(c.v);
}

/* Every entry is followed, on its thread, by its exit, but exit_group's. */
static bool paired(const struct ctx *c, int exit_group_nr, size_t *unpaired)
{
	size_t i, j;
	bool ok = true;

	*unpaired = 0;
	for (i = 0; i < c->n; i++) {
		const struct rec *r = &c->v[i];

		if (r->type != R_SYSCALL || r->is_return)
			continue;
		for (j = i + 1; j < c->n; j++)
			if (c->v[j].type == R_SYSCALL &&
			    c->v[j].tid == r->tid)
				break;
		if (j < c->n && c->v[j].is_return && c->v[j].nr == r->nr)
			continue;
		if (r->nr == exit_group_nr && j == c->n) {
			++*unpaired;
			continue;
		}
		ok = false;
	}
	return ok;
}

static void test_all(void)
{
	struct maptap_session_opts o;
	struct ctx c;
	long ready, first = -1, big = -1;
	size_t i, unpaired, pre = 0, pre_other = 0;
	bool ok;
	pid_t pid;

	opts_init(&o, &c);
	o.all_syscalls = true;
	tap_int_eq(launch_run(&o, &c, "raw", NULL, &pid, NULL), 0,
		   "all_syscalls: exits 0");
	for (i = 0; i < c.n; i++) {
		if (c.v[i].type != R_SYSCALL)
			continue;
		if (first < 0)
			first = (long)i;
		if (c.v[i].nr == 999999 && c.v[i].is_return)
			big = (long)i;
	}
	tap_ok(big >= 0 && c.v[big].ret == ENOSYS_RET && !c.v[big].name &&
	       c.v[big].args[5] == 6,
	       "all_syscalls: number 999999 (beyond the set) reported, -ENOSYS");
	check_marks(&c, 0, "all", 2);
	ok = paired(&c, nr_of("exit_group"), &unpaired);
	tap_ok(ok && unpaired == 1,
	       "every entry has its exit but exit_group's (%zu)", unpaired);
	ready = find(&c, 0, R_READY, MAPTAP_READY_LAUNCH, pid);
	for (i = 0; ready >= 0 && i < (size_t)ready; i++)
		if (c.v[i].type == R_SYSCALL) {
			if (c.v[i].nr == nr_of("execve") &&
			    !c.v[i].is_return && c.v[i].pid == pid)
				pre++;
			else
				pre_other++;
		}
	tap_ok(ready >= 0 && first >= 0 && first < ready && pre == 1 &&
	       pre_other == 0,
	       "before the command is ready only its own execve is reported, "
	       "none of maptap's pre-exec code (ready %ld, first call %ld, "
	       "%zu execve, %zu others)", ready, first, pre, pre_other);
	tap_int_eq(count(&c, R_SYSCALL, nr_of("execve")), 2,
		   "the launch's execve: its entry and its return, as stap's "
		   "syscall.execve and .return see them");
	free(c.v);
}

/* The entry numbers of a run, in order, without NR_OUT. */
static size_t entries(const struct ctx *c, int *out, size_t max, int nr_out)
{
	size_t i, n = 0;

	for (i = 0; i < c->n && n < max; i++)
		if (c->v[i].type == R_SYSCALL && !c->v[i].is_return &&
		    c->v[i].nr != nr_out)
			out[n++] = c->v[i].nr;
	return n;
}

/* Every bit of the set: the filter's compares span several blocks, and
 * must trace exactly what all_syscalls traces below number 512. */
static void test_every_bit(void)
{
	struct maptap_session_opts o;
	struct ctx c;
	static int all[4096], bits[4096];
	size_t na, nb;
	pid_t pid;
	int i;

	opts_init(&o, &c);
	o.all_syscalls = true;
	tap_int_eq(launch_run(&o, &c, "raw", NULL, &pid, NULL), 0,
		   "all_syscalls again: exits 0");
	na = entries(&c, all, 4096, 999999);
	free(c.v);
	opts_init(&o, &c);
	for (i = 0; i < MAPTAP_SYSCALL_SET_BITS; i++)
		set_bit(&o, i);
	tap_int_eq(launch_run(&o, &c, "raw", NULL, &pid, NULL), 0,
		   "every bit set: exits 0");
	nb = entries(&c, bits, 4096, -1);
	tap_ok(na > 20 && na == nb && !memcmp(all, bits, na * sizeof(*all)),
	       "every bit set: the same calls as all_syscalls but 999999 (%zu, %zu)",
	       na, nb);
	tap_int_eq(count(&c, R_SYSCALL, 999999), 0,
		   "every bit set: 999999 is outside the set");
	free(c.v);
}

static void test_mem(void)
{
	struct maptap_session_opts o;
	struct ctx c;
	char buf[8];
	pid_t pid;

	opts_init(&o, &c);
	set_bit(&o, MARK);
	tap_int_eq(launch_run(&o, &c, "mem", NULL, &pid, NULL), 0,
		   "mem: exits 0");
	if (!tap_ok(c.mem_checked, "mem: the MARK call was seen"))
		return;
	tap_ok(c.whole_same, "read_user: the known string (%zd bytes)",
	       c.whole);
	tap_int_eq(c.edge, 8, "read_user: short read ends at the unmapped page");
	tap_int_eq(c.beyond, -EFAULT, "read_user: -EFAULT at an unmapped page");
	tap_ok(c.pm_same, "/proc/PID/mem path: the known string (%zd)",
	       c.pm_whole);
	tap_int_eq(c.pm_edge, 8, "/proc/PID/mem path: short read at the page");
	tap_int_eq(c.pm_beyond, -EFAULT, "/proc/PID/mem path: -EFAULT");
	tap_int_eq(maptap_read_user(pid, 4096, buf, sizeof(buf)), -ESRCH,
		   "read_user of a reaped process: -ESRCH");
	free(c.v);
}

static void test_threads(void)
{
	struct maptap_session_opts o;
	struct ctx c;
	size_t i, exits = 0, groups = 0;
	long last = -1;
	pid_t pid;

	opts_init(&o, &c);
	set_bit(&o, MARK);
	tap_int_eq(launch_run(&o, &c, "threads", NULL, &pid, NULL), 0,
		   "threads: exits 0");
	tap_int_eq(c.busy_rc, -EBUSY,
		   "get_regs of a running thread of the target: -EBUSY");
	for (i = 0; i < c.n; i++) {
		if (c.v[i].type != R_EVENT || c.v[i].kind != MAPTAP_EV_EXIT ||
		    c.v[i].pid != pid)
			continue;
		exits++;
		last = (long)i;
		groups += c.v[i].group_exit;
	}
	tap_int_eq((long long)exits, 5, "threads: an exit event per thread");
	tap_ok(groups == 1 && last >= 0 && c.v[last].group_exit,
	       "group_exit only on the last thread's exit (%zu)", groups);
	tap_ok(strstr(c.json_exit, "\"group_exit\":true") != NULL,
	       "JSON exit event has group_exit: %s", c.json_exit);
	free(c.v);
}

static void test_fork(void)
{
	struct maptap_session_opts o;
	struct ctx c;
	long fork_ev, ready, snap, mark = -1;
	pid_t pid, child = 0;
	size_t i;

	opts_init(&o, &c);
	set_bit(&o, MARK);
	tap_int_eq(launch_run(&o, &c, "fork", NULL, &pid, NULL), 0,
		   "fork: exits 0");
	fork_ev = find(&c, 0, R_EVENT, MAPTAP_EV_FORK, pid);
	if (fork_ev >= 0)
		child = c.v[fork_ev].child;
	ready = find(&c, 0, R_READY, MAPTAP_READY_FORK, child);
	snap = last_snapshot(&c, child);
	for (i = 0; i < c.n; i++)
		if (c.v[i].type == R_SYSCALL && c.v[i].pid == child &&
		    mark < 0)
			mark = (long)i;
	tap_ok(child > 0 && fork_ev < snap && snap < ready,
	       "fork: on_ready(FORK) after the child's fork event and snapshot (%ld < %ld < %ld)",
	       fork_ev, snap, ready);
	tap_ok(ready >= 0 && mark > ready,
	       "fork: the child's calls come after its on_ready");
	tap_int_eq(count(&c, R_READY, -1), 2,
		   "fork: on_ready for the launch and the child only");
	free(c.v);
}

static void test_exec(void)
{
	struct maptap_session_opts o;
	struct ctx c;
	long launch, exec_ev, exec2, ready, snap, entry = -1, ret = -1;
	int execve_nr = nr_of("execve");
	pid_t pid;
	size_t i;

	opts_init(&o, &c);
	set_bit(&o, MARK);
	set_bit(&o, execve_nr);
	tap_int_eq(launch_run(&o, &c, "exec", NULL, &pid, NULL), 0,
		   "exec: exits 0");
	exec_ev = find(&c, 0, R_EVENT, MAPTAP_EV_EXEC, pid);
	launch = find(&c, 0, R_READY, MAPTAP_READY_LAUNCH, pid);
	tap_ok(exec_ev >= 0 && launch > exec_ev &&
	       launch > find(&c, 0, R_EVENT, MAPTAP_EV_MAP, pid),
	       "launch: on_ready(LAUNCH) after the exec event and the snapshot");
	tap_ok(launch >= 0 && ends_with(c.v[launch].exe, "/t_hooks") &&
	       c.v[launch].regs_rc == 0,
	       "launch: on_ready sees the real program (%s), stopped",
	       launch >= 0 ? c.v[launch].exe : "");
	exec2 = exec_ev >= 0 ? find(&c, (size_t)exec_ev + 1, R_EVENT,
				    MAPTAP_EV_EXEC, pid) : -1;
	ready = find(&c, 0, R_READY, MAPTAP_READY_EXEC, pid);
	snap = last_snapshot(&c, pid);
	for (i = 0; i < c.n; i++) {
		if (c.v[i].type != R_SYSCALL || c.v[i].nr != execve_nr)
			continue;
		if (c.v[i].is_return)
			ret = (long)i;
		else
			entry = (long)i;
	}
	tap_ok(entry >= 0 && entry < exec2 && exec2 < snap && snap < ready,
	       "exec: execve entry, exec event, snapshot, on_ready(EXEC) (%ld %ld %ld %ld)",
	       entry, exec2, snap, ready);
	/* The new image starts in its program interpreter. */
	tap_ok(ret > ready && c.v[ret].ret == 0 && c.v[ret].pc_in_exec &&
	       c.v[ret].regs_match,
	       "exec: execve's exit (0) comes in the new image, after on_ready");
	if (ret >= 0)
		check_marks(&c, (size_t)ret, "exec, new image", 2);
	tap_int_eq(count(&c, R_SYSCALL, MARK), 6,
		   "exec: the marks of both images");
	free(c.v);
}

/* A non-leader thread's execve returns under the leader's tid. */
static void test_thread_exec(void)
{
	struct maptap_session_opts o;
	struct ctx c;
	long entry = -1, ret = -1, exec_ev, ready;
	int execve_nr = nr_of("execve");
	pid_t pid;
	size_t i;

	opts_init(&o, &c);
	set_bit(&o, execve_nr);
	tap_int_eq(launch_run(&o, &c, "texec", NULL, &pid, NULL), 0,
		   "texec: exits 0");
	for (i = 0; i < c.n; i++) {
		if (c.v[i].type != R_SYSCALL || c.v[i].nr != execve_nr)
			continue;
		if (c.v[i].is_return)
			ret = (long)i;
		else
			entry = (long)i;
	}
	exec_ev = find(&c, entry >= 0 ? (size_t)entry : 0, R_EVENT,
		       MAPTAP_EV_EXEC, pid);
	ready = find(&c, 0, R_READY, MAPTAP_READY_EXEC, pid);
	tap_ok(entry >= 0 && c.v[entry].tid != pid,
	       "texec: execve enters in the second thread");
	tap_ok(ret > ready && ready > exec_ev && exec_ev > entry &&
	       c.v[ret].tid == pid && c.v[ret].ret == 0 && c.v[ret].regs_match,
	       "texec: its exit comes under the leader's tid, after the exec event and on_ready (%ld %ld %ld %ld)",
	       entry, exec_ev, ready, ret);
	free(c.v);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* run_until on the "pipe" target.  WHY names the SIGCHLD set-up. */
static void test_run_until(const char *why)
{
	struct maptap_session_opts o;
	struct ctx c;
	char fdarg[16];
	int fds[2], ones = 0, i;
	char *argv[] = { (char *)target, "pipe", fdarg, NULL };
	pid_t pid;

	opts_init(&o, &c);
	set_bit(&o, MARK);
	if (pipe2(fds, O_CLOEXEC) != 0 || fcntl(fds[0], F_SETFD, 0) != 0 ||
	    maptap_session_new(&o, &c.s) != 0) {
		tap_ok(false, "run_until: set up");
		return;
	}
	snprintf(fdarg, sizeof(fdarg), "%d", fds[0]);
	if (!tap_ok(maptap_session_launch(c.s, argv, &pid) == 0,
		    "run_until: launch"))
		return;
	close(fds[0]);
	/* The target cannot end before it reads its byte. */
	for (i = 0; i < 5; i++)
		ones += maptap_session_run_until(c.s, now_ns() + 20000000) == 1;
	tap_ok(ones == 5, "%s: run_until returns 1 at each deadline while the target sleeps on a pipe (%d)",
	       why, ones);
	tap_int_eq(maptap_session_run_until(c.s, now_ns() - 1), 1,
		   "run_until with a deadline already past returns 1");
	tap_int_eq(find(&c, 0, R_EVENT, MAPTAP_EV_EXIT, 0), -1,
		   "no exit event yet");
	if (write(fds[1], "x", 1) != 1)
		tap_ok(false, "write to the target's pipe");
	close(fds[1]);
	/* An hour away: only the stops can end this call (a SIGCHLD at
	 * each; without one, slices of 1 ms), never the deadline.  A hang
	 * here is a failure, ended by main()'s alarm. */
	tap_int_eq(maptap_session_run_until(c.s, now_ns() + 3600000000000ULL),
		   0, "run_until with a far deadline returns 0 once the target has exited");
	tap_int_eq(maptap_session_exit_status(c.s), 0, "its exit status");
	tap_int_eq(count(&c, R_SYSCALL, MARK), 2,
		   "no stop lost: the MARK entry and exit after the pipe");
	tap_ok(find(&c, 0, R_EVENT, MAPTAP_EV_EXIT, pid) >= 0,
	       "its exit event");
	tap_int_eq(maptap_session_run_until(c.s, now_ns() + 1000000), 0,
		   "run_until after the end returns 0");
	maptap_session_free(c.s);
	free(c.v);
}

/* Attach to a running t_hooks ("attach" mode) that waits on a pipe. */
static void test_attach(void)
{
	struct maptap_session_opts o;
	struct ctx c;
	int to[2], from[2];
	char r[16], w[16], ch;
	long attach_ev, snap, ready;
	pid_t pid;
	size_t i;
	bool only = true;

	if (pipe(to) || pipe(from)) {
		tap_ok(false, "attach: pipes");
		return;
	}
	pid = fork();
	if (pid == 0) {
		snprintf(r, sizeof(r), "%d", to[0]);
		snprintf(w, sizeof(w), "%d", from[1]);
		execl(target, target, "attach", r, w, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	/* It runs its own program once it writes. */
	if (pid < 0 || read(from[0], &ch, 1) != 1) {
		tap_ok(false, "attach: the target started");
		return;
	}
	opts_init(&o, &c);
	set_bit(&o, MARK);
	if (maptap_session_new(&o, &c.s) ||
	    !tap_ok(maptap_session_attach(c.s, pid) == 0,
		    "attach to the running target %s",
		    maptap_session_errmsg(c.s))) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	attach_ev = find(&c, 0, R_EVENT, MAPTAP_EV_ATTACH, pid);
	snap = last_snapshot(&c, pid);
	ready = find(&c, 0, R_READY, MAPTAP_READY_ATTACH, pid);
	tap_ok(attach_ev >= 0 && attach_ev < snap && snap < ready,
	       "attach: on_ready(ATTACH) after the attach event and snapshot (%ld %ld %ld)",
	       attach_ev, snap, ready);
	tap_ok(ready >= 0 && c.v[ready].regs_rc == 0,
	       "attach: the thread is stopped in on_ready (get_regs 0)");
	if (write(to[1], "g", 1) != 1)
		tap_ok(false, "attach: release the target");
	tap_int_eq(maptap_session_run(c.s), 0, "attach: run to the end");
	for (i = 0; i < c.n; i++)
		if (c.v[i].type == R_SYSCALL && c.v[i].nr != MARK)
			only = false;
	tap_ok(only, "attach: only the selected call reaches on_syscall");
	check_marks(&c, 0, "attach", 1);
	maptap_session_free(c.s);
	close(to[1]);
	close(from[0]);
	free(c.v);
}

static int build_target(char *out, size_t size)
{
	const char *cc = getenv("CC"), *src = getenv("top_srcdir");
	char dir[] = "/tmp/maptap-hooks.XXXXXX", cmd[4 * PATH_MAX];

	if (!src || !mkdtemp(dir))
		return -1;
	snprintf(out, size, "%s/t_hooks", dir);
	snprintf(cmd, sizeof(cmd),
		 "%.*s -O1 -pthread -o '%s' '%.*s/testsuite/targets/t_hooks.c'",
		 PATH_MAX, cc && *cc ? cc : "cc", out, PATH_MAX, src);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	static char path[PATH_MAX];
	char cmd[PATH_MAX + 32];

	if (!tap_ok(build_target(path, sizeof(path)) == 0,
		    "build t_hooks with $CC (needs top_srcdir)"))
		return tap_done();
	target = path;
	alarm(600);	/* a hang is a failure, not a stuck test run */
	test_raw_launch();
	test_select();
	test_all();
	test_every_bit();
	test_mem();
	test_threads();
	test_fork();
	test_exec();
	test_thread_exec();
	test_run_until("SIGCHLD default");
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = SA_NOCLDSTOP;
		sigaction(SIGCHLD, &sa, NULL);
		test_run_until("SA_NOCLDSTOP");
		sa.sa_flags = 0;
		sigaction(SIGCHLD, &sa, NULL);
	}
	test_attach();
	snprintf(cmd, sizeof(cmd), "rm -rf '%.*s'",
		 (int)(strrchr(path, '/') - path), path);
	if (system(cmd) != 0)
		tap_diag("cannot remove the target's directory");
	return tap_done();
}
