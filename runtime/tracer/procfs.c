/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* procfs.c -- the few facts the tracer reads from /proc (proc(5)), and
 * which CPUs are online (sysfs). */
#include "tracer_priv.h"

#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Read /proc/PID/FILE (small files only) into BUF, NUL-terminated. */
static int read_small(pid_t pid, const char *file, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The text after FIELD ("Tgid:") at the start of a line of BUF, the
 * text of /proc/PID/status; NULL when no line has it. */
static const char *status_field(const char *buf, const char *field)
{
	size_t len = strlen(field);
	const char *p;

	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, field, len) == 0)
			return p + len;
	return NULL;
}

/* A numeric field ("Tgid:", "PPid:", "TracerPid:") of /proc/PID/status. */
int mt_proc_status_long(pid_t pid, const char *field, long *out)
{
	char buf[4096];
	const char *v;
	int err = read_small(pid, "status", buf, sizeof(buf));

	if (err)
		return err;
	v = status_field(buf, field);
	if (!v)
		return -ENOENT;
	*out = strtol(v, NULL, 10);
	return 0;
}

/* The signals queued for thread TID itself and not blocked by it: SigPnd
 * and not SigBlk of /proc/TID/status (proc(5); the process's shared
 * queue is ShdPnd, not counted), bit N-1 for signal N. */
int mt_thread_sigpending(pid_t tid, uint64_t *mask)
{
	char buf[4096];
	const char *pnd, *blk;
	int err = read_small(tid, "status", buf, sizeof(buf));

	if (err)
		return err;
	pnd = status_field(buf, "SigPnd:");
	blk = status_field(buf, "SigBlk:");
	if (!pnd || !blk)
		return -ENOENT;
	*mask = strtoull(pnd, NULL, 16) & ~strtoull(blk, NULL, 16);
	return 0;
}

/* The state letter of /proc/PID/stat (R, S, D, Z, T, t, X, ...). */
int mt_proc_state(pid_t pid, char *state)
{
	char buf[1024];
	const char *p;
	int err = read_small(pid, "stat", buf, sizeof(buf));

	if (err)
		return err;
	/* comm may hold spaces and parentheses: the state follows the last
	 * ')' (proc(5)). */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return -EINVAL;
	*state = p[2];
	return 0;
}

/* Numeric fields FIELD to FIELD + N - 1 (1-based, as proc(5) numbers
 * them; >= 3) of /proc/PID/stat, from one read, into OUT[0..N). */
static int stat_fields(pid_t pid, int field, int n, long *out)
{
	char buf[2048];
	const char *p;
	int i, err = read_small(pid, "stat", buf, sizeof(buf));

	if (err)
		return err;
	p = strrchr(buf, ')');
	if (!p || field < 3 || n < 1)
		return -EINVAL;
	p++;	/* the space before field 3 */
	for (i = 3; i < field + n; i++) {
		if (*p != ' ')
			return -EINVAL;
		if (i >= field)
			out[i - field] = strtol(p + 1, NULL, 10);
		if (i == field + n - 1)
			return 0;
		p = strchr(p + 1, ' ');
		if (!p)
			return -EINVAL;
	}
	return -EINVAL;
}

/* Numeric field FIELD (1-based, as proc(5) numbers them; >= 3) of
 * /proc/PID/stat. */
int mt_proc_stat_field(pid_t pid, int field, long *out)
{
	return stat_fields(pid, field, 1, out);
}

/* Whether blocked thread TID is in vfork(2), or in clone(2) with
 * CLONE_VFORK, or in clone3(2) (whose flags are in memory: taken for
 * one, as posix_spawn(3) makes it), from /proc/TID/syscall: the number
 * and arguments of the call a blocked thread is in (proc(5)). */
static bool in_vfork(pid_t tid)
{
	char buf[256];
	unsigned long a1;
	long nr;

	if (read_small(tid, "syscall", buf, sizeof(buf)) ||
	    sscanf(buf, "%ld %lx", &nr, &a1) != 2)
		return false;
	return nr == SYS_vfork || nr == SYS_clone3 ||
	       (nr == SYS_clone && (a1 & CLONE_VFORK));
}

/* Whether thread T cannot enter a ptrace stop now: a zombie ('Z': a
 * leader that exited before its threads), a vfork parent ('D' in vfork
 * at every look for MT_VFORK_WAIT_NS: it waits until its child execs or
 * exits, which may be never; a child that does so at once lets it stop),
 * or asleep uninterruptibly otherwise at every look for MT_DSLEEP_NS or
 * more.  A shorter 'D' is a wait for a lock or a page -- a thread
 * mapping while its siblings map waits for the mm's lock
 * (down_write_killable() shows as 'D'), for as long as their
 * MAP_POPULATE of hundreds of MiB takes -- after which the stop comes:
 * taken for a vfork parent, it made -x of a mapping storm say "cannot
 * stop now" and read the maps without that thread (two fresh helpers'
 * findings: one attach in three, then 8 in 8 with 0.1 s for the rule).
 * A stop asked for comes only when the thread wakes (ptrace(2),
 * PTRACE_INTERRUPT), so no wait may count on it.  Callers look again
 * every millisecond or so (mt_wait_tick()).
 *
 * PATIENT (the attach, which reads the maps without a thread it gives
 * up on): the MT_DSLEEP_NS count starts again whenever the process's
 * CPU time (utime + stime of /proc/PID/stat, every thread's) has grown
 * since the last look, up to MT_DSLEEP_MAX_NS in all: a thread waiting
 * for the mm's lock behind siblings that populate waits while they
 * work, however slow a loaded machine makes them (vforkwait.py 5 took
 * more than 2 s pinned to one busy CPU), and one stuck for good while
 * the rest of the process is stopped is given up after MT_DSLEEP_NS.
 * A detach gives up after MT_DSLEEP_NS all the same: a thread let go
 * when maptap exits runs on as it would. */
bool mt_dsleep_give_up(struct mt_dsleep *d, char state, bool vfork,
		       uint64_t cpu, uint64_t now)
{
	if (state == 'Z')
		return true;
	if (state != 'D') {
		d->since = 0;
		return false;
	}
	if (!d->since) {
		d->since = d->first = now;
		d->cpu = cpu;
		return false;
	}
	if (vfork)
		return now - d->since >= MT_VFORK_WAIT_NS;
	if (cpu != d->cpu && now - d->first < MT_DSLEEP_MAX_NS) {
		d->cpu = cpu;
		d->since = now;	/* the process got on: wait on */
		return false;
	}
	return now - d->since >= MT_DSLEEP_NS;
}

bool mt_thread_unstoppable(struct mt_thread *t, bool patient)
{
	char state;
	uint64_t cpu = 0;
	long times[2];		/* utime, stime: fields 14 and 15 */

	if (mt_proc_state(t->tid, &state) != 0)
		state = 'R';	/* gone: its exit is reported */
	if (state != 'D')
		return mt_dsleep_give_up(&t->dsleep, state, false, 0, 0);
	if (patient && stat_fields(t->proc->pid, 14, 2, times) == 0)
		cpu = (uint64_t)times[0] + (uint64_t)times[1];
	return mt_dsleep_give_up(&t->dsleep, state,
				 t->dsleep.since && in_vfork(t->tid), cpu,
				 mt_now_ns());
}

/* 1 if PID is a kernel thread (PF_KTHREAD in the flags of
 * /proc/PID/stat, field 9; include/linux/sched.h), 0 if not, -errno. */
int mt_proc_is_kthread(pid_t pid)
{
	long flags;
	int err = mt_proc_stat_field(pid, 9, &flags);

	if (err)
		return err;
	return (flags & 0x00200000L) != 0;
}

/* /proc/PID/comm into COMM (MT_COMM_LEN bytes), without its newline;
 * "" when it cannot be read (PID gone). */
void mt_proc_comm(pid_t pid, char *comm)
{
	char buf[64];
	size_t n;

	comm[0] = '\0';
	if (read_small(pid, "comm", buf, sizeof(buf)) != 0)
		return;
	n = strcspn(buf, "\n");
	if (n >= MT_COMM_LEN)
		n = MT_COMM_LEN - 1;
	memcpy(comm, buf, n);
	comm[n] = '\0';
}

char *mt_proc_exe(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return strdup("");
	buf[n] = '\0';
	return strdup(buf);
}

/* The tids in /proc/PID/task, malloc'd. */
int mt_proc_tids(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	struct dirent *de;
	pid_t *v = NULL;
	size_t cap = 0;
	DIR *d;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (*n == cap) {
			pid_t *nv = realloc(v, (cap = cap ? 2 * cap : 16) *
					    sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = (pid_t)strtol(de->d_name, NULL, 10);
	}
	closedir(d);
	*tids = v;
	return 0;
}

/* 1 if A and B share one mm (kcmp(2), KCMP_VM), 0 if not, -errno. */
int mt_same_mm(pid_t a, pid_t b)
{
	long r = syscall(SYS_kcmp, a, b, KCMP_VM, 0, 0);

	if (r < 0)
		return -errno;
	return r == 0;
}

bool mt_cpu_list_has(const char *list, int cpu)
{
	const char *p = list;

	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi;

		if (end == p)
			return false;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p)
				return false;
		}
		if (cpu >= lo && cpu <= hi)
			return true;
		p = end;
		if (*p == ',')
			p++;
		else
			break;
	}
	return false;
}

bool mt_cpu_online(int cpu)
{
	char buf[4096];
	ssize_t n;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	return mt_cpu_list_has(buf, cpu);
}
