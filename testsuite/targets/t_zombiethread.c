/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_zombiethread.c -- a process with an ended thread still listed in
 * /proc/PID/task, for maptap -x to meet in its scan.
 *
 * Usage: t_zombiethread
 *
 * A thread is seized (PTRACE_SEIZE) by a child process, then ends: the
 * kernel keeps a traced thread that ended as a zombie until its tracer
 * waits for it, so it stays in /proc/PID/task in state Z, and
 * PTRACE_SEIZE of it fails with EPERM (kernel/ptrace.c, ptrace_attach():
 * a task with an exit_state).  A thread that ends untraced is listed so
 * only for an instant: this makes that instant last.  Prints "ready PID"
 * and "zombie TID", then waits for a line on stdin; then the child reaps
 * the thread and ends, and the main thread maps and unmaps one page,
 * prints "mapped 0xSTART 0xEND" and exits 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "t_common.h"

static int gate[2];	/* the thread ends when this is written */
static pid_t thread_tid;
static int tid_pipe[2];

static void *doomed(void *arg)
{
	char c;
	pid_t tid = gettid();

	(void)arg;
	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		t_die("write");
	if (read(gate[0], &c, 1) != 1)
		t_die("read");
	return NULL;
}

int main(void)
{
	int to_child[2], from_child[2], status, i;
	pthread_t th;
	char c, line[16];
	pid_t child;
	void *m;

	t_init();
	if (pipe(gate) || pipe(tid_pipe) || pipe(to_child) || pipe(from_child))
		t_die("pipe");
	if (pthread_create(&th, NULL, doomed, NULL) != 0)
		t_die("pthread_create");
	if (read(tid_pipe[0], &thread_tid, sizeof(thread_tid)) !=
	    sizeof(thread_tid))
		t_die("read tid");
	/* Yama's ptrace_scope 1 lets only ancestors trace: allow ours. */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	child = fork();
	if (child < 0)
		t_die("fork");
	if (child == 0) {
		if (ptrace(PTRACE_SEIZE, thread_tid, 0L, 0L) != 0)
			_exit(10);
		c = 's';
		if (write(from_child[1], &c, 1) != 1)
			_exit(11);
		if (read(to_child[0], &c, 1) != 1)
			_exit(12);
		/* Reap the thread: its exit is reported to us, its tracer. */
		while (waitpid(thread_tid, &status, __WALL) == thread_tid &&
		       !WIFEXITED(status) && !WIFSIGNALED(status))
			ptrace(PTRACE_CONT, thread_tid, 0L, 0L);
		_exit(0);
	}
	if (read(from_child[0], &c, 1) != 1)
		t_die("child seize");
	if (write(gate[1], "x", 1) != 1)
		t_die("write gate");
	/* The thread ends; traced, it waits as a zombie for its tracer. */
	for (i = 0; i < 10000 && t_task_state(thread_tid) != 'Z'; i++)
		usleep(1000);
	if (t_task_state(thread_tid) != 'Z')
		t_die("thread not a zombie");
	printf("ready %d\nzombie %d\n", (int)getpid(), (int)thread_tid);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		t_die("stdin");
	if (write(to_child[1], "x", 1) != 1)
		t_die("write child");
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		t_die("child");
	pthread_join(th, NULL);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		t_die("mmap");
	munmap(m, 4096);
	t_report("mapped", m, (char *)m + 4096);
	fflush(stdout);
	return 0;
}
