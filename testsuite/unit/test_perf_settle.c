/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_perf_settle.c -- perf mode: a difference that a call still in the
 * kernel explains is not resynced before the call's exit record
 * (runtime/tracer/perf_source.c, confirm()).
 *
 * The interleaving of mapstorm.py in perf mode under load, made in a
 * fixed order.  Thread T maps 5 pages, mprotects the first and munmaps
 * them all; its munmap has unmapped the pages and then T is preempted
 * for 11 ms before its sys_exit_munmap record is written.  Meanwhile
 * the confirmation of the range T's mprotect touched finds the model
 * holding pages the kernel has freed.  Before the fix that difference
 * was resynced once it had lasted 2 ms, as an unmap without a call (in
 * the process's name), and the munmap's exit then found nothing to
 * unmap: the log lost T's unmap (mapstorm.py: "every page they mapped
 * is unmapped by their munmap", "no unmap found only by a resync"), and
 * a --verify that saw it said so.  A second case: a difference whose
 * record comes late (a sibling's mmap: its MMAP2 record is not read
 * yet) is not resynced before the records up to the time it was found
 * are read.  A third: a record that comes after the round that should
 * have taken it makes the models be read whole, and says so.  A fourth:
 * after records were lost, the models are read whole, and the records
 * older than that read are not applied again on top of it.  And with
 * the mmap_lock records: a page a sibling's munmap freed, handed by the
 * kernel at once to a new anonymous mapping just like it, is unmapped
 * in the munmap's name and mapped in the mmap's.  And a FORK record
 * waits rounds for its creator's task_newtask (case 10).  Calls in
 * flight at an attach end with their exit records alone (case 13); no
 * call stays in flight after records were lost (case 14); a mapping
 * that takes an mremap's old range after the mremap ran stays (15).
 *
 * No target thread and no perf event: the "process" is a child of this
 * test that maps and unmaps on command (a pipe), and the records are
 * made here and fed to the perf source as if read from its rings
 * (mt_perf_test_record(), runtime/tracer/tracer_priv.h).
 */
#include <config.h>

#include <maptap/maptap.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/tap.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096ULL

struct rec {
	int kind;
	pid_t tid;
	uint64_t start, end;
	bool call;		/* it names a system call */
	const char *sc;		/* which, or NULL */
};

struct ctx {
	int cmd, ack;			/* pipes to and from the child */
	struct rec v[64];
	size_t n;
	int lates;		/* diagnostics of a late record */
	pid_t watch;		/* the process whose exits are counted */
	int exits;		/* its group exit events */
	int status;		/* the last one's */
	pid_t child;		/* the child whose fork and clone events */
	int forks, clones;	/* are counted */
};

/* Have the child run OP ('u' munmap, 'm' mmap MAP_FIXED rw-, 'p'
 * mprotect PROT_READ) on [A, A + LEN), or ('b') brk(A); false when it
 * failed. */
static bool child_do(struct ctx *c, char op, uint64_t a, uint64_t len)
{
	uint64_t m[3] = { (uint64_t)op, a, len };
	char ok = 0;

	return write(c->cmd, m, sizeof(m)) == (ssize_t)sizeof(m) &&
	       read(c->ack, &ok, 1) == 1 && ok == 'y';
}

static void child(int cmd, int ack)
{
	uint64_t m[3];

	while (read(cmd, m, sizeof(m)) == (ssize_t)sizeof(m)) {
		char ok = 'y';

		if (m[0] == 'u' && munmap((void *)m[1], m[2]))
			ok = 'n';
		if (m[0] == 'm' && mmap((void *)m[1], m[2],
					PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
					-1, 0) == MAP_FAILED)
			ok = 'n';
		if (m[0] == 'p' && mprotect((void *)m[1], m[2], PROT_READ))
			ok = 'n';
		if (m[0] == 'b' && syscall(SYS_brk, m[1]) != (long)m[1])
			ok = 'n';
		if (write(ack, &ok, 1) != 1)
			break;
	}
	_exit(0);
}

static void on_diag(const char *line, void *arg)
{
	struct ctx *c = arg;

	if (strstr(line, "late"))
		c->lates++;
	else
		printf("# %s\n", line);
}

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct ctx *c = arg;

	if (ev->kind == MAPTAP_EV_EXIT && ev->group_exit &&
	    ev->pid == c->watch) {
		c->exits++;
		c->status = ev->status;
	}
	if (ev->kind == MAPTAP_EV_FORK && ev->child == c->child)
		c->forks++;
	if (ev->kind == MAPTAP_EV_CLONE && ev->child == c->child)
		c->clones++;
	if ((ev->kind == MAPTAP_EV_UNMAP || ev->kind == MAPTAP_EV_MAP ||
	     ev->kind == MAPTAP_EV_PROTECT) &&
	    c->n < sizeof(c->v) / sizeof(c->v[0]))
		c->v[c->n++] = (struct rec){ ev->kind, ev->tid, ev->vma.start,
					     ev->vma.end, ev->syscall != NULL,
					     ev->syscall };
	/* a shrink as the unmap of what it took off */
	if (ev->kind == MAPTAP_EV_SHRINK &&
	    c->n < sizeof(c->v) / sizeof(c->v[0]))
		c->v[c->n++] = (struct rec){ MAPTAP_EV_UNMAP, ev->tid,
					     ev->vma.end, ev->old.end,
					     ev->syscall != NULL,
					     ev->syscall };
	return 0;
}

/* Pages of [LO, HI) that event R covers, if of KIND. */
static long long rec_pages(const struct rec *r, int kind, uint64_t lo,
			   uint64_t hi)
{
	uint64_t a = r->start > lo ? r->start : lo;
	uint64_t b = r->end < hi ? r->end : hi;

	return r->kind == kind && a < b ? (long long)((b - a) / PAGE) : 0;
}

/* Pages of [LO, HI) that events of KIND cover: in TID's name by its
 * call (TID > 0), or without a call (TID 0). */
static long long pages(const struct ctx *c, int kind, pid_t tid,
		       uint64_t lo, uint64_t hi)
{
	long long n = 0;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (tid ? c->v[i].tid == tid && c->v[i].call : !c->v[i].call)
			n += rec_pages(&c->v[i], kind, lo, hi);
	return n;
}

/* Pages of [LO, HI) that events of KIND cover in the name of call SC. */
static long long pages_by(const struct ctx *c, int kind, const char *sc,
			  uint64_t lo, uint64_t hi)
{
	long long n = 0;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].sc && strcmp(c->v[i].sc, sc) == 0)
			n += rec_pages(&c->v[i], kind, lo, hi);
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Feed a tracepoint sample of tracepoint id TYPE by PID/TID at TIME,
 * its raw fields after the common ones FIELDS[0..N) (N <= 200). */
static void feed_sample(struct maptap_session *s, uint16_t type, pid_t pid,
			pid_t tid, uint64_t time, const void *fields,
			size_t n)
{
	/* header; u64 id; u32 pid, tid; u64 time; u32 size; raw:
	 * u16 type; u8 flags, preempt; i32 pid; fields */
	uint8_t b[256] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)b;
	uint8_t *r = b + sizeof(*h);
	uint32_t u32, rsize = 8 + (uint32_t)n;

	h->type = PERF_RECORD_SAMPLE;
	h->size = (uint16_t)(sizeof(*h) + 28 + rsize + 4);
	u32 = (uint32_t)pid;
	memcpy(r + 8, &u32, 4);
	u32 = (uint32_t)tid;
	memcpy(r + 12, &u32, 4);
	memcpy(r + 16, &time, 8);
	memcpy(r + 24, &rsize, 4);
	memcpy(r + 28, &type, 2);
	memcpy(r + 28 + 4, &u32, 4);
	memcpy(r + 28 + 8, fields, n);
	mt_perf_test_record(s, h);
}

/* Feed a sys_enter_/sys_exit_ record of CALL (nr NR) by PID/TID at TIME,
 * with its arguments (enter) or its return value (exit, V[0]). */
static void feed_call(struct maptap_session *s, const char *call, int nr,
		      bool enter, pid_t pid, pid_t tid, uint64_t time,
		      const uint64_t *v, size_t nv)
{
	/* i32 nr; pad; u64 v[] */
	uint8_t f[8 + 6 * 8] = { 0 };
	int32_t i32 = nr;

	memcpy(f, &i32, 4);
	memcpy(f + 8, v, 8 * nv);
	feed_sample(s, (uint16_t)mt_perf_test_tp(call, enter), pid, tid, time,
		    f, 8 + 8 * nv);
}

/* Feed the PERF_RECORD_MMAP2 of an anonymous rw- mapping [A, A + LEN)
 * made by PID/TID at TIME. */
static void feed_mmap2(struct maptap_session *s, pid_t pid, pid_t tid,
		       uint64_t time, uint64_t a, uint64_t len)
{
	/* header; u32 pid, tid; u64 addr, len, pgoff; u32 maj, min;
	 * u64 ino, ino_generation; u32 prot, flags; char name[8];
	 * sample_id { u32 pid, tid; u64 time, id } */
	uint8_t b[sizeof(struct perf_event_header) + 96] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)b;
	uint8_t *r = b + sizeof(*h);
	uint32_t u32[2] = { (uint32_t)pid, (uint32_t)tid };
	uint32_t pf[2] = { PROT_READ | PROT_WRITE, MAP_PRIVATE };

	h->type = PERF_RECORD_MMAP2;
	h->size = sizeof(b);
	memcpy(r, u32, 8);
	memcpy(r + 8, &a, 8);
	memcpy(r + 16, &len, 8);
	memcpy(r + 56, pf, 8);
	memcpy(r + 64, "//anon", 6);
	memcpy(r + 72, u32, 8);
	memcpy(r + 80, &time, 8);
	mt_perf_test_record(s, h);
}

/* Feed the PERF_RECORD_MMAP2 of a r-x mapping [A, A + LEN) of PID's
 * own program (/proc/PID/exe), made at TIME. */
static void feed_mmap2_file(struct maptap_session *s, pid_t pid,
			    uint64_t time, uint64_t a, uint64_t len)
{
	uint8_t b[sizeof(struct perf_event_header) + 64 + 512 + 24] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)b;
	uint8_t *r = b + sizeof(*h);
	uint32_t u32[2] = { (uint32_t)pid, (uint32_t)pid };
	uint32_t pf[2] = { PROT_READ | PROT_EXEC, MAP_PRIVATE };
	uint32_t maj = 1;
	uint64_t ino = 1;
	char path[64];
	ssize_t n;
	size_t name;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, (char *)r + 64, 511);
	if (n <= 0)
		return;
	name = ((size_t)n + 1 + 7) & ~(size_t)7;	/* u64-aligned */
	h->type = PERF_RECORD_MMAP2;
	h->size = (uint16_t)(sizeof(*h) + 64 + name + 24);
	memcpy(r, u32, 8);
	memcpy(r + 8, &a, 8);
	memcpy(r + 16, &len, 8);
	memcpy(r + 32, &maj, 4);
	memcpy(r + 40, &ino, 8);
	memcpy(r + 56, pf, 8);
	memcpy(r + 64 + name, u32, 8);
	memcpy(r + 64 + name + 8, &time, 8);
	mt_perf_test_record(s, h);
}

/* Feed a PERF_RECORD_LOST of N records, from PID at TIME. */
static void feed_lost(struct maptap_session *s, pid_t pid, uint64_t time,
		      uint64_t n)
{
	/* header; u64 id, lost; sample_id { u32 pid, tid; u64 time, id } */
	uint8_t b[sizeof(struct perf_event_header) + 40] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)b;
	uint8_t *r = b + sizeof(*h);
	uint32_t u32[2] = { (uint32_t)pid, (uint32_t)pid };

	h->type = PERF_RECORD_LOST;
	h->size = sizeof(b);
	memcpy(r + 8, &n, 8);
	memcpy(r + 16, u32, 8);
	memcpy(r + 24, &time, 8);
	mt_perf_test_record(s, h);
}

/* Feed the PERF_RECORD_COMM of PID's exec (PERF_RECORD_MISC_COMM_EXEC)
 * at TIME. */
static void feed_comm_exec(struct maptap_session *s, pid_t pid,
			   uint64_t time)
{
	/* header; u32 pid, tid; char comm[8]; sample_id { u32 pid, tid;
	 * u64 time, id } */
	uint8_t b[sizeof(struct perf_event_header) + 40] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)b;
	uint8_t *r = b + sizeof(*h);
	uint32_t u32[2] = { (uint32_t)pid, (uint32_t)pid };

	h->type = PERF_RECORD_COMM;
	h->misc = 1 << 13;	/* PERF_RECORD_MISC_COMM_EXEC */
	h->size = sizeof(b);
	memcpy(r, u32, 8);
	memcpy(r + 8, "child", 5);
	memcpy(r + 16, u32, 8);
	memcpy(r + 24, &time, 8);
	mt_perf_test_record(s, h);
}

/* Feed a PERF_RECORD_FORK or PERF_RECORD_EXIT (TYPE) of process PID,
 * child of PPID, at TIME: written by the parent (FORK) or the task
 * itself (EXIT). */
static void feed_task(struct maptap_session *s, uint32_t type, pid_t pid,
		      pid_t ppid, uint64_t time)
{
	/* header; u32 pid, ppid, tid, ptid; u64 time; sample_id { u32 pid,
	 * tid; u64 time, id } */
	uint8_t b[sizeof(struct perf_event_header) + 48] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)b;
	uint8_t *r = b + sizeof(*h);
	uint32_t u32[4] = { (uint32_t)pid, (uint32_t)ppid, (uint32_t)pid,
			    (uint32_t)ppid };
	uint32_t by = type == PERF_RECORD_FORK ? (uint32_t)ppid :
						 (uint32_t)pid;

	h->type = type;
	h->size = sizeof(b);
	memcpy(r, u32, 16);
	memcpy(r + 16, &time, 8);
	memcpy(r + 24, &by, 4);
	memcpy(r + 28, &by, 4);
	memcpy(r + 32, &time, 8);
	mt_perf_test_record(s, h);
}

/* A thread that waits for its gate (a pipe) to close, then ends the
 * process with status 5. */
static void *wait_gate(void *arg)
{
	char b;

	while (read(*(int *)arg, &b, 1) > 0)
		;
	_exit(5);
}

/* Whether PID is a zombie (proc(5): state Z). */
static bool zombie(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool z = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		z = p[1] == ' ' && p[2] == 'Z';
	fclose(f);
	return z;
}

/* Whether /proc/PID/exe ends in SUFFIX within 5 s. */
static bool exe_is(pid_t pid, const char *suffix)
{
	struct timespec ms10 = { 0, 10000000 };
	char path[64], buf[512];
	size_t n = strlen(suffix);
	ssize_t len;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	for (i = 0; i < 500; i++) {
		len = readlink(path, buf, sizeof(buf) - 1);
		if (len >= (ssize_t)n && memcmp(buf + len - n, suffix, n) == 0)
			return true;
		nanosleep(&ms10, NULL);
	}
	return false;
}

/* The start of PID's [stack], from /proc/PID/maps; 0 if none. */
static uint64_t stack_of(pid_t pid)
{
	char path[64], line[512];
	unsigned long lo = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%lx-", &lo) == 1)
			break;
	fclose(f);
	return lo;
}

/* Map events whose range starts at LO. */
static int map_at(const struct ctx *c, uint64_t lo)
{
	size_t i;
	int n = 0;

	for (i = 0; i < c->n; i++)
		if (c->v[i].kind == MAPTAP_EV_MAP && c->v[i].start == lo)
			n++;
	return n;
}

/* Rounds at the time it is now, 3 ms later and 6 ms later (more than
 * the 2 ms a difference had to last), each after the records up to
 * APPLIED(now) were applied: LAG 0, all up to then (there are no
 * others); else all up to LAG (a record not read yet comes later). */
static void rounds(struct maptap_session *s, uint64_t lag)
{
	struct timespec ms3 = { 0, 3000000 };
	int i;

	for (i = 0; i < 3; i++) {
		uint64_t now = now_ns();

		if (i)
			nanosleep(&ms3, NULL);
		now = now_ns();
		mt_perf_test_round(s, lag ? lag : now - 1000, now);
	}
}

int main(void)
{
	struct maptap_session_opts o;
	struct timespec ms120 = { 0, 120000000 };
	struct timespec ms3 = { 0, 3000000 };
	struct maptap_session_stats st;
	struct maptap_session *s;
	struct ctx c = { 0 };
	struct mt_proc *p;
	struct mt_mm *mm;
	int to[2], from[2], status;
	uint64_t v[6], t0, t1, p0, resyncs, stack_lo, q, brk0;
	char *area, *area2;
	pid_t pid, tid_t, tid_u, kid;
	int i, j, gate[2], lock_tp;
	pid_t kid2;

	/* [p0, p5): the 5 pages T mapped, the first read-only (its
	 * mprotect); PROT_NONE pages around them. */
	area = mmap(NULL, 9 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (area == MAP_FAILED)
		return 1;
	p0 = (uint64_t)(uintptr_t)area + 2 * PAGE;
	/* [q, q + 2 pages): case 11's, between PROT_NONE pages */
	area2 = mmap(NULL, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (area2 == MAP_FAILED)
		return 1;
	q = (uint64_t)(uintptr_t)area2 + PAGE;
	if (mprotect((void *)q, 2 * PAGE, PROT_READ | PROT_WRITE))
		return 1;
	if (mprotect((void *)(p0 + PAGE), 4 * PAGE, PROT_READ | PROT_WRITE) ||
	    mprotect((void *)p0, PAGE, PROT_READ) || pipe(to) || pipe(from))
		return 1;
	brk0 = (uint64_t)(uintptr_t)sbrk(0);	/* the child's too */
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
	o.on_diag = on_diag;
	o.arg = &c;
	o.verify = true;
	if (!tap_ok(maptap_session_new(&o, &s) == 0, "a session"))
		return tap_done();
	mm = mt_mm_new();
	p = mm ? mt_proc_new(s, pid, mm) : NULL;
	if (!tap_ok(p && mt_refresh_full(s, p, pid, true) == 0 &&
		    mt_perf_test_new(s) == 0,
		    "the child's maps read whole; a perf source without events"))
		return tap_done();
	mt_ready(s, p, pid, MAPTAP_READY_ATTACH);
	p->perf_since = 0;
	/* Thread ids no process has: the records are only looked at. */
	tid_t = pid + 1000000;
	tid_u = pid + 1000001;
	tap_ok(mt_thread_add(s, tid_t, p) && mt_thread_add(s, tid_u, p),
	       "two threads");

	/* 1. T: mprotect(p0, 1 page, PROT_READ) = 0, then munmap(p0,
	 * 5 pages) enters and runs; its exit record comes 11 ms later. */
	c.n = 0;
	t0 = now_ns();
	v[0] = p0;
	v[1] = PAGE;
	v[2] = PROT_READ;
	feed_call(s, "mprotect", SYS_mprotect, true, pid, tid_t, t0, v, 3);
	v[0] = 0;
	feed_call(s, "mprotect", SYS_mprotect, false, pid, tid_t, t0 + 1000,
		  v, 1);
	v[0] = p0;
	v[1] = 5 * PAGE;
	feed_call(s, "munmap", SYS_munmap, true, pid, tid_t, t0 + 2000, v, 2);
	tap_ok(child_do(&c, 'u', p0, 5 * PAGE), "T's munmap ran");
	rounds(s, 0);
	tap_int_eq(pages(&c, MAPTAP_EV_UNMAP, 0, p0, p0 + 5 * PAGE), 0,
		   "while T is in its munmap, no unmap without a call");
	v[0] = 0;
	feed_call(s, "munmap", SYS_munmap, false, pid, tid_t, now_ns(), v,
		  1);
	mt_perf_test_round(s, now_ns(), now_ns());
	tap_int_eq(pages(&c, MAPTAP_EV_UNMAP, tid_t, p0, p0 + 5 * PAGE), 5,
		   "T's 5 pages unmapped in T's name, by its munmap");
	tap_int_eq(pages(&c, MAPTAP_EV_UNMAP, 0, p0, p0 + 5 * PAGE), 0,
		   "no unmap without a call");

	/* 2. U maps 2 pages at p0; its MMAP2 record is read late (its
	 * CPU's ring read after the others, or written late).  --verify's
	 * whole check finds the pages the model lacks, which the record
	 * brings (it checks every 100 ms at most: wait that long). */
	nanosleep(&ms120, NULL);
	c.n = 0;
	t0 = now_ns();
	tap_ok(child_do(&c, 'm', p0, 2 * PAGE), "U's mmap ran");
	rounds(s, t0 - 1000);
	tap_int_eq(pages(&c, MAPTAP_EV_MAP, 0, p0, p0 + 5 * PAGE), 0,
		   "before U's record is read, no map without a call");
	feed_mmap2(s, pid, tid_u, t0, p0, 2 * PAGE);
	mt_perf_test_round(s, now_ns(), now_ns());
	tap_int_eq(pages(&c, MAPTAP_EV_MAP, tid_u, p0, p0 + 5 * PAGE), 2,
		   "U's pages mapped in U's name, by its mmap");
	tap_int_eq(pages(&c, MAPTAP_EV_MAP, 0, p0, p0 + 5 * PAGE), 0,
		   "no map without a call");

	/* 3. A record older than the last round's cutoff (written late:
	 * records of other CPUs after it were applied before it): the
	 * order is lost, as with a lost record; the models are read whole,
	 * and that is said. */
	maptap_session_get_stats(s, &st);
	resyncs = st.resyncs;
	c.lates = 0;
	t0 = now_ns();
	mt_perf_test_round(s, t0, t0);
	v[0] = p0 + 6 * PAGE;
	v[1] = PAGE;
	v[2] = PROT_NONE;
	feed_call(s, "mprotect", SYS_mprotect, true, pid, tid_u, t0 - 2000,
		  v, 3);
	v[0] = 0;
	feed_call(s, "mprotect", SYS_mprotect, false, pid, tid_u, t0 - 1000,
		  v, 1);
	mt_perf_test_round(s, now_ns(), now_ns());
	maptap_session_get_stats(s, &st);
	tap_int_eq((long long)(st.resyncs - resyncs), 1,
		   "a record that came late: the model is read whole");
	tap_int_eq(c.lates, 1, "and it is said");

	/* 4. Records lost (PERF_RECORD_LOST): the models are read whole;
	 * the records older than that read that come after it are in it.
	 * U's munmap of its 2 pages and T's mmap there again both ran
	 * before the read, which shows T's pages; their records must not
	 * unmap and map them again (a spurious unmap in U's name). */
	c.n = 0;
	t0 = now_ns();
	v[0] = p0;
	v[1] = 2 * PAGE;
	feed_call(s, "munmap", SYS_munmap, true, pid, tid_u, t0, v, 2);
	mt_perf_test_round(s, t0 + 100, now_ns());
	tap_ok(child_do(&c, 'u', p0, 2 * PAGE) &&
	       child_do(&c, 'm', p0, 2 * PAGE), "U's munmap and T's mmap ran");
	feed_lost(s, pid, t0 + 200, 7);
	mt_perf_test_round(s, t0 + 300, now_ns());
	v[0] = 0;
	feed_call(s, "munmap", SYS_munmap, false, pid, tid_u, t0 + 1000, v,
		  1);
	feed_mmap2(s, pid, tid_t, t0 + 2000, p0, 2 * PAGE);
	mt_perf_test_round(s, now_ns(), now_ns());
	tap_int_eq(pages(&c, MAPTAP_EV_UNMAP, tid_u, p0, p0 + 2 * PAGE) +
		   pages(&c, MAPTAP_EV_MAP, tid_t, p0, p0 + 2 * PAGE), 0,
		   "after the read whole, no unmap and map again of what it "
		   "read");
	maptap_session_get_stats(s, &st);
	tap_int_eq((long long)st.lost_records, 7, "the lost records counted");

	maptap_session_get_stats(s, &st);
	tap_int_eq((long long)st.confirm_resyncs, 0,
		   "no range was read again after a confirmation");
	tap_int_eq((long long)st.verify_diffs, 0,
		   "--verify found no difference");

	/* 5. An exec's COMM record comes while execve still runs, before
	 * setup_arg_pages() moves the stack it built at the top: the new
	 * image's [stack] is read only once its execve's exit record is
	 * in (a read at the COMM record kept the temporary one, which then
	 * moved without a record: a --verify difference in clonevm.py's
	 * vfork-exec under load).  The child does not really exec; the
	 * records say it did, and its real [stack] stands for the new
	 * one.  (--verify off: the new image's model is empty.) */
	s->opts.verify = false;
	stack_lo = stack_of(pid);
	c.n = 0;
	t0 = now_ns();
	feed_comm_exec(s, pid, t0);
	/* the image's first PT_LOAD names it: the child's own program */
	feed_mmap2_file(s, pid, t0 + 50, p0 + 6 * PAGE, PAGE);
	mt_perf_test_round(s, t0 + 100, now_ns());
	tap_int_eq(map_at(&c, stack_lo), 0,
		   "exec: no [stack] while execve runs (COMM record in)");
	v[0] = 0;
	feed_call(s, "execve", SYS_execve, false, pid, pid, t0 + 200, v, 1);
	mt_perf_test_round(s, t0 + 300, now_ns());
	tap_ok(stack_lo && map_at(&c, stack_lo) == 1,
	       "exec: the [stack] read once its execve's exit record is in");

	/* 6. A fork's child that exec'd at once: the FORK record is read
	 * while the kernel already runs the child's next image.  Its
	 * [stack] is not read for the fork's model (start_stack named the
	 * next image's stack, whose map came before the exec event:
	 * 1 attach in 25 to a fork-exec loop). */
	kid = fork();
	if (kid == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	tap_ok(kid > 0 && exe_is(kid, "/sleep"), "a child running sleep");
	stack_lo = stack_of(kid);
	c.n = 0;
	t0 = now_ns();
	feed_task(s, PERF_RECORD_FORK, kid, pid, t0);
	mt_perf_test_round(s, t0 + 100, now_ns());
	tap_ok(stack_lo && map_at(&c, stack_lo) == 0,
	       "fork of a child that exec'd since: not the next image's "
	       "[stack]");
	if (kid > 0) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}

	/* 7. A child that exited (a zombie now) whose exit records are
	 * not read yet: the rounds so far took records up to before its
	 * exit.  It is not said gone without an exit record (with status
	 * 0) however long that lasts; its records then give its exit and
	 * status (4 attaches in 25 to a forking target said them gone). */
	kid = fork();
	if (kid == 0)
		_exit(7);
	t0 = now_ns();
	feed_task(s, PERF_RECORD_FORK, kid, pid, t0);
	mt_perf_test_round(s, t0 + 100, now_ns());
	while (!zombie(kid))
		nanosleep(&ms3, NULL);
	c.n = c.exits = 0;
	c.status = -1;
	c.watch = kid;
	for (i = 0; i < 4; i++) {	/* 12 ms, its records not read */
		nanosleep(&ms3, NULL);
		mt_perf_test_round(s, t0 + 200, now_ns());
	}
	tap_int_eq(c.exits, 0, "a zombie whose exit records are to come is "
		   "not said gone");
	t1 = now_ns();
	v[0] = 7;
	feed_call(s, "exit_group", SYS_exit_group, true, kid, kid, t0 + 300,
		  v, 1);
	feed_task(s, PERF_RECORD_EXIT, kid, pid, t0 + 400);
	mt_perf_test_round(s, t1, now_ns());
	tap_ok(c.exits == 1 && WIFEXITED(c.status) &&
	       WEXITSTATUS(c.status) == 7,
	       "its exit records give its exit, status 7 (%d exits, "
	       "status %#x)", c.exits, (unsigned)c.status);
	waitpid(kid, NULL, 0);

	/* 8. A process whose leader called SYS_exit while a thread runs
	 * on: /proc shows the leader a zombie, yet the process lives; it
	 * was said gone without an exit record, with status 0, while its
	 * thread went on (t6_mix-style targets: a child's leader exits
	 * first, or an exec from a thread ends it).  Once the thread ends
	 * and no record tells, it is said gone, once. */
	if (pipe(gate))
		return 1;
	kid = fork();
	if (kid == 0) {
		pthread_t th;

		close(gate[1]);
		if (pthread_create(&th, NULL, wait_gate, &gate[0]))
			_exit(2);
		syscall(SYS_exit, 0);	/* the leader only */
	}
	close(gate[0]);
	c.n = c.exits = 0;
	c.watch = kid;
	t0 = now_ns();
	feed_task(s, PERF_RECORD_FORK, kid, pid, t0);
	mt_perf_test_round(s, now_ns(), now_ns());
	while (!zombie(kid))
		nanosleep(&ms3, NULL);
	for (i = 0; i < 4; i++) {	/* every record read, 12 ms */
		nanosleep(&ms3, NULL);
		mt_perf_test_round(s, now_ns(), now_ns());
	}
	tap_int_eq(c.exits, 0, "a zombie leader with a thread running on: "
		   "the process is not said gone");
	close(gate[1]);		/* the thread exits the process */
	waitpid(kid, NULL, 0);
	for (i = 0; i < 4; i++) {
		nanosleep(&ms3, NULL);
		mt_perf_test_round(s, now_ns(), now_ns());
	}
	tap_int_eq(c.exits, 1, "once it ends without a record: said gone, "
		   "once");

	/* 9. With the lock's records (mt_perf_test_lock()): T's munmap of
	 * [q0, q0 + 3 pages) takes the lock and runs; U's mmap takes the
	 * lock after it and the kernel gives it the last of those pages,
	 * anonymous and rw- as the model still has it.  That page was no
	 * difference between the record and the model, so T's munmap was
	 * not applied before U's record: U's map was not logged, and T's
	 * exit unmapped U's page (perfmode.py's mapstorm: 12,770-12,777
	 * pages logged for 12,776). */
	i = mt_perf_test_lock(s);
	lock_tp = i;
	if (tap_ok(i > 0, "the lock's records")) {
		uint64_t q0 = (uint64_t)(uintptr_t)area + 2 * PAGE;
		/* mm; u64 memcg_id; bool write, success; pad */
		uint8_t lock[24] = { 0 };

		child_do(&c, 'u', (uint64_t)(uintptr_t)area, 9 * PAGE);
		child_do(&c, 'm', q0, 3 * PAGE);
		mt_refresh_full(s, p, pid, false);
		c.n = 0;
		t0 = now_ns();
		v[0] = q0;
		v[1] = 3 * PAGE;
		feed_call(s, "munmap", SYS_munmap, true, pid, tid_t, t0, v, 2);
		lock[16] = lock[17] = 1;	/* a write lock, taken */
		feed_sample(s, (uint16_t)i, pid, tid_t, t0 + 100, lock,
			    sizeof(lock));
		tap_ok(child_do(&c, 'u', q0, 3 * PAGE) &&
		       child_do(&c, 'm', q0 + 2 * PAGE, PAGE),
		       "T's munmap and U's mmap ran");
		feed_mmap2(s, pid, tid_u, t0 + 200, q0 + 2 * PAGE, PAGE);
		v[0] = 0;
		feed_call(s, "munmap", SYS_munmap, false, pid, tid_t, t0 + 300,
			  v, 1);
		mt_perf_test_round(s, now_ns(), now_ns());
		tap_int_eq(pages(&c, MAPTAP_EV_MAP, tid_u, q0, q0 + 3 * PAGE),
			   1, "the page the kernel gave U's mmap at once: "
			   "mapped in U's name");
		tap_int_eq(pages(&c, MAPTAP_EV_UNMAP, tid_t, q0,
				 q0 + 3 * PAGE), 3,
			   "T's 3 pages unmapped in T's name, before");
		tap_int_eq(pages(&c, MAPTAP_EV_UNMAP, tid_t, q0 + 2 * PAGE,
				 q0 + 3 * PAGE), 1, "U's page not unmapped "
			   "again by T's exit");
	}

	/* 10. A FORK record whose task_newtask (clone_flags: CLONE_VM)
	 * comes rounds later: its creator was preempted between the two
	 * writes.  The fork was made without it after one round, by
	 * kcmp(2), which says "another mm" for a posix_spawn child that
	 * exec'd since: logged as a fork with a copy of the model
	 * (perfmode.py "spawn (-x)", CI under load).  A child that runs
	 * sleep stands for it.  And with no task_newtask at all, the fork
	 * is made without it once MT_PERF_NEWTASK_MAX_NS has passed. */
	i = mt_perf_test_newtask(s);
	kid = fork();
	if (kid == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	if (tap_ok(i > 0 && kid > 0 && exe_is(kid, "/sleep"),
		   "task_newtask's records; a child running sleep")) {
		/* i32 pid; pad; u64 clone_flags */
		uint8_t nt[16] = { 0 };
		uint64_t flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
		int32_t cpid = kid;

		c.child = kid;
		c.forks = c.clones = 0;
		t0 = now_ns();
		feed_task(s, PERF_RECORD_FORK, kid, pid, t0);
		for (j = 1; j <= 3; j++)
			mt_perf_test_round(s, t0 + j * 1000000, now_ns());
		tap_ok(c.forks == 0 && c.clones == 0, "its FORK record waits "
		       "3 rounds for its task_newtask");
		memcpy(nt, &cpid, 4);
		memcpy(nt + 8, &flags, 8);
		feed_sample(s, (uint16_t)i, pid, pid, t0 + 3500000, nt,
			    sizeof(nt));
		mt_perf_test_round(s, t0 + 4000000, now_ns());
		tap_ok(c.clones == 1 && c.forks == 0, "then a clone, sharing "
		       "the mm, as its clone_flags say (%d clones, %d forks)",
		       c.clones, c.forks);

		/* a second child: no task_newtask at all */
		kid2 = fork();
		if (kid2 == 0) {
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
			_exit(127);
		}
		c.child = kid2;
		c.forks = c.clones = 0;
		feed_task(s, PERF_RECORD_FORK, kid2, pid, t0 + 5000000);
		mt_perf_test_round(s, t0 + 6000000, now_ns());
		mt_perf_test_round(s, t0 + 7000000, now_ns());
		tap_ok(c.forks == 0 && c.clones == 0, "without its "
		       "task_newtask: still waiting 2 ms later");
		mt_perf_test_round(s, t0 + 5000000 + MT_PERF_NEWTASK_MAX_NS +
				   2000000, now_ns());
		mt_perf_test_round(s, t0 + 5000000 + MT_PERF_NEWTASK_MAX_NS +
				   3000000, now_ns());
		tap_int_eq(c.forks + c.clones, 1, "... and made without it "
			   "once MT_PERF_NEWTASK_MAX_NS has passed");
		if (kid2 > 0) {
			kill(kid2, SIGKILL);
			waitpid(kid2, NULL, 0);
		}
	}
	if (kid > 0) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}

	/* 11. The child's madvise of q's first page (MADV_DONTFORK: a split the
	 * maps do not show) returns; before its exit record is read it has
	 * unmapped that page, and the munmap's records come after.  The
	 * madvise's read shows the munmap: taken as the madvise's, it put
	 * the unmap before the calls between (an mremap among them then
	 * moved what the model had there: perfmode.py's storm with
	 * madvise).  It is the munmap's. */
	c.n = 0;
	p->perf_since = 0;	/* the read of case 10 is older */
	t0 = now_ns();
	v[0] = q;
	v[1] = PAGE;
	v[2] = MADV_DONTFORK;
	feed_call(s, "madvise", SYS_madvise, true, pid, pid, t0, v, 3);
	tap_ok(child_do(&c, 'u', q, PAGE), "its later munmap ran");
	v[0] = 0;
	feed_call(s, "madvise", SYS_madvise, false, pid, pid, t0 + 1000,
		  v, 1);
	tap_int_eq(pages_by(&c, MAPTAP_EV_UNMAP, "madvise", q, q + 2 * PAGE),
		   0, "a madvise's late read: no unmap in the madvise's name");
	v[0] = q;
	v[1] = PAGE;
	feed_call(s, "munmap", SYS_munmap, true, pid, pid, t0 + 2000, v, 2);
	v[0] = 0;
	feed_call(s, "munmap", SYS_munmap, false, pid, pid, t0 + 3000, v,
		  1);
	mt_perf_test_round(s, now_ns(), now_ns());
	tap_int_eq(pages_by(&c, MAPTAP_EV_UNMAP, "munmap", q, q + 2 * PAGE),
		   1, "... the page unmapped by the munmap");
	tap_int_eq(pages(&c, MAPTAP_EV_UNMAP, 0, q, q + 2 * PAGE), 0,
		   "... and by nothing else");

	/* 12. The same with prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME) of q's
	 * second page (a name, which may differ in the read; this kernel
	 * may refuse the call itself: the records are made here). */
	c.n = 0;
	t0 = now_ns();
	v[0] = 0x53564d41;	/* PR_SET_VMA */
	v[1] = 0;		/* PR_SET_VMA_ANON_NAME */
	v[2] = q + PAGE;
	v[3] = PAGE;
	v[4] = (uint64_t)(uintptr_t)"x";
	feed_call(s, "prctl", SYS_prctl, true, pid, pid, t0, v, 5);
	tap_ok(child_do(&c, 'u', q + PAGE, PAGE), "its later munmap ran");
	v[0] = 0;
	feed_call(s, "prctl", SYS_prctl, false, pid, pid, t0 + 1000, v, 1);
	tap_int_eq(pages_by(&c, MAPTAP_EV_UNMAP, "prctl", q, q + 2 * PAGE),
		   0, "a prctl's late read: no unmap in the prctl's name");
	v[0] = q + PAGE;
	v[1] = PAGE;
	feed_call(s, "munmap", SYS_munmap, true, pid, pid, t0 + 2000, v, 2);
	v[0] = 0;
	feed_call(s, "munmap", SYS_munmap, false, pid, pid, t0 + 3000, v,
		  1);
	mt_perf_test_round(s, now_ns(), now_ns());
	tap_int_eq(pages_by(&c, MAPTAP_EV_UNMAP, "munmap", q, q + 2 * PAGE),
		   1, "... the page unmapped by the munmap");

	/* 13. Calls in flight at an attach: the exits' records are turned
	 * on before the entries' (enable_cw()), and a thread that entered
	 * brk or mprotect before, waiting for the mm's lock, makes its
	 * change after the attach's read (PROCMAP_QUERY does not wait for
	 * that lock).  Its exit record comes with no entry before it: it
	 * was dropped, and the model kept the heap pages a brk freed and
	 * the rw- page an mprotect made r-- (-x of a brk loop beside a
	 * thread in MAP_POPULATE: the shrink missed in 2 attaches of 5). */
	c.n = 0;
	maptap_session_get_stats(s, &st);
	resyncs = st.confirm_resyncs + st.verify_diffs;
	tap_ok(child_do(&c, 'b', brk0 + 8 * PAGE, 0) &&
	       child_do(&c, 'm', (uint64_t)(uintptr_t)area, 2 * PAGE),
	       "the child's heap grown by 8 pages, 2 pages mapped");
	p->perf_since = now_ns();	/* the attach's read */
	mt_refresh_full(s, p, pid, true);
	p->mm->brk = 0;			/* as at an attach */
	c.n = 0;
	tap_ok(child_do(&c, 'b', brk0 + 3 * PAGE, 0) &&
	       child_do(&c, 'p', (uint64_t)(uintptr_t)area + PAGE, PAGE),
	       "after the read: its brk shrinks the heap by 5 pages, its "
	       "mprotect makes a page read-only");
	v[0] = brk0 + 3 * PAGE;
	feed_call(s, "brk", SYS_brk, false, pid, tid_t, now_ns(), v, 1);
	v[0] = 0;
	feed_call(s, "mprotect", SYS_mprotect, false, pid, tid_u, now_ns(),
		  v, 1);
	rounds(s, 0);
	tap_int_eq(pages_by(&c, MAPTAP_EV_UNMAP, "brk", brk0, brk0 + 8 * PAGE),
		   5, "the brk's exit alone: the 5 pages taken off the heap "
		   "in its name");
	tap_int_eq(pages(&c, MAPTAP_EV_PROTECT, 0,
			 (uint64_t)(uintptr_t)area,
			 (uint64_t)(uintptr_t)area + 2 * PAGE), 1,
		   "the mprotect's exit alone: its page protected, by a read "
		   "of the whole mm (no call: its range is unknown)");
	maptap_session_get_stats(s, &st);
	tap_int_eq((long long)(st.confirm_resyncs + st.verify_diffs -
			       resyncs), 0,
		   "nothing left for a confirmation or --verify");

	/* 14. Records lost while T was in munmap, its exit among them:
	 * T's munmap ran, a sibling mapped the range again, and the read
	 * after the loss has the sibling's pages.  T was still held as in
	 * munmap, its lock taken (case 9's records), so the next mapping
	 * over the range applied T's munmap "first": the sibling's pages
	 * left the model, in T's name (after late records under a
	 * 250-thread storm: --verify's "model rw-p, kernel r--p" and
	 * "model none, kernel rw-p"). */
	if (lock_tp > 0) {
		uint64_t r0 = (uint64_t)(uintptr_t)area + 5 * PAGE;
		/* mm; u64 memcg_id; bool write, success; pad */
		uint8_t lock[24] = { 0 };

		c.n = 0;
		tap_ok(child_do(&c, 'm', r0, 4 * PAGE), "4 pages mapped");
		t0 = now_ns();
		v[0] = r0;
		v[1] = 4 * PAGE;
		feed_call(s, "munmap", SYS_munmap, true, pid, tid_t, t0, v, 2);
		lock[16] = lock[17] = 1;
		feed_sample(s, (uint16_t)lock_tp, pid, tid_t, t0 + 100, lock,
			    sizeof(lock));
		tap_ok(child_do(&c, 'u', r0, 4 * PAGE) &&
		       child_do(&c, 'm', r0, 4 * PAGE),
		       "T's munmap ran, a sibling mapped the pages again");
		feed_lost(s, pid, t0 + 200, 3);
		mt_perf_test_round(s, now_ns(), now_ns());
		c.n = 0;
		tap_ok(child_do(&c, 'm', r0 + PAGE, PAGE), "U maps one page "
		       "over them");
		feed_mmap2(s, pid, tid_u, now_ns(), r0 + PAGE, PAGE);
		mt_perf_test_round(s, now_ns(), now_ns());
		tap_int_eq(pages(&c, MAPTAP_EV_UNMAP, tid_t, r0, r0 + 4 * PAGE),
			   0, "after the loss T is in no call: no unmap in its "
			   "name");
		tap_ok(maptap_mm_find(p->mm->model, r0) &&
		       maptap_mm_find(p->mm->model, r0 + 3 * PAGE),
		       "the sibling's pages are in the model");
	}

	/* 15. With the lock's records: T's mremap of [r, r + 2 pages) to
	 * 3 pages elsewhere takes the lock and runs; U's mmap takes the lock
	 * after it and gets [r, r + 2 pages) back, its MMAP2 record written
	 * before T's exit record.  T's exit moved what the model had at r by
	 * then -- U's mapping -- and unmapped it there (a storm of 250
	 * threads: "model none, kernel rw-p").  T moves what it had; U's
	 * pages stay. */
	if (lock_tp > 0) {
		char *rg = mmap(NULL, 8 * PAGE, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint64_t r0 = (uint64_t)(uintptr_t)rg, n0 = r0 + 4 * PAGE;
		/* mm; u64 memcg_id; bool write, success; pad */
		uint8_t lock[24] = { 0 };

		tap_ok(rg != MAP_FAILED && child_do(&c, 'm', r0, 2 * PAGE),
		       "2 pages mapped");
		mt_refresh_full(s, p, pid, false);
		c.n = 0;
		t0 = now_ns();
		v[0] = r0;
		v[1] = 2 * PAGE;
		v[2] = 3 * PAGE;
		v[3] = MREMAP_MAYMOVE;
		feed_call(s, "mremap", SYS_mremap, true, pid, tid_t, t0, v, 5);
		lock[16] = lock[17] = 1;
		feed_sample(s, (uint16_t)lock_tp, pid, tid_t, t0 + 100, lock,
			    sizeof(lock));
		tap_ok(child_do(&c, 'u', r0, 2 * PAGE) &&
		       child_do(&c, 'm', n0, 3 * PAGE) &&
		       child_do(&c, 'm', r0, 2 * PAGE),
		       "T's mremap moved the pages, U mapped the old range");
		feed_mmap2(s, pid, tid_u, t0 + 200, r0, 2 * PAGE);
		v[0] = n0;
		feed_call(s, "mremap", SYS_mremap, false, pid, tid_t, t0 + 300,
			  v, 1);
		mt_perf_test_round(s, now_ns(), now_ns());
		tap_int_eq(pages(&c, MAPTAP_EV_MAP, tid_u, r0, r0 + 2 * PAGE), 2,
			   "U's 2 pages mapped in its name");
		tap_int_eq(pages_by(&c, MAPTAP_EV_MAP, "mremap", n0,
				    n0 + 3 * PAGE), 3,
			   "T's mremap maps its 3 pages at the new place");
		tap_ok(maptap_mm_find(p->mm->model, r0) &&
		       maptap_mm_find(p->mm->model, r0 + PAGE),
		       "U's pages stay in the model");
		maptap_session_get_stats(s, &st);
		resyncs = st.confirm_resyncs + st.verify_diffs;
		rounds(s, 0);
		maptap_session_get_stats(s, &st);
		tap_int_eq((long long)(st.confirm_resyncs + st.verify_diffs -
				       resyncs), 0,
			   "nothing left for a confirmation");
	}

	maptap_session_free(s);
	close(c.cmd);
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status), "the child ended");
	return tap_done();
}
