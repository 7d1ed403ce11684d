/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_tvar_list.c -- maptap_tvar_list() (maptap/tvar.h), the source of
 * -L's "$name:type" list, on this very test program's DWARF: the
 * variables of tvl_probe() at its body, in order, with stap's type
 * names; at a .return, "return" and its type first; an address with no
 * compile unit, -ENODATA; a file without DWARF, -ENODATA.
 */
#include <config.h>

#include <maptap/tvar.h>
#include <maptap/uprobe.h>

#include "../lib/tap.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tvl_pt {
	int x, y;
};

typedef unsigned long tvl_size_t;

int tvl_sink;

long tvl_probe(tvl_size_t size, const char *name, struct tvl_pt *pt,
	       char **argv);

__attribute__((noinline)) long tvl_probe(tvl_size_t size, const char *name,
					 struct tvl_pt *pt, char **argv)
{
	char buf[16];
	volatile int count = 0;

	snprintf(buf, sizeof(buf), "%s", name);
	tvl_sink += buf[0] + count + pt->x + (argv != NULL);
	return (long)size;
}

struct seen {
	char text[512];
	size_t len;
};

static int add(const char *name, const char *type, void *arg)
{
	struct seen *s = arg;

	s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len,
				   "%s$%s:%s", s->len ? " " : "", name, type);
	return 0;
}

static int body_of(const struct maptap_uprobe_func *f, void *arg)
{
	*(uint64_t *)arg = f->body;
	return 0;
}

int main(int argc, char **argv)
{
	struct tvl_pt pt = { 1, 2 };
	struct seen s = { "", 0 };
	char self[4096];
	uint64_t body = 0;
	ssize_t n;
	int rc;

	(void)argc;
	tvl_probe(3, "x", &pt, argv);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	rc = maptap_uprobe_dwarf_functions(self, "tvl_probe", NULL, 0, 0,
					   body_of, &body);
	if (rc == -ENODATA) {
		tap_skip("this test program was built without -g");
		return tap_done();
	}
	tap_ok(rc == 1 && body, "tvl_probe found in the DWARF (rc %d)", rc);
	rc = maptap_tvar_list(self, body, false, add, &s);
	tap_int_eq(rc, 6, "six variables in scope at the body");
	tap_str_eq(s.text, "$size:tvl_size_t $name:char const* "
		   "$pt:struct tvl_pt* $argv:char** $buf:char[16] "
		   "$count:int volatile",
		   "parameters in order, then locals, stap's type names");
	s.len = 0;
	s.text[0] = 0;
	rc = maptap_tvar_list(self, body, true, add, &s);
	tap_int_eq(rc, 7, "at a return: $return first");
	tap_ok(!strncmp(s.text, "$return:long int $size:tvl_size_t",
			strlen("$return:long int $size:tvl_size_t")),
	       "$return:long int (DWARF's name) leads: %s", s.text);
	tap_int_eq(maptap_tvar_list(self, 0, false, add, &s), -ENODATA,
		   "an address no compile unit covers: -ENODATA");
	tap_int_eq(maptap_tvar_list("/nonexistent/x", body, false, add, &s),
		   -ENOENT, "a missing file: -ENOENT");
	return tap_done();
}
