/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report_sites.c -- the report's call sites and classes: what a range
 * of mapped bytes is charged to (the site: a few frames of the stack
 * after the allocation internals, or a pseudo site) and what it is (the
 * class: a module's segment kind, or an anonymous name).  Rules:
 * docs/report.md.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_state.h"

static const char *const what_names[] = {
	[RP_W_BEFORE_ATTACH] = "before attach",
	[RP_W_EXECVE] = "execve",
	[RP_W_INHERITED] = "inherited",
	[RP_W_NO_STACK] = "no stack",
	[RP_W_KERNEL] = "kernel",
	[RP_W_CALL] = "call",
};

const char *rp_what_name(unsigned what)
{
	return what_names[what < RP_W_CALL ? what : RP_W_CALL];
}

/* ---- classes ---- */

static bool cls_match(const void *ctx, uint32_t idx, const void *key)
{
	const struct maptap_report *r = ctx;

	return strcmp(r->cls[idx].key, key) == 0;
}

static uint64_t cls_hash(const void *ctx, uint32_t idx)
{
	const struct maptap_report *r = ctx;

	return rp_hash_bytes(r->cls[idx].key, strlen(r->cls[idx].key));
}

/* The id of the class KEY: "m" KIND ANON PATH for a module, "n" NAME for
 * anonymous memory.  -ENOMEM, or the id. */
static long class_intern(struct maptap_report *r, char *key, size_t len)
{
	uint64_t h = rp_hash_bytes(key, len);
	long id = rp_ix_find(&r->cls_ix, h, cls_match, r, key);
	struct rp_class *c;

	if (id >= 0)
		return id;
	if (rp_grow((void **)&r->cls, &r->cls_cap, r->ncls + 1, sizeof(*c)))
		return -ENOMEM;
	c = &r->cls[r->ncls];
	c->key = strdup(key);
	if (!c->key ||
	    rp_ix_add(&r->cls_ix, h, (uint32_t)r->ncls, cls_hash, r)) {
		free(c->key);
		return -ENOMEM;
	}
	c->module = key[0] == 'm';
	c->kind = c->module ? (enum maptap_segment_kind)(key[1] - '0') :
			      MAPTAP_SEG_NONE;
	c->anon = c->module && key[2] == 'a';
	c->name = c->key + (c->module ? 3 : 1);
	return (long)r->ncls++;
}

static long class_make(struct maptap_report *r, bool module,
		       enum maptap_segment_kind kind, bool anon,
		       const char *name, size_t name_len)
{
	char stack[256], *key = stack;
	size_t len = name_len + 3;
	long id;

	if (len + 1 > sizeof(stack)) {
		key = malloc(len + 1);
		if (!key)
			return -ENOMEM;
	}
	if (module) {
		key[0] = 'm';
		key[1] = (char)('0' + kind);
		key[2] = anon ? 'a' : 'f';
	} else {
		key[0] = key[1] = key[2] = 'n';
	}
	memcpy(key + 3, name, name_len);
	key[len] = '\0';
	if (!module)	/* "n" NAME: no kind and flag bytes */
		memmove(key + 1, key + 3, name_len + 1);
	id = class_intern(r, key, module ? len : name_len + 1);
	if (key != stack)
		free(key);
	return id;
}

/* MAP_SHARED|MAP_ANONYMOUS memory (and a MAP_SHARED map of /dev/zero,
 * which the kernel turns into the same thing: mm/shmem.c,
 * shmem_zero_setup()) is a file of the internal shmem mount, named
 * "dev/zero", that /proc/PID/maps shows as "/dev/zero (deleted)" on
 * device 00:xx.  No real file can have that name and device: a deleted
 * file's path is that of a file that was unlinked, and /dev/zero
 * itself is a character device, whose private maps are anonymous. */
static bool is_anon_shared(const struct maptap_vma *v)
{
	static const char name[] = "/dev/zero (deleted)";

	return maptap_vma_has_file(v) && v->dev_major == 0 &&
	       v->name_len == sizeof(name) - 1 &&
	       memcmp(v->name, name, sizeof(name) - 1) == 0;
}

/* The class of the new state of a range event (docs/report.md). */
long rp_class_of(struct maptap_report *r, const struct maptap_event *ev)
{
	const struct maptap_module_desc *w = ev->where;
	const struct maptap_vma *v = &ev->vma;

	/* Named by the kernel's own word for it: a named one is
	 * "[anon_shmem:NAME]" (fs/proc/task_mmu.c). */
	if (is_anon_shared(v))
		return class_make(r, false, 0, false, "[anon_shmem]", 12);
	if (w && w->has_module && w->module.path) {
		enum maptap_segment_kind kind =
			w->has_segment ? w->segment.kind : MAPTAP_SEG_NONE;

		return class_make(r, true, kind,
				  w->anon && kind != MAPTAP_SEG_BSS,
				  w->module.path, strlen(w->module.path));
	}
	if (maptap_vma_has_file(v) && v->kind != MAPTAP_VMA_SHMEM_NAMED &&
	    v->name_len)
		return class_make(r, true, MAPTAP_SEG_NONE, false, v->name,
				  v->name_len);
	if (!v->name_len)
		return class_make(r, false, 0, false, "[anon]", 6);
	return class_make(r, false, 0, false, v->name, v->name_len);
}

/* ---- sites ---- */

static bool site_match(const void *ctx, uint32_t idx, const void *key)
{
	const struct rp_site *s = &((const struct rp_proc *)ctx)->sites[idx];
	const struct rp_site_key *k = key;
	unsigned i;

	if (s->what != k->what || s->nframes != k->n)
		return false;
	for (i = 0; i < k->n; i++)
		if (s->frames[i].pc != k->f[i].pc)
			return false;
	return true;
}

static uint64_t site_hash(const void *ctx, uint32_t idx)
{
	return ((const struct rp_proc *)ctx)->sites[idx].hash;
}

static uint64_t key_hash(const struct rp_site_key *k)
{
	uint64_t h = mt_hash64(k->what + 1);
	unsigned i;

	for (i = 0; i < k->n; i++)
		h = mt_hash64(h ^ k->f[i].pc);
	return h;
}

/* The site of K in P, made (and symbolized) when new.  -ENOMEM or id. */
long rp_site_get(struct maptap_report *r, struct rp_proc *p,
		 const struct rp_site_key *k)
{
	uint64_t h = key_hash(k);
	long id = rp_ix_find(&p->site_ix, h, site_match, p, k);
	struct rp_site *s;

	if (id >= 0)
		return id;
	if (rp_grow((void **)&p->sites, &p->sites_cap, p->nsites + 1,
		 sizeof(*s)))
		return -ENOMEM;
	s = &p->sites[p->nsites];
	memset(s, 0, sizeof(*s));
	s->what = k->what;
	s->hash = h;
	if (k->n) {
		s->frames = calloc(k->n, sizeof(*s->frames));
		if (!s->frames ||
		    rp_frames_symbolize(r->m, p->pid, k->f, k->n, s->frames)) {
			free(s->frames);
			return -ENOMEM;
		}
		s->nframes = k->n;
	}
	if (rp_ix_add(&p->site_ix, h, (uint32_t)p->nsites, site_hash, p)) {
		rp_frames_free(s->frames, s->nframes);
		free(s->frames);
		return -ENOMEM;
	}
	return (long)p->nsites++;
}

/* The site a charging event EV goes to. */
long rp_site_for(struct maptap_report *r, struct rp_proc *p,
		 const struct maptap_event *ev,
		 const struct maptap_frame *frames, unsigned n)
{
	struct rp_site_key k = { RP_W_CALL, 0, NULL };
	unsigned first;

	if (ev->syscall_nr < 0 && ev->kind == MAPTAP_EV_GROW)
		return RP_W_KERNEL;
	/* The new image as the exec itself laid it out: the perf source
	 * gives it as it came (a file mapped whole, then its segments
	 * over it), ptrace as one snapshot; both are the exec's. */
	if (rp_event_of_exec(ev))
		return p->snap_site;
	if (!frames || !n)
		return RP_W_NO_STACK;
	first = rp_site_start(r->m, p->pid, frames, n, r->opts.site_frames,
			      &k.n);
	k.f = frames + first;
	return rp_site_get(r, p, &k);
}
