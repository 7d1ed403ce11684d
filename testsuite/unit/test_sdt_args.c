/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sdt_args.c -- SDT argument descriptors (maptap/sdt.h): each form
 * sys/sdt.h's assembler templates produce on x86-64, parsed, and its
 * value against a register set and this process's own memory; and the
 * notes of testsuite/targets/sdt_marks.c, built at test time with $CC:
 * names, argument counts, the nop at each address, globs, and the
 * prelink rule (a note whose .stapsdt.base moved).
 */
#include <config.h>

#include <maptap/sdt.h>

#include "../lib/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>

static struct user_regs_struct regs;

/* Parse TEXT and read it; the value, or INT64_MIN + 1 when it cannot be
 * parsed, INT64_MIN when it cannot be read. */
static int64_t value(const char *text)
{
	struct maptap_sdt_arg a;
	int64_t v;

	if (maptap_sdt_parse_arg(text, &a))
		return INT64_MIN + 1;
	if (maptap_sdt_arg_value(&a, getpid(), &regs, 0, &v))
		return INT64_MIN;
	return v;
}

/* ---- the notes of a built target ---- */

struct seen {
	char names[8][32];
	int nargs[8];
	uint64_t pc[8], sema[8];
	uint32_t bad;
	int n;
};

static int collect(const struct maptap_sdt_note *note, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8 && !strcmp(note->provider, "sdtt")) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s",
			 note->name);
		s->nargs[s->n] = note->nargs;
		s->pc[s->n] = note->pc;
		s->sema[s->n] = note->semaphore;
		s->bad |= note->bad;
		s->n++;
	}
	return 0;
}

/* The file offset of ELF address VADDR in section NAME of PATH (an
 * ELF file), or -1; *SCN_OFF: where section NAME starts in the file. */
static long file_offset(const char *path, const char *name, uint64_t vaddr,
			long *scn_off)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	long off = -1;
	int fd = open(path, O_RDONLY);
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (!gelf_getshdr(scn, &sh))
				continue;
			n = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!n || strcmp(n, name))
				continue;
			*scn_off = (long)sh.sh_offset;
			if (vaddr >= sh.sh_addr &&
			    vaddr < sh.sh_addr + sh.sh_size)
				off = (long)(sh.sh_offset + vaddr - sh.sh_addr);
		}
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return off;
}

static void test_notes(void)
{
	static const char *const want[] = {
		"triple", "small", "mem", "constant", "guarded",
	};
	static const int want_args[] = { 3, 2, 2, 1, 1 };
	const char *cc = getenv("CC"), *src = getenv("top_srcdir");
	char dir[] = "/tmp/maptap-sdt.XXXXXX", path[PATH_MAX], moved[PATH_MAX];
	char cmd[8 * PATH_MAX];
	struct seen s, m;
	long text_off, note_off = -1, off;
	uint64_t base;
	unsigned char b;
	int fd, i, nops = 0;

	if (!src || !mkdtemp(dir)) {
		tap_skip("top_srcdir not set: no target to build");
		return;
	}
	snprintf(path, sizeof(path), "%s/m", dir);
	snprintf(moved, sizeof(moved), "%s/moved", dir);
	snprintf(cmd, sizeof(cmd), "%.*s -O2 -DWITH_SEMA -o '%s' "
		 "'%.*s/testsuite/targets/sdt_marks.c' -ldl && cp '%s' '%s'",
		 PATH_MAX, cc && *cc ? cc : "cc", path, PATH_MAX, src, path,
		 moved);
	if (!tap_ok(system(cmd) == 0, "build sdt_marks with $CC"))
		return;
	memset(&s, 0, sizeof(s));
	tap_int_eq(maptap_sdt_notes(path, NULL, "*", collect, &s), 5,
		   "five notes");
	for (i = 0; i < 5 && i < s.n; i++) {
		tap_str_eq(s.names[i], want[i], "note order and name");
		tap_int_eq(s.nargs[i], want_args[i], "its argument count");
		tap_ok(s.sema[i] != 0, "%s has a semaphore", want[i]);
		off = file_offset(path, ".text", s.pc[i], &text_off);
		fd = open(path, O_RDONLY);
		if (off >= 0 && fd >= 0 && pread(fd, &b, 1, off) == 1 &&
		    b == 0x90)
			nops++;
		if (fd >= 0)
			close(fd);
	}
	tap_int_eq(nops, 5, "each address holds the marker's nop");
	tap_int_eq((long long)s.bad, 0, "every descriptor parsed");
	memset(&m, 0, sizeof(m));
	tap_int_eq(maptap_sdt_notes(path, "sd*", "t*", collect, &m), 1,
		   "globs: provider sd*, name t*");
	tap_int_eq(maptap_sdt_notes(path, "nosuch", "*", collect, &m), 0,
		   "a provider the file has not: no calls");
	tap_int_eq(maptap_sdt_notes("/nonexistent", NULL, "*", collect, &m),
		   -ENOENT, "a missing file: -ENOENT");
	tap_int_eq(maptap_sdt_notes("/proc/self/status", NULL, "*", collect,
				    &m), -EINVAL, "not ELF: -EINVAL");

	/* prelink: the first note says .stapsdt.base was 0x1000 higher at
	 * link time, so its nop and semaphore are 0x1000 lower now */
	file_offset(moved, ".note.stapsdt", 0, &note_off);
	fd = open(moved, O_RDWR);
	if (note_off >= 0 && fd >= 0 &&
	    pread(fd, &base, 8, note_off + 12 + 8 + 8) == 8) {
		base += 0x1000;
		if (pwrite(fd, &base, 8, note_off + 12 + 8 + 8) != 8)
			note_off = -1;
	}
	if (fd >= 0)
		close(fd);
	memset(&m, 0, sizeof(m));
	maptap_sdt_notes(moved, NULL, "*", collect, &m);
	tap_ok(note_off >= 0 && m.n == 5 && m.pc[0] == s.pc[0] - 0x1000 &&
	       m.sema[0] == s.sema[0] - 0x1000 && m.pc[1] == s.pc[1],
	       "a moved .stapsdt.base moves that note's addresses back");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("cannot remove %s", dir);
}

int main(void)
{
	static const char *const bad[] = {
		"3@%rax", "8@%xmm0", "8@%foo", "8@(%rax", "8@8(%rax,%rdx,3)",
		"8@sym(%rip)", "-4@", "x@%rax", "8@$", "8@%al%",
	};
	int64_t mem[4] = { -2, 0x1122334455667788, 7, -9 };
	struct maptap_sdt_arg a;
	size_t i;

	memset(&regs, 0, sizeof(regs));
	regs.rax = 0xffffffff8000007fULL;	/* eax: -2147483521 */
	regs.rdi = 0xfffffffffffffffeULL;
	regs.rbp = (uint64_t)(uintptr_t)&mem[2];
	regs.rdx = 1;
	regs.r12 = 0xabcdULL;
	regs.rbx = 0x1234;

	tap_int_eq(value("8@%rax"), (int64_t)0xffffffff8000007fULL, "8@%rax");
	tap_int_eq(value("-4@%eax"), -2147483521LL, "-4@%eax sign-extends");
	tap_int_eq(value("4@%eax"), 2147483775LL, "4@%eax zero-extends");
	tap_int_eq(value("-1@%al"), 127, "-1@%al");
	tap_int_eq(value("-1@%dil"), -2, "-1@%dil");
	tap_int_eq(value("1@%bh"), 0x12, "1@%bh: bits 8-15");
	tap_int_eq(value("2@%r12w"), 0xabcd, "2@%r12w");
	tap_int_eq(value("-2@%r12w"), (int16_t)0xabcd, "-2@%r12w");
	tap_int_eq(value("-4@$5"), 5, "-4@$5");
	tap_int_eq(value("-8@$-1"), -1, "-8@$-1");
	tap_int_eq(value("4@$0x10"), 16, "4@$0x10");
	tap_int_eq(value("-8@-16(%rbp)"), -2, "-8@-16(%rbp)");
	tap_int_eq(value("-8@8(%rbp)"), -9, "-8@8(%rbp)");
	tap_int_eq(value("4@-8(%rbp)"), 0x55667788, "4@-8(%rbp): low half");
	tap_int_eq(value("-8@(%rbp)"), 7, "-8@(%rbp)");
	tap_int_eq(value("-8@-16(%rbp,%rdx,8)"), 0x1122334455667788,
		   "-8@-16(%rbp,%rdx,8)");
	tap_int_eq(value("-8@(%rbp,%rdx)"), value("-8@1(%rbp)"),
		   "-8@(%rbp,%rdx): scale 1");
	tap_int_eq(value("%rdi"), -2, "no SIZE@: 8 bytes");
	regs.rbp = 8;	/* unmapped */
	tap_int_eq(value("8@-8(%rbp)"), INT64_MIN,
		   "unreadable memory: -EFAULT");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		tap_ok(maptap_sdt_parse_arg(bad[i], &a) != 0,
		       "refused: %s", bad[i]);
	test_notes();
	return tap_done();
}
