/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwvars.c -- target variables from DWARF in breakpoint probes, pass 5:
 * the values of the variables pass 2 bound (front/dwvar_bind.c) at the
 * hit that runs now, and the entry values of .return probes, saved at
 * the entry hit and read at the return.
 *
 * As stap (stapprobes(3stap), tapsets.cxx): in a .return probe $return
 * is the returned value and every other target variable is its value at
 * the function's entry (saved there, as @entry does).
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/session.h>
#include <maptap/tvar.h>
#include <maptap/uprobe.h>

#include <sys/user.h>

#include "dwvars.h"
#include "interp.h"

static void frame_of(struct interp *I, struct node *n,
		     struct maptap_tvar_frame *f, int64_t *ix)
{
	const struct maptap_uprobe_hit *h = I->tgt->up;
	const struct tr_dprobe *dp = I->cur;
	size_t k = 0;
	int i;

	memset(f, 0, sizeof(*f));
	if (!h || !dp || dp->kind != PK_UPROBE) {
		if (!tr_dwvar_is_cast(n))
			tr_rt_ctx_error(I, n->tok);
	} else {
		struct tr_target *t = I->tgt;

		f->pid = h->pid;
		f->read = maptap_read_user;
		f->regs = h->regs;
		f->entry_regs = t->entry_regs;
		f->bias = dp->up_abs ? 0 : h->addr - dp->up_vaddr;
		if (!t->tvc)
			t->tvc = calloc(1, sizeof(*t->tvc));
		if (t->tvc && (t->tvc_ns != h->time_ns ||
			       t->tvc_tid != h->tid)) {
			t->tvc->len = 0;	/* a new stop */
			t->tvc_ns = h->time_ns;
			t->tvc_tid = h->tid;
		}
		f->cache = t->tvc;
	}
	if (!f->pid)
		f->pid = I->tgt->pid;
	f->read = maptap_read_user;
	for (i = 0; i < n->list.n; i++) {
		struct node *o = n->list.v[i];

		if (o->kind == N_STR && o->op == OP_MEMBER)
			continue;
		ix[k++] = tr_eval_long(I, o);
	}
	f->index = ix;
	if (tr_dwvar_is_cast(n)) {
		f->cast_addr = (uint64_t)tr_eval_long(I, n->a);
		if (f->pid <= 0)
			tr_rt_error(I, n->tok, "@cast needs a process "
				    "context to read memory");
	}
}

/* The saved value of slot N->num, in a .return hit. */
static const struct tr_saved *saved(struct interp *I, const struct node *n)
{
	const struct maptap_uprobe_hit *h = I->tgt->up;

	if (!h || !h->is_return || n->num < 0)
		return NULL;
	if (!I->tgt->entry || (size_t)n->num >= I->tgt->nentry) {
		static const struct tr_saved none = { 0, NULL, 0 };

		return &none;	/* the entry was not seen (attached
				 * inside the call) */
	}
	return &I->tgt->entry[n->num];
}

static const char *why(int rc)
{
	return rc == -EFAULT ? "user memory read failed" :
	       "value not available at this address (optimised out)";
}

int64_t tr_dwvar_long(struct interp *I, struct node *n)
{
	const struct tr_saved *sv = saved(I, n);
	struct maptap_tvar_frame f;
	int64_t ix[TR_DWVAR_MAX_INDEX], v = 0;
	int rc;

	if (sv)
		return sv->l;
	if (n->kind == N_ENTRY)
		return tr_eval_long(I, n->a);
	frame_of(I, n, &f, ix);
	rc = maptap_tvar_read_long(n->aux, &f, &v);
	if (rc)
		tr_rt_error(I, n->tok, "%s reading '%s' at pc 0x%llx", why(rc),
			    n->str, f.regs ?
			    (unsigned long long)f.regs->rip : 0ull);
	return v;
}

struct sref tr_dwvar_str(struct interp *I, struct node *n)
{
	const struct tr_saved *sv = saved(I, n);
	struct maptap_script_buf *b;
	struct maptap_tvar_frame f;
	int64_t ix[TR_DWVAR_MAX_INDEX];
	struct sref r;
	char *tmp;
	int len;

	if (sv) {
		r.p = sv->s ? sv->s : "";
		r.len = sv->s ? sv->len : 0;
		return r;
	}
	if (n->kind == N_ENTRY)
		return tr_eval_str(I, n->a);
	frame_of(I, n, &f, ix);
	b = tr_tmp_get(I);
	maptap_script_buf_clear(b);
	tmp = malloc((size_t)I->lim.maxstringlen);
	if (!tmp)
		tr_rt_error(I, n->tok, "out of memory");
	len = maptap_tvar_read_string(n->aux, &f, tmp,
				      (size_t)I->lim.maxstringlen);
	if (len < 0) {
		free(tmp);
		tr_rt_error(I, n->tok, "%s reading '%s'", why(len), n->str);
	}
	maptap_script_buf_adds(b, tmp);
	free(tmp);
	r.p = maptap_script_buf_str(b);
	r.len = b->len;
	return r;
}

struct tr_entry_frame *tr_entry_frame_new(const struct tr_dprobe *dp)
{
	struct tr_entry_frame *fr = calloc(1, sizeof(*fr));

	if (!fr)
		return NULL;
	fr->v = calloc((size_t)dp->up_entry.n + 1, sizeof(*fr->v));
	if (!fr->v) {
		free(fr);
		return NULL;
	}
	fr->n = (size_t)dp->up_entry.n;
	return fr;
}

void tr_dwvar_save_entry(struct interp *I, const struct tr_dprobe *dp,
			 struct tr_entry_frame *fr)
{
	int i;

	for (i = 0; i < dp->up_entry.n; i++) {
		struct node *n = dp->up_entry.v[i];
		struct node *e = n->kind == N_ENTRY ? n->a : n;

		if (i == 0) {	/* the CFA */
			int64_t cfa = 0;
			struct maptap_tvar_frame f;
			int64_t ix[1];

			if (!n->aux) {	/* at the entry: cfa_slot() */
				fr->v[0].l = I->tgt->up ?
					(int64_t)(I->tgt->up->regs->rsp + 8) :
					0;
				continue;
			}
			frame_of(I, n, &f, ix);
			if (maptap_tvar_read_long(n->aux, &f, &cfa))
				tr_rt_error(I, n->tok, "cannot compute the "
					    "frame address at the entry");
			fr->v[0].l = cfa;
			continue;
		}

		if (e->type == TY_STRING) {
			struct sref s = n->kind == N_ENTRY ?
					tr_eval_str(I, e) : tr_dwvar_str(I, e);

			fr->v[i].s = malloc(s.len + 1);
			if (fr->v[i].s) {
				memcpy(fr->v[i].s, s.p, s.len);
				fr->v[i].s[s.len] = 0;
				fr->v[i].len = s.len;
			}
		} else {
			fr->v[i].l = n->kind == N_ENTRY ? tr_eval_long(I, e) :
				     tr_dwvar_long(I, e);
		}
	}
}

void tr_entry_frame_free(struct tr_entry_frame *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++)
		free(f->v[i].s);
	free(f->v);
	free(f);
}
