/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* diag.c -- what a session says: its error message (mt_error()), its
 * diagnostics (mt_diag()), its events with their clock (mt_event_init(),
 * mt_emit(), mt_now_ns()), the end of a session a callback asked for
 * (mt_callback_stop()), and the test-only fault hook (mt_set_fault()).
 * Split from session.c so that the stop loop, which calls these, no
 * longer ties to the file whose maptap_session_free() runs the loop.
 */
#include "tracer_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int mt_error(struct maptap_session *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

void mt_diag(struct maptap_session *s, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!s->opts.on_diag)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->opts.on_diag(line, s->opts.arg);
}

uint64_t mt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void mt_event_init(struct maptap_event *ev, enum maptap_event_kind kind,
		   pid_t pid, pid_t tid)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->pid = pid;
	ev->tid = tid;
	ev->time_ns = mt_now_ns();
	ev->syscall_nr = -1;
	ev->vma.name = ev->old.name = "";
}

int mt_emit(struct maptap_session *s, struct maptap_event *ev)
{
	int rc;

	if (s->quiet)
		return 0;
	s->stats.events++;
	if (!s->opts.on_event)
		return 0;
	rc = s->opts.on_event(ev, s->opts.arg);
	if (rc)
		mt_callback_stop(s, rc, "on_event");
	return 0;
}

int mt_emit_cb(const struct maptap_event *ev, void *arg)
{
	return mt_emit(arg, (struct maptap_event *)ev);
}

void mt_callback_stop(struct maptap_session *s, int rc, const char *who)
{
	if (s->quiet)
		return;
	s->quiet = true;
	s->stop_rc = rc;
	mt_error(s, rc, "%s returned %d: the session ends, no callback is made again",
		 who, rc);
}

void mt_set_fault(struct maptap_session *s,
		  int (*fn)(void *arg, int site, const struct mt_thread *t),
		  void *arg)
{
	s->fault = fn;
	s->fault_arg = arg;
}
