/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_reread.c -- a munmap's exit reads its range while two siblings'
 * munmaps run, one before the read and one between it and the read
 * again (runtime/tracer/refresh.c, read_settled()).
 *
 * The interleaving of mapstorm.py under load, made in a fixed order.
 * Thread T's munmap of [p1, p6) was reported already (a sibling's mmap
 * found its hole).  Since, U mapped [p0, p2) and S mapped [p2, p6):
 * the model has both.  U's munmap has run, S's not yet: T's exit reads
 * a hole at [p1, p2) and S's pages after it.  The hole reports U's
 * munmap, and the range is read again; just before that read, S's
 * munmap runs.  The new hole is S's: it must be reported in S's name.
 * Before the fix the read again went unchecked and T's exit unmapped
 * S's pages in T's name; S's munmap stayed pending, its exit later
 * unmapped a mapping made there since and the log had one map and one
 * unmap twice (12780 pages logged for 12776).
 *
 * No tracee: the "process" is a child of this test that unmaps on
 * command (a pipe), the threads are records planted through the
 * private tables (runtime/tracer/tracer_priv.h), and the refresh is called
 * as the stop loop calls it at T's exit stop.  The read again is the
 * test-only fault site MT_FAULT_REREAD, where S's munmap is made to
 * run.
 */
#include <config.h>

#include <maptap/maptap.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096ULL

struct rec {
	int kind;
	pid_t tid;
	uint64_t start, end;
};

struct ctx {
	int cmd, ack;			/* pipes to and from the child */
	int rereads;
	struct rec v[64];
	size_t n;
};

/* Have the child unmap [A, A + LEN); false when it did not. */
static bool child_unmap(struct ctx *c, uint64_t a, uint64_t len)
{
	uint64_t m[2] = { a, len };
	char ok = 0;

	return write(c->cmd, m, sizeof(m)) == (ssize_t)sizeof(m) &&
	       read(c->ack, &ok, 1) == 1 && ok == 'y';
}

static void child(int cmd, int ack)
{
	uint64_t m[2];

	while (read(cmd, m, sizeof(m)) == (ssize_t)sizeof(m)) {
		char ok = munmap((void *)m[0], m[1]) ? 'n' : 'y';

		if (write(ack, &ok, 1) != 1)
			break;
	}
	_exit(0);
}

static uint64_t p0;			/* page 0 of the area */

static int fault(void *arg, int site, const struct mt_thread *t)
{
	struct ctx *c = arg;

	(void)t;
	/* S's munmap runs between T's read and its read again. */
	if (site == MT_FAULT_REREAD && c->rereads++ == 0 &&
	    !child_unmap(c, p0 + 2 * PAGE, 4 * PAGE))
		return -EIO;
	return 0;
}

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct ctx *c = arg;

	if (ev->kind == MAPTAP_EV_UNMAP &&
	    c->n < sizeof(c->v) / sizeof(c->v[0]))
		c->v[c->n++] = (struct rec){ ev->kind, ev->tid,
					     ev->vma.start, ev->vma.end };
	return 0;
}

/* Pages of [LO, HI) that unmap events in TID's name cover. */
static long long unmapped(const struct ctx *c, pid_t tid, uint64_t lo,
			  uint64_t hi)
{
	long long n = 0;
	size_t i;

	for (i = 0; i < c->n; i++) {
		uint64_t a = c->v[i].start > lo ? c->v[i].start : lo;
		uint64_t b = c->v[i].end < hi ? c->v[i].end : hi;

		if (c->v[i].tid == tid && a < b)
			n += (long long)((b - a) / PAGE);
	}
	return n;
}

static int count_vma(const struct maptap_vma *v, void *arg)
{
	(void)v;
	++*(long long *)arg;
	return 0;
}

static struct mt_thread *munmap_thread(struct maptap_session *s,
				       struct mt_proc *p, pid_t tid,
				       uint64_t a, uint64_t len)
{
	struct mt_thread *t = mt_thread_add(s, tid, p);

	if (!t)
		return NULL;
	t->call = maptap_syscall_lookup(maptap_syscall_native_arch(),
					SYS_munmap);
	t->args[0] = a;
	t->args[1] = len;
	p->mm->in_call++;
	return t;
}

int main(void)
{
	struct maptap_session_opts o;
	struct maptap_session *s;
	struct mt_thread *t, *u, *sib;
	struct ctx c = { 0 };
	struct mt_proc *p;
	struct mt_mm *mm;
	int to[2], from[2], status;
	long long left;
	char *area;
	pid_t pid, tid_t, tid_u, tid_s;

	/* [p-1] and [p6] PROT_NONE around the pages: U's [p0, p2), S's
	 * [p2, p6) with its first page read-only (its mprotect), so no
	 * two VMAs merge. */
	area = mmap(NULL, 8 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (area == MAP_FAILED)
		return 1;
	p0 = (uint64_t)(uintptr_t)area + PAGE;
	if (mprotect((void *)p0, 6 * PAGE, PROT_READ | PROT_WRITE) ||
	    mprotect((void *)(p0 + 2 * PAGE), PAGE, PROT_READ) ||
	    pipe(to) || pipe(from))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		child(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	c.cmd = to[1];
	c.ack = from[0];

	memset(&o, 0, sizeof(o));
	o.on_event = on_event;
	o.arg = &c;
	if (!tap_ok(maptap_session_new(&o, &s) == 0, "a session"))
		return tap_done();
	mm = mt_mm_new();
	p = mm ? mt_proc_new(s, pid, mm) : NULL;
	if (!tap_ok(p && mt_refresh_full(s, p, pid, true) == 0,
		    "the child's maps read whole (the model: U's and S's "
		    "mappings)"))
		return tap_done();
	/* Thread ids no process has: the records are only looked at. */
	tid_t = pid + 1000000;
	tid_u = pid + 1000001;
	tid_s = pid + 1000002;
	t = munmap_thread(s, p, tid_t, p0 + PAGE, 5 * PAGE);
	u = munmap_thread(s, p, tid_u, p0, 2 * PAGE);
	sib = munmap_thread(s, p, tid_s, p0 + 2 * PAGE, 4 * PAGE);
	if (!tap_ok(t && u && sib && t->call, "three pending munmaps"))
		return tap_done();
	t->reported = true;
	c.n = 0;
	mt_set_fault(s, fault, &c);
	/* U's munmap has run; S's runs at the read again. */
	tap_ok(child_unmap(&c, p0, 2 * PAGE), "U's munmap ran");
	tap_int_eq(mt_complete_call(s, t, 0), 0, "T's exit refreshes");
	tap_ok(c.rereads >= 1, "T's exit read its range again (%d)",
	       c.rereads);
	tap_int_eq(unmapped(&c, tid_u, p0, p0 + 2 * PAGE), 2,
		   "U's pages unmapped in U's name");
	tap_int_eq(unmapped(&c, tid_s, p0 + 2 * PAGE, p0 + 6 * PAGE), 4,
		   "S's pages unmapped in S's name, found at the read again");
	tap_int_eq(unmapped(&c, tid_t, p0, p0 + 6 * PAGE), 0,
		   "none in T's name (it was reported already)");
	tap_ok(u->reported && sib->reported,
	       "both siblings' munmaps are reported: their exits will "
	       "not unmap what is mapped there since");
	left = 0;
	maptap_mm_foreach(p->mm->model, p0, p0 + 6 * PAGE, count_vma, &left);
	tap_int_eq(left, 0, "the model has nothing left there");

	t->call = u->call = sib->call = NULL;
	p->mm->in_call = 0;
	mt_thread_del(s, t);
	mt_thread_del(s, u);
	mt_thread_del(s, sib);
	mt_set_fault(s, NULL, NULL);
	maptap_session_free(s);
	close(c.cmd);
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status), "the child ended");
	return tap_done();
}
