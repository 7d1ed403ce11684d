/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* seccomp.c -- the filter that makes a launched process stop only on the
 * calls maptap must see (seccomp(2), SECCOMP_RET_TRACE).
 *
 * Built from the syscall table: every call whose class is not
 * MAPTAP_SC_NONE traces; prctl traces only for PR_SET_VMA; everything else
 * is allowed at no cost.  The calls a session asked to see for
 * on_syscall (maptap_session_opts.syscalls) trace too, whatever their
 * arguments, and with all_syscalls every call does.  A call of another
 * ABI (i386, x32) traces too, so that nothing escapes unseen; the tracer
 * then says it cannot decode it.
 *
 * seccomp(2) itself traces, so that a filter of the target's with a
 * listener is seen being installed.
 *
 * Every TRACE return carries MT_SECCOMP_DATA, so that a stop another
 * filter of the target asked for is told from maptap's (docs/tracer.md,
 * "Other seccomp filters in the target").
 *
 * The program only compares the call number with constants until it
 * reaches a return, so the kernel's per-number cache of calls that are
 * always allowed (kernel/seccomp.c, seccomp_cache_prepare) covers every
 * call outside the traced set: those cost no filter run at all.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLONE_UNTRACED
#define CLONE_UNTRACED 0x00800000	/* <linux/sched.h> */
#endif
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif

/* Compares per block: a conditional jump's offset is 8 bits
 * (linux/filter.h), so each block has its own TRACE return in reach. */
#define BLOCK 200
#define PROG_MAX MT_SECCOMP_PROG_MAX

#define LD_ABS(field) \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
/* maptap's TRACE, told from another filter's at the stop by its data. */
#define MT_TRACE (SECCOMP_RET_TRACE | MT_SECCOMP_DATA)

static struct sock_filter jump(unsigned nr, unsigned jt, unsigned jf)
{
	return (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr,
					    (unsigned char)jt, (unsigned char)jf);
}

/* Whether the table alone makes row SC trace unconditionally (prctl and
 * clone trace only for some arguments: see build()). */
static bool class_traces(const struct maptap_syscall *sc)
{
	return sc && sc->cls != MAPTAP_SC_NONE && sc->cls != MAPTAP_SC_CLONE &&
	       sc->range != MAPTAP_RANGE_PRCTL;
}

static bool selected(const struct maptap_session_opts *o, unsigned nr)
{
	return o && o->on_syscall && nr < MAPTAP_SYSCALL_SET_BITS &&
	       (o->syscalls[nr / 64] >> (nr % 64) & 1);
}

/* Close the open block of IN_BLOCK compares ending at *K: point their
 * jumps at a TRACE (ACT) return placed after a jump over it. */
static void close_block(struct sock_filter *prog, unsigned *k,
			unsigned in_block, uint32_t act)
{
	unsigned i;

	for (i = *k - in_block; i < *k; i++)
		prog[i].jt = (unsigned char)(*k - i);
	prog[(*k)++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0);
	prog[(*k)++] = (struct sock_filter)RET(act);
}

/* Append a compare of the number with NR at *K; *IN_BLOCK counts the
 * compares of the open block, closed when full. */
static void add_compare(struct sock_filter *prog, unsigned *k,
			unsigned *in_block, unsigned nr, uint32_t act)
{
	prog[(*k)++] = jump(nr, 0, 0);
	if (++*in_block < BLOCK)
		return;
	close_block(prog, k, *in_block, act);
	*in_block = 0;
}

/* Build the program for OPTS (NULL: no on_syscall) into PROG (room for
 * PROG_MAX instructions), with ACT where this comment says TRACE (the
 * launch filter's SECCOMP_RET_TRACE; SECCOMP_RET_USER_NOTIF for the
 * filter a thread gets when maptap lets go of it, inject.c).  With
 * all_syscalls, one instruction: TRACE.
 * Otherwise:
 *   0    load arch; other ABIs -> TRACE
 *   3    load nr
 *   4    blocks of compares, one per traced number -> the block's TRACE;
 *        each block ends with "JA +1; TRACE"
 *   C    nr == prctl ? (args[0] == PR_SET_VMA ? TRACE : ALLOW)
 *   C+3  nr == clone ? (args[0] & CLONE_UNTRACED ? TRACE : ALLOW) : ALLOW
 *   C+6  ALLOW
 *   C+7  TRACE
 * clone3 keeps its flags in memory the filter cannot read, so it is in
 * the traced list.  Returns the length, or -E2BIG. */
int mt_seccomp_build(struct sock_filter *prog,
		     const struct maptap_session_opts *opts, uint32_t act)
{
	unsigned i, n, k = 0, in_block = 0, nr;
	const struct maptap_syscall *t =
		maptap_syscall_table(maptap_syscall_native_arch(), &n);
	int prctl_nr = -1, clone_nr = -1;

	if (opts && opts->on_syscall && opts->all_syscalls) {
		prog[k++] = (struct sock_filter)RET(act);
		return (int)k;
	}
	prog[k++] = (struct sock_filter)LD_ABS(arch);
	prog[k++] = jump(maptap_syscall_native_arch(), 1, 0);
	prog[k++] = (struct sock_filter)RET(act);
	prog[k++] = (struct sock_filter)LD_ABS(nr);
	for (nr = 0; nr < MAPTAP_SYSCALL_SET_BITS; nr++) {
		const struct maptap_syscall *sc =
			maptap_syscall_lookup(maptap_syscall_native_arch(),
					      (int)nr);

		/* seccomp(2) too: a filter with a listener changes how
		 * maptap must follow the process (loop.c, watch_filter()). */
		if (selected(opts, nr) || class_traces(sc) ||
		    nr == SYS_seccomp)
			add_compare(prog, &k, &in_block, nr, act);
	}
	for (i = 0; i < n; i++) {
		if (t[i].range == MAPTAP_RANGE_PRCTL)
			prctl_nr = t[i].nr;
		else if (t[i].cls == MAPTAP_SC_CLONE)
			clone_nr = t[i].nr;
		else if (t[i].nr >= MAPTAP_SYSCALL_SET_BITS &&
			 class_traces(&t[i]))
			add_compare(prog, &k, &in_block, (unsigned)t[i].nr,
				    act);
		if (k + 16 > PROG_MAX)
			return -E2BIG;
	}
	close_block(prog, &k, in_block, act);
	/* prctl(PR_SET_VMA, ...) only; option is an int, the low word of
	 * args[0] on this little-endian ABI. */
	prog[k++] = jump((unsigned)prctl_nr, 0, 2);
	prog[k++] = (struct sock_filter)LD_ABS(args[0]);
	prog[k++] = jump(PR_SET_VMA, 4, 3);
	/* clone(CLONE_UNTRACED): the tracer clears the flag so the child
	 * stays traced (a child outside maptap would keep this filter with
	 * nobody to answer it, and its mapping calls would fail). */
	prog[k++] = jump((unsigned)clone_nr, 0, 2);
	prog[k++] = (struct sock_filter)LD_ABS(args[0]);
	prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
						 CLONE_UNTRACED, 1, 0);
	prog[k++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	prog[k++] = (struct sock_filter)RET(act);
	return (int)k;
}

/* Install the filter on the calling thread.  Used in the launched child
 * between fork and exec: no allocation, async-signal-safe calls only.
 * Without CAP_SYS_ADMIN the kernel requires no_new_privs first
 * (seccomp(2)); with it, the target keeps its set-uid behaviour.
 * Returns 0 or -errno. */
int mt_seccomp_install(const struct maptap_session_opts *opts)
{
	struct sock_filter prog[PROG_MAX];
	struct sock_fprog fprog;
	int len = mt_seccomp_build(prog, opts, MT_TRACE);

	if (len < 0)
		return len;
	fprog.len = (unsigned short)len;
	fprog.filter = prog;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) == 0)
		return 0;
	if (errno != EACCES)
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
		return -errno;
	return 0;
}
