/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pm_target.c -- targets of bench/tracer/perfmode.sh, started before the
 * tool that attaches to them.
 *
 * Usage: pm_target getppid N | mmap N | http PORT
 * getppid, mmap: prints "ready PID", waits for a line on stdin (the tool
 * is attached by then), runs N getppid() calls or N mmap+touch+munmap
 * pairs, and prints the ns per iteration.  http: a single-threaded
 * HTTP/1.1 server on 127.0.0.1:PORT (keep-alive, epoll, one malloc'd
 * buffer per request, a fixed 129-byte answer) until SIGTERM.
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int http(int port)
{
	static const char body[] = "HTTP/1.1 200 OK\r\nContent-Length: 64\r\n"
		"Content-Type: text/plain\r\n\r\n"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct epoll_event ev, evs[64];
	int one = 1, ls, ep, n, i;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(ls, 128))
		return 1;
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.fd = ls;
	epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		n = epoll_wait(ep, evs, 64, -1);
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			char *buf;
			ssize_t r;

			if (fd == ls) {
				int c = accept(ls, NULL, NULL);

				if (c < 0)
					continue;
				setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one,
					   sizeof(one));
				ev.events = EPOLLIN;
				ev.data.fd = c;
				epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
				continue;
			}
			buf = malloc(4096);	/* as a server would */
			r = read(fd, buf, 4096);
			if (r <= 0) {
				close(fd);
			} else if (write(fd, body, sizeof(body) - 1) < 0) {
				close(fd);
			}
			free(buf);
		}
	}
}

int main(int argc, char **argv)
{
	long n, i;
	char line[16];
	double t0;

	if (argc < 3)
		return 2;
	if (strcmp(argv[1], "http") == 0)
		return http(atoi(argv[2]));
	n = atol(argv[2]);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	t0 = now_ns();
	if (strcmp(argv[1], "getppid") == 0) {
		for (i = 0; i < n; i++)
			getppid();
	} else {
		for (i = 0; i < n; i++) {
			char *p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				return 1;
			p[0] = 1;
			munmap(p, 4 * 4096);
		}
	}
	printf("%.1f\n", (now_ns() - t0) / (double)n);
	return 0;
}
