/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uw_deep.c -- 200 frames of one recursive function with a very long name
 * (stap truncates names, maptap must not), then SIGSTOP.
 */
#include <signal.h>

#define KEEP __attribute__((noinline, noclone))
#define LONG_NAME \
	recursion_with_a_very_long_function_name_to_check_that_nothing_\
truncates_symbol_names_in_backtraces_of_deep_stacks_one_hundred_\
and_twenty_eight_characters_and_then_some_more_to_be_quite_sure

volatile int u_sink;

KEEP int LONG_NAME(int depth)
{
	if (depth == 1)
		raise(SIGSTOP);
	else
		u_sink += LONG_NAME(depth - 1);
	return u_sink + 1;
}

int main(void)
{
	return LONG_NAME(200) == 12345;
}
