/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_report.c -- maptap --report's accounting on fixture event
 * sequences (no ptrace): exact byte totals per process, per call site,
 * per module/segment and per anonymous name after partial unmaps,
 * MAP_FIXED replaces, moves, brk, renames, fork, exec and exit; the skip
 * rule of call sites and dlopen detection on this very process's modules;
 * the top-N cut of the text report.
 *
 * With --json it prints the JSON report of the fixture instead, for
 * test_report_json.sh to parse.
 */
#include <config.h>

#include <maptap/maps.h>
#include <maptap/report.h>
#include <maptap/symbols.h>

#include "../lib/tap.h"
#include "../../runtime/report/report_state.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define K 0x1000ull

/* Call-site stacks: distinct pcs that no module covers (the fixture's
 * pids have no address space in the module layer). */
static const struct maptap_frame st_a[] = { { .pc = 0xa1 }, { .pc = 0xa2 },
					    { .pc = 0xa3 }, { .pc = 0xa4 } };
static const struct maptap_frame st_a2[] = { { .pc = 0xa1 }, { .pc = 0xa2 },
					     { .pc = 0xa3 }, { .pc = 0xff } };
static const struct maptap_frame st_b[] = { { .pc = 0xb1 } };
static const struct maptap_frame st_c[] = { { .pc = 0xc1 } };
static const struct maptap_frame st_d[] = { { .pc = 0xd1 } };
static const struct maptap_frame st_e[] = { { .pc = 0xe1 } };
static const struct maptap_frame st_g[] = { { .pc = 0x61 } };
static const struct maptap_frame st_h[] = { { .pc = 0x71 } };
static const struct maptap_frame st_x[] = { { .pc = 0x81 } };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t now_ns = 1000;

static struct maptap_event ev_of(enum maptap_event_kind kind, pid_t pid,
				 uint64_t s, uint64_t e, const char *name)
{
	struct maptap_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.pid = ev.tid = pid;
	ev.time_ns = now_ns;
	ev.syscall_nr = 9;
	ev.vma.start = s;
	ev.vma.end = e;
	ev.vma.perms = MAPTAP_PERM_R | MAPTAP_PERM_W;
	ev.vma.name = name ? name : "";
	ev.vma.name_len = strlen(ev.vma.name);
	ev.vma.kind = maptap_vma_kind_of(ev.vma.name, ev.vma.name_len, 0);
	ev.old.name = "";
	return ev;
}

static int feed(struct maptap_report *r, struct maptap_event ev,
		const struct maptap_frame *f, unsigned n)
{
	return maptap_report_event(r, &ev, f, n);
}

static int range(struct maptap_report *r, enum maptap_event_kind kind,
		 pid_t pid, uint64_t s, uint64_t e, const char *name,
		 const struct maptap_frame *f, unsigned n)
{
	return feed(r, ev_of(kind, pid, s, e, name), f, n);
}

/* A range event with an old range (move, grow, shrink). */
static int range2(struct maptap_report *r, enum maptap_event_kind kind,
		  pid_t pid, uint64_t s, uint64_t e, uint64_t os, uint64_t oe,
		  const char *name, const struct maptap_frame *f, unsigned n)
{
	struct maptap_event ev = ev_of(kind, pid, s, e, name);

	ev.old = ev.vma;
	ev.old.start = os;
	ev.old.end = oe;
	return maptap_report_event(r, &ev, f, n);
}

static int proc_ev(struct maptap_report *r, enum maptap_event_kind kind,
		   pid_t pid, pid_t child, const char *path)
{
	struct maptap_event ev = ev_of(kind, pid, 0, 0, NULL);

	ev.child = child;
	ev.path = path;
	ev.syscall_nr = -1;
	return maptap_report_event(r, &ev, NULL, 0);
}

static const struct rp_proc *rec(const struct maptap_report *r, pid_t pid)
{
	size_t i = r->nprocs;

	while (i-- > 0)
		if (r->procs[i]->pid == pid)
			return r->procs[i];
	return NULL;
}

/* Live bytes of the site of P whose first frame is at PC. */
static long long site_live(const struct maptap_report *r, pid_t pid,
			   uint64_t pc)
{
	const struct rp_proc *p = rec(r, pid);
	size_t i;

	for (i = 0; p && i < p->nsites; i++)
		if (p->sites[i].nframes && p->sites[i].frames[0].pc == pc)
			return (long long)p->sites[i].live;
	return -1;
}

static const struct rp_site *site_at(const struct maptap_report *r,
				     pid_t pid, uint64_t pc)
{
	const struct rp_proc *p = rec(r, pid);
	size_t i;

	for (i = 0; p && i < p->nsites; i++)
		if (p->sites[i].nframes && p->sites[i].frames[0].pc == pc)
			return &p->sites[i];
	return NULL;
}

static long long pseudo_live(const struct maptap_report *r, pid_t pid,
			     unsigned what)
{
	const struct rp_proc *p = rec(r, pid);

	return p ? (long long)p->sites[what].live : -1;
}

static uint64_t live(const struct maptap_report *r, pid_t pid)
{
	struct maptap_report_totals t;

	if (maptap_report_totals(r, pid, &t) != 0)
		return UINT64_MAX;
	return t.live_bytes;
}

struct name_sum {
	const struct maptap_report *r;
	const char *name;
	uint64_t bytes;
};

static void sum_name(void *arg, const struct rp_node *n)
{
	struct name_sum *s = arg;

	if (strcmp(s->r->cls[n->cls].name, s->name) == 0)
		s->bytes += n->end - n->start;
}

/* Live bytes of P whose class is named NAME (anonymous name or path). */
static long long class_live(const struct maptap_report *r, pid_t pid,
			    const char *name)
{
	struct name_sum s = { r, name, 0 };
	const struct rp_proc *p = rec(r, pid);

	if (!p)
		return -1;
	rp_map_walk(&p->map, sum_name, &s);
	return (long long)s.bytes;
}

/* The fixture of process 100 (checked step by step when CHECK). */
static void fixture(struct maptap_report *r, bool check)
{
#define EQ(got, want, name) \
	do { \
		if (check) \
			tap_int_eq((long long)(got), (long long)(want), name); \
	} while (0)

	proc_ev(r, MAPTAP_EV_ATTACH, 100, 0, "/bin/fixture");
	{
		struct maptap_event ev = ev_of(MAPTAP_EV_MAP, 100, 0x7000 * K,
					       0x7002 * K, "[stack]");

		ev.snapshot = true;
		ev.syscall_nr = -1;
		feed(r, ev, NULL, 0);
	}
	EQ(pseudo_live(r, 100, RP_W_BEFORE_ATTACH), 2 * K,
	   "snapshot at attach: before attach");
	now_ns = 2000;
	range(r, MAPTAP_EV_MAP, 100, 0x100 * K, 0x110 * K, NULL, st_a, 4);
	EQ(site_live(r, 100, 0xa1), 16 * K, "map charged to its site");
	range(r, MAPTAP_EV_MAP, 100, 0x120 * K, 0x121 * K, NULL, st_a2, 4);
	EQ(site_live(r, 100, 0xa1), 17 * K,
	   "the site key is the first 3 frames");
	range(r, MAPTAP_EV_UNMAP, 100, 0x120 * K, 0x121 * K, NULL, NULL, 0);
	now_ns = 3000;
	range(r, MAPTAP_EV_UNMAP, 100, 0x104 * K, 0x108 * K, NULL, NULL, 0);
	EQ(site_live(r, 100, 0xa1), 12 * K, "partial unmap splits the range");
	EQ(live(r, 100), 14 * K, "total after the split");
	/* mmap(MAP_FIXED) over the end of A, a gap, and the start of B:
	 * replace, map, replace, as the model reports it. */
	range(r, MAPTAP_EV_MAP, 100, 0x200 * K, 0x210 * K, NULL, st_b, 1);
	now_ns = 4000;
	range(r, MAPTAP_EV_REPLACE, 100, 0x10c * K, 0x110 * K, NULL, st_c, 1);
	range(r, MAPTAP_EV_MAP, 100, 0x110 * K, 0x200 * K, NULL, st_c, 1);
	range(r, MAPTAP_EV_REPLACE, 100, 0x200 * K, 0x204 * K, NULL, st_c, 1);
	EQ(site_live(r, 100, 0xa1), 8 * K, "replace takes A's tail");
	EQ(site_live(r, 100, 0xb1), 12 * K, "replace takes B's head");
	EQ(site_live(r, 100, 0xc1), 0xf8 * K, "replace charges C");
	EQ(site_at(r, 100, 0xc1) ? site_at(r, 100, 0xc1)->maps : 0, 3,
	   "C's charging events");
	EQ(live(r, 100), (2 + 8 + 12 + 0xf8) * K, "total after replace");
	/* Unmap it all but A's head and the stack: the peak stays. */
	now_ns = 5000;
	range(r, MAPTAP_EV_UNMAP, 100, 0x108 * K, 0x210 * K, NULL, NULL, 0);
	EQ(live(r, 100), (2 + 4) * K, "unmap over three sites");
	EQ(site_live(r, 100, 0xb1), 0, "B gone");
	/* mremap moves: grow while moving, then shrink while moving. */
	range(r, MAPTAP_EV_MAP, 100, 0x300 * K, 0x302 * K, NULL, st_d, 1);
	range2(r, MAPTAP_EV_MOVE, 100, 0x400 * K, 0x403 * K, 0x300 * K,
	       0x302 * K, NULL, st_e, 1);
	EQ(site_live(r, 100, 0xd1), 2 * K, "move keeps the site");
	EQ(site_live(r, 100, 0xe1), 1 * K, "a longer move charges the rest");
	range2(r, MAPTAP_EV_MOVE, 100, 0x500 * K, 0x501 * K, 0x400 * K,
	       0x403 * K, NULL, st_x, 1);
	EQ(site_live(r, 100, 0xd1), 1 * K, "a shorter move drops the tail");
	EQ(site_live(r, 100, 0xe1), 0, "of both sites");
	EQ(live(r, 100), (2 + 4 + 1) * K, "total after moves");
	/* brk: the heap grows and shrinks in place. */
	range(r, MAPTAP_EV_MAP, 100, 0x600 * K, 0x601 * K, "[heap]", st_h, 1);
	range2(r, MAPTAP_EV_GROW, 100, 0x600 * K, 0x605 * K, 0x600 * K,
	       0x601 * K, "[heap]", st_g, 1);
	EQ(site_live(r, 100, 0x61), 4 * K, "grow charges the new bytes");
	range2(r, MAPTAP_EV_SHRINK, 100, 0x600 * K, 0x602 * K, 0x600 * K,
	       0x605 * K, "[heap]", NULL, 0);
	EQ(site_live(r, 100, 0x61), 1 * K, "shrink uncharges the cut");
	EQ(site_live(r, 100, 0x71), 1 * K, "the first brk keeps its byte");
	EQ(class_live(r, 100, "[heap]"), 2 * K, "[heap] in the anon table");
	/* The stack grows with no system call: "kernel". */
	{
		struct maptap_event ev = ev_of(MAPTAP_EV_GROW, 100, 0x6ffe * K,
					       0x7002 * K, "[stack]");

		ev.old = ev.vma;
		ev.old.start = 0x7000 * K;
		ev.syscall_nr = -1;
		EQ(maptap_report_wants_stack(&ev), 0,
		   "no stack wanted for a resync");
		feed(r, ev, NULL, 0);
	}
	EQ(pseudo_live(r, 100, RP_W_KERNEL), 2 * K, "stack growth: kernel");
	EQ(class_live(r, 100, "[stack]"), 4 * K, "[stack] in the anon table");
	/* Rename and protect keep the site; the anon table follows. */
	range(r, MAPTAP_EV_RENAME, 100, 0x100 * K, 0x102 * K, "[anon:cache]",
	      NULL, 0);
	EQ(site_live(r, 100, 0xa1), 4 * K, "rename keeps the site");
	EQ(class_live(r, 100, "[anon:cache]"), 2 * K, "renamed bytes");
	EQ(class_live(r, 100, "[anon]"), 3 * K, "unnamed bytes left");
	range(r, MAPTAP_EV_RENAME, 100, 0x101 * K, 0x102 * K,
	      "[anon:other]", NULL, 0);
	EQ(class_live(r, 100, "[anon:cache]"), 1 * K, "renamed again");
	EQ(class_live(r, 100, "[anon:other]"), 1 * K, "to another name");
	range(r, MAPTAP_EV_PROTECT, 100, 0x102 * K, 0x103 * K, NULL, NULL, 0);
	EQ(site_live(r, 100, 0xa1), 4 * K, "protect keeps the site");
	EQ(live(r, 100), (4 + 4 + 1 + 2) * K, "total after renames");
#undef EQ
}

/* The snapshot that follows a fork of the fixture's process 100: PID's
 * own maps, as the tracer reads them (docs/model.md, "Processes"), here
 * the parent's VMAs at that time less MADV_DONTFORK's (DONTFORK_K bytes
 * at 0x500 left out when set). */
static void fork_snapshot(struct maptap_report *r, pid_t pid, bool dontfork)
{
	static const struct {
		unsigned s, e;
		const char *name;
	} v[] = {
		{ 0x100, 0x101, "[anon:cache]" }, { 0x101, 0x102, "[anon:other]" },
		{ 0x102, 0x104, NULL }, { 0x500, 0x501, NULL },
		{ 0x600, 0x602, "[heap]" }, { 0x6ffe, 0x7002, "[stack]" },
	};
	size_t i;

	for (i = 0; i < N(v); i++) {
		struct maptap_event ev = ev_of(MAPTAP_EV_MAP, pid, v[i].s * K,
					       v[i].e * K, v[i].name);

		if (dontfork && v[i].s == 0x500)
			continue;
		ev.snapshot = true;
		ev.syscall_nr = -1;
		feed(r, ev, NULL, 0);
	}
}

static void test_fixture(void)
{
	struct maptap_modules *m;
	struct maptap_report *r;
	struct maptap_report_totals t;

	maptap_modules_new(NULL, &m);
	tap_int_eq(maptap_report_new(NULL, NULL, &r), -EINVAL, "new: no M");
	tap_int_eq(maptap_report_new(m, NULL, &r), 0, "new");
	now_ns = 1000;
	fixture(r, true);
	maptap_report_totals(r, 100, &t);
	tap_int_eq((long long)t.peak_bytes, (2 + 8 + 12 + 0xf8) * K,
		   "peak bytes");
	tap_int_eq((long long)t.peak_ns, 4000, "peak time: first reached");
	tap_int_eq(t.ended, 0, "still running");

	/* fork: the child is its snapshot, then diverges */
	now_ns = 6000;
	proc_ev(r, MAPTAP_EV_FORK, 100, 200, NULL);
	tap_int_eq((long long)live(r, 200), 0,
		   "fork: the child starts empty, not a copy");
	fork_snapshot(r, 200, true);
	tap_int_eq((long long)live(r, 200), (long long)live(r, 100) - K,
		   "fork: the child's snapshot, without the DONTFORK page");
	tap_int_eq(pseudo_live(r, 200, RP_W_INHERITED),
		   (long long)live(r, 100) - K, "all of it inherited");
	fork_snapshot(r, 200, true);
	tap_int_eq(pseudo_live(r, 200, RP_W_INHERITED),
		   (long long)live(r, 100) - K,
		   "a snapshot again changes nothing");
	range(r, MAPTAP_EV_MAP, 200, 0x500 * K, 0x501 * K, NULL, NULL, 0);
	range(r, MAPTAP_EV_UNMAP, 200, 0x600 * K, 0x602 * K, NULL, NULL, 0);
	range(r, MAPTAP_EV_MAP, 200, 0x800 * K, 0x808 * K, NULL, st_a, 4);
	tap_int_eq((long long)live(r, 200), (long long)live(r, 100) + 6 * K,
		   "child diverges");
	tap_int_eq(site_live(r, 200, 0xa1), 8 * K, "child's own site");
	tap_int_eq(site_live(r, 100, 0xa1), 4 * K, "parent unchanged");

	/* exec: reset, the snapshot is "execve" */
	now_ns = 7000;
	proc_ev(r, MAPTAP_EV_EXEC, 200, 0, "/bin/new");
	tap_int_eq((long long)live(r, 200), 0, "exec clears the map");
	{
		struct maptap_event ev = ev_of(MAPTAP_EV_MAP, 200, 0x900 * K,
					       0x903 * K, NULL);

		ev.snapshot = true;
		ev.syscall_nr = -1;
		feed(r, ev, NULL, 0);
	}
	tap_int_eq(pseudo_live(r, 200, RP_W_EXECVE), 3 * K, "exec snapshot");
	tap_int_eq(pseudo_live(r, 200, RP_W_INHERITED), 0, "nothing inherited");
	tap_str_eq(rec(r, 200)->exe, "/bin/new", "exe follows exec");

	/* exit freezes; a reused pid is a new record */
	{
		struct maptap_event ev = ev_of(MAPTAP_EV_EXIT, 200, 0, 0, NULL);

		ev.group_exit = true;
		ev.status = 3 << 8;
		feed(r, ev, NULL, 0);
	}
	range(r, MAPTAP_EV_UNMAP, 200, 0x900 * K, 0x903 * K, NULL, NULL, 0);
	proc_ev(r, MAPTAP_EV_EXEC, 200, 0, "/bin/late");
	tap_str_eq(rec(r, 200)->exe, "/bin/new", "exec after exit: ignored");
	maptap_report_totals(r, 200, &t);
	tap_ok(t.exited && t.ended && t.status == 3 << 8, "exit recorded");
	tap_int_eq((long long)t.live_bytes, 3 * K, "frozen at exit");
	proc_ev(r, MAPTAP_EV_FORK, 100, 200, NULL);
	fork_snapshot(r, 200, false);
	maptap_report_totals(r, 200, &t);
	tap_ok(!t.ended && t.live_bytes == live(r, 100),
	       "reused pid: a new record");
	tap_int_eq(maptap_report_totals(r, 999, &t), -ESRCH, "unknown pid");
	maptap_report_free(r);
	maptap_modules_free(m);
}

static void test_wants_stack(void)
{
	struct maptap_event ev = ev_of(MAPTAP_EV_MAP, 1, 0, K, NULL);

	tap_ok(maptap_report_wants_stack(&ev), "wants a stack: mmap");
	ev.snapshot = true;
	tap_ok(!maptap_report_wants_stack(&ev), "not for a snapshot");
	ev = ev_of(MAPTAP_EV_UNMAP, 1, 0, K, NULL);
	tap_ok(!maptap_report_wants_stack(&ev), "not for an unmap");
	ev = ev_of(MAPTAP_EV_PROTECT, 1, 0, K, NULL);
	tap_ok(!maptap_report_wants_stack(&ev), "not for a protect");
	ev = ev_of(MAPTAP_EV_MOVE, 1, 4 * K, 6 * K, NULL);
	ev.old.start = 0;
	ev.old.end = 2 * K;
	tap_ok(!maptap_report_wants_stack(&ev), "not for a plain move");
	ev.vma.end = 7 * K;
	tap_ok(maptap_report_wants_stack(&ev), "for a move that grows");
	ev = ev_of(MAPTAP_EV_REPLACE, 1, 0, K, NULL);
	tap_ok(maptap_report_wants_stack(&ev), "for a replace");
	ev = ev_of(MAPTAP_EV_GROW, 1, 0, K, NULL);
	tap_ok(maptap_report_wants_stack(&ev), "for a grow by a call");
	tap_ok(!maptap_report_wants_stack(NULL), "not for NULL");
}

/* Frames without a module: the first SITE_FRAMES pcs name the site. */
static void test_skip_rule(void)
{
	tap_ok(rp_frame_internal("libc.so.6", "foo"), "libc frames skip");
	tap_ok(rp_frame_internal("ld-linux-x86-64.so.2", NULL),
	       "loader frames skip");
	tap_ok(rp_frame_internal("prog", "malloc"), "static malloc skips");
	tap_ok(rp_frame_internal("prog", "mmap@GLIBC_2.2.5"),
	       "versioned mmap skips");
	tap_ok(rp_frame_internal("prog", "_int_malloc"), "_int_* skips");
	tap_ok(rp_frame_internal("prog", "__default_morecore"),
	       "*morecore* skips");
	tap_ok(rp_frame_internal("libstdc++.so.6", "_Znwm"),
	       "operator new skips");
	tap_ok(rp_frame_internal("libstdc++.so.6", "_ZnamRKSt9nothrow_t"),
	       "operator new[] nothrow skips");
	tap_ok(rp_frame_internal("prog", "tcache_init.part.0"),
	       "a clone of tcache_init skips");
	tap_ok(!rp_frame_internal("prog", "main"), "main does not skip");
	tap_ok(!rp_frame_internal("prog", NULL), "unresolved does not skip");
	tap_ok(!rp_frame_internal("libcrypto.so.3", "mallocx"),
	       "a prefix of a listed name does not skip");
	tap_ok(!rp_frame_internal("libcx.so", "f"), "only libc.so itself");
	tap_int_eq(rp_symbol_dl_op("dlopen@GLIBC_2.2.5"), RP_DL_OPEN,
		   "dlopen found");
	tap_int_eq(rp_symbol_dl_op("_dl_close"), RP_DL_CLOSE, "_dl_close");
	tap_int_eq(rp_symbol_dl_op("main"), RP_DL_NONE, "main is neither");
}

/* The first record of PID (rec() gives the latest). */
static const struct rp_proc *rec_first(const struct maptap_report *r,
				       pid_t pid)
{
	size_t i;

	for (i = 0; i < r->nprocs; i++)
		if (r->procs[i]->pid == pid)
			return r->procs[i];
	return NULL;
}

static char *print_of(struct maptap_report *r, bool json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (json)
		maptap_report_print_json(r, fp);
	else
		maptap_report_print_text(r, fp);
	fclose(fp);
	return text;
}

/* Every text symbol of glibc 2.36's static malloc.o and mmap/munmap/
 * mremap/brk/sbrk objects (`nm libc.a`) skips in a static program; a
 * program's own names near them do not. */
static void test_skip_static(void)
{
	static const char *const glibc[] = {
		"sysmalloc_mmap.constprop.0",
		"sysmalloc_mmap_fallback.constprop.0", "sysmalloc",
		"systrim.constprop.0", "_int_malloc", "_int_free",
		"_int_realloc", "_int_memalign", "_mid_memalign.constprop.0",
		"tcache_init.part.0", "ptmalloc_init.part.0", "arena_get2",
		"arena_get_retry", "alloc_new_heap", "new_heap",
		"munmap_chunk", "mremap_chunk", "unlink_chunk.constprop.0",
		"malloc_consolidate", "malloc_printerr", "alloc_perturb",
		"detach_arena.part.0", "__libc_malloc", "__libc_calloc",
		"__libc_realloc", "__libc_memalign", "__libc_valloc",
		"__libc_pvalloc", "__malloc", "__calloc", "__realloc",
		"__free", "__memalign", "__posix_memalign", "__valloc",
		"__pvalloc", "__glibc_morecore", "__mmap", "__mmap64",
		"mmap64", "__munmap", "__mremap", "__brk", "__sbrk",
		"aligned_alloc", "malloc_hook_ini",
	};
	static const char *const user[] = {
		"heap_push", "arena_alloc", "make_tcache", "my_sysmalloc",
		"int_malloc", "xmalloc",
	};
	size_t i;

	for (i = 0; i < N(glibc); i++)
		tap_ok(rp_frame_internal("prog", glibc[i]),
		       "static glibc %s skips", glibc[i]);
	for (i = 0; i < N(user); i++)
		tap_ok(!rp_frame_internal("prog", user[i]),
		       "the program's own %s does not skip", user[i]);
}

/* A caller in this program, and its address as a frame's pc. */
static void __attribute__((noinline)) self_caller(void)
{
	__asm__ volatile("" ::: "memory");
}

/* The skip rule and dlopen detection through the real module and
 * symbol layers, on this process's own address space. */
static void test_self(void)
{
	struct maptap_vma_buf buf = { 0 };
	struct maptap_maps_reader *rd;
	struct maptap_modules *m;
	struct maptap_report *r;
	struct maptap_frame f[3];
	struct maptap_module_event me;
	struct maptap_module_info mi;
	struct maptap_report_opts o = { .top = 2 };
	char *text;
	/* libc's own functions, not a sanitizer's interceptors. */
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *dl = libc ? dlsym(libc, "dlopen") : NULL;
	void *ma = libc ? dlsym(libc, "malloc") : NULL;
	const struct rp_proc *p;
	pid_t pid = getpid();
	int rc;

	if (libc)	/* it stays: this process runs on it */
		dlclose(libc);
	if (maptap_maps_open(pid, MAPTAP_MAPS_AUTO, &rd) != 0) {
		tap_skip("cannot open this process's maps");
		return;
	}
	rc = maptap_maps_read_all(rd, &buf);
	maptap_maps_close(rd);
	if (rc != 0 || !dl || !ma) {
		tap_skip("cannot read this process's maps or find libc");
		maptap_vma_buf_free(&buf);
		return;
	}
	maptap_modules_new(NULL, &m);
	maptap_modules_sync(m, pid, buf.v, buf.n, NULL, NULL);
	maptap_report_new(m, &o, &r);
	memset(f, 0, sizeof(f));
	f[0].pc = (uint64_t)(uintptr_t)ma + 1;
	f[0].activation = true;
	f[1].pc = (uint64_t)(uintptr_t)self_caller;
	f[1].activation = true;
	f[2].pc = (uint64_t)(uintptr_t)test_self;
	f[2].activation = true;
	range(r, MAPTAP_EV_MAP, pid, 0x100 * K, 0x101 * K, NULL, f, 3);
	p = rec(r, pid);
	tap_ok(p && p->nsites == RP_W_CALL + 1 &&
	       p->sites[RP_W_CALL].nframes == 2 &&
	       p->sites[RP_W_CALL].frames[0].pc == f[1].pc,
	       "malloc's frame is skipped: the site starts at its caller");
	tap_str_eq(p && p->sites[RP_W_CALL].nframes ?
		   p->sites[RP_W_CALL].frames[0].symbol : NULL,
		   "self_caller", "the site is symbolized");

	f[0].pc = (uint64_t)(uintptr_t)dl + 1;
	memset(&mi, 0, sizeof(mi));
	mi.path = "/lib/libfake.so";
	mi.type = MAPTAP_MODULE_DYN;
	memset(&me, 0, sizeof(me));
	me.kind = MAPTAP_MODULE_LOAD;
	me.pid = me.tid = pid;
	me.time_ns = 42;
	me.module = &mi;
	tap_int_eq(maptap_report_module_event(r, &me, f, 3), 0,
		   "module event");
	me.time_ns = 43;
	tap_int_eq(maptap_report_module_event(r, &me, f + 1, 2), 0,
		   "a load without dlopen");
	tap_ok(p->ndl == 1 && p->dl[0].op == RP_DL_OPEN &&
	       p->dl[0].time_ns == 42 && strcmp(p->dl[0].path,
						"/lib/libfake.so") == 0,
	       "a load through dlopen is a dlopen");
	tap_ok(p->ndl == 1 && p->dl[0].nframes == 2 &&
	       p->dl[0].frames[0].symbol &&
	       strcmp(p->dl[0].frames[0].symbol, "self_caller") == 0,
	       "its stack starts at dlopen's caller");
	tap_int_eq((long long)p->loads_at_start, 1, "loaded at start");
	mi.type = MAPTAP_MODULE_FILE;
	mi.path = "/etc/ld.so.cache";
	me.time_ns = 44;
	maptap_report_module_event(r, &me, f, 3);
	tap_ok(p->ndl == 1 && p->loads_at_start == 1,
	       "a data file mapped during dlopen is no dlopen");
	mi.type = MAPTAP_MODULE_DYN;
	mi.path = "/lib/libfake.so";
	me.kind = MAPTAP_MODULE_UNLOAD;
	maptap_report_module_event(r, &me, f, 3);
	tap_ok(p->ndl == 2 && p->dl[1].op == RP_DL_OPEN_FAILED,
	       "an unload through dlopen is a failed dlopen, no dlclose");
	me.kind = MAPTAP_MODULE_LOAD;
	maptap_report_module_event(r, &me, f, 3);
	text = print_of(r, false);
	tap_ok(strstr(text, " dlopen failed /lib/libfake.so\n") != NULL,
	       "text: dlopen failed");
	tap_ok(strstr(text, "\n    ... 1 more\n") != NULL,
	       "text: the dl list is cut at top, the rest counted");
	free(text);
	text = print_of(r, true);
	tap_ok(strstr(text, "\"op\":\"dlopen_failed\"") != NULL &&
	       strstr(text, "\"time_ns\":44") != NULL,
	       "JSON: dlopen_failed, and every entry");
	free(text);
	maptap_report_free(r);
	maptap_modules_free(m);
	maptap_vma_buf_free(&buf);
}

/* A vfork child (CLONE with THREAD false) charges its parent's record
 * until it execs or exits, along chains of them. */
static void test_vfork(void)
{
	struct maptap_modules *m;
	struct maptap_report *r;
	struct maptap_event ev;
	struct maptap_report_totals t;

	maptap_modules_new(NULL, &m);
	maptap_report_new(m, NULL, &r);
	range(r, MAPTAP_EV_MAP, 10, 0x10 * K, 0x14 * K, NULL, st_a, 1);
	proc_ev(r, MAPTAP_EV_CLONE, 10, 11, NULL);
	range(r, MAPTAP_EV_MAP, 11, 0x100 * K, 0x110 * K, NULL, st_b, 1);
	proc_ev(r, MAPTAP_EV_CLONE, 11, 12, NULL);
	range(r, MAPTAP_EV_MAP, 12, 0x200 * K, 0x202 * K, NULL, st_c, 1);
	ev = ev_of(MAPTAP_EV_EXIT, 12, 0, 0, NULL);
	ev.group_exit = true;
	feed(r, ev, NULL, 0);
	tap_ok(!rec(r, 12), "a vfork child that exits unexec'd: no record");
	tap_ok(!rec(r, 11), "a vfork child has no record before its exec");
	tap_int_eq((long long)live(r, 10), 22 * K,
		   "the children's maps are the parent's bytes");
	tap_int_eq(site_live(r, 10, 0xb1), 16 * K,
		   "the child's site, from its own stack");
	tap_int_eq(site_live(r, 10, 0xc1), 2 * K,
		   "a vfork child's vfork child charges the first parent");
	proc_ev(r, MAPTAP_EV_EXEC, 11, 0, "/bin/true");
	range(r, MAPTAP_EV_MAP, 11, 0x100 * K, 0x101 * K, NULL, st_d, 1);
	tap_int_eq((long long)live(r, 11), 1 * K,
		   "after its exec the child has its own record");
	tap_int_eq((long long)live(r, 10), 22 * K,
		   "and the parent keeps what the child mapped before");
	maptap_report_totals(r, 10, &t);
	tap_int_eq((long long)t.peak_bytes, 22 * K, "the parent's peak");
	tap_ok(!rec_first(r, 11)->execd,
	       "the child's exec ends no record of its parent's");
	maptap_report_free(r);
	maptap_modules_free(m);
}

/* Each image its own record: the old one ends "exec" with its peak. */
static void test_exec_record(void)
{
	struct maptap_modules *m;
	struct maptap_report *r;
	const struct rp_proc *old, *cur;
	char *text;
	struct maptap_report_totals t;

	maptap_modules_new(NULL, &m);
	maptap_report_new(m, NULL, &r);
	proc_ev(r, MAPTAP_EV_EXEC, 20, 0, "/bin/big");
	range(r, MAPTAP_EV_MAP, 20, 0x1000 * K, 0x1100 * K, NULL, st_a, 1);
	proc_ev(r, MAPTAP_EV_EXEC, 20, 0, "/bin/true");
	range(r, MAPTAP_EV_MAP, 20, 0x10 * K, 0x13 * K, NULL, st_b, 1);
	old = rec_first(r, 20);
	cur = rec(r, 20);
	tap_ok(old != cur, "exec starts a new record");
	tap_ok(old && old->execd && old->peak == 0x100 * K &&
	       old->map.bytes == 0x100 * K,
	       "the old record keeps its image's bytes and peak");
	maptap_report_totals(r, 20, &t);
	tap_int_eq((long long)t.peak_bytes, 3 * K,
		   "the new image's peak is its own");
	text = print_of(r, true);
	tap_ok(strstr(text, "\"exe\":\"/bin/big\",\"state\":\"exec\","
		      "\"exec_path\":\"/bin/true\"") != NULL,
	       "JSON: state exec and the new image");
	free(text);
	text = print_of(r, false);
	tap_ok(strstr(text, "pid 20 (/bin/big): replaced by exec of /bin/true")
	       != NULL, "text: replaced by exec of PATH");
	free(text);
	maptap_report_free(r);
	maptap_modules_free(m);
}

/* What held the peak, kept lazily: sites that hold nothing at the end
 * still show, each with its bytes at that moment, not its own peak. */
static void test_peak_sites(void)
{
	struct maptap_modules *m;
	struct maptap_report *r;
	const struct rp_proc *p;
	char *text;

	maptap_modules_new(NULL, &m);
	maptap_report_new(m, NULL, &r);
	/* b: 8 pages, down to 2 before the peak; a: 4, c: 16 at the
	 * peak, then all of c goes and a grows past what it held then. */
	range(r, MAPTAP_EV_MAP, 40, 0x100 * K, 0x108 * K, NULL, st_b, 1);
	range(r, MAPTAP_EV_UNMAP, 40, 0x102 * K, 0x108 * K, NULL, NULL, 0);
	range(r, MAPTAP_EV_MAP, 40, 0x200 * K, 0x204 * K, NULL, st_a, 1);
	range(r, MAPTAP_EV_MAP, 40, 0x300 * K, 0x310 * K, NULL, st_c, 1);
	range(r, MAPTAP_EV_UNMAP, 40, 0x300 * K, 0x310 * K, NULL, NULL, 0);
	range(r, MAPTAP_EV_MAP, 40, 0x204 * K, 0x20c * K, NULL, st_a, 1);
	range(r, MAPTAP_EV_MAP, 40, 0x400 * K, 0x401 * K, NULL, st_d, 1);
	p = rec(r, 40);
	tap_int_eq((long long)p->peak, 22 * K, "peak: 2 + 4 + 16 pages");
	text = print_of(r, true);
	tap_ok(strstr(text, "\"peak_sites\":[{\"what\":\"call\","
		      "\"bytes\":65536,\"frames\":[{\"pc\":\"0xc1\"")
	       != NULL, "JSON: c, freed since, held 16 pages at the peak");
	tap_ok(strstr(text, "\"bytes\":16384,\"frames\":[{\"pc\":\"0xa1\"")
	       != NULL && strstr(text, "\"bytes\":8192,\"frames\":"
				 "[{\"pc\":\"0xb1\"") != NULL,
	       "JSON: a and b with their bytes then, not now");
	tap_ok(!strstr(text, "\"pc\":\"0xd1\"}]}],\"modules\"") &&
	       !strstr(strstr(text, "\"peak_sites\""), "0xd1"),
	       "JSON: d came after the peak");
	free(text);
	text = print_of(r, false);
	tap_ok(strstr(text, "  at the peak:\n             65536   64.0 KiB  "
		      "0xc1\n") != NULL, "text: the at-the-peak table");
	free(text);
	maptap_report_free(r);
	maptap_modules_free(m);
}

/* MAP_SHARED|MAP_ANONYMOUS is anonymous memory, not module /dev/zero. */
static void test_anon_shared(void)
{
	struct maptap_modules *m;
	struct maptap_report *r;
	struct maptap_event ev;

	maptap_modules_new(NULL, &m);
	maptap_report_new(m, NULL, &r);
	ev = ev_of(MAPTAP_EV_MAP, 30, 0x10 * K, 0x14 * K,
		   "/dev/zero (deleted)");
	ev.vma.inode = 4242;
	ev.vma.dev_minor = 1;
	ev.vma.kind = MAPTAP_VMA_FILE;
	feed(r, ev, st_a, 1);
	tap_int_eq(class_live(r, 30, "[anon_shmem]"), 4 * K,
		   "shared anonymous memory is [anon_shmem]");
	tap_ok(rec(r, 30) && !r->cls[0].module,
	       "in the anonymous table");
	maptap_report_free(r);
	maptap_modules_free(m);
}

/* Text: exact bytes, the top-N cut line. */
static void test_text(void)
{
	struct maptap_report_opts o = { .top = 2 };
	struct maptap_modules *m;
	struct maptap_report *r;
	char *text = NULL;
	size_t len = 0;
	bool good = true;
	struct maptap_event ev;
	FILE *fp;

	maptap_modules_new(NULL, &m);
	maptap_report_new(m, &o, &r);
	now_ns = 1000;
	range(r, MAPTAP_EV_MAP, 1, 0x10 * K, 0x14 * K, NULL, st_a, 1);
	range(r, MAPTAP_EV_MAP, 1, 0x20 * K, 0x23 * K, NULL, st_b, 1);
	range(r, MAPTAP_EV_MAP, 1, 0x30 * K, 0x32 * K, NULL, st_c, 1);
	range(r, MAPTAP_EV_MAP, 1, 0x40 * K, 0x41 * K, NULL, st_d, 1);
	range(r, MAPTAP_EV_MAP, 2, 0x10 * K, 0x11 * K, NULL, st_a, 1);
	range(r, MAPTAP_EV_MAP, 3, 0x10 * K, 0x11 * K, NULL, st_a, 1);
	ev = ev_of(MAPTAP_EV_EXIT, 2, 0, 0, NULL);
	ev.group_exit = true;
	ev.status = 9;
	feed(r, ev, NULL, 0);
	proc_ev(r, MAPTAP_EV_EXEC, 3, 0, "/bin/two\nlines");
	ev.pid = ev.tid = 3;
	ev.status = 3 << 8;
	feed(r, ev, NULL, 0);
	fp = open_memstream(&text, &len);
	tap_int_eq(maptap_report_print_text(r, fp), 0, "print text");
	fclose(fp);
	good &= tap_ok(strstr(text, "peak 40960 bytes (40.0 KiB)") != NULL,
		       "peak line");
	good &= tap_ok(strstr(text, "16384          16384        1  0xa1") !=
		       NULL, "largest site first, exact bytes");
	good &= tap_ok(strstr(text, "... 2 more: 12288 bytes (12.0 KiB)") !=
		       NULL, "cut after top rows, the rest summed");
	good &= tap_ok(strstr(text, "40960   40.0 KiB  [anon]") != NULL,
		       "anon table");
	good &= tap_ok(strstr(text, "): detached") != NULL, "state: detached");
	good &= tap_ok(strstr(text, "): killed by SIGKILL") != NULL,
		       "state: killed by a signal");
	good &= tap_ok(strstr(text, "): exited with status 3") != NULL,
		       "state: exited");
	good &= tap_ok(strstr(text, "pid 3 (/bin/two\\012lines): ") != NULL,
		       "a newline in a name is written \\012");
	if (!good)
		tap_diag("%s", text);
	free(text);
	maptap_report_free(r);
	maptap_modules_free(m);
}

/* Classes from the module layer's description (EV->where). */
static void test_classes(void)
{
	struct maptap_module_desc w;
	struct maptap_modules *m;
	struct maptap_report *r;
	struct maptap_event ev;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	maptap_modules_new(NULL, &m);
	maptap_report_new(m, NULL, &r);
	memset(&w, 0, sizeof(w));
	w.has_module = w.has_segment = true;
	w.module.path = "/lib/libx.so";
	w.module.type = MAPTAP_MODULE_DYN;
	w.segment.kind = MAPTAP_SEG_TEXT;
	ev = ev_of(MAPTAP_EV_MAP, 7, 0x10 * K, 0x13 * K, "/lib/libx.so");
	ev.vma.inode = 12;
	ev.where = &w;
	feed(r, ev, st_a, 1);
	/* its bss, anonymous */
	w.segment.kind = MAPTAP_SEG_BSS;
	ev = ev_of(MAPTAP_EV_MAP, 7, 0x13 * K, 0x14 * K, NULL);
	ev.where = &w;
	feed(r, ev, st_a, 1);
	/* the program's anonymous copy of its text, over the first page */
	w.segment.kind = MAPTAP_SEG_TEXT;
	w.anon = true;
	ev = ev_of(MAPTAP_EV_REPLACE, 7, 0x10 * K, 0x11 * K, NULL);
	ev.where = &w;
	feed(r, ev, st_b, 1);
	/* a file the module layer did not describe */
	ev = ev_of(MAPTAP_EV_MAP, 7, 0x20 * K, 0x22 * K, "/data/blob");
	ev.vma.inode = 13;
	feed(r, ev, st_c, 1);
	tap_int_eq(class_live(r, 7, "/lib/libx.so"), 4 * K,
		   "module classes: text, bss, anon copy");
	tap_int_eq(class_live(r, 7, "/data/blob"), 2 * K,
		   "an undescribed file is its own module");
	fp = open_memstream(&text, &len);
	maptap_report_print_json(r, fp);
	fclose(fp);
	tap_ok(strstr(text, "{\"path\":\"/lib/libx.so\",\"kind\":\"text\","
			    "\"bytes\":8192}") != NULL, "JSON: text");
	tap_ok(strstr(text, "{\"path\":\"/lib/libx.so\",\"kind\":\"text\","
			    "\"anon\":true,\"bytes\":4096}") != NULL,
	       "JSON: the anon copy, marked");
	tap_ok(strstr(text, "{\"path\":\"/lib/libx.so\",\"kind\":\"bss\","
			    "\"bytes\":4096}") != NULL, "JSON: bss");
	tap_ok(strstr(text, "{\"path\":\"/data/blob\",\"kind\":\"-\","
			    "\"bytes\":8192}") != NULL, "JSON: a plain file");
	tap_ok(strstr(text, "\"anon\":[]") != NULL, "no anonymous names");
	free(text);
	maptap_report_free(r);
	maptap_modules_free(m);
}

static int print_json(void)
{
	struct maptap_modules *m;
	struct maptap_report *r;
	struct maptap_event ev;
	int err;

	maptap_modules_new(NULL, &m);
	maptap_report_new(m, NULL, &r);
	now_ns = 1000;
	fixture(r, false);
	proc_ev(r, MAPTAP_EV_FORK, 100, 200, "/bin/child \"quoted\"\n");
	fork_snapshot(r, 200, false);
	range(r, MAPTAP_EV_MAP, 200, 0x800 * K, 0x808 * K, NULL, st_a, 4);
	ev = ev_of(MAPTAP_EV_EXIT, 200, 0, 0, NULL);
	ev.group_exit = true;
	ev.status = 9;	/* killed by SIGKILL */
	feed(r, ev, NULL, 0);
	err = maptap_report_print_json(r, stdout);
	maptap_report_free(r);
	maptap_modules_free(m);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--json") == 0)
		return print_json();
	test_fixture();
	test_wants_stack();
	test_skip_rule();
	test_skip_static();
	test_self();
	test_vfork();
	test_exec_record();
	test_anon_shared();
	test_peak_sites();
	test_text();
	test_classes();
	return tap_done();
}
