/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_nonblock.c -- a command that shares maptap's stdout and does to it
 * what node does to a pipe, or that outlives the reader of that pipe.
 *
 * Usage: t_nonblock storm ROUNDS LINES
 *            set O_NONBLOCK on stdout (a file description maptap shares),
 *            map and unmap 5 pages ROUNDS times (2 x ROUNDS events for
 *            maptap's log) while a second thread prints "t_nonblock N"
 *            for N < LINES, waiting in poll(2) whenever the pipe is full,
 *            as node's threads do; exit 0
 *        t_nonblock quiet ROUNDS STATUS
 *            print nothing on stdout, map and unmap 5 pages ROUNDS
 *            times, print "tracer PID" (TracerPid, 0 untraced) on
 *            stderr; exit STATUS
 *        t_nonblock speak
 *            print "first", wait (bounded) until the pipe on stdout has
 *            no reader (POLLERR), print "second"; exit 0, or
 *            128 + errno's value if that write fails (SIGPIPE ignored),
 *            or 4 if the reader never goes
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Write all of P, waiting for room when the pipe is full. */
static int put(const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(1, p, len);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd pf = { .fd = 1, .events = POLLOUT };

			poll(&pf, 1, -1);
			continue;
		}
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int storm(long rounds)
{
	size_t len = 5 * (size_t)sysconf(_SC_PAGESIZE);
	long i;

	for (i = 0; i < rounds; i++) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, len))
			return -1;
	}
	return 0;
}

static int tracer(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int pid = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			pid = atoi(line + 10);
	fclose(f);
	return pid;
}

static void *printer(void *arg)
{
	long i, lines = *(long *)arg;
	char buf[64];

	for (i = 0; i < lines; i++) {
		int n = snprintf(buf, sizeof(buf), "t_nonblock %ld\n", i);

		if (put(buf, (size_t)n))
			return (void *)1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "storm") && argc > 3) {
		long lines = atol(argv[3]);
		pthread_t th;
		void *res;
		int rc;

		if (fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK) ||
		    pthread_create(&th, NULL, printer, &lines))
			return 1;
		rc = storm(atol(argv[2]));
		if (pthread_join(th, &res) || res)
			return 1;
		return rc ? 1 : 0;
	}
	if (!strcmp(mode, "quiet") && argc > 3) {
		if (storm(atol(argv[2])))
			return 1;
		fprintf(stderr, "tracer %d\n", tracer());
		return atoi(argv[3]);
	}
	if (!strcmp(mode, "speak")) {
		struct pollfd pf = { .fd = 1, .events = 0 };
		int err;

		if (put("first\n", 6))
			return 1;
		/* A pipe's write end reports POLLERR once no reader is left. */
		if (poll(&pf, 1, 60000) != 1 || !(pf.revents & POLLERR))
			return 4;
		err = put("second\n", 7);
		return err ? 128 + -err : 0;
	}
	return 2;
}
