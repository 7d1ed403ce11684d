/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tapset_dir.c -- whether the program runs from its build tree, and
 * where that tree's tapsets are (driver_find_uninstalled()): the front
 * end reads them when $MAPTAP_TAPSET names none (tr_tapset_dir(),
 * front/tapset_load.c).
 *
 * The build tree is told by a file the build writes beside the program
 * (DRIVER_UNINSTALLED, Makefile.am) and `make install` never installs:
 * the absolute path of the source tree's tapsets/.  Nothing of the
 * source or build tree is compiled in (issue 11: a compiled-in path won
 * over the installed tapsets whenever that path existed, so whoever could
 * create it chose what a root maptap ran).  The file is believed only
 * beside the running executable, as a regular file of the executable's
 * owner that no one else may write: whoever can put it there can
 * replace the program itself, so it gives no one more than they have.
 * An installed maptap's directory holds no such file.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"

/* Into BUF (SIZE bytes): the directory of the running executable, with
 * a trailing '/'.  Its owner in *UID.  Returns 0 or -1. */
static int exe_dir(char *buf, size_t size, uid_t *uid)
{
	struct stat st;
	ssize_t n;
	char *slash;

	if (stat("/proc/self/exe", &st) != 0)
		return -1;
	*uid = st.st_uid;
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n <= 0 || (size_t)n >= size - 1)
		return -1;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	slash[1] = '\0';
	return 0;
}

void driver_find_uninstalled(struct tr_options *o)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	uid_t owner;
	ssize_t n;
	int fd;

	o->uninstalled_tapsets = NULL;
	if (exe_dir(path, sizeof(path) - sizeof(DRIVER_UNINSTALLED), &owner))
		return;
	strcat(path, DRIVER_UNINSTALLED);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != owner || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return;
	}
	n = read(fd, dir, sizeof(dir) - 1);
	close(fd);
	if (n <= 1 || dir[0] != '/')
		return;
	dir[n] = '\0';
	dir[strcspn(dir, "\n")] = '\0';
	o->uninstalled_tapsets = strdup(dir);
}
