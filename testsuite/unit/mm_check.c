/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mm_check.c -- see mm_check.h. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_check.h"
#include "testsuite/lib/tap.h"

void ref_init(struct ref *r, uint64_t base, size_t npages)
{
	r->base = base;
	r->npages = npages;
	r->p = calloc(npages, sizeof(*r->p));
	if (!r->p)
		abort();
}

void ref_free(struct ref *r)
{
	free(r->p);
	r->p = NULL;
}

void ref_copy(struct ref *dst, const struct ref *src)
{
	ref_init(dst, src->base, src->npages);
	memcpy(dst->p, src->p, src->npages * sizeof(*src->p));
}

static bool page_index(const struct ref *r, uint64_t addr, size_t *i)
{
	if (addr < r->base || (addr - r->base) / PG >= r->npages)
		return false;
	*i = (size_t)((addr - r->base) / PG);
	return true;
}

void ref_set(struct ref *r, const struct maptap_vma *v, uint64_t lo,
	     uint64_t hi)
{
	uint64_t a;
	size_t i;

	for (a = lo; a < hi; a += PG) {
		struct ref_page *p;

		if (!page_index(r, a, &i))
			continue;
		p = &r->p[i];
		memset(p, 0, sizeof(*p));
		p->mapped = true;
		p->perms = v->perms;
		p->inode = v->inode;
		if (v->inode) {
			p->dev_major = v->dev_major;
			p->dev_minor = v->dev_minor;
			p->off = v->offset + (a - v->start);
		}
		snprintf(p->name, sizeof(p->name), "%.*s", (int)v->name_len,
			 v->name);
	}
}

void ref_clear(struct ref *r, uint64_t lo, uint64_t hi)
{
	uint64_t a;
	size_t i;

	for (a = lo; a < hi; a += PG)
		if (page_index(r, a, &i))
			memset(&r->p[i], 0, sizeof(r->p[i]));
}

void ref_from(struct ref *r, const struct maptap_vma *v, size_t n)
{
	size_t i;

	ref_clear(r, r->base, r->base + r->npages * PG);
	for (i = 0; i < n; i++)
		ref_set(r, &v[i], v[i].start, v[i].end);
}

bool ref_page_eq(const struct ref_page *a, const struct ref_page *b)
{
	if (a->mapped != b->mapped)
		return false;
	if (!a->mapped)
		return true;
	return a->perms == b->perms && a->inode == b->inode &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->off == b->off && strcmp(a->name, b->name) == 0;
}

const struct ref_page *ref_at(const struct ref *r, uint64_t addr)
{
	size_t i;

	return page_index(r, addr, &i) ? &r->p[i] : NULL;
}

static void page_str(const struct ref_page *p, char *out, size_t size)
{
	if (!p->mapped) {
		snprintf(out, size, "(none)");
		return;
	}
	snprintf(out, size, "perms %u ino %" PRIu64 " off %" PRIx64 " '%s'",
		 p->perms, p->inode, p->off, p->name);
}

bool ref_eq(const struct ref *a, const struct ref *b, const char *what)
{
	size_t i;
	char sa[160], sb[160];

	for (i = 0; i < a->npages; i++) {
		if (ref_page_eq(&a->p[i], &b->p[i]))
			continue;
		page_str(&a->p[i], sa, sizeof(sa));
		page_str(&b->p[i], sb, sizeof(sb));
		tap_diag("%s: page %zu (%#" PRIx64 "): %s vs %s", what, i,
			 a->base + i * PG, sa, sb);
		return false;
	}
	return true;
}

int evlog_fn(const struct maptap_event *ev, void *arg)
{
	struct evlog *l = arg;
	struct maptap_event *e;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->ev = realloc(l->ev, l->cap * sizeof(*l->ev));
		if (!l->ev)
			abort();
	}
	e = &l->ev[l->n++];
	*e = *ev;
	e->vma.name = strndup(ev->vma.name, ev->vma.name_len);
	e->old.name = strndup(ev->old.name, ev->old.name_len);
	if (l->stop_after && (int)l->n >= l->stop_after)
		return 1;
	return 0;
}

void evlog_clear(struct evlog *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free((char *)l->ev[i].vma.name);
		free((char *)l->ev[i].old.name);
	}
	l->n = 0;
}

void evlog_free(struct evlog *l)
{
	evlog_clear(l);
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

const char *kind_name(int kind)
{
	static const char *const names[] = {
		"map", "unmap", "protect", "replace", "move", "rename",
		"grow", "shrink",
	};

	if (kind < 0 || kind > MAPTAP_EV_SHRINK)
		return "?";
	return names[kind];
}

static void replay(struct ref *r, const struct maptap_event *e)
{
	switch (e->kind) {
	case MAPTAP_EV_UNMAP:
		ref_clear(r, e->vma.start, e->vma.end);
		break;
	case MAPTAP_EV_MOVE:
	case MAPTAP_EV_GROW:
	case MAPTAP_EV_SHRINK:
		ref_clear(r, e->old.start, e->old.end);
		ref_set(r, &e->vma, e->vma.start, e->vma.end);
		break;
	default:
		ref_set(r, &e->vma, e->vma.start, e->vma.end);
		break;
	}
}

static bool in_fresh(const struct maptap_mm_hint *h, uint64_t a)
{
	return h && a >= h->fresh_lo && a < h->fresh_hi;
}

/* A range event must change every page it covers, and its old and new
 * states must be the pages' states. */
static bool check_one(const struct ref *old, const struct ref *new,
		      const struct maptap_event *e,
		      const struct maptap_mm_hint *hint)
{
	struct ref one;
	uint64_t a;
	bool ok = true;

	if (e->kind == MAPTAP_EV_MOVE || e->kind == MAPTAP_EV_GROW ||
	    e->kind == MAPTAP_EV_SHRINK)
		return true;
	ref_init(&one, old->base, old->npages);
	if (e->kind != MAPTAP_EV_UNMAP)
		ref_set(&one, &e->vma, e->vma.start, e->vma.end);
	for (a = e->vma.start; a < e->vma.end; a += PG) {
		const struct ref_page *o = ref_at(old, a), *n = ref_at(new, a);
		const struct ref_page *ev = ref_at(&one, a);

		if (!o || !n)
			continue;
		if (ref_page_eq(o, n) &&
		    !(e->kind == MAPTAP_EV_REPLACE && in_fresh(hint, a))) {
			tap_diag("%s event at %#" PRIx64 " covers unchanged page",
				 kind_name(e->kind), a);
			ok = false;
			break;
		}
		if (!ref_page_eq(ev, n)) {
			tap_diag("%s event state differs from new at %#" PRIx64,
				 kind_name(e->kind), a);
			ok = false;
			break;
		}
	}
	if (ok && e->kind != MAPTAP_EV_MAP) {
		ref_set(&one, &e->old, e->vma.start, e->vma.end);
		for (a = e->vma.start; a < e->vma.end; a += PG)
			if (ref_at(old, a) &&
			    !ref_page_eq(ref_at(&one, a), ref_at(old, a))) {
				tap_diag("%s event old state differs at %#"
					 PRIx64, kind_name(e->kind), a);
				ok = false;
				break;
			}
	}
	ref_free(&one);
	return ok;
}

static bool continuous(const struct maptap_vma *a, const struct maptap_vma *b)
{
	if (a->perms != b->perms || a->inode != b->inode ||
	    a->name_len != b->name_len ||
	    memcmp(a->name, b->name, a->name_len) != 0)
		return false;
	return a->inode == 0 ||
	       (a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
		a->offset + (a->end - a->start) == b->offset);
}

static bool check_maximal(const struct maptap_event *p,
			  const struct maptap_event *e)
{
	if (p->kind != e->kind || p->vma.end != e->vma.start ||
	    e->kind == MAPTAP_EV_MOVE || e->kind == MAPTAP_EV_GROW ||
	    e->kind == MAPTAP_EV_SHRINK)
		return true;
	if (e->kind != MAPTAP_EV_UNMAP && !continuous(&p->vma, &e->vma))
		return true;
	if (e->kind != MAPTAP_EV_MAP && !continuous(&p->old, &e->old))
		return true;
	tap_diag("%s events at %#" PRIx64 " and %#" PRIx64 " should be one",
		 kind_name(e->kind), p->vma.start, e->vma.start);
	return false;
}

bool check_events(const struct ref *old, const struct ref *new,
		  const struct evlog *log, const struct maptap_mm_hint *hint)
{
	struct ref r;
	bool ok = true;
	size_t i;

	ref_copy(&r, old);
	for (i = 0; i < log->n; i++) {
		const struct maptap_event *e = &log->ev[i];

		if (e->vma.start >= e->vma.end) {
			tap_diag("%s event %zu has an empty range",
				 kind_name(e->kind), i);
			ok = false;
		}
		if (i && log->ev[i - 1].vma.start > e->vma.start) {
			tap_diag("events out of address order at %zu", i);
			ok = false;
		}
		if (i && !check_maximal(&log->ev[i - 1], e))
			ok = false;
		if (!check_one(old, new, e, hint))
			ok = false;
		replay(&r, e);
	}
	if (!ref_eq(&r, new, "replayed events vs new"))
		ok = false;
	ref_free(&r);
	return ok;
}

static int push_one(const struct maptap_vma *v, void *arg)
{
	return maptap_vma_buf_push(arg, v);
}

void mm_to_buf(const struct maptap_mm *mm, struct maptap_vma_buf *buf)
{
	maptap_mm_foreach(mm, 0, UINT64_MAX, push_one, buf);
	maptap_vma_buf_finish(buf);
}

static bool page_continues(const struct ref_page *a, const struct ref_page *b)
{
	struct ref_page t = *a;

	if (!a->mapped || !b->mapped)
		return false;
	if (t.inode)
		t.off += PG;
	return ref_page_eq(&t, b);
}

void ref_to_vmas(const struct ref *r, struct maptap_vma_buf *buf)
{
	size_t i = 0, j;

	while (i < r->npages) {
		const struct ref_page *p = &r->p[i];
		struct maptap_vma v = { 0 };

		if (!p->mapped) {
			i++;
			continue;
		}
		for (j = i + 1; j < r->npages &&
		     page_continues(&r->p[j - 1], &r->p[j]); j++)
			;
		v.start = r->base + i * PG;
		v.end = r->base + j * PG;
		v.perms = p->perms;
		v.inode = p->inode;
		v.dev_major = p->dev_major;
		v.dev_minor = p->dev_minor;
		v.offset = p->off;
		v.name = p->name;
		v.name_len = strlen(p->name);
		maptap_vma_buf_push(buf, &v);
		i = j;
	}
	maptap_vma_buf_finish(buf);
}
