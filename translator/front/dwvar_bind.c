/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwvar_bind.c -- target variables from DWARF in breakpoint probes, pass
 * 2: binds each $name, $p->f[i], $$parms, &$x and @cast(...) of a probe
 * point to a maptap_tvar compiled at its address (maptap/tvar.h), so
 * pass 5 only evaluates locations (interp/dwvars.c), and gives the
 * values a .return probe reads at the entry their slots.  Split from
 * interp/dwvars.c, whose pass-2 half it was, so that elaboration binds
 * variables without calling the interpreter; the code is as it was
 * there.
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

#include <maptap/tvar.h>

#include "dwvar_bind.h"

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

	if (tr_dwvar_is_cast(n))
		return true;
	/* an SDT marker's variables are its note's ($argN, $$name:
	 * sdt_cvar_table.c), as in stap */
	if (t[0] != '$' || !dp || dp->kind != PK_UPROBE || dp->up_abs ||
	    !dp->up_module || dp->sdt)
		return false;
	if (dp->up_plt && !strcmp(n->str, "$$name"))
		return false;
	tm = module_of(s, dp->up_module);
	/* code the DWARF leaves out (assembly, a PLT entry): registers
	 * only, as without DWARF (cvar_table.c) */
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
			if (++nix > TR_DWVAR_MAX_INDEX) {
				*err = dup_msg("too many indexes in a target "
					       "expression");
				return -1;
			}
		}
	}
	if (tr_dwvar_is_cast(n)) {
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
