/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ptrace_stop.h -- test and benchmark support: start a program under
 * ptrace and run it until one of its threads stops itself with SIGSTOP
 * (raise(SIGSTOP) in the targets of testsuite/targets/uw_*.c and
 * bench/unwind/deep_stop.c), leaving that thread in a ptrace stop of
 * the caller, where maptap_unwind() may walk it.
 *
 * Not thread-safe: it waits for any child (waitpid(-1)); use it from a
 * program that has no other children.
 */
#ifndef MAPTAP_TEST_PTRACE_STOP_H
#define MAPTAP_TEST_PTRACE_STOP_H

#include <sys/types.h>

/* Fork and exec ARGV[0] (PATH searched) under PTRACE_TRACEME, with
 * PTRACE_O_EXITKILL (it dies with the caller) and PTRACE_O_TRACECLONE
 * (its threads are traced too), and continue every thread until one
 * that was already running stops with SIGSTOP; a new thread's first
 * stop, a SIGSTOP too (ptrace(2)), does not count.  Other signals are
 * delivered.  Returns the process id with *TID the stopped thread, or
 * -1 when the program could not start or exited first. */
pid_t ptrace_stop_launch(char **argv, pid_t *tid);

/* SIGKILL process PID and reap every child of the caller. */
void ptrace_stop_kill(pid_t pid);

#endif
