/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* module_space.c -- the module layer's address spaces: each process's
 * pieces (the file-backed VMAs it maps, and the vdso, in a sorted array)
 * and the module instances those pieces make up, with their lifecycle:
 * made when a first piece arrives, unloaded (and retired, for lookups
 * "as it was at time T") when the last one leaves.  module.c decides
 * what an event does to a space; this file keeps the space consistent
 * (module_priv.h).
 *
 * A process maps a few hundred files, and an event touches one range,
 * so a binary search and a memmove beat a tree here.  An instance counts
 * its pieces; it is unloaded when the count is back at 0 once the whole
 * event is applied (so an mprotect that splits a VMA never unloads
 * anything).
 */
#include <config.h>

#include "module_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

void mt_inst_free(struct mt_inst *in)
{
	mt_file_put(in->file);
	free(in->path);
	free(in);
}

void mt_space_free(struct mt_space *sp)
{
	size_t i;

	for (i = 0; i < sp->live.n; i++)
		mt_inst_free(sp->live.v[i]);
	mt_insts_free(&sp->live);
	free(sp->dead);
	free(sp->p);
	mt_perfmap_free(sp->perfmap);
	free(sp);
}

struct mt_space *mt_space_get(struct maptap_modules *m, pid_t pid)
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
void mt_piece_drop(struct mt_space *sp, struct mt_inst *in)
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
size_t mt_piece_lower(const struct mt_space *sp, uint64_t addr)
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

struct mt_piece *mt_piece_at(const struct mt_space *sp, uint64_t addr)
{
	size_t i = mt_piece_lower(sp, addr);

	if (i < sp->n && sp->p[i].start <= addr)
		return &sp->p[i];
	return NULL;
}

int mt_piece_room(struct mt_space *sp, size_t extra)
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
void mt_piece_insert(struct mt_space *sp, size_t i,
		     const struct mt_piece *p)
{
	memmove(&sp->p[i + 1], &sp->p[i], (sp->n - i) * sizeof(*p));
	sp->p[i] = *p;
	sp->n++;
}

/* Remove whatever the space maps in [LO, HI): pieces inside go, pieces
 * across an edge are trimmed or split.  Instances may drop to 0 pieces;
 * the caller unloads them once the event is applied. */
int mt_space_cut(struct mt_space *sp, uint64_t lo, uint64_t hi)
{
	size_t i = mt_piece_lower(sp, lo), j;

	if (i == sp->n)
		return 0;	/* nothing at or above LO (SP->p may be NULL) */
	if (i < sp->n && sp->p[i].start < lo && sp->p[i].end > hi) {
		struct mt_piece tail = sp->p[i];

		/* [LO, HI) is inside one piece: split it in two. */
		if (mt_piece_room(sp, 1))
			return -ENOMEM;
		tail.offset += hi - tail.start;
		tail.start = hi;
		sp->p[i].end = lo;
		tail.inst->pieces++;
		mt_piece_insert(sp, i + 1, &tail);
		return 0;
	}
	if (i < sp->n && sp->p[i].start < lo) {
		sp->p[i].end = lo;
		i++;
	}
	for (j = i; j < sp->n && sp->p[j].end <= hi; j++)
		mt_piece_drop(sp, sp->p[j].inst);
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
struct mt_inst *mt_inst_find(const struct mt_space *sp,
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
struct mt_file *mt_file_mapped(const struct mt_space *sp,
			       const struct maptap_vma *v)
{
	size_t i = mt_piece_lower(sp, v->start);

	if (i < sp->n && maps_inode(sp->p[i].inst, v))
		return sp->p[i].inst->file;
	if (i > 0 && maps_inode(sp->p[i - 1].inst, v))
		return sp->p[i - 1].inst->file;
	for (i = 0; i < sp->live.n; i++)
		if (maps_inode(sp->live.v[i], v))
			return sp->live.v[i]->file;
	return NULL;
}

struct mt_inst *mt_inst_new(struct mt_space *sp, struct mt_file *f,
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
		mt_inst_free(in);	/* cannot be found anyway */
		return;
	}
	if (m->retired_n == m->retired_cap) {
		mt_insts_remove(&m->retired_index,
				m->retired[m->retired_head]);
		mt_inst_free(m->retired[m->retired_head]);
		m->retired[m->retired_head] = in;
		m->retired_head = (m->retired_head + 1) % m->retired_cap;
		return;
	}
	slot = (m->retired_head + m->retired_n) % m->retired_cap;
	m->retired[slot] = in;
	m->retired_n++;
}

int mt_module_notify(maptap_module_fn fn, void *arg,
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
	rc = mt_module_notify(fn, arg, MAPTAP_MODULE_UNLOAD, in, ev);
	retire(m, in, ev ? ev->time_ns : 0);
	return rc;
}

/* Unload every instance of SP left without pieces (all of them when
 * ALL).  Returns the first non-zero value of FN, after finishing. */
int mt_space_sweep(struct maptap_modules *m, struct mt_space *sp,
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

