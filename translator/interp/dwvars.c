/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwvars.c -- target variables from DWARF in breakpoint probes: pass 2
 * binds each $name, $p->f[i], $$parms, &$x and @cast(...) of a probe
 * point to a maptap_tvar compiled at its address (maptap/tvar.h), so
 * pass 5 only evaluates locations; and the entry values of .return
 * probes.
 *
 * As stap (stapprobes(3stap), tapsets.cxx): in a .return probe $return
 * is the returned value and every other target variable is its value at
 * the function's entry (saved there, as @entry does); writing a target
 * variable needs guru mode, which maptap does not have.
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

#define MAX_INDEX 8

static bool is_cast(const struct node *n)
{
	return !strcmp(n->tok->text, "@cast");
}

/* The module of PATH, opened once per session. */
static struct tr_tvar_mod *module_of(struct tr_session *s, const char *path)
{
	struct tr_tvar_mod *tm;
	int i;

	for (i = 0; i < s->tvar_mods.n; i++) {
		tm = s->tvar_mods.v[i];
		if (!strcmp(tm->path, path))
			return tm;
	}
	tm = arena_alloc(&s->arena, sizeof(*tm));
	tm->path = arena_strdup(&s->arena, path);
	tm->m = NULL;
	tm->err = maptap_tvar_module_open(path, &tm->m);
	vec_push(&s->arena, &s->tvar_mods, tm);
	return tm;
}

/* An .inline probe: its variables are the inlined instance's, which
 * must be the function at its address. */
static bool is_inline(const struct tr_dprobe *dp)
{
	size_t len = dp->name ? strlen(dp->name) : 0;

	return len > 7 && !strcmp(dp->name + len - 7, ".inline");
}

bool tr_dwvar_applies(struct tr_session *s, const struct tr_dprobe *dp,
		      const struct node *n)
{
	const char *t = n->tok->text;
	struct tr_tvar_mod *tm;

	if (is_cast(n))
		return true;
	/* an SDT marker's variables are its note's ($argN, $$name:
	 * sdt_vars.c), as in stap */
	if (t[0] != '$' || !dp || dp->kind != PK_UPROBE || dp->up_abs ||
	    !dp->up_module || dp->sdt)
		return false;
	if (dp->up_plt && !strcmp(n->str, "$$name"))
		return false;
	tm = module_of(s, dp->up_module);
	/* code the DWARF leaves out (assembly, a PLT entry): registers
	 * only, as without DWARF (cvars.c) */
	return tm->m && maptap_tvar_covers(tm->m, dp->up_vaddr, is_inline(dp) ?
					   dp->up_func : NULL);
}

/* The trailing $ / $$ of N's text: pretty printing. */
static unsigned pretty_flags(const char *str)
{
	size_t len = strlen(str), k = 0;

	while (k < len && str[len - 1 - k] == '$')
		k++;
	if (k == len || (str[0] == '$' && str[1] == '$' && k + 2 >= len))
		return 0;
	return k >= 2 ? MAPTAP_TVAR_DEEP : k == 1 ? MAPTAP_TVAR_PRETTY : 0;
}

/* "$s$$" -> "$s"; "$$parms$" -> "$$parms" (in the arena). */
static const char *base_name(struct tr_session *s, const char *tok)
{
	size_t len = strlen(tok);
	char *b;

	while (len > 2 && tok[len - 1] == '$')
		len--;
	b = arena_alloc(&s->arena, len + 1);
	memcpy(b, tok, len);
	b[len] = 0;
	return b;
}

static char *dup_msg(const char *m)
{
	return strdup(m);
}

static int cfa_slot(struct tr_session *s, struct tr_dprobe *dp,
		    const struct token *tok, char **err);

/* DP reads entry values away from its function's entry: its hidden
 * entry breakpoint and the CFA that finds the saved registers again. */
static int entry_regs_setup(struct tr_session *s, struct tr_dprobe *dp,
			    struct tr_tvar_mod *tm, char **err)
{
	struct maptap_tvar *cfa;

	if (dp->up_entry_regs)
		return 0;
	dp->up_fentry = maptap_tvar_func_entry(tm->m, dp->up_vaddr);
	if (!dp->up_fentry || dp->up_fentry == dp->up_vaddr) {
		*err = dup_msg("not accessible at this address [man "
			       "error::dwarf]: the function's entry is not "
			       "known");
		return -1;
	}
	if (maptap_tvar_compile_cfa(tm->m, dp->up_vaddr, &cfa, err))
		return -1;
	vec_push(&s->arena, &s->tvars, cfa);
	dp->up_cfa = cfa;
	dp->up_entry_regs = true;
	return 0;
}

int tr_dwvar_bind(struct tr_session *s, struct tr_dprobe *dp,
		  struct node *n, bool addr, char **err)
{
	struct maptap_tvar_op ops[16];
	struct maptap_tvar *v = NULL;
	struct tr_tvar_mod *tm;
	unsigned flags = pretty_flags(n->str) | (addr ? MAPTAP_TVAR_ADDR : 0);
	size_t nops = 0, nix = 0;
	const char *name;
	int i, rc;

	*err = NULL;
	for (i = 0; i < n->list.n; i++) {
		struct node *o = n->list.v[i];

		if (nops == sizeof(ops) / sizeof(ops[0])) {
			*err = dup_msg("target expression too long");
			return -1;
		}
		if (o->kind == N_STR && o->op == OP_MEMBER) {
			ops[nops].kind = MAPTAP_TVAR_MEMBER;
			ops[nops++].member = o->str;
		} else {
			ops[nops].kind = MAPTAP_TVAR_INDEX;
			ops[nops++].member = NULL;
			if (++nix > MAX_INDEX) {
				*err = dup_msg("too many indexes in a target "
					       "expression");
				return -1;
			}
		}
	}
	if (is_cast(n)) {
		const char *mod = NULL;

		if (!n->a || !n->b || n->b->kind != N_STR ||
		    (n->c && n->c->kind != N_STR) || n->d) {
			*err = dup_msg("@cast needs (ADDRESS, \"TYPE\"[, "
				       "\"MODULE\"]) with literal strings");
			return -1;
		}
		if (n->c)
			mod = n->c->str;
		else if (dp && dp->kind == PK_UPROBE && dp->up_module &&
			 !dp->up_abs)
			mod = dp->up_module;
		if (!mod || mod[0] == '<' || strncmp(mod, "/", 1)) {
			*err = dup_msg(mod ? "@cast's module must be the path "
				       "of an ELF file with DWARF (headers "
				       "are not compiled by maptap)" :
				       "@cast outside a probe of a program "
				       "needs its MODULE argument");
			return -1;
		}
		tm = module_of(s, mod);
		if (!tm->m) {
			*err = dup_msg("no debuginfo for @cast's module");
			return -1;
		}
		rc = maptap_tvar_compile_cast(tm->m, n->b->str, ops, nops,
					      flags, &v, err);
	} else {
		bool entry = dp->is_return && strcmp(n->tok->text, "$return") &&
			     strcmp(n->tok->text, "$$return");

		name = base_name(s, n->tok->text);
		tm = module_of(s, dp->up_module);
		if (entry && !dp->up_entry.n)	/* the first: where */
			dp->up_body = maptap_tvar_entry_pc(tm->m, dp->up_vaddr,
							   dp->up_body);
		if (!strcmp(name, "$return") || !strcmp(name, "$$return")) {
			if (!dp->is_return) {
				*err = dup_msg("not accessible at this address "
					       "(only .return probes have "
					       "$return)");
				return -1;
			}
		}
		/* a .return probe's variables are read past the prologue,
		 * where stap's entry probe reads them; $return at the
		 * entry's scopes.  Elsewhere an entry value comes from the
		 * registers saved at the function's entry. */
		rc = maptap_tvar_compile(tm->m, entry ? dp->up_body :
					 dp->up_vaddr, name, ops, nops, flags |
					 (dp->is_return ? 0 :
					  MAPTAP_TVAR_ENTRY_REGS), &v, err);
		if (!rc && !dp->is_return && maptap_tvar_needs_entry_regs(v) &&
		    entry_regs_setup(s, dp, tm, err)) {
			maptap_tvar_free(v);
			return -1;
		}
		n->num = -1;
		if (!rc && entry) {
			rc = cfa_slot(s, dp, n->tok, err);
			if (rc)
				maptap_tvar_free(v);
			n->num = dp->up_entry.n;
			vec_push(&s->arena, &dp->up_entry, n);
		}
	}
	if (rc)
		return -1;
	vec_push(&s->arena, &s->tvars, v);
	n->aux = v;
	n->type = maptap_tvar_is_string(v) ? TY_STRING : TY_LONG;
	return 0;
}

/* Slot 0 of DP's entry values: the CFA at UP_BODY (a node of its own,
 * bound to maptap_tvar_compile_cfa(); without CFI there, AUX NULL and
 * UP_BODY the entry, where the CFA is rsp + 8).  Returns 0, or -1 with
 * *ERR. */
static int cfa_slot(struct tr_session *s, struct tr_dprobe *dp,
		    const struct token *tok, char **err)
{
	struct tr_tvar_mod *tm;
	struct maptap_tvar *v;
	struct node *c;

	if (dp->up_entry.n)
		return 0;
	tm = dp->up_module && !dp->up_abs ? module_of(s, dp->up_module) :
	     NULL;
	v = NULL;
	if (tm && tm->m) {
		dp->up_body = maptap_tvar_entry_pc(tm->m, dp->up_vaddr,
						   dp->up_body);
		if (maptap_tvar_compile_cfa(tm->m, dp->up_body, &v, err)) {
			free(*err);
			*err = NULL;
			v = NULL;
		}
	}
	if (v) {
		vec_push(&s->arena, &s->tvars, v);
	} else {
		/* No DWARF or no CFI there (assembly, a stripped file):
		 * the values are taken at the function's first
		 * instruction, where the CFA is rsp + 8 by the x86-64
		 * SysV ABI (the call just pushed the return address). */
		dp->up_body = dp->up_vaddr;
	}
	c = node_new(s, N_TARGET, tok);
	c->str = "$$cfa";
	c->aux = v;
	c->type = TY_LONG;
	c->num = -1;
	vec_push(&s->arena, &dp->up_entry, c);
	return 0;
}

int tr_dwvar_entry_slot(struct tr_session *s, struct tr_dprobe *dp,
			struct node *n, char **err)
{
	if (cfa_slot(s, dp, n->tok, err))
		return -1;
	n->op = OP_ENTRY_SAVED;
	n->num = dp->up_entry.n;
	vec_push(&s->arena, &dp->up_entry, n);
	return 0;
}

/* ---- pass 5 ---- */

static void frame_of(struct interp *I, struct node *n,
		     struct maptap_tvar_frame *f, int64_t *ix)
{
	const struct maptap_uprobe_hit *h = I->tgt->up;
	const struct tr_dprobe *dp = I->cur;
	size_t k = 0;
	int i;

	memset(f, 0, sizeof(*f));
	if (!h || !dp || dp->kind != PK_UPROBE) {
		if (!is_cast(n))
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
	if (is_cast(n)) {
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
	int64_t ix[MAX_INDEX], v = 0;
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
	int64_t ix[MAX_INDEX];
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
