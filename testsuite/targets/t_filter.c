/* t_filter.c -- a target that installs a seccomp filter of its own, for
 * filters.py: maptap must leave the target's filter acting exactly as it
 * would untraced (docs/tracer.md, "Other seccomp filters in the target").
 *
 *   t_filter trace    SECCOMP_RET_TRACE (data 7) for getppid, madvise and
 *                     mprotect: untraced, with no tracer, each fails with
 *                     ENOSYS; prints each call's result, then "area"
 *   t_filter kill     SECCOMP_RET_KILL_PROCESS for munmap of the area:
 *                     prints "area", then dies of SIGSYS in the munmap
 *   t_filter trap     SECCOMP_RET_TRAP for munmap of the area, with a
 *                     SIGSYS handler that makes it return 0: the area
 *                     stays mapped; prints "area" and the result
 *
 * The area is 4 pages, read-write, anonymous, mapped before the filter.
 * MAPS (argv[2]): /proc/self/maps is copied there before exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

/* RET for munmap whose first argument's low word is that of AREA. */
static void filter_munmap(void *area, unsigned ret)
{
	struct sock_filter prog[] = {
		LD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		LD(nr),
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
	t_report("area", area, area + AREA);
	fflush(stdout);
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
	}
	t_dump_maps(argc > 2 ? argv[2] : NULL);
	return 0;
}
