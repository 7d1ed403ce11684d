/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_filter.c -- a target that installs a seccomp filter of its own, for
 * filters.py: maptap must leave the target's filter acting exactly as it
 * would untraced (docs/tracer.md, "Other seccomp filters in the target").
 *
 *   t_filter trace    SECCOMP_RET_TRACE (data 7) for getppid, madvise and
 *                     mprotect: untraced, with no tracer, each fails with
 *                     ENOSYS; prints each call's result, then "area"
 *   t_filter trace-listener   the same, after a filter that allows
 *                     everything but has a listener (so maptap stops at
 *                     every entry and exit of this process)
 *   t_filter listener-traceme   after a filter that allows everything
 *                     but has a listener, a forked child calls
 *                     ptrace(PTRACE_TRACEME) (maptap lets go of it);
 *                     prints its result
 *   t_filter kill     SECCOMP_RET_KILL_PROCESS for munmap of the area:
 *                     prints "area", then dies of SIGSYS in the munmap
 *   t_filter trap     SECCOMP_RET_TRAP for munmap of the area and for
 *                     getppid, with a SIGSYS handler that makes each
 *                     return 0: the area stays mapped; prints "area" and
 *                     the results
 *   t_filter notify   SECCOMP_RET_USER_NOTIF for mmap, munmap and
 *                     mprotect of the main thread, answered by a
 *                     supervisor thread (started before the filter, so
 *                     without it): most calls go on as asked
 *                     (SECCOMP_USER_NOTIF_FLAG_CONTINUE), two are answered
 *                     "0" without running (an mprotect and a munmap of
 *                     the area); prints "b" (3 pages mapped, its first
 *                     page made read-only, its last unmapped) and the
 *                     results
 *   t_filter notify-tsync  the same, but the filter goes to every thread
 *                     (SECCOMP_FILTER_FLAG_TSYNC), and the other thread
 *                     waiting then maps one page through it and keeps it
 *                     ("c LO HI")
 *   t_filter notify-wait   the same as notify, but once the filter is in
 *                     place it
 *                     prints "ready PID" and waits for a line on stdin
 *                     (for maptap -x)
 *
 * The area is 4 pages, read-write, anonymous, mapped before the filter.
 * MAPS (argv[2]): /proc/self/maps is copied there before exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>

#include "t_common.h"

#define AREA (4 * 4096)

#define LD(field) \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))

static void install(struct sock_filter *prog, unsigned short n)
{
	struct sock_fprog fp = { .len = n, .filter = prog };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) != 0) {
		perror("seccomp");
		exit(100);
	}
}

/* RET for getppid, and for munmap whose first argument's low word is
 * that of AREA. */
static void filter_munmap(void *area, unsigned ret)
{
	struct sock_filter prog[] = {
		LD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		LD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_munmap, 0, 3),
		LD(args[0]),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 (unsigned)(uintptr_t)area, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ret),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	install(prog, sizeof(prog) / sizeof(prog[0]));
}

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	/* Emulate the trapped call: it "returns" 0. */
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RAX] = 0;
}

/* notify: the listener, and the area whose calls are answered without
 * running. */
static int listener = -1;
static int go[2];
static char *fake_area;

static void *supervise(void *arg)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	char c;

	(void)arg;
	if (read(go[0], &c, 1) != 1)
		return NULL;
	for (;;) {
		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		if (req.data.nr == SYS_mmap ||
		    req.data.args[0] < (uint64_t)(uintptr_t)fake_area ||
		    req.data.args[0] >= (uint64_t)(uintptr_t)fake_area + AREA)
			resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		/* else: "0", and the call never runs */
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

/* notify: a thread without the filter whose mapping calls, made after
 * the main thread's, make maptap --verify the whole mm (with TSYNC, it
 * has the filter: it keeps its page). */
static int check_go[2], check_done[2];
static bool tsync;

static void *check(void *arg)
{
	char c;
	void *p;

	(void)arg;
	if (read(check_go[0], &c, 1) != 1)
		return NULL;
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED && tsync)
		t_report("c", p, (char *)p + 4096);
	else if (p != MAP_FAILED)
		munmap(p, 4096);
	if (write(check_done[1], "d", 1) != 1)
		return NULL;
	return NULL;
}

static void notify(char *area, bool wait)
{
	struct sock_filter prog[] = {
		LD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		LD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_munmap, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog fp = { .len = sizeof(prog) / sizeof(prog[0]),
				 .filter = prog };
	pthread_t th, ch;
	char *b, c;

	fake_area = area;
	if (pipe(go) != 0 || pipe(check_go) != 0 || pipe(check_done) != 0 ||
	    pthread_create(&th, NULL, supervise, NULL) != 0 ||
	    pthread_create(&ch, NULL, check, NULL) != 0)
		exit(102);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		exit(103);
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER |
				(tsync ? SECCOMP_FILTER_FLAG_TSYNC |
				 SECCOMP_FILTER_FLAG_TSYNC_ESRCH : 0), &fp);
	if (listener < 0) {
		perror("seccomp");
		exit(104);
	}
	if (write(go[1], "g", 1) != 1)
		exit(105);
	if (wait) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		while (read(0, &c, 1) == 1 && c != '\n')
			;
		t_report("area", area, area + AREA);
	}
	b = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		exit(106);
	b[0] = 1;
	printf("b 0x%lx 0x%lx\n", (unsigned long)b,
	       (unsigned long)(b + 3 * 4096));
	printf("mprotect b %d\n", mprotect(b, 4096, PROT_READ));
	printf("munmap b %d\n", munmap(b + 2 * 4096, 4096));
	printf("mprotect area %d\n", mprotect(area, 4096, PROT_NONE));
	printf("munmap area %d\n", munmap(area + AREA - 4096, 4096));
	area[0] = 3;	/* neither call ran */
	area[AREA - 1] = 3;
	printf("byte %d\n", area[0]);
	if (write(check_go[1], "c", 1) != 1 || read(check_done[0], &c, 1) != 1)
		exit(107);
}

static void result(const char *name, long r)
{
	printf("%s %ld %d\n", name, r, r < 0 ? errno : 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "trace";
	char *area;

	t_init();
	area = mmap(NULL, AREA, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 101;
	area[0] = 1;
	if (strcmp(mode, "notify-wait") != 0)	/* its first line: "ready" */
		t_report("area", area, area + AREA);
	fflush(stdout);
	if (!strcmp(mode, "trace-listener") ||
	    !strcmp(mode, "listener-traceme")) {
		struct sock_filter allow[] = {
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog fp = { .len = 1, .filter = allow };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp) < 0) {
			perror("seccomp");
			exit(100);
		}
		if (!strcmp(mode, "trace-listener"))
			mode = "trace";
	}
	if (!strcmp(mode, "listener-traceme")) {
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			result("traceme", ptrace(PTRACE_TRACEME, 0, 0, 0));
			fflush(stdout);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return 108;
	}
	if (!strcmp(mode, "trace")) {
		struct sock_filter prog[] = {
			LD(arch),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64,
				 1, 0),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			LD(nr),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 3, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_madvise, 2, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 1, 0),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 7),
		};

		install(prog, sizeof(prog) / sizeof(prog[0]));
		result("getppid", syscall(SYS_getppid));
		result("madvise", syscall(SYS_madvise, area, AREA,
					  MADV_DONTNEED));
		result("mprotect", syscall(SYS_mprotect, area, AREA,
					   PROT_READ));
		printf("byte %d\n", area[0]);
	} else if (!strcmp(mode, "kill")) {
		filter_munmap(area, SECCOMP_RET_KILL_PROCESS);
		syscall(SYS_munmap, area, AREA);
		result("munmap", -1);	/* not reached */
	} else if (!strcmp(mode, "trap")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigsys;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSYS, &sa, NULL);
		filter_munmap(area, SECCOMP_RET_TRAP);
		result("munmap", syscall(SYS_munmap, area, AREA));
		area[1] = 2;	/* still mapped */
		printf("byte %d\n", area[1]);
		result("getppid", syscall(SYS_getppid));
	} else if (!strcmp(mode, "notify") || !strcmp(mode, "notify-wait") ||
		   !strcmp(mode, "notify-tsync")) {
		tsync = !strcmp(mode, "notify-tsync");
		notify(area, !strcmp(mode, "notify-wait"));
	}
	t_dump_maps(argc > 2 ? argv[2] : NULL);
	return 0;
}
