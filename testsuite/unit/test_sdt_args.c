/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sdt_args.c -- SDT argument descriptors (maptap/sdt.h): each form
 * sys/sdt.h's assembler templates produce on x86-64, parsed, and its
 * value against a register set and this process's own memory.
 */
#include <config.h>

#include <maptap/sdt.h>

#include "../lib/tap.h"

#include <stdint.h>
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
	return tap_done();
}
