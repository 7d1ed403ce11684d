/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* listeners.c -- answer the filters of the threads maptap let go of.
 *
 * A thread maptap lets go of under the launch filter first gets a second
 * filter that sends the same calls to SECCOMP_RET_USER_NOTIF (inject.c),
 * which outranks maptap's SECCOMP_RET_TRACE (seccomp(2)).  The session
 * keeps that filter's listener and answers every notification with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE: the call then runs as it would with
 * no filter of maptap's at all.  A listener is kept until it reports
 * POLLHUP, which the kernel sends once no task uses the filter any more
 * (kernel/seccomp.c, __seccomp_filter_orphan()); closing it earlier
 * would fail the remaining users' calls with ENOSYS.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The array is shared with the run loop's sleep (loop.c, wait_chld()):
 * slots 0 and 1 are the caller's, the listeners follow. */
#define LEAD 2

int mt_listeners_add(struct maptap_session *s, int fd)
{
	struct mt_listeners *l = &s->listeners;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct pollfd *pf = realloc(l->pf, (cap + LEAD) * sizeof(*pf));

		if (!pf)
			return -ENOMEM;
		l->pf = pf;
		l->cap = cap;
	}
	l->pf[LEAD + l->n].fd = fd;
	l->pf[LEAD + l->n].events = POLLIN;
	l->n++;
	return 0;
}

struct pollfd *mt_listeners_pollfds(struct maptap_session *s,
				    struct pollfd *local)
{
	return s->listeners.n ? s->listeners.pf : local;
}

/* Answer one pending notification on FD: let the call go on. */
static void answer(int fd)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	memset(&req, 0, sizeof(req));
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
		return;		/* taken back: the caller died or was killed */
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* ENOENT: the caller was interrupted meanwhile, and will call
	 * again or has gone. */
	(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

void mt_listeners_poll(struct maptap_session *s)
{
	struct mt_listeners *l = &s->listeners;
	size_t i, j;

	if (!l->n || poll(l->pf + LEAD, (nfds_t)l->n, 0) <= 0)
		return;
	for (i = j = 0; i < l->n; i++) {
		struct pollfd *p = &l->pf[LEAD + i];

		if (p->revents & POLLIN)
			answer(p->fd);
		/* POLLHUP comes with the last user gone, after its last
		 * notification was answered or taken back. */
		if ((p->revents & (POLLHUP | POLLERR | POLLNVAL)) &&
		    !(p->revents & POLLIN)) {
			close(p->fd);
			continue;
		}
		l->pf[LEAD + j++] = *p;
	}
	l->n = j;
}

void mt_listeners_free(struct maptap_session *s)
{
	size_t i;

	for (i = 0; i < s->listeners.n; i++)
		close(s->listeners.pf[LEAD + i].fd);
	free(s->listeners.pf);
	memset(&s->listeners, 0, sizeof(s->listeners));
}
