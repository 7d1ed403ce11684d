/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdt_vars.c -- SDT markers at pass 5: the values of their context
 * variables, $argN from the note's argument descriptors (maptap/sdt.h)
 * with their size and signedness, $$name, $$provider and $$parms, as
 * stap's sdt probes have them (front/sdt_cvar_table.c names them at
 * pass 2), and the counts of their semaphores.
 */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/script_string.h>
#include <maptap/sdt.h>
#include <maptap/uprobe.h>

#include "interp.h"
#include "sdt_points.h"
#include "sdt_vars.h"

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
	if (id == TR_SDT_CV_NAME) {
		maptap_script_buf_adds(b, m->name);
	} else if (id == TR_SDT_CV_PROVIDER) {
		maptap_script_buf_adds(b, m->provider);
	} else if (id == TR_SDT_CV_PARMS) {
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
