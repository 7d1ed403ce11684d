/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_event.c -- the text log line and the JSON object of each event. */
#include <config.h>

#include <maptap/event.h>
#include <maptap/module.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../lib/tap.h"

static char *render(const struct maptap_event *ev, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (json)
		maptap_event_print_json(fp, ev);
	else
		maptap_event_print_text(fp, ev, 1000);
	fclose(fp);
	return buf;
}

static struct maptap_event range_event(enum maptap_event_kind kind,
				       const char *name, uint64_t inode)
{
	struct maptap_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.pid = 10;
	ev.tid = 11;
	ev.time_ns = 1000 + 2500000;
	ev.syscall_nr = 9;
	ev.syscall = "mmap";
	ev.vma.start = 0x1000;
	ev.vma.end = 0x3000;
	ev.vma.offset = inode ? 0x2000 : 0;
	ev.vma.inode = inode;
	ev.vma.dev_major = 8;
	ev.vma.dev_minor = 1;
	ev.vma.perms = MAPTAP_PERM_R | MAPTAP_PERM_X;
	ev.vma.name = name;
	ev.vma.name_len = strlen(name);
	ev.old.name = "";
	return ev;
}

static void test_text(void)
{
	struct maptap_event ev = range_event(MAPTAP_EV_MAP, "/lib/x.so", 42);
	char *s = render(&ev, false);

	tap_str_eq(s, "    0.002500 10/11         map     0000000000001000-"
		   "0000000000003000 r-xp 00002000 /lib/x.so [mmap]\n",
		   "text line of a map event");
	free(s);
	ev = range_event(MAPTAP_EV_PROTECT, "", 0);
	ev.syscall = "mprotect";
	ev.old.perms = MAPTAP_PERM_R | MAPTAP_PERM_W;
	s = render(&ev, false);
	tap_ok(strstr(s, " [anon] (was rw-p) [mprotect]\n") != NULL,
	       "protect shows the old perms: %s", s);
	free(s);
	ev.syscall = NULL;
	ev.kind = MAPTAP_EV_MAP;
	ev.snapshot = true;
	s = render(&ev, false);
	tap_ok(strstr(s, "[snapshot]\n") != NULL, "snapshot marked");
	free(s);
	memset(&ev, 0, sizeof(ev));
	ev.kind = MAPTAP_EV_EXIT;
	ev.pid = ev.tid = 5;
	ev.status = 9;	/* killed by SIGKILL */
	ev.vma.name = ev.old.name = "";
	s = render(&ev, false);
	tap_ok(strstr(s, "exit    killed by SIGKILL") != NULL, "exit by signal: %s", s);
	free(s);
}

static void test_json(void)
{
	struct maptap_event ev = range_event(MAPTAP_EV_MAP, "/tmp/a b\\012c", 42);
	char *s = render(&ev, true);

	tap_str_eq(s, "{\"event\":\"map\",\"pid\":10,\"tid\":11,\"time_ns\":2501000,"
		   "\"syscall\":\"mmap\",\"start\":\"0x1000\",\"end\":\"0x3000\","
		   "\"offset\":\"0x2000\",\"perms\":\"r-xp\",\"dev\":\"08:01\","
		   "\"inode\":42,\"path\":\"/tmp/a b\\\\012c\",\"name\":null,"
		   "\"snapshot\":false}\n", "JSON of a file map event");
	free(s);
	ev = range_event(MAPTAP_EV_RENAME, "[anon:q\"x\"]", 0);
	ev.syscall = "prctl";
	ev.old.name = "[anon:p]";
	ev.old.name_len = 8;
	s = render(&ev, true);
	tap_ok(strstr(s, "\"path\":null,\"name\":\"[anon:q\\\"x\\\"]\"") &&
	       strstr(s, "\"old\":{") && strstr(s, "\"name\":\"[anon:p]\""),
	       "rename: name escaped, old state present: %s", s);
	free(s);
	ev = range_event(MAPTAP_EV_MAP, "/tmp/\xff\xc3\xa9\x01", 7);
	s = render(&ev, true);
	tap_ok(strstr(s, "\"path\":\"/tmp/\\u00ff\xc3\xa9\\u0001\"") != NULL,
	       "invalid UTF-8 byte and control byte escaped, valid UTF-8 kept: %s", s);
	free(s);
	ev = range_event(MAPTAP_EV_MAP, "/tmp/\xe2\x82", 7);
	s = render(&ev, true);
	tap_ok(strstr(s, "\"path\":\"/tmp/\\u00e2\\u0082\"") != NULL,
	       "truncated UTF-8 sequence escaped byte by byte: %s", s);
	free(s);
	memset(&ev, 0, sizeof(ev));
	ev.kind = MAPTAP_EV_EXEC;
	ev.pid = ev.tid = 3;
	ev.former_tid = 4;
	ev.path = "/bin/true";
	ev.old_path = "/bin/sh";
	ev.syscall = "execve";
	ev.vma.name = ev.old.name = "";
	s = render(&ev, true);
	tap_str_eq(s, "{\"event\":\"exec\",\"pid\":3,\"tid\":3,\"time_ns\":0,"
		   "\"syscall\":\"execve\",\"exe\":\"/bin/true\",\"old_exe\":"
		   "\"/bin/sh\",\"former_tid\":4}\n", "JSON of an exec event");
	free(s);
}

static void test_names(void)
{
	int k, seen = 0;

	for (k = 0; k < MAPTAP_EV_KIND_COUNT; k++)
		seen += maptap_event_kind_name(k) != NULL;
	tap_int_eq(seen, MAPTAP_EV_KIND_COUNT, "every event kind has a name");
	tap_ok(maptap_event_kind_name(MAPTAP_EV_KIND_COUNT) == NULL,
	       "unknown kind has none");
}

/* The module and segment of a range, and the mark of an anonymous copy
 * of a segment (maptap_module_desc.anon) in both forms. */
static void test_where(void)
{
	struct maptap_event ev = range_event(MAPTAP_EV_PROTECT, "", 0);
	struct maptap_module_desc d;
	char *s;

	memset(&d, 0, sizeof(d));
	d.has_module = d.has_segment = true;
	d.module.path = "/bin/x";
	d.module.type = MAPTAP_MODULE_DYN;
	d.module.bias = 0x1000;
	d.segment.index = 3;
	d.segment.kind = MAPTAP_SEG_TEXT;
	d.segment.p_vaddr = 0x1000;
	d.segment.p_offset = 0x1000;
	ev.where = &d;
	s = render(&ev, false);
	tap_ok(strstr(s, " {dyn text} [mmap]\n") != NULL,
	       "text: module type and segment kind");
	free(s);
	s = render(&ev, true);
	tap_ok(strstr(s, ",\"segment\":{\"index\":3,\"kind\":\"text\","
		      "\"p_vaddr\":\"0x1000\",\"p_offset\":\"0x1000\"}}\n")
	       != NULL, "JSON: segment object without anon");
	free(s);
	d.anon = true;
	s = render(&ev, false);
	tap_ok(strstr(s, " {dyn text(anon)} [mmap]\n") != NULL,
	       "text: an anonymous copy is text(anon)");
	free(s);
	s = render(&ev, true);
	tap_ok(strstr(s, "\"p_offset\":\"0x1000\",\"anon\":true}}\n")
	       != NULL, "JSON: an anonymous copy has \"anon\":true");
	free(s);
}

/* A clone event says whether its child is a thread or a process that
 * shares the mm (vfork, CLONE_VM without CLONE_THREAD). */
static void test_clone(void)
{
	struct maptap_event ev;
	char *s;

	memset(&ev, 0, sizeof(ev));
	ev.kind = MAPTAP_EV_CLONE;
	ev.pid = ev.tid = 7;
	ev.child = 8;
	ev.thread = true;
	ev.vma.name = ev.old.name = "";
	s = render(&ev, false);
	tap_ok(strstr(s, "clone   thread 8\n") != NULL, "text: a thread: %s", s);
	free(s);
	s = render(&ev, true);
	tap_ok(strstr(s, ",\"child\":8,\"thread\":true}") != NULL,
	       "JSON: a thread: %s", s);
	free(s);
	ev.thread = false;
	s = render(&ev, false);
	tap_ok(strstr(s, "clone   process 8 (same mm)\n") != NULL,
	       "text: a process on the same mm: %s", s);
	free(s);
	s = render(&ev, true);
	tap_ok(strstr(s, ",\"child\":8,\"thread\":false}") != NULL,
	       "JSON: a process on the same mm: %s", s);
	free(s);
}

int main(void)
{
	test_text();
	test_json();
	test_clone();
	test_where();
	test_names();
	return tap_done();
}
