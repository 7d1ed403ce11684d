/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_maps_parse.c -- the maps text parser, VMA kinds, the VMA buffer.
 *
 * Lines are built the way fs/proc/task_mmu.c writes them (kline()), so a
 * name's exact bytes -- leading and trailing spaces included -- are known
 * and must come back unchanged.  Fixtures cover what this kernel cannot
 * produce (CONFIG_ANON_VMA_NAME is off here: [anon:NAME]).
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/maps.h>

#include "testsuite/lib/tap.h"

/* A line as show_map_vma() prints it: padded to column 72, one space,
 * then the name; NAME NULL for a nameless VMA. */
static int kline(char *out, size_t size, uint64_t s, uint64_t e,
		 const char *perms, uint64_t off, unsigned maj, unsigned min,
		 uint64_t ino, const char *name)
{
	int n = snprintf(out, size, "%08" PRIx64 "-%08" PRIx64 " %s %08" PRIx64
			 " %02x:%02x %" PRIu64 " ", s, e, perms, off, maj, min,
			 ino);

	if (!name)
		return n;
	while (n < 72)
		out[n++] = ' ';
	return n + snprintf(out + n, size - (size_t)n, " %s", name);
}

static bool name_is(const struct maptap_vma *v, const char *want,
		    const char *what)
{
	char got[8192];

	snprintf(got, sizeof(got), "%.*s", (int)v->name_len, v->name);
	return tap_str_eq(got, want, what);
}

static void test_name(const char *name, enum maptap_vma_kind kind,
		      uint64_t ino)
{
	char line[10000];
	char what[80];
	struct maptap_vma v;
	int n = kline(line, sizeof(line), 0x7f0000000000, 0x7f0000001000,
		      "rw-p", ino ? 0x3000 : 0, ino ? 0xfe : 0, 0, ino, name);

	snprintf(what, sizeof(what), "parse a line named \"%.40s\"",
		 name ? name : "");
	if (!tap_int_eq(maptap_maps_parse_line(line, (size_t)n, &v), 0,
			what)) {
		tap_diag("line: %s", line);
		return;
	}
	name_is(&v, name ? name : "", "name comes back byte for byte");
	tap_int_eq(v.kind, kind, "kind of the name");
}

static void test_names(void)
{
	static char longname[6000];
	size_t i;

	test_name(NULL, MAPTAP_VMA_ANON, 0);
	test_name("/usr/lib/x86_64-linux-gnu/libc.so.6", MAPTAP_VMA_FILE, 42);
	test_name("/tmp/a name with  spaces", MAPTAP_VMA_FILE, 42);
	test_name("/tmp/new\\012line", MAPTAP_VMA_FILE, 42);
	test_name("/tmp/gone (deleted)", MAPTAP_VMA_FILE, 42);
	test_name("/tmp/real name (deleted) (deleted)", MAPTAP_VMA_FILE, 42);
	test_name("/memfd:pool (deleted)", MAPTAP_VMA_FILE, 42);
	test_name("/dev/zero (deleted)", MAPTAP_VMA_FILE, 42);
	test_name("/tmp/trailing spaces  ", MAPTAP_VMA_FILE, 42);
	test_name("  leading spaces", MAPTAP_VMA_SPECIAL, 0);
	test_name("[heap]", MAPTAP_VMA_HEAP, 0);
	test_name("[stack]", MAPTAP_VMA_STACK, 0);
	test_name("[stack:1234]", MAPTAP_VMA_STACK, 0);
	test_name("[vdso]", MAPTAP_VMA_VDSO, 0);
	test_name("[vvar]", MAPTAP_VMA_VVAR, 0);
	test_name("[vvar_vclock]", MAPTAP_VMA_VVAR, 0);
	test_name("[vsyscall]", MAPTAP_VMA_VSYSCALL, 0);
	test_name("[uprobes]", MAPTAP_VMA_SPECIAL, 0);
	test_name("[anon:my arena]", MAPTAP_VMA_ANON_NAMED, 0);
	test_name("[anon_shmem:ring]", MAPTAP_VMA_SHMEM_NAMED, 0);
	for (i = 0; i < sizeof(longname) - 1; i++)
		longname[i] = i % 64 == 0 ? '/' : (char)('a' + i % 26);
	test_name(longname, MAPTAP_VMA_FILE, 42);
}

static void test_fields(void)
{
	static const char l1[] =
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
		"                  [vsyscall]";
	static const char l2[] =
		"7f0000001000-7f0000003000 r-xs 123456789abcdef0 103:1f "
		"18446744073709551615 /x";
	static const char l3[] = "0-1000 rwxp 0 0:0 0";
	static const char l4[] = "00007f0000000000-00007f0000001000 r--p "
				 "0000000000002000 0000fe:00000001 7 /y";
	struct maptap_vma v;

	tap_int_eq(maptap_maps_parse_line(l1, sizeof(l1) - 1, &v), 0,
		   "16-digit addresses");
	tap_ok(v.start == 0xffffffffff600000ULL && v.end == 0xffffffffff601000ULL,
	       "addresses read whole");
	tap_int_eq(v.perms, MAPTAP_PERM_X, "--xp is exec only");
	tap_int_eq(maptap_maps_parse_line(l2, sizeof(l2) - 1, &v), 0,
		   "wide device, 16-digit offset, 20-digit inode");
	tap_ok(v.offset == 0x123456789abcdef0ULL, "offset");
	tap_ok(v.dev_major == 0x103 && v.dev_minor == 0x1f, "major:minor");
	tap_ok(v.inode == UINT64_MAX, "inode up to 2^64-1");
	tap_int_eq(v.perms, MAPTAP_PERM_R | MAPTAP_PERM_X | MAPTAP_PERM_S,
		   "r-xs");
	name_is(&v, "/x", "a hand-written line with one space before the name");
	tap_int_eq(maptap_maps_parse_line(l3, sizeof(l3) - 1, &v), 0,
		   "minimal widths, no trailing space");
	tap_ok(v.start == 0 && v.end == 0x1000 && v.name_len == 0 &&
	       v.name && v.name[0] == '\0', "nameless VMA has name \"\"");
	tap_int_eq(maptap_maps_parse_line(l4, sizeof(l4) - 1, &v), 0,
		   "leading zeros beyond the usual widths");
	tap_ok(v.start == 0x7f0000000000ULL && v.offset == 0x2000 &&
	       v.dev_major == 0xfe && v.dev_minor == 1, "their values");
}

static void test_bad(void)
{
	static const char *const bad[] = {
		"",
		"7f00-",
		"7f0000000000 7f0000001000 rw-p 0 0:0 0",
		"zz-1000 rw-p 0 0:0 0",
		"0-1000 rwxq 0 0:0 0",
		"0-1000 rw-p 0 0:0",
		"0-1000 rw-p 0 0:0 x",
		"0-1000 rw-p 0 0:0 12/x",
		"0-1000 rw-p 0 00 0",
		"1000-1000 rw-p 0 0:0 0",
		"2000-1000 rw-p 0 0:0 0",
		"10000000000000000-10000000000001000 rw-p 0 0:0 0",
		"0-1000 rw-p 0 100000000:0 0",
		"0-1000 rw-p 0 0:0 18446744073709551616",
		"0-1000 rw-p 0 0:0 0\n",
		"0-1000  rw-p 0 0:0 0",
	};
	struct maptap_vma v;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		tap_int_eq(maptap_maps_parse_line(bad[i], strlen(bad[i]), &v),
			   -EINVAL, "bad line is -EINVAL");
}

static char *slurp(const char *rel, size_t *len)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", top ? top : "..", rel);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void test_fixture(void)
{
	static const struct {
		const char *name;
		enum maptap_vma_kind kind;
	} want[] = {
		{ "/usr/bin/app", MAPTAP_VMA_FILE },
		{ "/usr/bin/app", MAPTAP_VMA_FILE },
		{ "[heap]", MAPTAP_VMA_HEAP },
		{ "[anon:jemalloc arena 0]", MAPTAP_VMA_ANON_NAMED },
		{ "[anon_shmem:ring buffer]", MAPTAP_VMA_SHMEM_NAMED },
		{ "", MAPTAP_VMA_ANON },
		{ "/memfd:wayland-shm (deleted)", MAPTAP_VMA_FILE },
		{ "/dev/zero (deleted)", MAPTAP_VMA_FILE },
		{ "[uprobes]", MAPTAP_VMA_SPECIAL },
		{ "[stack:1234]", MAPTAP_VMA_STACK },
		{ "/home/u/my file\\012with newline.so (deleted)",
		  MAPTAP_VMA_FILE },
		{ "[stack]", MAPTAP_VMA_STACK },
		{ "[vsyscall]", MAPTAP_VMA_VSYSCALL },
	};
	struct maptap_vma_buf buf = { 0 };
	size_t len, i, n = sizeof(want) / sizeof(want[0]);
	char *text = slurp("testsuite/fixtures/maps/anon_named.maps", &len);

	if (!tap_ok(text != NULL, "read fixture anon_named.maps"))
		return;
	tap_int_eq(maptap_maps_parse(text, len, &buf), 0, "parse fixture");
	tap_int_eq((long long)buf.n, (long long)n, "every line");
	for (i = 0; i < n && i < buf.n; i++) {
		tap_str_eq(buf.v[i].name, want[i].name, "fixture name");
		tap_int_eq(buf.v[i].kind, want[i].kind, "fixture kind");
	}
	tap_ok(buf.n > 10 && buf.v[10].dev_major == 0x103 &&
	       buf.v[10].inode == 98765432101ULL && buf.v[10].offset == 0x2000,
	       "fixture fields");
	maptap_vma_buf_free(&buf);
	free(text);
}

static void test_parse_text(void)
{
	static const char text[] =
		"1000-2000 r--p 0 fe:00 5 /a\n"
		"2000-3000 rw-p 0 00:00 0 \n"
		"3000-4000 rw-p 0 00:00 0\n"
		"junk\n"
		"5000-6000 rw-p 0 00:00 0\n";
	static const char last[] = "1000-2000 r--p 0 fe:00 5 /a";
	struct maptap_vma_buf buf = { 0 };

	tap_int_eq(maptap_maps_parse(text, sizeof(text) - 1, &buf), -EINVAL,
		   "a bad line stops the parse with -EINVAL");
	tap_int_eq((long long)buf.n, 3, "the lines before it are kept");
	tap_str_eq(buf.n ? buf.v[0].name : NULL, "/a", "with their names");
	maptap_vma_buf_clear(&buf);
	tap_int_eq(maptap_maps_parse(last, sizeof(last) - 1, &buf), 0,
		   "last line without newline");
	tap_int_eq((long long)buf.n, 1, "is parsed");
	maptap_vma_buf_clear(&buf);
	tap_int_eq(maptap_maps_parse("", 0, &buf), 0, "empty text");
	tap_int_eq((long long)buf.n, 0, "has no VMA");
	maptap_vma_buf_free(&buf);
}

static void test_buf(void)
{
	struct maptap_vma_buf buf = { 0 };
	struct maptap_vma v = { 0 };
	char name[64];
	bool ok = true;
	size_t i;

	for (i = 0; i < 5000; i++) {
		v.start = i * 0x1000;
		v.end = v.start + 0x1000;
		v.name_len = (size_t)snprintf(name, sizeof(name), "/n/%zu", i);
		v.name = name;
		if (maptap_vma_buf_push(&buf, &v))
			ok = false;
		if (i == 100)
			maptap_vma_buf_finish(&buf);	/* push after finish */
	}
	maptap_vma_buf_finish(&buf);
	for (i = 0; i < buf.n; i++) {
		snprintf(name, sizeof(name), "/n/%zu", i);
		if (strcmp(buf.v[i].name, name) != 0)
			ok = false;
	}
	tap_ok(ok && buf.n == 5000, "5000 pushes keep every name (arena moved)");
	maptap_vma_buf_clear(&buf);
	tap_ok(buf.n == 0 && buf.cap >= 5000, "clear keeps the memory");
	maptap_vma_buf_free(&buf);
	tap_ok(buf.v == NULL && buf.n == 0 && buf.names == NULL,
	       "free zeroes the buffer");
}

static void test_perms(void)
{
	char p[5];

	tap_str_eq(maptap_perms_str(0, p), "---p", "no perms");
	tap_str_eq(maptap_perms_str(MAPTAP_PERM_R | MAPTAP_PERM_X, p), "r-xp",
		   "r-xp");
	tap_str_eq(maptap_perms_str(MAPTAP_PERM_R | MAPTAP_PERM_W |
				    MAPTAP_PERM_X | MAPTAP_PERM_S, p),
		   "rwxs", "rwxs");
	tap_int_eq(maptap_vma_kind_of("[anon:x]", 8, 5), MAPTAP_VMA_FILE,
		   "an inode makes any name a file");
}

/* maptap_dev_str() against the kernel's "%02x:%02x" */
static void test_dev(void)
{
	static const uint32_t n[] = { 0, 1, 0xf, 0x10, 0xfe, 0xff, 0x100,
				      0x103, 0xfff, 0x1000, 0xfffff,
				      0x7fffffff, 0xffffffff };
	char got[MAPTAP_DEV_STR_MAX], want[32];
	size_t i, j;
	int bad = 0;

	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		for (j = 0; j < sizeof(n) / sizeof(n[0]); j++) {
			snprintf(want, sizeof(want), "%02x:%02x", n[i], n[j]);
			if (strcmp(maptap_dev_str(n[i], n[j], got), want)) {
				tap_str_eq(got, want, "dev string");
				bad++;
			}
		}
	tap_ok(!bad, "dev strings equal %%02x:%%02x for %zu pairs",
	       i * j);
}

int main(void)
{
	test_names();
	test_fields();
	test_bad();
	test_fixture();
	test_parse_text();
	test_buf();
	test_perms();
	test_dev();
	return tap_done();
}
