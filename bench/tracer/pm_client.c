/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pm_client.c -- a bounded HTTP load generator for bench/tracer/perfmode.sh.
 *
 * Usage: pm_client PORT CONNS REQUESTS
 * CONNS keep-alive connections to 127.0.0.1:PORT, one request in flight
 * on each, REQUESTS in all; prints the ns per request (wall time).
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ANSWER 129	/* bytes of pm_target's answer */

int main(int argc, char **argv)
{
	static const char req[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	int port, conns, i, ep, one = 1, *got;
	long total, sent = 0, done = 0;
	struct epoll_event ev, evs[64];
	struct timespec a, b;

	if (argc < 4)
		return 2;
	port = atoi(argv[1]);
	conns = atoi(argv[2]);
	total = atol(argv[3]);
	ep = epoll_create1(0);
	got = calloc((size_t)conns + 1024, sizeof(int));
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < conns; i++) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
			.sin_port = htons((unsigned short)port),
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		ev.events = EPOLLIN;
		ev.data.fd = fd;
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		if (sent < total && write(fd, req, sizeof(req) - 1) > 0)
			sent++;
	}
	while (done < total) {
		int n = epoll_wait(ep, evs, 64, 10000);

		if (n <= 0)
			return 1;
		for (i = 0; i < n; i++) {
			char buf[4096];
			int fd = evs[i].data.fd;
			ssize_t r = read(fd, buf, sizeof(buf));

			if (r <= 0)
				return 1;
			got[fd] += (int)r;
			while (got[fd] >= ANSWER) {
				got[fd] -= ANSWER;
				done++;
				if (sent < total &&
				    write(fd, req, sizeof(req) - 1) > 0)
					sent++;
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) /
	       (double)total);
	return 0;
}
