/* seccomp.c -- the filter that makes a launched process stop only on the
 * calls maptap must see (seccomp(2), SECCOMP_RET_TRACE).
 *
 * Built from the syscall table: every call whose class is not
 * MAPTAP_SC_NONE traces; prctl traces only for PR_SET_VMA; everything else
 * is allowed at no cost.  A call of another ABI (i386, x32) traces too, so
 * that nothing escapes unseen; the tracer then says it cannot decode it.
 */
#include "tracer.h"

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

#define LD_ABS(field) \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))

static struct sock_filter jump(unsigned nr, unsigned jt, unsigned jf)
{
	return (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr,
					    (unsigned char)jt, (unsigned char)jf);
}

/* Build the program into PROG (room for MAX instructions).  Layout:
 *   0    load arch; other ABIs -> TRACE
 *   3    load nr; one compare per traced call -> TRACE
 *   C    nr == prctl ? (args[0] == PR_SET_VMA ? TRACE : ALLOW)
 *   C+3  nr == clone ? (args[0] & CLONE_UNTRACED ? TRACE : ALLOW) : ALLOW
 *   C+6  ALLOW
 *   C+7  TRACE
 * clone3 keeps its flags in memory the filter cannot read, so it is in
 * the traced list.  Returns the length, or -E2BIG. */
static int build(struct sock_filter *prog, unsigned max)
{
	unsigned i, n, k = 0, ntrace = 0, c, trace_at;
	const struct maptap_syscall *t =
		maptap_syscall_table(maptap_syscall_native_arch(), &n);
	int prctl_nr = -1, clone_nr = -1;

	for (i = 0; i < n; i++) {
		if (t[i].cls == MAPTAP_SC_NONE)
			continue;
		if (t[i].range == MAPTAP_RANGE_PRCTL)
			prctl_nr = t[i].nr;
		else if (t[i].cls == MAPTAP_SC_CLONE)
			clone_nr = t[i].nr;
		else
			ntrace++;
	}
	if (ntrace + 12 > max || ntrace + 12 > 250)
		return -E2BIG;
	c = 4 + ntrace;
	trace_at = c + 7;

	prog[k++] = (struct sock_filter)LD_ABS(arch);
	prog[k++] = jump(maptap_syscall_native_arch(), 1, 0);
	prog[k++] = (struct sock_filter)RET(SECCOMP_RET_TRACE);
	prog[k++] = (struct sock_filter)LD_ABS(nr);
	for (i = 0; i < n; i++) {
		if (t[i].cls == MAPTAP_SC_NONE || t[i].cls == MAPTAP_SC_CLONE ||
		    t[i].range == MAPTAP_RANGE_PRCTL)
			continue;
		prog[k] = jump((unsigned)t[i].nr, trace_at - (k + 1), 0);
		k++;
	}
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
	prog[k++] = (struct sock_filter)RET(SECCOMP_RET_TRACE);
	return (int)k;
}

/* Install the filter on the calling thread.  Used in the launched child
 * between fork and exec: no allocation, async-signal-safe calls only.
 * Without CAP_SYS_ADMIN the kernel requires no_new_privs first
 * (seccomp(2)); with it, the target keeps its set-uid behaviour.
 * Returns 0 or -errno. */
int mt_seccomp_install(void)
{
	struct sock_filter prog[256];
	struct sock_fprog fprog;
	int len = build(prog, sizeof(prog) / sizeof(prog[0]));

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
