/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* module_index.c -- the module tracker's indexes: instances sorted by
 * (pid, lowest address), and a chained hash of address spaces by pid.
 *
 * A process maps hundreds of files and a tracker may follow thousands of
 * processes, while lookups by address come far more often than loads and
 * unloads.  So instances sit in arrays sorted by where they start (one per
 * space for the live ones, one per tracker for the retired ring); a
 * lookup is a binary search and a short walk back.  Module ranges may
 * overlap (a file mapped twice by mistake, a stale instance under a new
 * mapping), so the walk back goes as far as the longest instance ever
 * indexed could reach: exact, and one or two steps in a sane process.
 * Insertion and removal move pointers (memmove), which at a few thousand
 * entries costs less than one system call.
 */
#include <config.h>

#include "module_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Order: pid, then lowest address, then the pointer (a total order, so
 * that one instance can be found again among equal starts). */
static int inst_cmp(const struct mt_inst *a, pid_t pid, uint64_t lo,
		    const struct mt_inst *b)
{
	if (a->pid != pid)
		return a->pid < pid ? -1 : 1;
	if (a->info.lo != lo)
		return a->info.lo < lo ? -1 : 1;
	if (a == b)
		return 0;
	return (uintptr_t)a < (uintptr_t)b ? -1 : 1;
}

/* Index of the first entry not below (PID, LO, B). */
static size_t insts_lower(const struct mt_insts *a, pid_t pid, uint64_t lo,
			  const struct mt_inst *b)
{
	size_t l = 0, h = a->n;

	while (l < h) {
		size_t mid = l + (h - l) / 2;

		if (inst_cmp(a->v[mid], pid, lo, b) < 0)
			l = mid + 1;
		else
			h = mid;
	}
	return l;
}

int mt_insts_insert(struct mt_insts *a, struct mt_inst *in)
{
	size_t i;

	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		struct mt_inst **nv = realloc(a->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		a->v = nv;
		a->cap = cap;
	}
	i = insts_lower(a, in->pid, in->info.lo, in);
	memmove(&a->v[i + 1], &a->v[i], (a->n - i) * sizeof(*a->v));
	a->v[i] = in;
	a->n++;
	if (in->info.hi > in->info.lo && in->info.hi - in->info.lo > a->reach)
		a->reach = in->info.hi - in->info.lo;
	return 0;
}

void mt_insts_remove(struct mt_insts *a, const struct mt_inst *in)
{
	size_t i = insts_lower(a, in->pid, in->info.lo, in);

	if (i == a->n || a->v[i] != in)
		return;
	memmove(&a->v[i], &a->v[i + 1], (a->n - i - 1) * sizeof(*a->v));
	a->n--;
}

void mt_insts_free(struct mt_insts *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

struct mt_inst *mt_insts_at(const struct mt_insts *a, pid_t pid,
			    uint64_t addr, mt_inst_match_fn match, void *arg)
{
	/* Entries of PID with lo <= ADDR end just before this one. */
	size_t i = insts_lower(a, pid, addr + 1, NULL);

	if (addr == UINT64_MAX)
		i = insts_lower(a, pid + 1, 0, NULL);
	while (i-- > 0) {
		struct mt_inst *in = a->v[i];

		if (in->pid != pid || addr - in->info.lo >= a->reach)
			break;
		if (addr < in->info.hi && match(in, arg))
			return in;
	}
	return NULL;
}

struct mt_inst *mt_insts_find(const struct mt_insts *a, pid_t pid,
			      uint64_t lo, mt_inst_match_fn match, void *arg)
{
	size_t i;

	for (i = insts_lower(a, pid, lo, NULL); i < a->n; i++) {
		struct mt_inst *in = a->v[i];

		if (in->pid != pid || in->info.lo != lo)
			break;
		if (match(in, arg))
			return in;
	}
	return NULL;
}

/* ---- spaces by pid ---- */

static size_t pid_slot(pid_t pid, size_t nb)
{
	return (size_t)(mt_hash64((uint64_t)(uint32_t)pid) & (nb - 1));
}

struct mt_space *mt_space_find(const struct maptap_modules *m, pid_t pid)
{
	struct mt_space *sp;

	if (!m->nspace_buckets)
		return NULL;
	for (sp = m->space_tab[pid_slot(pid, m->nspace_buckets)]; sp;
	     sp = sp->hnext)
		if (sp->pid == pid)
			return sp;
	return NULL;
}

/* Double the buckets once there are as many spaces as buckets. */
static int spaces_grow(struct maptap_modules *m)
{
	size_t nb = m->nspace_buckets ? 2 * m->nspace_buckets : 16, i;
	struct mt_space **tab = calloc(nb, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < m->nspace_buckets; i++) {
		struct mt_space *sp = m->space_tab[i], *next;

		for (; sp; sp = next) {
			size_t s = pid_slot(sp->pid, nb);

			next = sp->hnext;
			sp->hnext = tab[s];
			tab[s] = sp;
		}
	}
	free(m->space_tab);
	m->space_tab = tab;
	m->nspace_buckets = nb;
	return 0;
}

int mt_space_add(struct maptap_modules *m, struct mt_space *sp)
{
	size_t s;

	if (m->nspaces >= m->nspace_buckets && spaces_grow(m))
		return -ENOMEM;
	s = pid_slot(sp->pid, m->nspace_buckets);
	sp->hnext = m->space_tab[s];
	m->space_tab[s] = sp;
	m->nspaces++;
	return 0;
}

void mt_space_unlink(struct maptap_modules *m, struct mt_space *sp)
{
	struct mt_space **pp;

	if (!m->nspace_buckets)
		return;
	for (pp = &m->space_tab[pid_slot(sp->pid, m->nspace_buckets)]; *pp;
	     pp = &(*pp)->hnext) {
		if (*pp == sp) {
			*pp = sp->hnext;
			m->nspaces--;
			return;
		}
	}
}
