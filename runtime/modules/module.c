/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* module.c -- module instances of each address space, kept from the range
 * events of the session (rules in maptap/module.h).
 *
 * A space keeps only its file-backed VMAs (and the vdso), as "pieces" in a
 * sorted array: a process maps a few hundred files, and an event touches
 * one range, so a binary search and a memmove beat a tree here.  An
 * instance counts its pieces; it is loaded when the count leaves 0 and
 * unloaded when it is back at 0 once the whole event is applied (so an
 * mprotect that splits a VMA never unloads anything).
 */
#include <config.h>

#include "module_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
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

static void inst_free(struct mt_inst *in)
{
	mt_file_put(in->file);
	free(in->path);
	free(in);
}

static void space_free(struct mt_space *sp)
{
	size_t i;

	for (i = 0; i < sp->live.n; i++)
		inst_free(sp->live.v[i]);
	mt_insts_free(&sp->live);
	free(sp->dead);
	free(sp->p);
	mt_perfmap_free(sp->perfmap);
	free(sp);
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
			space_free(sp);
		}
	}
	free(m->space_tab);
	for (i = 0; i < m->retired_n; i++)
		inst_free(m->retired[(m->retired_head + i) % m->retired_cap]);
	free(m->retired);
	mt_insts_free(&m->retired_index);
	mt_files_free(m);
	mt_demangler_free(m);
	mt_symtab_callbacks_free(m);
	free(m->debuginfo_path);
	free(m);
}

/* ---- spaces ---- */

static struct mt_space *space_get(struct maptap_modules *m, pid_t pid)
{
	struct mt_space *sp = mt_space_find(m, pid);

	if (sp)
		return sp;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->pid = pid;
	if (mt_space_add(m, sp)) {
		free(sp);
		return NULL;
	}
	return sp;
}

/* One piece of IN went away.  An instance left with none is noted for
 * the sweep after the event; if noting fails the sweep looks at all. */
static void piece_drop(struct mt_space *sp, struct mt_inst *in)
{
	if (--in->pieces || in->dead_noted)
		return;
	if (sp->ndead == sp->dead_cap) {
		size_t cap = sp->dead_cap ? 2 * sp->dead_cap : 16;
		struct mt_inst **nd = realloc(sp->dead, cap * sizeof(*nd));

		if (!nd) {
			sp->sweep_all = true;
			return;
		}
		sp->dead = nd;
		sp->dead_cap = cap;
	}
	in->dead_noted = true;
	sp->dead[sp->ndead++] = in;
}

/* Index of the first piece whose end is above ADDR (n if none). */
static size_t piece_lower(const struct mt_space *sp, uint64_t addr)
{
	size_t lo = 0, hi = sp->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->p[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct mt_piece *piece_at(const struct mt_space *sp, uint64_t addr)
{
	size_t i = piece_lower(sp, addr);

	if (i < sp->n && sp->p[i].start <= addr)
		return &sp->p[i];
	return NULL;
}

static int piece_room(struct mt_space *sp, size_t extra)
{
	size_t cap;
	struct mt_piece *np;

	if (sp->n + extra <= sp->cap)
		return 0;
	cap = sp->cap ? 2 * sp->cap : 64;
	while (cap < sp->n + extra)
		cap *= 2;
	np = realloc(sp->p, cap * sizeof(*np));
	if (!np)
		return -ENOMEM;
	sp->p = np;
	sp->cap = cap;
	return 0;
}

/* Insert P at index I. */
static void piece_insert(struct mt_space *sp, size_t i,
			 const struct mt_piece *p)
{
	memmove(&sp->p[i + 1], &sp->p[i], (sp->n - i) * sizeof(*p));
	sp->p[i] = *p;
	sp->n++;
}

/* Remove whatever the space maps in [LO, HI): pieces inside go, pieces
 * across an edge are trimmed or split.  Instances may drop to 0 pieces;
 * the caller unloads them once the event is applied. */
static int space_cut(struct mt_space *sp, uint64_t lo, uint64_t hi)
{
	size_t i = piece_lower(sp, lo), j;

	if (i == sp->n)
		return 0;	/* nothing at or above LO (SP->p may be NULL) */
	if (i < sp->n && sp->p[i].start < lo && sp->p[i].end > hi) {
		struct mt_piece tail = sp->p[i];

		/* [LO, HI) is inside one piece: split it in two. */
		if (piece_room(sp, 1))
			return -ENOMEM;
		tail.offset += hi - tail.start;
		tail.start = hi;
		sp->p[i].end = lo;
		tail.inst->pieces++;
		piece_insert(sp, i + 1, &tail);
		return 0;
	}
	if (i < sp->n && sp->p[i].start < lo) {
		sp->p[i].end = lo;
		i++;
	}
	for (j = i; j < sp->n && sp->p[j].end <= hi; j++)
		piece_drop(sp, sp->p[j].inst);
	if (j < sp->n && sp->p[j].start < hi) {
		sp->p[j].offset += hi - sp->p[j].start;
		sp->p[j].start = hi;
	}
	if (j > i) {
		memmove(&sp->p[i], &sp->p[j], (sp->n - j) * sizeof(*sp->p));
		sp->n -= j - i;
	}
	return 0;
}

/* ---- instances ---- */

static void inst_fill_info(struct mt_inst *in)
{
	struct maptap_module_info *mi = &in->info;
	const struct mt_file *f = in->file;

	mi->path = in->path;
	mi->build_id = f->build_id;
	mi->bias = in->bias;
	mi->type = f->type;
	mi->deleted = in->deleted;
	mi->error = f->error;
	if (f->elf) {
		mi->lo = f->info.lo + in->bias;
		mi->hi = f->info.hi + in->bias;
	}
}

struct inst_key {
	const struct mt_file *file;
	uint64_t bias;
};

static bool same_inst(const struct mt_inst *in, void *arg)
{
	const struct inst_key *k = arg;

	return in->file == k->file && in->bias == k->bias;
}

/* The live instance of F at BIAS in SP.  An ELF instance starts at a
 * known address (lowest p_vaddr + bias): a binary search.  A non-ELF
 * one starts where its first VMA did: a scan (such files are mapped
 * whole, once, and rarely). */
static struct mt_inst *inst_find(const struct mt_space *sp,
				 const struct mt_file *f, uint64_t bias)
{
	struct inst_key k = { .file = f, .bias = bias };
	size_t i;

	if (f->elf)
		return mt_insts_find(&sp->live, sp->pid, f->info.lo + bias,
				     same_inst, &k);
	for (i = 0; i < sp->live.n; i++)
		if (same_inst(sp->live.v[i], &k))
			return sp->live.v[i];
	return NULL;
}

static bool maps_inode(const struct mt_inst *in, const struct maptap_vma *v)
{
	return in->pieces && in->info.inode == v->inode &&
	       in->info.dev == makedev(v->dev_major, v->dev_minor) &&
	       !in->file->is_vdso;
}

/* A live instance of SP mapping the inode of V: its file is V's file, no
 * need to open it again.  Loaders map a file's segments next to each
 * other, so the pieces around V are asked first. */
static struct mt_file *file_mapped(const struct mt_space *sp,
				   const struct maptap_vma *v)
{
	size_t i = piece_lower(sp, v->start);

	if (i < sp->n && maps_inode(sp->p[i].inst, v))
		return sp->p[i].inst->file;
	if (i > 0 && maps_inode(sp->p[i - 1].inst, v))
		return sp->p[i - 1].inst->file;
	for (i = 0; i < sp->live.n; i++)
		if (maps_inode(sp->live.v[i], v))
			return sp->live.v[i]->file;
	return NULL;
}

static struct mt_inst *inst_new(struct mt_space *sp, struct mt_file *f,
				const struct maptap_vma *v, uint64_t bias,
				uint64_t time_ns)
{
	struct mt_inst *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->path = f->is_vdso ? strdup("[vdso]") : NULL;
	if (!in->path) {
		size_t len = v->name_len;

		in->deleted = len > 10 &&
			      memcmp(v->name + len - 10, " (deleted)", 10) == 0;
		in->path = strndup(v->name, in->deleted ? len - 10 : len);
	}
	if (!in->path) {
		free(in);
		return NULL;
	}
	in->file = f;
	in->pid = sp->pid;
	in->bias = bias;
	in->load_ns = time_ns;
	in->info.dev = f->is_vdso ? 0 : makedev(v->dev_major, v->dev_minor);
	in->info.inode = f->is_vdso ? 0 : v->inode;
	inst_fill_info(in);
	if (!f->elf) {
		in->info.lo = v->start;
		in->info.hi = v->end;
	}
	if (mt_insts_insert(&sp->live, in)) {
		free(in->path);
		free(in);
		return NULL;
	}
	f->refs++;
	return in;
}

/* Keep IN, just unloaded, for lookups "as it was at time T". */
static void retire(struct maptap_modules *m, struct mt_inst *in,
		   uint64_t time_ns)
{
	size_t slot;

	in->unload_ns = time_ns ? time_ns : 1;
	if (mt_insts_insert(&m->retired_index, in)) {
		inst_free(in);	/* cannot be found anyway */
		return;
	}
	if (m->retired_n == m->retired_cap) {
		mt_insts_remove(&m->retired_index,
				m->retired[m->retired_head]);
		inst_free(m->retired[m->retired_head]);
		m->retired[m->retired_head] = in;
		m->retired_head = (m->retired_head + 1) % m->retired_cap;
		return;
	}
	slot = (m->retired_head + m->retired_n) % m->retired_cap;
	m->retired[slot] = in;
	m->retired_n++;
}

static int notify(maptap_module_fn fn, void *arg,
		  enum maptap_module_event_kind kind,
		  const struct mt_inst *in, const struct maptap_event *ev)
{
	struct maptap_module_event me = {
		.kind = kind, .pid = in->pid, .module = &in->info,
	};

	if (!fn)
		return 0;
	if (ev) {
		me.tid = ev->tid;
		me.time_ns = ev->time_ns;
		me.syscall = ev->syscall;
	}
	return fn(&me, arg);
}

static int unload(struct maptap_modules *m, struct mt_space *sp,
		  struct mt_inst *in, const struct maptap_event *ev,
		  maptap_module_fn fn, void *arg)
{
	int rc;

	mt_insts_remove(&sp->live, in);
	rc = notify(fn, arg, MAPTAP_MODULE_UNLOAD, in, ev);
	retire(m, in, ev ? ev->time_ns : 0);
	return rc;
}

/* Unload every instance of SP left without pieces (all of them when
 * ALL).  Returns the first non-zero value of FN, after finishing. */
static int space_sweep(struct maptap_modules *m, struct mt_space *sp,
		       bool all, const struct maptap_event *ev,
		       maptap_module_fn fn, void *arg)
{
	size_t i;
	int rc = 0, r;

	for (i = 0; i < sp->ndead; i++)
		sp->dead[i]->dead_noted = false;
	if (all || sp->sweep_all) {
		for (i = sp->live.n; i-- > 0;) {
			struct mt_inst *in = sp->live.v[i];

			if (in->pieces && !all)
				continue;
			r = unload(m, sp, in, ev, fn, arg);
			if (r && !rc)
				rc = r;
		}
	} else {
		for (i = 0; i < sp->ndead; i++) {
			if (sp->dead[i]->pieces)
				continue;
			r = unload(m, sp, sp->dead[i], ev, fn, arg);
			if (r && !rc)
				rc = r;
		}
	}
	sp->ndead = 0;
	sp->sweep_all = false;
	if (all)
		sp->n = 0;
	return rc;
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

/* The file V maps, from the space when an instance maps its inode,
 * else opened (a reference for the caller either way). */
static int vma_file(struct maptap_modules *m, struct mt_space *sp,
		    const struct maptap_vma *v, struct mt_file **out)
{
	struct mt_file *f;
	int rc;

	if (v->kind == MAPTAP_VMA_VDSO)
		return mt_file_get_vdso(m, sp->pid, v, out);
	if (!maptap_vma_has_file(v)) {
		/* Found through AT_SYSINFO_EHDR: only an ELF image there
		 * is taken for the vdso (the address may be stale). */
		rc = mt_file_get_vdso(m, sp->pid, v, out);
		if (rc || (*out)->elf)
			return rc;
		mt_file_put(*out);
		return -ENOENT;
	}
	f = file_mapped(sp, v);
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
		return inst_find(sp, f, *bias);
	n = mt_elf_segs_for(&f->info, v->offset, v->perms, cand, 8);
	for (i = 0; i < n; i++) {
		in = inst_find(sp, f, seg_bias(cand[i], v));
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

	if (piece_room(sp, 1))
		return -ENOMEM;
	rc = vma_file(m, sp, v, &f);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	in = piece_inst(sp, f, v, &p.seg, &bias);
	if (!in) {
		in = inst_new(sp, f, v, bias, ev ? ev->time_ns : 0);
		fresh = true;
	}
	mt_file_put(f);
	if (!in)
		return -ENOMEM;
	p.inst = in;
	in->pieces++;
	piece_insert(sp, piece_lower(sp, v->start), &p);
	return fresh ? notify(fn, arg, MAPTAP_MODULE_LOAD, in, ev) : 0;
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
	const struct mt_piece *p = piece_at(sp, lo);
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
	size_t i = piece_lower(sp, v->start), k, n = 0;
	struct mt_piece *keep;
	int rc;

	for (k = i; k < sp->n && sp->p[k].start < v->end; k++)
		n++;
	if (!n)
		return 0;
	keep = malloc(n * sizeof(*keep));
	if (!keep || piece_room(sp, n + 1)) {
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
	rc = space_cut(sp, v->start, v->end);
	for (k = 0; !rc && k < n; k++) {
		keep[k].inst->pieces++;
		piece_insert(sp, piece_lower(sp, keep[k].start), &keep[k]);
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
		rc = space_cut(sp, o->start, o->end);
		break;
	default:
		break;
	}
	if (!rc && adopts(ev, &from_file))
		rc = space_adopt(sp, v, from_file);
	else if (!rc)
		rc = space_cut(sp, v->start, v->end);
	if (!rc && ev->kind != MAPTAP_EV_UNMAP && vma_tracked(sp, v))
		rc = space_add(m, sp, v, ev, fn, arg);
	if (desc && ev->kind != MAPTAP_EV_UNMAP)
		describe_range(sp, v->start, v->end, desc);
	r = space_sweep(m, sp, false, ev, fn, arg);
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
		return space_sweep(m, sp, true, ev, fn, arg);
	}
	if (!maptap_event_is_range(ev->kind))
		return 0;
	sp = space_get(m, ev->pid);
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
	struct mt_space *sp = space_get(m, pid);
	size_t i;
	int rc = 0;

	if (!sp)
		return -ENOMEM;
	/* Drop the old pieces but keep their instances until the new ones
	 * are in, so that what stays is not unloaded and loaded again. */
	for (i = 0; i < sp->n; i++)
		piece_drop(sp, sp->p[i].inst);
	sp->n = 0;
	for (i = 0; i < n && !rc; i++) {
		if (!vma_tracked(sp, &v[i]))
			continue;
		ev.vma = v[i];
		rc = space_add(m, sp, &v[i], &ev, fn, arg);
	}
	ev.vma.start = ev.vma.end = 0;
	if (!rc)
		rc = space_sweep(m, sp, false, &ev, fn, arg);
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
	space_sweep(m, sp, true, NULL, NULL, NULL);
	mt_space_unlink(m, sp);
	space_free(sp);
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
		p = piece_at(sp, addr);
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
