/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outstream.c -- maptap's output and diagnostics, written so that a slow
 * reader loses nothing, whatever the command does to the file.
 *
 * With -c the command shares maptap's stdout and stderr: the same open
 * file descriptions, and so the same file status flags (open(2), "open
 * file description").  node sets O_NONBLOCK on a pipe it gets as its
 * stdout, and from then on maptap's own writes to that pipe fail with
 * EAGAIN whenever the reader lags.  EAGAIN is a reason to wait for room
 * (poll(2) for POLLOUT), never to drop output; EINTR (maptap's handlers
 * have no SA_RESTART, so that its waits return) and short writes are no
 * failures either.  What is left -- EPIPE (the reader has gone, SIGPIPE
 * is ignored), ENOSPC, EIO -- is a failure, which the caller reports.
 *
 * Every byte maptap writes to its output goes through tr_write_fd(): the
 * script's output and the log directly (interp.c), everything printed
 * with stdio (the report, the pass dumps, messages on stderr) through a
 * stream of tr_fd_stream(), whose write function it is.  stdio's own
 * stdout would not do: glibc drops its buffer when write(2) fails, and
 * takes EAGAIN and EINTR for failures.
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

/* How much of P's LEN bytes one write(2) takes: whole lines, and no
 * more than PIPE_BUF bytes, so that on a pipe each write is atomic
 * (pipe(7)) and a line of maptap's is never torn by the command's own
 * writes to the same pipe (a thread of node writes while maptap handles
 * another's stop).  A line longer than PIPE_BUF cannot be kept whole. */
static size_t piece(const char *p, size_t len)
{
	const char *nl;

	if (len <= PIPE_BUF)
		return len;
	nl = memrchr(p, '\n', PIPE_BUF);
	return nl ? (size_t)(nl - p) + 1 : PIPE_BUF;
}

int tr_write_fd(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, piece(p, len));

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };

			/* POLLERR or POLLHUP: the next write says why. */
			if (poll(&pf, 1, -1) < 0 && errno != EINTR)
				return -errno;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

struct fd_cookie {
	int fd;
	bool own;	/* close fd with the stream */
};

/* stdio's write function: all of BUF or a failure, with errno set (a
 * short count marks the stream in error: glibc, libio/iofopncook.c). */
static ssize_t cookie_write(void *c, const char *buf, size_t size)
{
	const struct fd_cookie *k = c;
	int err = tr_write_fd(k->fd, buf, size);

	if (err) {
		errno = -err;
		return 0;
	}
	return (ssize_t)size;
}

static int cookie_close(void *c)
{
	struct fd_cookie *k = c;
	int rc = k->own ? close(k->fd) : 0;

	free(k);
	return rc;
}

FILE *tr_fd_stream(int fd, bool own, int buffering)
{
	static const cookie_io_functions_t io = {
		.write = cookie_write,
		.close = cookie_close,
	};
	struct fd_cookie *k = malloc(sizeof(*k));
	FILE *f;

	if (!k)
		return NULL;
	k->fd = fd;
	k->own = own;
	f = fopencookie(k, "w", io);
	if (!f) {
		free(k);
		return NULL;
	}
	/* An unbuffered stream has no buffer to size. */
	setvbuf(f, NULL, buffering, buffering == _IONBF ? 0 : BUFSIZ);
	return f;
}
