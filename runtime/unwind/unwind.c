/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unwind.c -- maptap_unwind(): libunwind's remote walk with maptap's
 * accessors (unwind_mem.c, unwind_tables.c), frame by frame, with the
 * checks that turn a doubtful frame into an end marker.
 */
#include <config.h>

#include "unwind_priv.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

static const char *const end_names[] = {
	[MAPTAP_UNWIND_COMPLETE] = "complete",
	[MAPTAP_UNWIND_TRUNCATED] = "truncated",
	[MAPTAP_UNWIND_NOINFO] = "noinfo",
	[MAPTAP_UNWIND_BADFRAME] = "badframe",
};

const char *maptap_unwind_end_name(enum maptap_unwind_end end)
{
	if ((unsigned)end >= sizeof(end_names) / sizeof(end_names[0]))
		return NULL;
	return end_names[end];
}

static unw_accessors_t accessors = {
	.find_proc_info = uw_find_proc_info,
	.put_unwind_info = uw_put_unwind_info,
	.get_dyn_info_list_addr = uw_get_dyn_info_list_addr,
	.access_mem = uw_access_mem,
	.access_reg = uw_access_reg,
	.access_fpreg = uw_access_fpreg,
	.resume = NULL,
	.get_proc_name = NULL,
};

int maptap_unwinder_new(struct maptap_modules *m,
			struct maptap_unwinder **out)
{
	struct maptap_unwinder *u;

	if (!m || !out)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->m = m;
	/* unw_create_addr_space() copies the accessors table. */
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as) {
		free(u);
		return -EINVAL;
	}
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	*out = u;
	return 0;
}

void maptap_unwinder_free(struct maptap_unwinder *u)
{
	if (!u)
		return;
	unw_destroy_addr_space(u->as);
	uw_tables_free(u);
	free(u->pages);
	free(u);
}

void maptap_unwinder_get_stats(const struct maptap_unwinder *u,
			       struct maptap_unwind_stats *out)
{
	*out = u->stats;
}

/* The pages are allocated on the first backtrace, so that an unwinder
 * nobody uses costs no memory beyond its small header. */
static int stop_begin(struct maptap_unwinder *u, pid_t pid, pid_t tid)
{
	if (!u->pages) {
		u->pages = calloc(UW_SLOTS, sizeof(*u->pages));
		if (!u->pages)
			return -ENOMEM;
	}
	/* libunwind caches unwind info by pc: stale once the target ran,
	 * and wrong for another process. */
	unw_flush_cache(u->as, 0, 0);
	return uw_stop_begin(u, pid, tid);
}

static int get_pc_sp(unw_cursor_t *c, uint64_t *pc, uint64_t *sp)
{
	unw_word_t ip, s;

	if (unw_get_reg(c, UNW_REG_IP, &ip) < 0 ||
	    unw_get_reg(c, UNW_REG_SP, &s) < 0)
		return -1;
	*pc = ip;
	*sp = s;
	return 0;
}

/* The largest frame a frame-pointer step believes in (bytes from the
 * frame's stack pointer to its saved %rbp). */
#define FP_MAX_FRAME (1ULL << 20)

/* No CFI covers the frame F that cursor C is in: take the caller from
 * the frame-pointer chain (SysV x86_64 psABI, 3.4.1: a function that
 * keeps a frame pointer pushes the caller's %rbp below the return
 * address and points %rbp at it), then let libunwind start over from
 * the caller's %rip, %rsp and %rbp.  libunwind's own frame-chain guess
 * is not used: it sets the caller's stack pointer to the callee's CFA
 * plus 16, which is wrong for every frame with locals, so the next CFI
 * step from there reads garbage. */
static int fp_step(struct maptap_unwinder *u, unw_cursor_t *c,
		   const struct maptap_frame *f)
{
	unw_word_t rbp, saved_rbp, ret;

	if (unw_get_reg(c, UNW_X86_64_RBP, &rbp) < 0)
		return -1;
	if ((rbp & 7) || rbp < f->sp || rbp - f->sp > FP_MAX_FRAME)
		return -1;
	if (uw_access_mem(u->as, rbp, &saved_rbp, 0, u) < 0 ||
	    uw_access_mem(u->as, rbp + 8, &ret, 0, u) < 0 || ret == 0)
		return -1;
	uw_regs_of_cursor(u, c, &u->fp_regs);
	u->fp_regs.rip = ret;
	u->fp_regs.rsp = rbp + 16;
	u->fp_regs.rbp = saved_rbp;
	u->cur = &u->fp_regs;
	return unw_init_remote(c, u->as, u) < 0 ? -1 : 0;
}

/* How far past a module's entry point (bytes) a return address of its
 * start code may lie: the first call of every _start we know is within
 * a few instructions. */
#define ENTRY_SLACK 64

/* Is F, which no CFI covers, the outermost frame?  The psABI (3.4.1)
 * asks the deepest frame to have %rbp 0, and a program starts at its
 * ELF entry point; start code without CFI (the dynamic linker's _start
 * calls _dl_start with nothing describing it) is recognized by both. */
static bool outermost(struct maptap_unwinder *u, unw_cursor_t *c,
		      const struct maptap_frame *f)
{
	const struct mt_seg *seg;
	struct mt_inst *in = mt_inst_at(u->m, u->pid, f->pc, 0, &seg);
	unw_word_t rbp;
	GElf_Ehdr eh;
	uint64_t entry;

	if (unw_get_reg(c, UNW_X86_64_RBP, &rbp) < 0 || rbp != 0 || !in ||
	    !in->file->elf || !gelf_getehdr(in->file->elf, &eh))
		return false;
	entry = eh.e_entry + in->bias;
	return f->pc > entry && f->pc - entry <= ENTRY_SLACK;
}

/* Step C from frame F by the CFI libdw reads: .eh_frame, else
 * .debug_frame.  Returns 1 with *HOW, 0 when the CFI marks F as the
 * outermost frame, -1 (C unchanged) when neither has a usable row. */
static int dw_step(struct maptap_unwinder *u, unw_cursor_t *c,
		   const struct maptap_frame *f, enum maptap_frame_how *how)
{
	unw_cursor_t before = *c;	/* shallow copies are allowed */
	int r = uw_eh_frame_step(u, c, f);

	*how = MAPTAP_FRAME_CFI;
	if (r >= 0)
		return r;
	*c = before;
	r = uw_debug_frame_step(u, c, f);
	*how = MAPTAP_FRAME_DEBUG_FRAME;
	if (r < 0)
		*c = before;
	return r;
}

/* Step C from frame F to its caller: by libdw's CFI, else libunwind's
 * step, else the frame pointer.  Returns 1 with *HOW when there is
 * one, 0 with *END when the walk ends. */
static int step(struct maptap_unwinder *u, unw_cursor_t *c,
		const struct maptap_frame *f, enum maptap_frame_how *how,
		enum maptap_unwind_end *end)
{
	unw_cursor_t before = *c;
	int r = dw_step(u, c, f, how);

	if (r >= 0) {
		if (r == 0)
			*end = MAPTAP_UNWIND_COMPLETE;
		return r;
	}
	u->missed = false;
	r = unw_step(c);
	if (!u->missed) {
		if (r > 0) {
			*how = MAPTAP_FRAME_CFI;
			return 1;
		}
		*end = r == 0 ? MAPTAP_UNWIND_COMPLETE :
		       r == -UNW_ENOINFO ? MAPTAP_UNWIND_NOINFO :
		       MAPTAP_UNWIND_BADFRAME;
		return 0;
	}
	*c = before;
	if (fp_step(u, c, f) == 0) {
		*how = MAPTAP_FRAME_FP;
		return 1;
	}
	*end = outermost(u, c, f) ? MAPTAP_UNWIND_COMPLETE :
	       MAPTAP_UNWIND_NOINFO;
	return 0;
}

/* Could code run at PC?  Inside a module only in an executable
 * segment.  Outside every module (JIT code, anonymous executable memory)
 * only when CFI found it from a frame that CFI or the registers found:
 * a guess from a frame-pointer chain that lands outside every module is
 * most likely stack or heap. */
static bool pc_plausible(struct maptap_unwinder *u, uint64_t pc,
			 enum maptap_frame_how how,
			 enum maptap_frame_how prev_how)
{
	const struct mt_seg *seg;
	struct mt_inst *in = mt_inst_at(u->m, u->pid, pc, 0, &seg);

	if (in)
		return seg && (seg->flags & PF_X);
	return (how == MAPTAP_FRAME_CFI || how == MAPTAP_FRAME_DEBUG_FRAME) &&
	       prev_how != MAPTAP_FRAME_FP;
}

/* Is the frame just stepped to believable after PREV?  A caller's frame
 * lies above its callee's on the stack (it grows down); only a signal
 * frame may switch stacks (sigaltstack(2)). */
static bool believable(struct maptap_unwinder *u,
		       const struct maptap_frame *prev, uint64_t pc,
		       uint64_t sp, enum maptap_frame_how how)
{
	if (pc == 0 || !(prev->signal || sp > prev->sp))
		return false;
	return pc_plausible(u, pc, how, prev->how);
}

static unsigned walk(struct maptap_unwinder *u, unw_cursor_t *c,
		     struct maptap_frame *frames, unsigned max,
		     enum maptap_unwind_end *end)
{
	enum maptap_frame_how how = MAPTAP_FRAME_REGS;
	bool activation = true;
	uint64_t pc, sp;
	unsigned n = 0;

	for (;;) {
		if (get_pc_sp(c, &pc, &sp) != 0) {
			*end = MAPTAP_UNWIND_BADFRAME;
			break;
		}
		if (n > 0 && !believable(u, &frames[n - 1], pc, sp, how)) {
			/* a zero return address where CFI says it is: the
			 * bottom of a stack that a runtime (a new thread's
			 * clone child) set up */
			*end = pc == 0 && (how == MAPTAP_FRAME_CFI ||
					   how == MAPTAP_FRAME_DEBUG_FRAME) ?
			       MAPTAP_UNWIND_COMPLETE : MAPTAP_UNWIND_BADFRAME;
			break;
		}
		if (n == max) {
			*end = MAPTAP_UNWIND_TRUNCATED;
			break;
		}
		frames[n].pc = pc;
		frames[n].sp = sp;
		frames[n].activation = activation;
		frames[n].signal = unw_is_signal_frame(c) > 0;
		frames[n].how = how;
		activation = frames[n].signal;
		if (how == MAPTAP_FRAME_FP)
			u->stats.fp_frames++;
		else if (how == MAPTAP_FRAME_DEBUG_FRAME)
			u->stats.debug_frames++;
		n++;
		if (!step(u, c, &frames[n - 1], &how, end))
			break;
	}
	return n;
}

int maptap_unwind(struct maptap_unwinder *u, pid_t pid, pid_t tid,
		  struct maptap_frame *frames, unsigned max,
		  enum maptap_unwind_end *end)
{
	enum maptap_unwind_end e = MAPTAP_UNWIND_COMPLETE;
	unw_cursor_t c;
	unsigned n;
	int rc;

	if (!u || !frames || pid <= 0 || tid <= 0)
		return -EINVAL;
	if (!max)
		max = MAPTAP_MAXBACKTRACE;
	rc = stop_begin(u, pid, tid);
	if (rc)
		return rc;
	u->stats.backtraces++;
	if (unw_init_remote(&c, u->as, u) < 0) {
		/* Frame 0 is known even when libunwind will not start. */
		frames[0] = (struct maptap_frame){
			.pc = u->regs.rip, .sp = u->regs.rsp,
			.activation = true, .how = MAPTAP_FRAME_REGS,
		};
		e = MAPTAP_UNWIND_BADFRAME;
		n = 1;
	} else {
		n = walk(u, &c, frames, max, &e);
	}
	u->stats.frames += n;
	if (end)
		*end = e;
	return (int)n;
}

int maptap_unwind_sample(struct maptap_unwinder *u, pid_t pid, pid_t tid,
			 const struct user_regs_struct *regs,
			 const void *stack, size_t stack_len,
			 struct maptap_frame *frames, unsigned max,
			 enum maptap_unwind_end *end)
{
	enum maptap_unwind_end e = MAPTAP_UNWIND_COMPLETE;
	unw_cursor_t c;
	unsigned n;

	if (!u || !frames || !regs || pid <= 0)
		return -EINVAL;
	if (!max)
		max = MAPTAP_MAXBACKTRACE;
	if (!u->pages) {
		u->pages = calloc(UW_SLOTS, sizeof(*u->pages));
		if (!u->pages)
			return -ENOMEM;
	}
	unw_flush_cache(u->as, 0, 0);
	uw_sample_begin(u, pid, tid, regs, stack, stack_len);
	u->stats.backtraces++;
	if (unw_init_remote(&c, u->as, u) < 0) {
		frames[0] = (struct maptap_frame){
			.pc = regs->rip, .sp = regs->rsp,
			.activation = true, .how = MAPTAP_FRAME_REGS,
		};
		e = MAPTAP_UNWIND_BADFRAME;
		n = 1;
	} else {
		n = walk(u, &c, frames, max, &e);
	}
	/* The copy is the caller's: no pointer to it outlives the call. */
	u->sample = false;
	u->stk = NULL;
	u->stats.frames += n;
	if (end)
		*end = e;
	return (int)n;
}

int maptap_frame_lookup(struct maptap_modules *m, pid_t pid,
			const struct maptap_frame *f, unsigned flags,
			struct maptap_sym_info *out)
{
	uint64_t at = f->activation || f->pc == 0 ? f->pc : f->pc - 1;
	int rc = maptap_sym_lookup(m, pid, at, 0, flags, out);

	if (out->func.name)
		out->func.offset += f->pc - at;
	return rc;
}
