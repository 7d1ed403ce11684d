/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdt_vars.c -- context variables of SDT markers: $argN from the note's
 * argument descriptors (maptap/sdt.h) with their size and signedness,
 * $$name, $$provider and $$parms, as stap's sdt probes have them.
 */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/script_string.h>
#include <maptap/sdt.h>
#include <maptap/uprobe.h>

#include "arena.h"
#include "interp.h"
#include "sdt_points.h"
#include "sdt_vars.h"

enum {
	SDT_NAME = TR_SDT_CVAR_BASE + MAPTAP_SDT_MAX_ARGS + 1,
	SDT_PROVIDER,
	SDT_PARMS,
};

int tr_sdt_cvar_lookup(const struct tr_dprobe *dp, const char *name,
		       enum tr_type *type, const char **why)
{
	const struct tr_sdt *m = dp->sdt;
	char *end;
	long n;

	*type = TY_STRING;
	if (!strcmp(name, "$$name"))
		return SDT_NAME;
	if (!strcmp(name, "$$provider"))
		return SDT_PROVIDER;
	if (!strcmp(name, "$$parms") || !strcmp(name, "$$vars"))
		return SDT_PARMS;
	*type = TY_LONG;
	if (strncmp(name, "$arg", 4) || name[4] < '1' || name[4] > '9') {
		*why = "target variables of a marker are $arg1..$argN, "
		       "$$name, $$provider, $$parms and $$vars";
		return -1;
	}
	n = strtol(name + 4, &end, 10);
	if (*end || n < 1 || n > m->nargs) {
		*why = "invalid argument number: the marker has fewer "
		       "arguments";
		return -1;
	}
	if (m->bad >> (n - 1) & 1) {
		*why = "cannot read this marker argument: its operand is "
		       "one maptap does not know (a floating-point "
		       "register?)";
		return -1;
	}
	return TR_SDT_CVAR_BASE + (int)n;
}

static int64_t arg_value(struct interp *I, int n)
{
	const struct tr_dprobe *dp = I->cur;
	const struct maptap_uprobe_hit *h = I->tgt->up;
	const struct tr_sdt *m = dp ? dp->sdt : NULL;
	int64_t v;

	if (!m || !h || n < 1 || n > m->nargs || (m->bad >> (n - 1) & 1))
		return 0;
	if (maptap_sdt_arg_value(&m->arg[n - 1], h->pid, h->regs,
				 dp->up_abs ? 0 : h->addr - dp->up_vaddr,
				 &v))
		tr_rt_error(I, dp->tok, "cannot read $arg%d of marker %s "
			    "(operand %s)", n, m->name, m->args);
	return v;
}

int64_t tr_sdt_cvar_long(struct interp *I, int id)
{
	return arg_value(I, id - TR_SDT_CVAR_BASE);
}

void tr_sdt_cvar_str(struct interp *I, int id, struct maptap_script_buf *b)
{
	const struct tr_sdt *m = I->cur ? I->cur->sdt : NULL;
	int i;

	if (!m)
		return;
	if (id == SDT_NAME) {
		maptap_script_buf_adds(b, m->name);
	} else if (id == SDT_PROVIDER) {
		maptap_script_buf_adds(b, m->provider);
	} else if (id == SDT_PARMS) {
		for (i = 1; i <= m->nargs; i++) {
			if (m->bad >> (i - 1) & 1) {
				maptap_script_buf_printf(b, "%sarg%d=?",
							 i > 1 ? " " : "", i);
				continue;
			}
			maptap_script_buf_printf(b, "%sarg%d=0x%" PRIx64,
						 i > 1 ? " " : "", i,
						 (uint64_t)arg_value(I, i));
		}
	}
}

void tr_sdt_semaphores(struct maptap_session *s,
		       const struct tr_dprobe *const *probes, int n,
		       const struct maptap_event *ev,
		       const struct maptap_module_desc *w,
		       bool (*module_is)(const struct tr_dprobe *dp,
					 const struct maptap_module_info *mi),
		       FILE *err)
{
	bool forgot = false;
	int i, rc;

	if ((ev->kind != MAPTAP_EV_MAP && ev->kind != MAPTAP_EV_REPLACE) ||
	    !w || !w->has_module || !w->has_segment ||
	    !(w->segment.p_flags & 2 /* PF_W */) ||
	    (ev->vma.perms & MAPTAP_PERM_S))
		return;
	for (i = 0; i < n; i++) {
		const struct tr_dprobe *dp = probes[i];
		uint64_t addr;

		if (!dp->sdt || !dp->sdt->semaphore ||
		    !module_is(dp, &w->module))
			continue;
		addr = dp->sdt->semaphore + w->module.bias;
		if (addr < ev->vma.start || addr >= ev->vma.end)
			continue;
		if (!forgot && !ev->snapshot) {
			/* mapped now: the page is the file's again, and
			 * counts made in the memory that was there are gone
			 * with it (a snapshot -- attach, exec, fork -- shows
			 * memory as it is: an exec's has no counts yet, a
			 * fork's child has its parent's) */
			maptap_uprobe_forget(s, ev->pid, ev->vma.start,
					     ev->vma.end);
			forgot = true;
		}
		rc = maptap_uprobe_semaphore(s, ev->pid, addr);
		if (rc < 0)
			fprintf(err, "WARNING: pid %d: cannot set the "
				"semaphore of %s at 0x%llx: %s\n",
				(int)ev->pid, dp->name,
				(unsigned long long)addr, strerror(-rc));
	}
}

const char *tr_sdt_cvar_list(struct tr_session *s, const struct tr_dprobe *dp)
{
	const struct tr_sdt *m = dp->sdt;
	const char *out = "";
	int i;

	for (i = 1; m && i <= m->nargs; i++)
		if (!(m->bad >> (i - 1) & 1))
			out = arena_printf(&s->arena, "%s%s$arg%d:long", out,
					   *out ? " " : "", i);
	return out;
}
