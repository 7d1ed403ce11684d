/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_module_self.c -- the module tracker and symbol lookups on this
 * very process, checked against what the dynamic linker says
 * (dl_iterate_phdr(3): each object's load bias and program headers) and
 * against the addresses of this file's own functions and variables.
 * Also drives the tracker with synthetic events (unmap, then look up an
 * address "as it was") to check load/unload and the history.
 */
#include <config.h>

#include <maptap/maps.h>
#include <maptap/module.h>
#include <maptap/symbols.h>

#include "../lib/tap.h"

#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Two 64-byte-aligned .bss arrays, likely adjacent, and data in .data
 * and .rodata: the compiler puts them where the tests expect, and the
 * expected names, starts and sizes come from the C objects themselves. */
static char bss_a[64] __attribute__((aligned(64), used));
static char bss_b[64] __attribute__((aligned(64), used));
int data_var = 42;
const char rodata_str[] = "maptap rodata";

static int __attribute__((noinline)) self_func(int x)
{
	return x * 3 + data_var;
}

struct loads {
	int loads, unloads;
	uint64_t last_unload_ns;
};

static int count(const struct maptap_module_event *ev, void *arg)
{
	struct loads *l = arg;

	if (ev->kind == MAPTAP_MODULE_LOAD)
		l->loads++;
	else
		l->unloads++;
	return 0;
}

static int read_self(struct maptap_vma_buf *buf)
{
	struct maptap_maps_reader *r;
	int rc = maptap_maps_open(getpid(), MAPTAP_MAPS_AUTO, &r);

	if (rc)
		return rc;
	rc = maptap_maps_read_all(r, buf);
	maptap_maps_close(r);
	return rc;
}

struct phdr_check {
	struct maptap_modules *m;
	int objects, bad_bias, bad_seg, bad_kind;
};

static enum maptap_segment_kind expect_kind(const ElfW(Phdr) *ph)
{
	if (ph->p_flags & PF_X)
		return MAPTAP_SEG_TEXT;
	if (!(ph->p_flags & PF_W))
		return MAPTAP_SEG_RODATA;
	return MAPTAP_SEG_DATA;	/* or relro: checked loosely below */
}

/* Every PT_LOAD of every loaded object: its first byte must resolve to
 * this object at dlpi_addr and to this very program header. */
static int check_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdr_check *c = arg;
	int i;

	c->objects++;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct maptap_module_desc d;
		enum maptap_segment_kind k;

		if (ph->p_type != PT_LOAD)
			continue;
		if (maptap_modules_find(c->m, getpid(),
					info->dlpi_addr + ph->p_vaddr, &d) ||
		    d.module.bias != info->dlpi_addr) {
			c->bad_bias++;
			tap_diag("%s phdr %d: bias %#lx, want %#lx",
				 info->dlpi_name, i, (unsigned long)d.module.bias,
				 (unsigned long)info->dlpi_addr);
			continue;
		}
		if (!d.has_segment || d.segment.index != i)
			c->bad_seg++;
		k = expect_kind(ph);
		if (d.segment.kind != k &&
		    !(k == MAPTAP_SEG_DATA && d.segment.kind == MAPTAP_SEG_RELRO))
			c->bad_kind++;
	}
	return 0;
}

static void test_phdrs(struct maptap_modules *m)
{
	struct phdr_check c = { .m = m };

	dl_iterate_phdr(check_object, &c);
	tap_ok(c.objects >= 4, "dl_iterate_phdr lists %d objects", c.objects);
	tap_int_eq(c.bad_bias, 0, "every PT_LOAD resolves at the linker's bias");
	tap_int_eq(c.bad_seg, 0, "... to its own program header");
	tap_int_eq(c.bad_kind, 0, "... with the kind its flags give");
}

static void check_data(struct maptap_modules *m, const void *p, size_t off,
		       const char *name, size_t size,
		       enum maptap_segment_kind kind)
{
	struct maptap_sym_info si;
	uint64_t a = (uint64_t)(uintptr_t)p;
	int rc = maptap_sym_lookup(m, getpid(), a + off, 0, MAPTAP_SYM_DATA, &si);

	tap_ok(rc == 0 && si.data.name && strcmp(si.data.name, name) == 0 &&
	       si.data.addr == a && si.data.offset == off &&
	       si.data.size == size,
	       "%s+%zu resolves to %s+%zu size %zu (got %s+%llu size %llu)",
	       name, off, name, off, size, si.data.name ? si.data.name : "?",
	       (unsigned long long)si.data.offset,
	       (unsigned long long)si.data.size);
	if (kind != MAPTAP_SEG_NONE)
		tap_ok(si.where.has_segment && si.where.segment.kind == kind,
		       "%s is in a %s segment (got %s)", name,
		       maptap_segment_kind_name(kind),
		       maptap_segment_kind_name(si.where.segment.kind));
}

static void test_symbols(struct maptap_modules *m)
{
	struct maptap_sym_info si;
	uint64_t f = (uint64_t)(uintptr_t)&self_func;
	int rc;

	rc = maptap_sym_lookup(m, getpid(), f + 3, 0,
			       MAPTAP_SYM_FUNC | MAPTAP_SYM_LINE, &si);
	tap_ok(rc == 0 && si.func.name && strcmp(si.func.name, "self_func") == 0 &&
	       si.func.addr == f && si.func.offset == 3 && si.func.size > 3,
	       "self_func+3 resolves to self_func+3");
	tap_ok(si.src_file && strstr(si.src_file, "test_module_self.c") &&
	       si.src_line > 0, "self_func+3 has file:line (%s:%d)",
	       si.src_file ? si.src_file : "?", si.src_line);
	tap_ok(si.where.has_module && si.module_addr == f + 3 - si.where.module.bias,
	       "module-relative address");
	check_data(m, &data_var, 2, "data_var", sizeof(data_var),
		   MAPTAP_SEG_DATA);
	check_data(m, rodata_str, 5, "rodata_str", sizeof(rodata_str),
		   MAPTAP_SEG_NONE);
	check_data(m, bss_a, 63, "bss_a", sizeof(bss_a), MAPTAP_SEG_NONE);
	check_data(m, bss_b, 0, "bss_b", sizeof(bss_b), MAPTAP_SEG_NONE);
	rc = maptap_sym_lookup(m, getpid(), (uint64_t)(uintptr_t)&data_var, 0,
			       MAPTAP_SYM_FUNC, &si);
	tap_ok(rc == 0 && !si.func.name, "a data address has no function");
	tap_int_eq(maptap_sym_lookup(m, getpid() + 1000000, f, 0,
				     MAPTAP_SYM_FUNC, &si), -ESRCH,
		   "unknown pid: -ESRCH");
	tap_int_eq(maptap_sym_lookup(m, getpid(), 0x1000, 0, MAPTAP_SYM_FUNC,
				     &si), -ENOENT, "unmapped address: -ENOENT");
}

/* Unmap (in the tracker only) every VMA of the object holding ADDR at
 * time 200, then resolve ADDR now and as of time 150. */
static void test_history(struct maptap_modules *m,
			 const struct maptap_vma_buf *buf, uint64_t addr,
			 const char *name)
{
	struct maptap_module_desc d;
	struct maptap_sym_info si;
	struct loads l = { 0 };
	size_t i;
	int rc;

	if (maptap_modules_find(m, getpid(), addr, &d) != 0) {
		tap_skip("%s not found", name);
		return;
	}
	for (i = 0; i < buf->n; i++) {
		struct maptap_event ev = { .kind = MAPTAP_EV_UNMAP,
					   .pid = getpid(), .tid = getpid(),
					   .time_ns = 200, .syscall_nr = -1 };
		const struct maptap_vma *v = &buf->v[i];

		if (v->inode != d.module.inode || v->name_len != strlen(d.module.path) ||
		    memcmp(v->name, d.module.path, v->name_len) != 0)
			continue;
		ev.vma = ev.old = *v;
		maptap_modules_event(m, &ev, NULL, count, &l);
	}
	tap_ok(l.unloads == 1 && l.loads == 0,
	       "unmapping %s's VMAs: one unload (%d, %d loads)", name,
	       l.unloads, l.loads);
	rc = maptap_sym_lookup(m, getpid(), addr, 0, MAPTAP_SYM_FUNC, &si);
	tap_int_eq(rc, -ENOENT, "after the unmap the address is unmapped now");
	rc = maptap_sym_lookup(m, getpid(), addr, 150, MAPTAP_SYM_FUNC, &si);
	tap_ok(rc == 0 && si.func.name && strcmp(si.func.name, name) == 0,
	       "as of before the unmap it resolves to %s", name);
	rc = maptap_sym_lookup(m, getpid(), addr, 250, MAPTAP_SYM_FUNC, &si);
	tap_int_eq(rc, -ENOENT, "as of after the unmap it does not");
}

/* JIT code described in this process's own /tmp/perf-PID.map; the map
 * grows between lookups and must be re-read. */
static void test_perfmap(struct maptap_modules *m)
{
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t c = (uint64_t)(uintptr_t)code;
	struct maptap_sym_info si;
	char path[64];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (code == MAP_FAILED || !f) {
		tap_skip("cannot set up a perf map");
		return;
	}
	fprintf(f, "%lx 20 jit_one\n", (unsigned long)c);
	fflush(f);
	rc = maptap_sym_lookup(m, getpid(), c + 5, 0, MAPTAP_SYM_FUNC, &si);
	tap_ok(rc == 0 && si.func.name && strcmp(si.func.name, "jit_one") == 0 &&
	       si.func.offset == 5 && si.func.size == 0x20 &&
	       si.where.module.type == MAPTAP_MODULE_JIT,
	       "perf map: jit_one+5, module type jit");
	rc = maptap_sym_lookup(m, getpid(), c + 0x100, 0, MAPTAP_SYM_FUNC, &si);
	tap_int_eq(rc, -ENOENT, "perf map: an address outside every entry");
	fprintf(f, "%lx 10 jit_two\n%lx 8 jit_one_again\n%lx 8 _ZN3jit6secondEi\n",
		(unsigned long)(c + 0x100), (unsigned long)c,
		(unsigned long)(c + 0x200));
	fflush(f);
	rc = maptap_sym_lookup(m, getpid(), c + 0x104, 0, MAPTAP_SYM_FUNC, &si);
	tap_ok(rc == 0 && si.func.name && strcmp(si.func.name, "jit_two") == 0,
	       "perf map: a grown map is re-read (jit_two)");
	rc = maptap_sym_lookup(m, getpid(), c + 2, 0, MAPTAP_SYM_FUNC, &si);
	tap_ok(rc == 0 && si.func.name &&
	       strcmp(si.func.name, "jit_one_again") == 0,
	       "perf map: a later line for one start wins");
	rc = maptap_sym_lookup(m, getpid(), c + 0x10, 0, MAPTAP_SYM_FUNC, &si);
	tap_ok(rc == 0 && si.func.name && strcmp(si.func.name, "jit_one") == 0,
	       "perf map: ... but only over its own size");
	rc = maptap_sym_lookup(m, getpid(), c + 0x201, 0, MAPTAP_SYM_FUNC, &si);
	tap_ok(rc == 0 && si.func.name &&
	       strcmp(si.func.name, "_ZN3jit6secondEi") == 0,
	       "names are raw by default");
	rc = maptap_sym_lookup(m, getpid(), c + 0x201, 0,
			       MAPTAP_SYM_FUNC | MAPTAP_SYM_DEMANGLE, &si);
	tap_ok(rc == 0 && si.func.name &&
	       strcmp(si.func.name, "jit::second(int)") == 0,
	       "... and demangled on request (%s)",
	       si.func.name ? si.func.name : "?");
	fclose(f);
	unlink(path);
	munmap(code, 4096);
}

/* The VMA of BUF holding ADDR, or NULL. */
static const struct maptap_vma *vma_of(const struct maptap_vma_buf *buf,
				       uint64_t addr)
{
	size_t i;

	for (i = 0; i < buf->n; i++)
		if (buf->v[i].start <= addr && addr < buf->v[i].end)
			return &buf->v[i];
	return NULL;
}

/* Feed a synthetic range event of KIND: VMA V, before it OLD. */
static void feed(struct maptap_modules *m, enum maptap_event_kind kind,
		 const struct maptap_vma *v, const struct maptap_vma *old,
		 uint64_t time_ns)
{
	struct maptap_event ev = { .kind = kind, .pid = getpid(),
				   .tid = getpid(), .time_ns = time_ns,
				   .syscall_nr = -1 };

	ev.vma = *v;
	if (old)
		ev.old = *old;
	maptap_modules_event(m, &ev, NULL, NULL, NULL);
}

static bool names_self(struct maptap_modules *m, uint64_t addr,
		       struct maptap_sym_info *si)
{
	return maptap_sym_lookup(m, getpid(), addr, 0, MAPTAP_SYM_FUNC,
				 si) == 0 &&
	       si->func.name && strcmp(si->func.name, "self_func") == 0;
}

/* Anonymous memory over this program's text (in the tracker only):
 * mapped over it with MAP_FIXED and r/w it keeps the text's symbols,
 * through an mprotect too; PROT_NONE over it does not; nor does
 * anonymous memory over the part of a file mapping that lies past the
 * segment's file bytes (ld.so's zero pages for a .bss). */
static void test_adopt(const struct maptap_vma_buf *buf)
{
	uint64_t f = (uint64_t)(uintptr_t)&self_func;
	const struct maptap_vma *text = vma_of(buf, f);
	struct maptap_vma anon = { .kind = MAPTAP_VMA_ANON, .name = "" };
	struct maptap_vma file;
	struct maptap_modules *m;
	struct maptap_sym_info si;
	uint64_t len, far;

	if (!text || !(text->perms & MAPTAP_PERM_X) ||
	    maptap_modules_new(NULL, &m) != 0) {
		tap_skip("no text VMA or tracker");
		return;
	}
	maptap_modules_sync(m, getpid(), buf->v, buf->n, NULL, NULL);
	anon.start = text->start;
	anon.end = text->end;
	anon.perms = MAPTAP_PERM_R | MAPTAP_PERM_W;
	feed(m, MAPTAP_EV_REPLACE, &anon, text, 10);
	tap_ok(names_self(m, f + 1, &si) && si.where.anon &&
	       si.where.segment.kind == MAPTAP_SEG_TEXT,
	       "anonymous rw- over the text with MAP_FIXED: still self_func, "
	       "text segment, anon");
	anon.perms = MAPTAP_PERM_R | MAPTAP_PERM_X;
	feed(m, MAPTAP_EV_PROTECT, &anon, NULL, 20);
	tap_ok(names_self(m, f + 1, &si) && si.where.anon,
	       "... and after mprotect r-x");
	feed(m, MAPTAP_EV_UNMAP, &anon, &anon, 30);
	tap_int_eq(maptap_sym_lookup(m, getpid(), f, 0, MAPTAP_SYM_FUNC, &si),
		   -ENOENT, "... and gone once unmapped");
	maptap_modules_sync(m, getpid(), buf->v, buf->n, NULL, NULL);
	anon.perms = 0;
	feed(m, MAPTAP_EV_REPLACE, &anon, text, 40);
	tap_int_eq(maptap_sym_lookup(m, getpid(), f, 0, MAPTAP_SYM_FUNC, &si),
		   -ENOENT, "PROT_NONE over the text is not a copy");
	/* The text's file mapped (in the tracker) 3 pages longer, far from
	 * anything, and anonymous memory over the part past its bytes. */
	far = 0x500000000000ULL;
	len = text->end - text->start;
	file = *text;
	file.start = far;
	file.end = far + len + 3 * 4096;
	feed(m, MAPTAP_EV_MAP, &file, NULL, 50);
	anon.start = far + len;
	anon.end = file.end;
	anon.perms = MAPTAP_PERM_R | MAPTAP_PERM_W;
	feed(m, MAPTAP_EV_REPLACE, &anon, &file, 60);
	tap_ok(names_self(m, far + (f - text->start), &si),
	       "a second mapping of the text resolves at its own bias");
	tap_int_eq(maptap_sym_lookup(m, getpid(), far + len + 8, 0,
				     MAPTAP_SYM_FUNC, &si), -ENOENT,
		   "anonymous memory past the segment's file bytes is not "
		   "adopted");
	maptap_modules_free(m);
}

struct starts {
	uint64_t a[64];
	int n;
};

static int note_start(const struct maptap_module_event *ev, void *arg)
{
	struct starts *st = arg;

	if (ev->kind == MAPTAP_MODULE_LOAD && st->n < 64 &&
	    ev->module->hi > ev->module->lo)
		st->a[st->n++] = ev->module->lo;
	return 0;
}

/* A retired ring of 2: an exec retires every instance, only the last 2
 * stay findable in the past (the sorted index follows the ring). */
static void test_retired_cap(const struct maptap_vma_buf *buf)
{
	struct maptap_modules_opts o = { .max_retired = 2 };
	struct maptap_event ev = { .kind = MAPTAP_EV_EXEC, .pid = getpid(),
				   .tid = getpid(), .time_ns = 100,
				   .syscall_nr = -1 };
	struct maptap_modules_stats st;
	struct maptap_sym_info si;
	struct starts s = { .n = 0 };
	struct maptap_modules *m;
	int i, found = 0;

	if (maptap_modules_new(&o, &m) != 0) {
		tap_skip("no tracker");
		return;
	}
	maptap_modules_sync(m, getpid(), buf->v, buf->n, note_start, &s);
	maptap_modules_event(m, &ev, NULL, NULL, NULL);
	maptap_modules_get_stats(m, &st);
	for (i = 0; i < s.n; i++)
		found += maptap_sym_lookup(m, getpid(), s.a[i], 50, 0,
					   &si) == 0;
	tap_ok(s.n > 2 && st.retired == 2 && found == 2,
	       "retired ring of 2 after %d unloads: %d found in the past",
	       s.n, found);
	maptap_modules_free(m);
}

/* maptap_modules_sync_pid(): a fresh tracker learns this process and
 * names self_func; bad arguments and a pid that does not exist are
 * refused with the errors module.h gives. */
static void test_sync_pid(void)
{
	struct maptap_modules *m;
	struct maptap_sym_info si;

	if (maptap_modules_new(NULL, &m) != 0)
		return;
	tap_int_eq(maptap_modules_sync_pid(m, getpid(), MAPTAP_MAPS_TEXT), 0,
		   "sync_pid: own maps from the text");
	tap_ok(names_self(m, (uint64_t)(uintptr_t)&self_func, &si),
	       "sync_pid: then self_func is named");
	tap_int_eq(maptap_modules_sync_pid(NULL, getpid(), MAPTAP_MAPS_AUTO),
		   -EINVAL, "sync_pid: NULL tracker");
	tap_int_eq(maptap_modules_sync_pid(m, 0, MAPTAP_MAPS_AUTO), -EINVAL,
		   "sync_pid: pid 0");
	tap_int_eq(maptap_modules_sync_pid(m, 0x7ffffff0, MAPTAP_MAPS_AUTO),
		   -ENOENT, "sync_pid: no such process");
	maptap_modules_free(m);
}

int main(void)
{
	struct maptap_vma_buf buf = { 0 };
	struct maptap_modules *m;
	struct loads l = { 0 };
	struct maptap_modules_stats st;
	int rc;

	if (!tap_ok(maptap_modules_new(NULL, &m) == 0, "tracker"))
		return tap_done();
	rc = read_self(&buf);
	if (!tap_ok(rc == 0, "read own maps"))
		return tap_done();
	rc = maptap_modules_sync(m, getpid(), buf.v, buf.n, count, &l);
	tap_ok(rc == 0 && l.loads >= 4 && l.unloads == 0,
	       "sync: %d modules loaded", l.loads);
	test_phdrs(m);
	test_symbols(m);
	l.loads = 0;
	rc = maptap_modules_sync(m, getpid(), buf.v, buf.n, count, &l);
	tap_ok(rc == 0 && l.loads == 0 && l.unloads == 0,
	       "a second sync of the same maps loads nothing");
	maptap_modules_get_stats(m, &st);
	tap_ok(st.files == st.instances, "one file per instance here (%llu, %llu)",
	       (unsigned long long)st.files, (unsigned long long)st.instances);
	test_history(m, &buf, (uint64_t)(uintptr_t)&self_func, "self_func");
	test_perfmap(m);
	test_adopt(&buf);
	test_retired_cap(&buf);
	test_sync_pid();
	maptap_vma_buf_free(&buf);
	maptap_modules_free(m);
	return tap_done();
}
