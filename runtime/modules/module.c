/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* module.c -- module instances of each address space, kept from the range
 * events of the session (rules in maptap/module.h).
 *
 * A space keeps only its file-backed VMAs (and the vdso), as "pieces";
 * module_space.c keeps the pieces and the instances they make up, this
 * file applies the session's events to them (which VMAs are tracked,
 * which file and segment a VMA maps, anonymous copies of file segments)
 * and answers the public calls.
 */
#include <config.h>

#include "module_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_MAX_RETIRED 4096

static const char *const type_names[] = {
	[MAPTAP_MODULE_EXEC] = "exec",
	[MAPTAP_MODULE_DYN] = "dyn",
	[MAPTAP_MODULE_FILE] = "file",
	[MAPTAP_MODULE_VDSO] = "vdso",
	[MAPTAP_MODULE_JIT] = "jit",
};

static const char *const kind_names[] = {
	[MAPTAP_SEG_NONE] = "-",
	[MAPTAP_SEG_TEXT] = "text",
	[MAPTAP_SEG_RODATA] = "rodata",
	[MAPTAP_SEG_DATA] = "data",
	[MAPTAP_SEG_RELRO] = "relro",
	[MAPTAP_SEG_BSS] = "bss",
};

const char *maptap_module_type_name(enum maptap_module_type type)
{
	if ((unsigned)type >= sizeof(type_names) / sizeof(type_names[0]))
		return NULL;
	return type_names[type];
}

const char *maptap_segment_kind_name(enum maptap_segment_kind kind)
{
	if ((unsigned)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return NULL;
	return kind_names[kind];
}

int maptap_modules_new(const struct maptap_modules_opts *opts,
		       struct maptap_modules **out)
{
	struct maptap_modules *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->retired_cap = opts && opts->max_retired ? opts->max_retired :
			 DEFAULT_MAX_RETIRED;
	m->retired = calloc(m->retired_cap, sizeof(*m->retired));
	if (!m->retired) {
		free(m);
		return -ENOMEM;
	}
	if (opts && opts->debuginfo_path &&
	    !(m->debuginfo_path = strdup(opts->debuginfo_path))) {
		free(m->retired);
		free(m);
		return -ENOMEM;
	}
	/* libelf's one-time version handshake; idempotent. */
	elf_version(EV_CURRENT);
	*out = m;
	return 0;
}


void maptap_modules_free(struct maptap_modules *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nspace_buckets; i++) {
		struct mt_space *sp = m->space_tab[i], *next;

		for (; sp; sp = next) {
			next = sp->hnext;
			mt_space_free(sp);
		}
	}
	free(m->space_tab);
	for (i = 0; i < m->retired_n; i++)
		mt_inst_free(m->retired[(m->retired_head + i) % m->retired_cap]);
	free(m->retired);
	mt_insts_free(&m->retired_index);
	mt_files_free(m);
	mt_demangler_free(m);
	mt_symtab_callbacks_free(m);
	free(m->debuginfo_path);
	free(m);
}

/* ---- applying events ---- */

/* AT_SYSINFO_EHDR of SP's process (the vdso's ELF header, getauxval(3);
 * 0 when unknown), read from /proc/PID/auxv once per program image. */
static uint64_t sysinfo_ehdr(struct mt_space *sp)
{
	uint64_t aux[2 * 64];
	char path[40];
	ssize_t got;
	size_t i;
	int fd;

	if (sp->auxv_read)
		return sp->sysinfo_ehdr;
	sp->auxv_read = true;
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)sp->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = read(fd, aux, sizeof(aux));
	close(fd);
	/* (type, value) pairs of the ABI's word size, AT_NULL last
	 * (System V AMD64 ABI, "Auxiliary Vector"). */
	for (i = 0; got > 0 && i + 1 < (size_t)got / sizeof(*aux); i += 2) {
		if (aux[i] == AT_NULL)
			break;
		if (aux[i] == AT_SYSINFO_EHDR) {
			sp->sysinfo_ehdr = aux[i + 1];
			break;
		}
	}
	return sp->sysinfo_ehdr;
}

/* Whether V is the vdso although maps gave it no "[vdso]" name: nameless
 * executable memory starting at the address the kernel passed as
 * AT_SYSINFO_EHDR.  (A vdso moved with mremap keeps its name on Linux,
 * but AT_SYSINFO_EHDR then points where it was, so the name wins.) */
static bool vdso_by_auxv(struct mt_space *sp, const struct maptap_vma *v)
{
	return v->kind == MAPTAP_VMA_ANON && v->name_len == 0 &&
	       (v->perms & MAPTAP_PERM_X) && v->start == sysinfo_ehdr(sp);
}

static bool vma_tracked(struct mt_space *sp, const struct maptap_vma *v)
{
	return maptap_vma_has_file(v) || v->kind == MAPTAP_VMA_VDSO ||
	       vdso_by_auxv(sp, v);
}

/* An ELF file SP maps (its program, as a rule: the first piece), for
 * its ABI; NULL when none. */
static Elf *space_elf(const struct mt_space *sp)
{
	size_t i;

	for (i = 0; i < sp->n; i++)
		if (sp->p[i].inst && sp->p[i].inst->file->elf &&
		    !sp->p[i].inst->file->is_vdso)
			return sp->p[i].inst->file->elf;
	return NULL;
}

/* The file V maps, from the space when an instance maps its inode,
 * else opened (a reference for the caller either way). */
static int vma_file(struct maptap_modules *m, struct mt_space *sp,
		    const struct maptap_vma *v, struct mt_file **out)
{
	struct mt_file *f;
	int rc;

	if (v->kind == MAPTAP_VMA_VDSO)
		return mt_file_get_vdso(m, sp->pid, v, space_elf(sp), out);
	if (!maptap_vma_has_file(v)) {
		/* Found through AT_SYSINFO_EHDR: only an ELF image there
		 * is taken for the vdso (the address may be stale). */
		rc = mt_file_get_vdso(m, sp->pid, v, NULL, out);
		if (rc || (*out)->elf)
			return rc;
		mt_file_put(*out);
		return -ENOENT;
	}
	f = mt_file_mapped(sp, v);
	if (f) {
		f->refs++;
		*out = f;
		return 0;
	}
	return mt_file_get(m, sp->pid, v, out);
}

static uint64_t seg_bias(const struct mt_seg *s, const struct maptap_vma *v)
{
	return v->start - (s->vaddr + (v->offset - s->offset));
}

/* The segment V maps in F and the bias that follows; the live instance
 * of F at that bias in SP, or NULL.  Among the candidate segments, the
 * one that gives a bias F already has here wins over the best-scored. */
static struct mt_inst *piece_inst(const struct mt_space *sp,
				  const struct mt_file *f,
				  const struct maptap_vma *v,
				  const struct mt_seg **seg, uint64_t *bias)
{
	const struct mt_seg *cand[8];
	struct mt_inst *in;
	size_t i, n;

	*seg = NULL;
	*bias = v->start - v->offset;
	if (!f->elf)
		return mt_inst_find(sp, f, *bias);
	n = mt_elf_segs_for(&f->info, v->offset, v->perms, cand, 8);
	for (i = 0; i < n; i++) {
		in = mt_inst_find(sp, f, seg_bias(cand[i], v));
		if (in) {
			*seg = cand[i];
			*bias = in->bias;
			return in;
		}
	}
	if (n) {
		*seg = cand[0];
		*bias = seg_bias(cand[0], v);
	}
	return NULL;
}

/* Add V (tracked, its range already cut) to SP; calls FN when it loads a
 * new instance.  A file that cannot be opened is left out: nothing can be
 * said about it (counted in stats.open_fails). */
static int space_add(struct maptap_modules *m, struct mt_space *sp,
		     const struct maptap_vma *v, const struct maptap_event *ev,
		     maptap_module_fn fn, void *arg)
{
	struct mt_piece p = { .start = v->start, .end = v->end,
			      .offset = v->offset, .perms = v->perms };
	struct mt_file *f;
	struct mt_inst *in;
	uint64_t bias;
	bool fresh = false;
	int rc;

	if (mt_piece_room(sp, 1))
		return -ENOMEM;
	rc = vma_file(m, sp, v, &f);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	in = piece_inst(sp, f, v, &p.seg, &bias);
	if (!in) {
		in = mt_inst_new(sp, f, v, bias, ev ? ev->time_ns : 0);
		fresh = true;
	}
	mt_file_put(f);
	if (!in)
		return -ENOMEM;
	p.inst = in;
	in->pieces++;
	mt_piece_insert(sp, mt_piece_lower(sp, v->start), &p);
	return fresh ? mt_module_notify(fn, arg, MAPTAP_MODULE_LOAD, in, ev) : 0;
}

static void describe_piece(const struct mt_piece *p, uint64_t lo,
			   uint64_t hi, struct maptap_module_desc *d)
{
	const struct mt_inst *in = p->inst;
	enum maptap_segment_kind kind;

	d->has_module = true;
	d->module = in->info;
	d->anon = p->anon;
	if (!p->seg)
		return;
	kind = mt_elf_seg_kind(&in->file->info, p->seg, lo - in->bias,
			       hi - in->bias, p->perms);
	d->has_segment = true;
	mt_elf_seg_describe(p->seg, kind, &d->segment);
}

struct seg_query {
	uint64_t addr;
	const struct mt_seg *seg;
	uint64_t time_ns;
};

static bool holds_bss(const struct mt_inst *in, void *arg)
{
	struct seg_query *q = arg;

	if (!in->file->elf)
		return false;
	q->seg = mt_elf_seg_bss(&in->file->info, q->addr - in->bias);
	return q->seg != NULL;
}

/* The live instance of SP whose writable segment's memory-only tail
 * holds ADDR: the bss. */
static const struct mt_inst *bss_owner(const struct mt_space *sp,
				       uint64_t addr,
				       const struct mt_seg **seg)
{
	struct seg_query q = { .addr = addr };
	const struct mt_inst *in = mt_insts_at(&sp->live, sp->pid, addr,
					       holds_bss, &q);

	*seg = q.seg;
	return in;
}

/* Module and segment of [LO, HI) in SP now. */
static void describe_range(const struct mt_space *sp, uint64_t lo,
			   uint64_t hi, struct maptap_module_desc *d)
{
	const struct mt_piece *p = mt_piece_at(sp, lo);
	const struct mt_inst *in;
	const struct mt_seg *seg;

	memset(d, 0, sizeof(*d));
	if (p) {
		describe_piece(p, lo, hi, d);
		return;
	}
	in = bss_owner(sp, lo, &seg);
	if (!in)
		return;
	d->has_module = d->has_segment = true;
	d->module = in->info;
	mt_elf_seg_describe(seg, MAPTAP_SEG_BSS, &d->segment);
}

/* ---- anonymous copies of file segments ---- */

static bool is_anon(const struct maptap_vma *v)
{
	return v->kind == MAPTAP_VMA_ANON || v->kind == MAPTAP_VMA_ANON_NAMED;
}

/* Whether [LO, HI) of piece P may stay P's file's once anonymous memory
 * took its place: only where P's segment has bytes in the file, which a
 * copy can hold.  ld.so maps a library's whole span from the file first
 * and then anonymous zero pages over the .bss part of it (glibc
 * elf/dl-map-segments.h); that part lies past the file bytes of the
 * segment the first mapping was taken for, so it is never adopted. */
static bool adoptable(const struct mt_piece *p, uint64_t lo, uint64_t hi)
{
	const struct mt_seg *s = p->seg;
	uint64_t bias = p->inst->bias, page = MT_ELF_PAGE;

	if (!s || lo - bias < (s->vaddr & ~(page - 1)))
		return false;
	return hi - bias <= ((s->vaddr + s->filesz + page - 1) & ~(page - 1));
}

/* Cut [V->start, V->end) out of SP, but keep, as anonymous pieces with
 * V's permissions, the parts of the pieces there that V adopts: file
 * pieces (FROM_FILE: V was mapped over them with MAP_FIXED, or moved
 * there with mremap) and pieces adopted before (an mprotect or rename of
 * the copy).  Their instances keep their piece counts. */
static int space_adopt(struct mt_space *sp, const struct maptap_vma *v,
		       bool from_file)
{
	size_t i = mt_piece_lower(sp, v->start), k, n = 0;
	struct mt_piece *keep;
	int rc;

	for (k = i; k < sp->n && sp->p[k].start < v->end; k++)
		n++;
	if (!n)
		return 0;
	keep = malloc(n * sizeof(*keep));
	if (!keep || mt_piece_room(sp, n + 1)) {
		free(keep);
		return -ENOMEM;
	}
	for (n = 0, k = i; k < sp->n && sp->p[k].start < v->end; k++) {
		struct mt_piece q = sp->p[k];
		uint64_t lo = q.start > v->start ? q.start : v->start;
		uint64_t hi = q.end < v->end ? q.end : v->end;

		if ((!from_file && !q.anon) || !adoptable(&q, lo, hi))
			continue;
		q.offset += lo - q.start;
		q.start = lo;
		q.end = hi;
		q.perms = v->perms;
		q.anon = true;
		keep[n++] = q;
	}
	rc = mt_space_cut(sp, v->start, v->end);
	for (k = 0; !rc && k < n; k++) {
		keep[k].inst->pieces++;
		mt_piece_insert(sp, mt_piece_lower(sp, keep[k].start), &keep[k]);
	}
	free(keep);
	return rc;
}

/* Whether event EV's VMA is anonymous memory that adopts the pieces of
 * its range (see space_adopt()); *FROM_FILE as there. */
static bool adopts(const struct maptap_event *ev, bool *from_file)
{
	const struct maptap_vma *v = &ev->vma;

	if (!is_anon(v))
		return false;
	switch (ev->kind) {
	case MAPTAP_EV_REPLACE:
	case MAPTAP_EV_MOVE:
		/* PROT_NONE holds no copy: a reservation over a range. */
		*from_file = true;
		return v->perms & (MAPTAP_PERM_R | MAPTAP_PERM_W |
				   MAPTAP_PERM_X);
	case MAPTAP_EV_PROTECT:
	case MAPTAP_EV_RENAME:
		*from_file = false;
		return true;
	default:
		return false;
	}
}

static int range_event(struct maptap_modules *m, struct mt_space *sp,
		       const struct maptap_event *ev,
		       struct maptap_module_desc *desc, maptap_module_fn fn,
		       void *arg)
{
	const struct maptap_vma *v = &ev->vma, *o = &ev->old;
	bool from_file;
	int rc = 0, r;

	if (desc && ev->kind == MAPTAP_EV_UNMAP)
		describe_range(sp, v->start, v->end, desc);
	switch (ev->kind) {
	case MAPTAP_EV_MOVE:
	case MAPTAP_EV_GROW:
	case MAPTAP_EV_SHRINK:
		rc = mt_space_cut(sp, o->start, o->end);
		break;
	default:
		break;
	}
	if (!rc && adopts(ev, &from_file))
		rc = space_adopt(sp, v, from_file);
	else if (!rc)
		rc = mt_space_cut(sp, v->start, v->end);
	if (!rc && ev->kind != MAPTAP_EV_UNMAP && vma_tracked(sp, v))
		rc = space_add(m, sp, v, ev, fn, arg);
	if (desc && ev->kind != MAPTAP_EV_UNMAP)
		describe_range(sp, v->start, v->end, desc);
	r = mt_space_sweep(m, sp, false, ev, fn, arg);
	return rc ? rc : r;
}

int maptap_modules_event(struct maptap_modules *m,
			 const struct maptap_event *ev,
			 struct maptap_module_desc *desc,
			 maptap_module_fn fn, void *arg)
{
	struct mt_space *sp;

	if (desc)
		memset(desc, 0, sizeof(*desc));
	if (ev->kind == MAPTAP_EV_EXEC) {
		sp = mt_space_find(m, ev->pid);
		if (!sp)
			return 0;
		sp->auxv_read = false;
		sp->sysinfo_ehdr = 0;
		return mt_space_sweep(m, sp, true, ev, fn, arg);
	}
	if (!maptap_event_is_range(ev->kind))
		return 0;
	sp = mt_space_get(m, ev->pid);
	if (!sp)
		return -ENOMEM;
	return range_event(m, sp, ev, desc, fn, arg);
}

int maptap_modules_sync(struct maptap_modules *m, pid_t pid,
			const struct maptap_vma *v, size_t n,
			maptap_module_fn fn, void *arg)
{
	struct maptap_event ev = { .kind = MAPTAP_EV_MAP, .pid = pid,
				   .tid = pid, .syscall_nr = -1,
				   .snapshot = true };
	struct mt_space *sp = mt_space_get(m, pid);
	size_t i;
	int rc = 0;

	if (!sp)
		return -ENOMEM;
	/* Drop the old pieces but keep their instances until the new ones
	 * are in, so that what stays is not unloaded and loaded again. */
	for (i = 0; i < sp->n; i++)
		mt_piece_drop(sp, sp->p[i].inst);
	sp->n = 0;
	for (i = 0; i < n && !rc; i++) {
		if (!vma_tracked(sp, &v[i]))
			continue;
		ev.vma = v[i];
		rc = space_add(m, sp, &v[i], &ev, fn, arg);
	}
	ev.vma.start = ev.vma.end = 0;
	if (!rc)
		rc = mt_space_sweep(m, sp, false, &ev, fn, arg);
	return rc;
}

int maptap_modules_find(struct maptap_modules *m, pid_t pid, uint64_t addr,
			struct maptap_module_desc *desc)
{
	struct mt_space *sp = mt_space_find(m, pid);

	memset(desc, 0, sizeof(*desc));
	if (!sp)
		return -ESRCH;
	describe_range(sp, addr, addr + 1, desc);
	return desc->has_module ? 0 : -ENOENT;
}

int maptap_modules_forget(struct maptap_modules *m, pid_t pid)
{
	struct mt_space *sp = mt_space_find(m, pid);

	if (!sp)
		return -ESRCH;
	mt_space_sweep(m, sp, true, NULL, NULL, NULL);
	mt_space_unlink(m, sp);
	mt_space_free(sp);
	return 0;
}

void maptap_modules_get_stats(const struct maptap_modules *m,
			      struct maptap_modules_stats *out)
{
	const struct mt_space *sp;
	size_t i;

	*out = m->stats;
	out->instances = 0;
	for (i = 0; i < m->nspace_buckets; i++)
		for (sp = m->space_tab[i]; sp; sp = sp->hnext)
			out->instances += sp->live.n;
	out->retired = m->retired_n;
}

/* ---- lookups by address (for sym_lookup.c) ---- */

/* Whether IN was live at Q->time_ns and a PT_LOAD of it holds Q->addr
 * (any address in its range for a non-ELF file). */
static bool held_then(const struct mt_inst *in, void *arg)
{
	struct seg_query *q = arg;

	if (in->load_ns > q->time_ns ||
	    (in->unload_ns && in->unload_ns <= q->time_ns))
		return false;
	if (!in->file->elf) {
		q->seg = NULL;
		return true;
	}
	q->seg = mt_elf_seg_at(&in->file->info, q->addr - in->bias);
	return q->seg != NULL;
}

struct mt_inst *mt_inst_at(struct maptap_modules *m, pid_t pid,
			   uint64_t addr, uint64_t time_ns,
			   const struct mt_seg **seg)
{
	struct mt_space *sp = mt_space_find(m, pid);
	struct seg_query q = { .addr = addr, .time_ns = time_ns };
	const struct mt_piece *p;
	struct mt_inst *in = NULL;

	*seg = NULL;
	if (sp && !time_ns) {
		p = mt_piece_at(sp, addr);
		if (p) {
			*seg = p->inst->file->elf ?
				mt_elf_seg_at(&p->inst->file->info,
					      addr - p->inst->bias) : NULL;
			return p->inst;
		}
		return (struct mt_inst *)bss_owner(sp, addr, seg);
	}
	if (sp)
		in = mt_insts_at(&sp->live, pid, addr, held_then, &q);
	if (!in)
		in = mt_insts_at(&m->retired_index, pid, addr, held_then, &q);
	*seg = in ? q.seg : NULL;
	return in;
}
