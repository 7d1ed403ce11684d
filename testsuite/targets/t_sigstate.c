/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_sigstate.c -- what a launched command sees of its signal state.
 *
 * Usage: t_sigstate report     print "SigIgn HEX", "SigBlk HEX" and
 *                              "SigCgt HEX" from /proc/self/status
 *        t_sigstate parent     the same of the parent (maptap, with -c)
 *        t_sigstate sleep N    print "started", sleep N seconds, exit 0
 *        t_sigstate wait       print "ready PID", wait for a line on stdin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int report(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigIgn:", 7) ||
		    !strncmp(line, "SigBlk:", 7) ||
		    !strncmp(line, "SigCgt:", 7)) {
			line[6] = ' ';
			fputs(line, stdout);
		}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char buf[32];

	if (!strcmp(mode, "report"))
		return report("/proc/self/status");
	if (!strcmp(mode, "parent")) {
		snprintf(buf, sizeof(buf), "/proc/%d/status", (int)getppid());
		return report(buf);
	}
	if (!strcmp(mode, "sleep") && argc > 2) {
		printf("started\n");
		fflush(stdout);
		sleep((unsigned)atoi(argv[2]));
		return 0;
	}
	if (!strcmp(mode, "wait")) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		return fgets(buf, sizeof(buf), stdin) ? 0 : 1;
	}
	return 2;
}
