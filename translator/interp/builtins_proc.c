/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtins_proc.c -- script functions of the process context: pid, tid,
 * ppid, execname, the ids, target, stp_pid, is_return, cmdline_*; the
 * two helpers the default log script (tapsets/maptap/log.stp) needs to
 * print exactly what the C log printed; and maptap_syscall_name(NR),
 * the native table's name of a call (syscall_any's "name").
 *
 * Group 1 of builtins.c's groups: ids from 1 * TR_BUILTIN_GROUP_BASE.
 *
 * The process context is I->tgt's (target.c): the process and thread
 * of the event, system call or lifetime point that fired.  Outside one
 * (begin, end, timer probes, and any run without -c/-x) these functions
 * describe maptap's own process, as stap's kernel runtime describes the
 * process its begin probes run in (staprun's); target() is the target
 * everywhere.  Values come from /proc (proc(5)) so that they are the
 * traced task's, read while it is stopped.
 */
#include <config.h>

#include <sched.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <maptap/syscalls.h>

#include "interp.h"

enum {
	P_PID = 1 * TR_BUILTIN_GROUP_BASE, P_TID, P_PPID, P_EXECNAME,
	P_UID, P_EUID, P_GID, P_EGID, P_TARGET, P_STP_PID, P_IS_RETURN,
	P_CMDLINE_ARGS, P_CMDLINE_ARG, P_CMDLINE_STR, P_JSON_STR, P_SIGABBREV,
	P_CPU, P_USER_MODE, P_SYSCALL_NAME,
};

#define L TY_LONG
#define S TY_STRING
#define U TY_UNKNOWN

static const struct tr_builtin table[] = {
	{ "pid", 0, 0, { U }, L, P_PID },
	{ "tid", 0, 0, { U }, L, P_TID },
	{ "ppid", 0, 0, { U }, L, P_PPID },
	{ "execname", 0, 0, { U }, S, P_EXECNAME },
	{ "uid", 0, 0, { U }, L, P_UID },
	{ "euid", 0, 0, { U }, L, P_EUID },
	{ "gid", 0, 0, { U }, L, P_GID },
	{ "egid", 0, 0, { U }, L, P_EGID },
	{ "target", 0, 0, { U }, L, P_TARGET },
	{ "stp_pid", 0, 0, { U }, L, P_STP_PID },
	{ "is_return", 0, 0, { U }, L, P_IS_RETURN },
	{ "cmdline_args", 3, 3, { L, L, S }, S, P_CMDLINE_ARGS },
	{ "cmdline_arg", 1, 1, { L }, S, P_CMDLINE_ARG },
	{ "cmdline_str", 0, 0, { U }, S, P_CMDLINE_STR },
	/* maptap's own, for the default log script */
	{ "maptap_json_string", 1, 1, { S }, S, P_JSON_STR },
	{ "maptap_signal_abbrev", 1, 1, { L }, S, P_SIGABBREV },
	/* appended: ids are positions in this table */
	{ "cpu", 0, 0, { U }, L, P_CPU },
	{ "user_mode", 0, 0, { U }, L, P_USER_MODE },
	/* maptap's own, for tapsets/syscall_any.stp */
	{ "maptap_syscall_name", 1, 1, { L }, S, P_SYSCALL_NAME },
};

#undef L
#undef S
#undef U

/* The current context's pid and tid: the traced task's, or maptap's. */
static pid_t ctx_pid(const struct interp *I)
{
	return I->tgt && I->tgt->pid ? I->tgt->pid : getpid();
}

static pid_t ctx_tid(const struct interp *I)
{
	if (I->tgt && I->tgt->pid)
		return I->tgt->tid ? I->tgt->tid : I->tgt->pid;
	return gettid();
}

/* Read /proc/PID/task/TID/WHAT (or /proc/PID/WHAT when TID is 0) into
 * BUF; returns the length, or -1. */
static ssize_t read_proc(pid_t pid, pid_t tid, const char *what, char *buf,
			 size_t size)
{
	char path[64];
	FILE *f;
	size_t n;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
			 (int)tid, what);
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* Field COL (0-based) of the "KEY:" line of /proc/PID/status, or -1. */
static int64_t status_field(pid_t pid, const char *key, int col)
{
	char buf[4096], *p;
	size_t kl = strlen(key);
	int i;

	if (read_proc(pid, 0, "status", buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) || p[kl] != ':')
			continue;
		p += kl + 1;
		for (i = 0; i < col && p; i++)
			p = strchr(p + strspn(p, " \t"), '\t');
		return p ? strtoll(p, NULL, 10) : -1;
	}
	return -1;
}

/* stap's cmdline_args(N, M, DELIM): arguments N to M of the current
 * process (M < N: to the end), "" when there are fewer or none can be
 * read (function::cmdline_args(3stap)). */
static void cmdline_args(const struct interp *I, int64_t n, int64_t m,
			 const char *delim, struct maptap_script_buf *b)
{
	size_t size = 65536;
	char *buf = malloc(size);
	ssize_t len = buf ? read_proc(ctx_pid(I), 0, "cmdline", buf, size) :
		      -1;
	int64_t i = 0;
	const char *p;

	maptap_script_buf_clear(b);
	if (len <= 0 || n < 0) {
		free(buf);
		return;
	}
	for (p = buf; p < buf + len; p += strlen(p) + 1, i++) {
		if (i < n || (m >= n && i > m))
			continue;
		if (i > n)
			maptap_script_buf_adds(b, delim);
		maptap_script_buf_adds(b, p);
	}
	free(buf);
}

/* A JSON string with its quotes, as maptap_event_print_json() writes
 * one: RFC 8259 escapes, and a byte that does not start a valid UTF-8
 * sequence as \u00XX of its value (docs/json-schema.md). */
static void json_string(const char *s, size_t len, struct maptap_script_buf *b)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t n, i;

	maptap_script_buf_clear(b);
	maptap_script_buf_addc(b, '"');
	while (p < end) {
		unsigned c = *p;

		if (c == '"' || c == '\\') {
			maptap_script_buf_addc(b, '\\');
			maptap_script_buf_addc(b, (char)c);
			p++;
			continue;
		}
		n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 :
		    c >= 0xf0 && c <= 0xf4 ? 3 : 0;
		for (i = 1; n && i <= n; i++)
			if (p + i >= end || (p[i] & 0xc0) != 0x80)
				n = 0;
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && !n)) {
			maptap_script_buf_printf(b, "\\u%04x", c);
			p++;
			continue;
		}
		maptap_script_buf_add(b, (const char *)p, n + 1);
		p += n + 1;
	}
	maptap_script_buf_addc(b, '"');
}

/* stap's cpu(): the CPU the probe ran on.  A sample knows it; a
 * stopped thread last ran on field 39 of /proc/PID/task/TID/stat
 * (proc(5), "processor"); elsewhere maptap's own CPU. */
static int64_t ctx_cpu(const struct interp *I)
{
	char buf[1024], *p;
	int i;

	if (I->tgt && I->tgt->sample)
		return I->tgt->sample->cpu;
	if (!I->tgt || !I->tgt->pid)
		return sched_getcpu();
	if (read_proc(ctx_pid(I), ctx_tid(I), "stat", buf, sizeof(buf)) < 0)
		return -1;
	/* after the comm's closing parenthesis: field 3 on */
	p = strrchr(buf, ')');
	for (i = 2; p && i < 39; i++)
		p = strchr(p + 1, ' ');
	return p ? strtoll(p + 1, NULL, 10) : -1;
}

/* stap's user_mode(): 1 when the probe hit while the thread ran user
 * code.  A sample says which; a ptrace stop of a traced thread shows
 * its user registers (1); begin, end and timer probes run in no user
 * context (0). */
static int64_t ctx_user_mode(const struct interp *I)
{
	if (I->tgt && I->tgt->sample)
		return I->tgt->sample->user_mode;
	return I->tgt && I->tgt->pid && I->tgt->stopped;
}

static int64_t call_long(struct interp *I, struct node *n)
{
	switch (n->builtin) {
	case P_PID: return ctx_pid(I);
	case P_TID: return ctx_tid(I);
	case P_PPID:
		if (!I->tgt || !I->tgt->pid)
			return getppid();
		return status_field(I->tgt->pid, "PPid", 0);
	case P_UID: return status_field(ctx_pid(I), "Uid", 0);
	case P_EUID: return status_field(ctx_pid(I), "Uid", 1);
	case P_GID: return status_field(ctx_pid(I), "Gid", 0);
	case P_EGID: return status_field(ctx_pid(I), "Gid", 1);
	case P_TARGET:
		if (I->tgt && I->tgt->target_pid)
			return I->tgt->target_pid;
		return I->s->opts ? I->s->opts->target_pid : 0;
	case P_STP_PID: return getpid();
	case P_IS_RETURN: return I->cur && I->cur->is_return;
	case P_CPU: return ctx_cpu(I);
	case P_USER_MODE: return ctx_user_mode(I);
	}
	return 0;
}

static void call_string(struct interp *I, struct node *n,
			struct maptap_script_buf *b)
{
	char comm[64];
	struct sref a;
	ssize_t len;

	maptap_script_buf_clear(b);
	switch (n->builtin) {
	case P_EXECNAME:
		if (I->tgt && I->tgt->pid && I->tgt->comm) {
			maptap_script_buf_adds(b, I->tgt->comm);
			break;
		}
		len = read_proc(ctx_pid(I), ctx_tid(I), "comm", comm,
				sizeof(comm));
		if (len > 0 && comm[len - 1] == '\n')
			comm[--len] = '\0';
		if (len > 0) {
			maptap_script_buf_add(b, comm, (size_t)len);
		} else if (I->tgt && I->tgt->pid && I->tgt->sess) {
			/* gone from /proc: perf mode reads a short
			 * command's records after its end */
			const char *c;

			if (maptap_session_proc(I->tgt->sess, I->tgt->pid,
						NULL, &c) == 0)
				maptap_script_buf_adds(b, c);
		}
		break;
	case P_CMDLINE_ARGS:
		a = tr_eval_str(I, n->list.v[2]);
		cmdline_args(I, tr_eval_long(I, n->list.v[0]),
			     tr_eval_long(I, n->list.v[1]), a.p, b);
		break;
	case P_CMDLINE_ARG: {
		int64_t k = tr_eval_long(I, n->list.v[0]);

		cmdline_args(I, k, k, "", b);
		break;
	}
	case P_CMDLINE_STR:
		cmdline_args(I, 0, -1, " ", b);
		break;
	case P_JSON_STR:
		a = tr_eval_str(I, n->list.v[0]);
		json_string(a.p, a.len, b);
		break;
	case P_SYSCALL_NAME: {
		int64_t nr = tr_eval_long(I, n->list.v[0]);
		const struct maptap_syscall *sc = nr >= 0 && nr <= INT32_MAX ?
			maptap_syscall_lookup(maptap_syscall_native_arch(),
					      (int)nr) : NULL;

		if (sc && sc->name)
			maptap_script_buf_adds(b, sc->name);
		else
			maptap_script_buf_printf(b, "syscall_%lld",
						 (long long)nr);
		break;
	}
	case P_SIGABBREV: {
		int64_t sig = tr_eval_long(I, n->list.v[0]);
		const char *ab = sig > 0 && sig < 128 ?
				 sigabbrev_np((int)sig) : NULL;

		maptap_script_buf_adds(b, ab ? ab : "?");
		break;
	}
	}
}

static void call(struct interp *I, struct node *n, int64_t *l,
		 struct sref *s)
{
	struct maptap_script_buf *b;

	*l = 0;
	if (table[n->builtin - P_PID].ret != TY_STRING) {
		*l = call_long(I, n);
		return;
	}
	b = tr_tmp_get(I);
	call_string(I, n, b);
	maptap_script_buf_truncate(b, I->lim.maxstringlen - 1);
	s->p = maptap_script_buf_str(b);
	s->len = b->len;
}

/* cpu() is where the stopped thread last ran. */
static bool at_stop(int id)
{
	return id == P_CPU;
}

const struct tr_builtin_group tr_builtins_proc = {
	.set = {
		.table = table,
		.n = sizeof(table) / sizeof(table[0]),
		.at_stop = at_stop,
	},
	.call = call,
};
