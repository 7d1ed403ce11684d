/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* inject.c -- let go of a thread under the launch filter without harm.
 *
 * maptap's launch filter returns SECCOMP_RET_TRACE, and a filter cannot
 * be removed.  A thread maptap lets go of (for its own PTRACE_TRACEME, or
 * for another traced thread's PTRACE_ATTACH/SEIZE) keeps it, and with no
 * tracer that set PTRACE_O_TRACESECCOMP the kernel fails those calls with
 * ENOSYS (seccomp(2)).  So before letting go, maptap makes the thread
 * install a second filter, for the same calls, that returns
 * SECCOMP_RET_USER_NOTIF: that action outranks TRACE (seccomp(2): KILL >
 * TRAP > ERRNO > USER_NOTIF > TRACE > ALLOW), and maptap answers each
 * notification with SECCOMP_USER_NOTIF_FLAG_CONTINUE (listeners.c), so
 * the call runs as with no filter of maptap's.  The filter applies to
 * that thread and what it creates after, nothing else.
 *
 * The thread makes the call itself, in a ptrace stop maptap holds:
 *
 *   - at the entry (syscall-entry or seccomp stop) of a call made by a
 *     `syscall` instruction, the number and arguments are replaced by
 *     seccomp(2)'s, and the thread runs to that call's exit stop; then
 *     close(2) of the listener's number in the target, from the same
 *     instruction; then the registers are restored with the instruction
 *     pointer back on the instruction and rax the original number, so
 *     that the call is made again when the thread goes on, this time
 *     through the new filter;
 *   - at our interrupt's stop (PTRACE_EVENT_STOP), the instruction
 *     pointer is moved to a `syscall` instruction (the one the thread's
 *     interrupted call used, or one in the vDSO), the two calls are made
 *     the same way, and every register restored; an interrupted call is
 *     then restarted by the kernel on the way out, as from that stop
 *     (see mt_release_filter()).
 *
 * The filter program and its struct sock_fprog are written below the red
 * zone under the stack pointer, memory the ABI leaves free.  The
 * listener reaches maptap by pidfd_getfd(2).  The thread installing a
 * filter already has no_new_privs or CAP_SYS_ADMIN: maptap's own filter
 * needed the same.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* <linux/pidfd.h>, Linux 6.9 */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define RED_ZONE 128
/* The code segment of 64-bit user mode (arch/x86/include/asm/segment.h,
 * __USER_CS). */
#define USER64_CS 0x33

static bool is_syscall_insn(pid_t tid, uint64_t addr)
{
	unsigned char b[2];

	return maptap_read_user(tid, addr, b, 2) == 2 &&
	       b[0] == 0x0f && b[1] == 0x05;
}

uint64_t mt_vdso_syscall(pid_t tid)
{
	unsigned long long lo, hi;
	unsigned char *buf;
	char path[64], line[512];
	uint64_t found = 0;
	ssize_t n, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &lo, &hi) == 2)
			break;
		else
			lo = hi = 0;
	fclose(f);
	if (hi <= lo || hi - lo > (1 << 20))
		return 0;
	buf = malloc(hi - lo);
	if (!buf)
		return 0;
	n = maptap_read_user(tid, lo, buf, (size_t)(hi - lo));
	for (i = 0; i + 1 < n; i++)
		if (buf[i] == 0x0f && buf[i + 1] == 0x05) {
			found = lo + (uint64_t)i;
			break;
		}
	free(buf);
	return found;
}

static int get_regs(pid_t tid, struct user_regs_struct *r)
{
	return ptrace(PTRACE_GETREGS, tid, 0L, r) ? -errno : 0;
}

static int set_regs(pid_t tid, const struct user_regs_struct *r)
{
	return ptrace(PTRACE_SETREGS, tid, 0L, r) ? -errno : 0;
}

/* One injection under way: the thread, what it owes the caller. */
struct job {
	struct maptap_session *s;
	pid_t tid;
	int sig;		/* a signal held back meanwhile, to deliver at
				 * the let-go; 0 none */
	int status;		/* when the thread died: its wait status */
	bool dead;
	bool filter_in;		/* seccomp(2) succeeded in the target */
};

/* Resume the thread with PTRACE_SYSCALL and wait for its next syscall
 * or seccomp stop, answering the listeners meanwhile (a call of the
 * thread's may wait for one, once its new filter is in).  Stops of
 * another kind on the way: a signal is held back for the let-go (one;
 * a second is passed on, at the cost of running its handler now), an
 * interrupt or group-stop is passed (the group-stop comes back at the
 * let-go: ptrace(2), PTRACE_DETACH).  Returns 0 at such a stop with
 * *OP the PTRACE_SYSCALL_INFO_* kind, -ESRCH when the thread died
 * (J->dead), or -errno. */
static int step(struct job *j, int *op)
{
	struct __ptrace_syscall_info info;
	int status, sig = 0;
	pid_t r;

	for (;;) {
		if (ptrace(PTRACE_SYSCALL, j->tid, 0L, (long)sig) != 0)
			return -errno;
		sig = 0;
		for (;;) {
			r = waitpid(j->tid, &status, __WALL | WNOHANG);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return -errno;
			if (r > 0)
				break;
			mt_listeners_poll(j->s);
			mt_wait_tick(j->s);
		}
		if (!WIFSTOPPED(status)) {
			j->dead = true;
			j->status = status;
			return -ESRCH;
		}
		if (WSTOPSIG(status) == (SIGTRAP | 0x80) ||
		    status >> 16 == PTRACE_EVENT_SECCOMP)
			break;
		if (status >> 16 == 0) {	/* signal-delivery-stop */
			if (!j->sig)
				j->sig = WSTOPSIG(status);
			else
				sig = WSTOPSIG(status);
		}
	}
	if (ptrace(PTRACE_GET_SYSCALL_INFO, j->tid, (void *)sizeof(info),
		   &info) <= 0)
		return -EIO;
	*op = info.op;
	return 0;
}

/* From a stop where the registers REGS make the thread enter a call
 * (set orig_rax at an entry stop; rip at a syscall instruction and rax
 * elsewhere), run that call to its exit stop and return its result in
 * *RET.  Returns 0 or -errno. */
static int run_call(struct job *j, const struct user_regs_struct *regs,
		    long *ret)
{
	struct user_regs_struct out;
	int err, op;

	err = set_regs(j->tid, regs);
	while (!err) {
		err = step(j, &op);
		if (!err && op == PTRACE_SYSCALL_INFO_EXIT)
			break;
	}
	if (!err)
		err = get_regs(j->tid, &out);
	if (err)
		return err;
	*ret = (long)out.rax;
	return 0;
}

/* Write the USER_NOTIF filter and its sock_fprog below the red zone
 * under SP; its address in *AT.  Returns 0 or -errno. */
static int write_prog(struct maptap_session *s, pid_t tid, uint64_t sp,
		      uint64_t *at)
{
	struct sock_filter prog[MT_SECCOMP_PROG_MAX];
	struct sock_fprog fprog;
	struct iovec local[2], remote;
	int len = mt_seccomp_build(prog, &s->opts, SECCOMP_RET_USER_NOTIF);
	size_t size;
	uint64_t addr;

	if (len < 0)
		return len;
	size = sizeof(fprog) + (size_t)len * sizeof(prog[0]);
	addr = (sp - RED_ZONE - size) & ~(uint64_t)15;
	fprog.len = (unsigned short)len;
	fprog.filter = (struct sock_filter *)(uintptr_t)(addr + sizeof(fprog));
	local[0].iov_base = &fprog;
	local[0].iov_len = sizeof(fprog);
	local[1].iov_base = prog;
	local[1].iov_len = (size_t)len * sizeof(prog[0]);
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = size;
	if (process_vm_writev(tid, local, 2, &remote, 1, 0) != (ssize_t)size)
		return errno ? -errno : -EIO;
	*at = addr;
	return 0;
}

/* Take the target's listener FD into maptap and hand it to the session.
 * Returns 0 or -errno. */
static int take_listener(struct maptap_session *s, struct mt_thread *t,
			 int fd)
{
	int pidfd, mine, err;

	/* A thread's own pidfd reaches the fd table even when its leader
	 * is a zombie; before Linux 6.9, the process's. */
	pidfd = (int)syscall(SYS_pidfd_open, t->tid, PIDFD_THREAD);
	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, t->proc->pid, 0);
	if (pidfd < 0)
		return -errno;
	mine = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	err = mine < 0 ? -errno : 0;
	close(pidfd);
	if (err)
		return err;
	err = mt_listeners_add(s, mine);
	if (err)
		close(mine);
	return err;
}

/* Have the thread (at a stop where CALL enters seccomp(2)) install the
 * filter from PROG, take the listener, close it in the target.  CALL
 * is left as the registers of the last exit stop.  Returns 0 or -errno;
 * J->filter_in says whether the filter went in (then without a listener
 * of ours, its calls fail with ENOSYS, as under maptap's filter alone;
 * a failed close only leaves a stray descriptor in the target). */
static int install(struct job *j, struct mt_thread *t,
		   struct user_regs_struct *call, uint64_t insn, uint64_t prog)
{
	long fd, ret;
	int err;

	call->rdi = SECCOMP_SET_MODE_FILTER;
	call->rsi = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	call->rdx = prog;
	err = run_call(j, call, &fd);
	if (err)
		return err;
	if (fd < 0)
		return (int)fd;
	j->filter_in = true;
	err = take_listener(j->s, t, (int)fd);
	/* close(fd) from the same instruction, from this exit stop. */
	call->rip = insn;
	call->rax = SYS_close;
	call->orig_rax = (uint64_t)-1;
	call->rdi = (uint64_t)fd;
	if (!j->dead)
		(void)run_call(j, call, &ret);
	return err;
}

int mt_release_filter(struct maptap_session *s, struct mt_thread *t,
		      bool at_syscall, int *sig)
{
	struct user_regs_struct saved, call;
	struct job j = { .s = s, .tid = t->tid };
	uint64_t insn, prog;
	int err, op;

	*sig = 0;
	err = get_regs(t->tid, &saved);
	if (err)
		return err;
	if (saved.cs != USER64_CS)
		return -ENOTSUP;	/* a 32-bit program: another ABI */
	if (at_syscall) {
		insn = saved.rip - 2;
		if (!is_syscall_insn(t->tid, insn))
			return -ENOTSUP;
	} else {
		insn = saved.rip - 2;
		if ((long)saved.orig_rax < 0 || !is_syscall_insn(t->tid, insn))
			insn = mt_vdso_syscall(t->tid);
		if (!insn)
			return -ENOTSUP;
	}
	err = write_prog(s, t->tid, saved.rsp, &prog);
	if (err)
		return err;
	call = saved;
	if (at_syscall) {
		call.orig_rax = SYS_seccomp;
	} else {
		call.rip = insn;
		call.rax = SYS_seccomp;
		call.orig_rax = (uint64_t)-1;
	}
	err = install(&j, t, &call, insn, prog);
	if (j.dead)
		goto dead;
	/* At an entry, make the call again: it is the next thing the thread
	 * does.  At an interrupt stop, the registers as they were: a call
	 * interrupted there is restarted (or fails with EINTR) on the way
	 * out, as it would have been from that stop, because the let-go's
	 * PTRACE_DETACH wakes the thread with TIF_SIGPENDING set
	 * (kernel/ptrace.c, __ptrace_unlink()), so it passes
	 * arch_do_signal_or_restart() on its way to user space. */
	if (at_syscall) {
		saved.rip = insn;
		saved.rax = saved.orig_rax;
	}
	if (!j.dead && set_regs(t->tid, &saved) != 0)
		return err ? err : -EIO;
	if (err && at_syscall && !j.filter_in && !j.dead) {
		/* Without the new filter, back to where it was: the call's
		 * own seccomp stop, where the caller lets go as before. */
		do {
			if (step(&j, &op))
				break;
		} while (op != PTRACE_SYSCALL_INFO_SECCOMP);
		if (j.dead)
			goto dead;
	}
	*sig = j.sig;
	return err;
dead:
	mt_handle_status(s, t->tid, j.status);
	return -ESRCH;
}

#else

int mt_release_filter(struct maptap_session *s, struct mt_thread *t,
		      bool at_syscall, int *sig)
{
	(void)s;
	(void)t;
	(void)at_syscall;
	*sig = 0;
	return -ENOTSUP;
}

#endif
