/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_rename.c -- renames itself (prctl(PR_SET_NAME) to NAME, default
 * "renamed") and exits 0: the name a process's end reports is the one it
 * has then, not the one its exec gave it (perfmode.py).
 *
 * Usage: t_rename [NAME]
 */
#include <sys/prctl.h>

int main(int argc, char **argv)
{
	return prctl(PR_SET_NAME, argc > 1 ? argv[1] : "renamed", 0, 0, 0) ?
	       1 : 0;
}
