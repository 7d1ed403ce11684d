/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtins_ucontext.c -- script functions of the stopped thread's user
 * context: uaddr(), register(), u_register(), as stap's
 * tapset/linux/ucontext.stp and tapset/x86_64/registers.stp have them.
 * Split from builtins_user.c (as stap keeps ucontext apart from its
 * symbols and its conversions); the code is as it was there.
 *
 * Group 2 of builtins.c's groups: ids from 2 * TR_BUILTIN_GROUP_BASE.
 * All read the thread stopped at the event (tr_builtin_at_stop()).
 */
#include <config.h>

#include <stddef.h>
#include <string.h>
#include <sys/user.h>

#include <maptap/profile.h>
#include <maptap/session.h>

#include "builtins_user.h"

#define ID(n) (2 * TR_BUILTIN_GROUP_BASE + (n))

enum {
	U_UADDR = ID(0), U_REGISTER, U_U_REGISTER,
};

#define L TY_LONG
#define S TY_STRING
#define U TY_UNKNOWN
static const struct tr_builtin table[] = {
	{ "uaddr", 0, 0, { U }, L, U_UADDR },
	{ "register", 1, 1, { S }, L, U_REGISTER },
	{ "u_register", 1, 1, { S }, L, U_U_REGISTER },
};

#undef L
#undef S
#undef U

static bool get_regs(struct interp *I, struct user_regs_struct *r)
{
	const struct tr_target *t = I->tgt;

	if (t && t->pid > 0 && t->sample) {
		if (!t->sample->has_regs)
			return false;
		*r = *t->sample->regs;	/* the user registers sampled */
		return true;
	}
	if (!t || !t->sess || t->pid <= 0 || !t->stopped)
		return false;
	return maptap_session_get_regs(t->sess, t->tid, r) == 0;
}

/* The user PC of the stopped thread: the syscall stop knows it, other
 * stops ask for the registers.  0 outside process context, as stap's
 * uaddr() when the task is not a user thread. */
static int64_t uaddr(struct interp *I)
{
	struct user_regs_struct r;

	if (cur_pid(I) <= 0)
		return 0;
	if (I->tgt->sc)
		return (int64_t)I->tgt->sc->pc;
	if (!get_regs(I, &r))
		return 0;
	return (int64_t)r.rip;
}

struct reg_name {
	const char *name;
	unsigned short off;	/* offsetof(struct user_regs_struct, ...) */
	bool is32;		/* the low half of a 64-bit register */
};

#define R(name, field) { name, offsetof(struct user_regs_struct, field), 0 }
#define R32(name, field) { name, offsetof(struct user_regs_struct, field), 1 }

/* The names of tapset/x86_64/registers.stp: pt_regs' fields, their
 * short aliases, and the 32-bit halves. */
static const struct reg_name reg_names[] = {
	R("r15", r15), R("r14", r14), R("r13", r13), R("r12", r12),
	R("rbp", rbp), R("bp", rbp), R("rbx", rbx), R("bx", rbx),
	R("r11", r11), R("r10", r10), R("r9", r9), R("r8", r8),
	R("rax", rax), R("ax", rax), R("rcx", rcx), R("cx", rcx),
	R("rdx", rdx), R("dx", rdx), R("rsi", rsi), R("si", rsi),
	R("rdi", rdi), R("di", rdi), R("orig_rax", orig_rax),
	R("orig_ax", orig_rax), R("rip", rip), R("ip", rip),
	R("xcs", cs), R("cs", cs), R("eflags", eflags), R("flags", eflags),
	R("rsp", rsp), R("sp", rsp), R("xss", ss), R("ss", ss),
	R32("ebp", rbp), R32("ebx", rbx), R32("eax", rax), R32("ecx", rcx),
	R32("edx", rdx), R32("esi", rsi), R32("edi", rdi),
	R32("orig_eax", orig_rax), R32("eip", rip), R32("esp", rsp),
};

#undef R
#undef R32

/* register(name) sign-extends the 32-bit names, u_register(name) does
 * not (registers.stp _stp_register()). */
static int64_t reg_value(struct interp *I, struct node *n, bool sign)
{
	struct sref name = arg_s(I, n, 0);
	struct user_regs_struct r;
	const struct reg_name *rn = NULL;
	uint64_t v;
	size_t i;

	if (!get_regs(I, &r))
		tr_rt_error(I, n->tok,
			    "cannot access CPU registers in this context");
	for (i = 0; i < sizeof(reg_names) / sizeof(reg_names[0]); i++)
		if (!strcmp(reg_names[i].name, name.p))
			rn = &reg_names[i];
	if (!rn)
		tr_rt_error(I, n->tok, "Unknown register: %s", name.p);
	memcpy(&v, (const char *)&r + rn->off, sizeof(v));
	if (!rn->is32)
		return (int64_t)v;
	return sign ? (int64_t)(int32_t)(uint32_t)v : (int64_t)(uint32_t)v;
}

static void call(struct interp *I, struct node *n, int64_t *l,
		 struct sref *s)
{
	(void)s;
	if (n->builtin == U_UADDR)
		*l = uaddr(I);
	else
		*l = reg_value(I, n, n->builtin == U_REGISTER);
}

/* uaddr() and the registers are the stopped thread's. */
static bool at_stop(int id)
{
	(void)id;
	return true;
}

const struct tr_builtin_group tr_builtins_ucontext = {
	.set = {
		.table = table,
		.n = sizeof(table) / sizeof(table[0]),
		.at_stop = at_stop,
	},
	.call = call,
};
