/* SPDX-License-Identifier: GPL-2.0-or-later */
/* own_now.c -- an application that defines a function named as one of
 * libmaptap's internals (mt_now_ns, the event clock), links libmaptap.so
 * and launches ARGV[1..].  While the library exported its internals, the
 * application's definition won at run time and every event time was 0
 * (issue 11); the library binds its own calls now.
 *
 * Prints "events N zero_times Z"; exits 0 when N > 0 and Z == 0.
 */
#include <maptap/maptap.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

uint64_t mt_now_ns(void);

uint64_t mt_now_ns(void)
{
	return 0;
}

struct counts {
	unsigned long events, zero_times;
};

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct counts *c = arg;

	c->events++;
	if (ev->time_ns == 0)
		c->zero_times++;
	return 0;
}

int main(int argc, char **argv)
{
	struct maptap_session_opts o;
	struct maptap_session *s;
	struct counts c = { 0, 0 };
	pid_t pid;

	if (argc < 2) {
		fputs("usage: own_now CMD [ARGS...]\n", stderr);
		return 2;
	}
	memset(&o, 0, sizeof(o));
	o.on_event = on_event;
	o.arg = &c;
	if (maptap_session_new(&o, &s) != 0)
		return 2;
	if (maptap_session_launch(s, argv + 1, &pid) != 0 ||
	    maptap_session_run(s) != 0) {
		fprintf(stderr, "own_now: %s\n", maptap_session_errmsg(s));
		maptap_session_free(s);
		return 2;
	}
	maptap_session_free(s);
	printf("events %lu zero_times %lu\n", c.events, c.zero_times);
	return c.events > 0 && c.zero_times == 0 ? 0 : 1;
}
