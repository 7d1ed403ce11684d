/* SPDX-License-Identifier: GPL-2.0-or-later */
/* floor.c -- the least a ptrace tracer of the mapping calls can do: the
 * baseline that bench/tracer/floor.sh measures maptap against (issue 16).
 *
 * It runs COMMAND under a seccomp filter that traps the calls maptap's
 * table marks as mapping calls (MAPTAP_SC_MAP, the same set maptap's own
 * filter traps; prctl for every option), follows its threads and
 * children, and at each seccomp stop resumes to the call's exit with
 * PTRACE_SYSCALL, at each exit stop with PTRACE_CONT: one blocking
 * waitpid(2) and one resume per stop, nothing read, nothing logged.  It
 * knows nothing of the address space: what it costs is what stopping
 * costs.  With -e, munmap, mprotect and madvise stop only at their
 * entry (the first lever of issue 16 that maptap uses for a
 * single-threaded mm).  With -m, the system calls maptap makes for a
 * single-threaded mm, and nothing else: every traced call stops only at
 * its entry (mmap too: maptap finds its mapping at the next stop), and
 * at each seccomp stop PTRACE_GET_SYSCALL_INFO and one PROCMAP_QUERY of
 * /proc/PID/maps -- maptap's stops without maptap's own work.
 *
 * Usage: floor [-e | -m] COMMAND [ARG...]
 * Prints "floor: N stops (S seccomp, X exit)" on stderr and exits with
 * COMMAND's status (128 + signal when it was killed), 127 when it cannot
 * start.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../runtime/model/procmap_query.h"

enum cls { NONE, MAP, EXEC, PTRACE, CLONE, CLONE3 };

static const struct {
	int nr;
	enum cls cls;
} table[] = {
#define SYSCALL(nr, name, cls, range) { nr, cls },
#include "../../runtime/tracer/syscalls_x86_64.h"
#undef SYSCALL
};

#define NCALLS (sizeof(table) / sizeof(table[0]))
#define DATA_EXIT 1	/* stop at the exit too */
#define DATA_ENTRY 2	/* -e: the entry is enough */

static int entry_only(int nr, int eflag)
{
	return eflag == 2 || (eflag && (nr == SYS_munmap ||
					nr == SYS_mprotect ||
					nr == SYS_madvise));
}

/* -m: what maptap reads at a seccomp stop of TID: the call
 * (PTRACE_GET_SYSCALL_INFO) and one VMA (PROCMAP_QUERY on the maps of
 * TID's process, opened once: *FD). */
static void read_as_maptap(pid_t tid, int *fd)
{
	struct __ptrace_syscall_info info;
	struct procmap_query q;
	char path[64];

	ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(info), &info);
	if (*fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
		*fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
	q.query_addr = info.seccomp.args[0];
	ioctl(*fd, PROCMAP_QUERY, &q);
}

/* One compare and one return per traced number: short enough for the
 * 21 numbers, no block jumps needed. */
static int install(int eflag)
{
	struct sock_filter prog[4 + 2 * NCALLS + 1];
	struct sock_fprog fp;
	unsigned k = 0, i;

	prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, arch));
	prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		AUDIT_ARCH_X86_64, 1, 0);
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_ALLOW);
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, nr));
	for (i = 0; i < NCALLS; i++) {
		if (table[i].cls != MAP)
			continue;
		prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
			BPF_K, (unsigned)table[i].nr, 0, 1);
		prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_TRACE | (entry_only(table[i].nr, eflag) ?
					     DATA_ENTRY : DATA_EXIT));
	}
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_ALLOW);
	fp.len = (unsigned short)k;
	fp.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
}

int main(int argc, char **argv)
{
	unsigned long nsecc = 0, nexit = 0, msg;
	int eflag = 0, status, rc = 127, maps_fd = -1;
	pid_t child, tid;

	if (argc > 1 && (strcmp(argv[1], "-e") == 0 ||
			 strcmp(argv[1], "-m") == 0)) {
		eflag = argv[1][1] == 'm' ? 2 : 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: floor [-e | -m] COMMAND [ARG...]\n");
		return 127;
	}
	child = fork();
	if (child < 0) {
		perror("floor: fork");
		return 127;
	}
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0L, 0L, 0L) != 0 || raise(SIGSTOP))
			_exit(127);
		if (install(eflag) != 0) {
			perror("floor: seccomp");
			_exit(127);
		}
		execvp(argv[1], argv + 1);
		perror("floor: exec");
		_exit(127);
	}
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, child, 0L,
		   (void *)(long)(PTRACE_O_TRACESECCOMP |
				  PTRACE_O_TRACESYSGOOD |
				  PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
				  PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |
				  PTRACE_O_EXITKILL)) != 0) {
		perror("floor: ptrace");
		kill(child, SIGKILL);
		return 127;
	}
	ptrace(PTRACE_CONT, child, 0L, 0L);
	for (;;) {
		long req = PTRACE_CONT, sig = 0;
		int ev;

		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			break;		/* ECHILD: all gone */
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (tid == child)
				rc = WIFEXITED(status) ? WEXITSTATUS(status) :
				     128 + WTERMSIG(status);
			continue;
		}
		ev = status >> 16;
		if (ev == PTRACE_EVENT_SECCOMP) {
			nsecc++;
			if (eflag == 2)
				read_as_maptap(tid, &maps_fd);
			/* Without -e every traced call goes to its exit:
			 * no need to ask which. */
			if (!eflag ||
			    (ptrace(PTRACE_GETEVENTMSG, tid, 0L, &msg) == 0 &&
			     msg == DATA_EXIT))
				req = PTRACE_SYSCALL;
		} else if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			nexit++;
		} else if (ev == 0) {
			sig = WSTOPSIG(status);	/* signal-delivery stop */
		}
		ptrace((enum __ptrace_request)req, tid, 0L, (void *)sig);
	}
	fprintf(stderr, "floor: %lu stops (%lu seccomp, %lu exit)\n",
		nsecc + nexit, nsecc, nexit);
	return rc;
}
