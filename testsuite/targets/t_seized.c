/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_seized.c -- a thread that a child of its process seizes and lets go.
 *
 * Usage: t_seized read | t_seized spin | t_seized storm
 *
 * A worker thread waits, in read(2) on a pipe (read), in a loop with no
 * system call (spin), or in a loop of mmap and munmap (storm: under
 * maptap it is in a mapping call's stop most of the time, so maptap's
 * interrupt meets such a stop first, as LeakSanitizer's attach meets a
 * thread that is starting).  A child of the process then seizes the worker
 * (PTRACE_SEIZE: under maptap -c, maptap lets go of it first), stops it,
 * checks it is its tracer, and detaches.  Then the worker is woken: its
 * read must return the byte written (an interrupted call restarted, not
 * failed), and its mmap must work (a thread let go under maptap's filter
 * with nobody to answer it gets ENOSYS).  Exit status 0 when all of that
 * happened, else the step that failed (42: the worker's mmap failed with
 * ENOSYS).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "t_common.h"

static int pipefd[2];
static volatile int go, spinning;
static volatile pid_t worker_tid;
static int spin, storm;

static void *worker(void *arg)
{
	char c = 0;
	ssize_t n;

	(void)arg;
	worker_tid = (pid_t)syscall(SYS_gettid);
	if (storm) {
		while (!go) {
			void *p = mmap(NULL, 4096, PROT_READ,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				return (void *)(intptr_t)(errno == ENOSYS ?
							  42 : 41);
			munmap(p, 4096);
			spinning = 1;
		}
	} else if (spin) {
		spinning = 1;
		while (!go)
			;
	} else {
		/* No retry on EINTR: untraced, nothing interrupts it. */
		n = read(pipefd[0], &c, 1);
		if (n != 1 || c != 'x')
			return (void *)30;
	}
	if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
	    MAP_FAILED)
		return (void *)(intptr_t)(errno == ENOSYS ? 42 : 41);
	return NULL;
}

static int tracer_is(pid_t tid, pid_t me)
{
	char path[64], line[256];
	FILE *f;
	int tracer = -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status",
		 (int)getppid(), (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer == me;
}

int main(int argc, char **argv)
{
	pthread_t th;
	void *ret;
	int status, i;
	pid_t pid;

	if (argc != 2)
		return 2;
	spin = strcmp(argv[1], "spin") == 0;
	storm = strcmp(argv[1], "storm") == 0;
	if (pipe(pipefd) || pthread_create(&th, NULL, worker, NULL))
		return 3;
	/* Bounded: 10 s for the worker to be where it waits. */
	for (i = 0; i < 10000; i++) {
		if (worker_tid && (spin || storm ? spinning :
				   t_task_state(worker_tid) == 'S'))
			break;
		usleep(1000);
	}
	if (i == 10000)
		return 4;
	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_SEIZE, worker_tid, NULL, NULL))
			_exit(20);
		if (!tracer_is(worker_tid, getpid()))
			_exit(21);
		if (ptrace(PTRACE_INTERRUPT, worker_tid, NULL, NULL) ||
		    waitpid(worker_tid, &status, __WALL) != worker_tid ||
		    ptrace(PTRACE_DETACH, worker_tid, NULL, NULL))
			_exit(22);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 5;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return WIFEXITED(status) ? WEXITSTATUS(status) : 6;
	go = 1;
	if (write(pipefd[1], "x", 1) != 1)
		return 7;
	if (pthread_join(th, &ret))
		return 8;
	return (int)(intptr_t)ret;
}
