/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_names.c -- map files whose names are hard to print.
 *
 * Usage: t_names DIR MAPS_OUT
 * Creates in DIR and maps one page of each: "with space", "new<LF>line",
 * "bad<FF><FE>utf8", "real (deleted)" (a real name), and "gone" unlinked
 * before the mmap (the kernel shows "gone (deleted)").  Prints
 * "file-I 0xSTART 0xEND" for file I in that order.
 */
#include <string.h>
#include <sys/mman.h>

#include "t_common.h"

static const char *const names[] = {
	"with space", "new\nline", "bad\xff\xfeutf8", "real (deleted)", "gone",
};

int main(int argc, char **argv)
{
	char path[4096], key[16];
	unsigned i;

	if (argc < 3)
		return 2;
	t_init();
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char page[4096];
		void *p;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		memset(page, 'a' + (int)i, sizeof(page));
		if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page))
			t_die("create");
		if (strcmp(names[i], "gone") == 0 && unlink(path))
			t_die("unlink");
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			t_die("mmap");
		close(fd);
		snprintf(key, sizeof(key), "file-%u", i);
		t_report(key, p, (char *)p + 4096);
	}
	t_dump_maps(argv[2]);
	_exit(0);
}
