/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* launch.c -- start a command as a traced child (maptap -c).
 *
 * The child waits on a pipe until the parent has seized it, installs the
 * seccomp filter, and execs; its first stop is the filter's trace of
 * execve, so no instruction of the command runs untraced.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Check, as execvp(3) would search, that FILE can be executed, so that a
 * command that cannot run is refused before anything is forked.
 * Returns 0 or -errno (-ENOENT, -EACCES, -EISDIR). */
static int check_executable(const char *file)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];
	struct stat st;
	int err = -ENOENT;

	if (!*file)
		return -ENOENT;
	if (strchr(file, '/')) {
		if (stat(file, &st) != 0)
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return access(file, X_OK) == 0 ? 0 : -errno;
	}
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (p = path; ; p = end + 1) {
		size_t len;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (len + strlen(file) + 2 < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)len,
				 len ? p : ".", file);
			if (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
				if (access(buf, X_OK) == 0)
					return 0;
				err = -EACCES;
			}
		}
		if (!*end)
			break;
	}
	return err;
}

/* In the child, before anything else: the signal state OPTS asks for
 * (maptap_session_opts.launch_signals), then the mask (OLD_MASK: the
 * caller's, when OPTS does not give one).  Until the mask is set every
 * signal is blocked (see maptap_session_launch()), so none can run the
 * parent's handlers here; one that came meanwhile stays pending and then
 * acts on the command's dispositions, or is dropped if it ignores it. */
static void child_signals(const struct maptap_session_opts *opts,
			  const sigset_t *old_mask)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	int sig;

	for (sig = 1; sig < NSIG; sig++) {
		struct sigaction cur;

		if (sig == SIGKILL || sig == SIGSTOP ||
		    sigaction(sig, NULL, &cur) != 0)
			continue;	/* glibc's own signals refuse: EINVAL */
		if (opts->launch_signals)
			sigaction(sig, sigismember(&opts->launch_sigign, sig) ==
				  1 ? &ign : &dfl, NULL);
		else if (cur.sa_handler != SIG_IGN && cur.sa_handler != SIG_DFL)
			sigaction(sig, &dfl, NULL);
	}
	sigprocmask(SIG_SETMASK, opts->launch_signals ? &opts->launch_sigmask :
		    old_mask, NULL);
}

/* The child's side: never returns.  SECCOMP: the options the filter is
 * built from (the calls on_syscall wants trace too), or NULL for none. */
static void child(int go_fd, const struct maptap_session_opts *seccomp,
		  char *const argv[])
{
	char c;
	int err;

	if (read(go_fd, &c, 1) != 1)
		_exit(127);	/* the parent went away before seizing us */
	close(go_fd);
	if (seccomp) {
		err = mt_seccomp_install(seccomp);
		if (err) {
			dprintf(2, "maptap: cannot install the seccomp filter: %s\n",
				strerror(-err));
			_exit(127);
		}
	}
	execvp(argv[0], argv);
	dprintf(2, "maptap: cannot execute '%s': %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

/* maptap could not take the command PID (opening its events, seizing it
 * or recording it failed).  Kill and reap it.  True when it had died by
 * itself before that: a signal to the whole process group (a terminal's
 * ^C, timeout(1)) reached it while it waited for its go.  That is the
 * command's end, as untraced, not maptap's failure: the session keeps
 * its status as the run's, with nothing left to trace.  A SIGKILL is
 * taken for maptap's own (one sent to the group ends maptap too). */
static bool died_before_go(struct maptap_session *s, pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	if (mt_wait_blocking(s, pid, &st) != pid ||
	    (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))
		return false;
	s->launched = true;
	s->launched_pid = pid;
	s->launched_reaped = true;
	s->exit_status = st;
	return true;
}

int maptap_session_launch(struct maptap_session *s, char *const argv[],
			  pid_t *pid_out)
{
	unsigned long opts = MT_PTRACE_OPTS | PTRACE_O_EXITKILL;
	sigset_t all, old_mask;
	struct mt_proc *p;
	struct mt_mm *mm;
	int go[2], err;
	pid_t pid;

	if (!argv || !argv[0])
		return mt_error(s, -EINVAL, "no command given");
	err = check_executable(argv[0]);
	if (err)
		return mt_error(s, err, "cannot execute '%s': %s", argv[0],
				strerror(-err));
	/* perf events for a command only when asked for (--events=perf). */
	if (s->opts.events == MAPTAP_EVENTS_PERF &&
	    !mt_perf_choose(s, true, &err))
		return err;
	s->perf_used = s->perf != NULL;
	s->use_seccomp = !s->opts.no_seccomp && !s->perf;
	if (s->use_seccomp)
		opts |= PTRACE_O_TRACESECCOMP;
	if (pipe2(go, O_CLOEXEC) != 0)
		return mt_error(s, -errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	/* No signal may reach the child's copy of our handlers: it would
	 * be taken there and lost (posix_spawn(3) does the same). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old_mask);
	pid = fork();
	if (pid == 0) {
		child_signals(&s->opts, &old_mask);
		close(go[1]);
		child(go[0], s->use_seccomp ? &s->opts : NULL, argv);
	}
	err = pid < 0 ? -errno : 0;
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return mt_error(s, err, "fork: %s", strerror(-err));
	}
	close(go[0]);
	if (s->perf && (err = mt_perf_launch(s, pid)) != 0) {
		close(go[1]);
		goto not_taken;
	}
	if (!s->perf && ptrace(PTRACE_SEIZE, pid, 0L, opts) != 0) {
		err = -errno;
		close(go[1]);
		if (died_before_go(s, pid))
			goto ended;
		return mt_error(s, err, "cannot trace the command: ptrace: %s",
				strerror(-err));
	}
	mm = mt_mm_new();
	p = mm ? mt_proc_new(s, pid, mm) : NULL;
	if (!p || !mt_thread_add(s, pid, p)) {
		close(go[1]);
		err = mt_error(s, -ENOMEM, "out of memory");
		goto not_taken;
	}
	/* The model is built at the exec event; until then the child is
	 * maptap's own code. */
	s->launched = true;
	s->launched_pid = pid;
	/* EPIPE: it died before reading its go (a signal to the process
	 * group); the loop reaps it and logs its exit, as after its exec. */
	if (write(go[1], "g", 1) != 1 && errno != EPIPE) {
		err = -errno;
		close(go[1]);
		return mt_error(s, err, "cannot start the command: %s",
				strerror(-err));
	}
	close(go[1]);
	*pid_out = pid;
	return 0;

not_taken:	/* ERR is set, and said (mt_error()) */
	if (!died_before_go(s, pid))
		return err;
ended:
	/* what the failure said is not the run's error */
	s->errmsg[0] = '\0';
	*pid_out = pid;
	return 0;
}
