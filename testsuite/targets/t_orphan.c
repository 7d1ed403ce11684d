/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_orphan.c -- leaves a child behind: forks a child that waits in
 * pause(2), prints "parent PID" and "child PID", and exits 0 at once.
 * Under maptap -c the command is then reaped while its child is still
 * traced (attach.py: a signal to maptap then goes to that child).
 */
#include <signal.h>

#include "t_common.h"

int main(void)
{
	pid_t c = fork();

	if (c < 0)
		t_die("fork");
	if (c == 0) {
		for (;;)
			pause();
	}
	printf("parent %d\nchild %d\n", (int)getpid(), (int)c);
	fflush(stdout);
	return 0;
}
