/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tv_vars.c -- target of targetvars.py: functions whose parameters and
 * locals the test reads as target variables, built at -O0 and -O2.
 *
 *   tv_vars N   N rounds of: tv_void(&w, i), tv_walk(&outer, i,
 *               "xlabel") (a struct
 *               reached through two pointers, an int array, a char
 *               array, an enum, a union), tv_square(i) and
 *               tv_crunch(i, 100 + i) (whose locals move between
 *               registers at -O2); prints "sum S" (S from the values the
 *               test computes itself)
 *
 * The lines the test probes with .statement carry markers: TV_LINE_A,
 * TV_LINE_B.
 */
#include <stdio.h>
#include <stdlib.h>

enum tv_color { TV_RED, TV_GREEN = 5, TV_BLUE };

union tv_u {
	int i;
	unsigned char b[4];
};

struct tv_inner {
	long len;
	const char *name;
};

struct tv_mid {
	int id;
	struct tv_inner *in;
};

struct tv_bits {
	unsigned lo : 3;
	int neg : 5;
	unsigned wide : 12;
};

struct tv_outer {
	struct tv_mid *m;
	int arr[4];
	char tag[8];
	enum tv_color c;
	union tv_u un;
	struct tv_bits bits;
	short grid[2][3];
};

/* An opaque call: the compiler cannot know its result. */
__attribute__((noinline)) long tv_ext(long v)
{
	__asm__ volatile("" : "+r"(v));
	return v + 1;
}

__attribute__((noinline)) long tv_walk(struct tv_outer *o, int k,
				       const char *label)
{
	long total = 0;
	int i;

	for (i = 0; i < 4; i++)
		total += o->arr[i] * k;
	total += o->m->in->len;
	return total + (label[0] == 'x');
}

__attribute__((noinline)) int tv_square(int x)
{
	int y = x * x;

	return y + 1;
}

/* Inlined into main at every -O level: .inline probes read q. */
static inline __attribute__((always_inline)) long tv_inl(long q)
{
	long r = tv_ext(q * 5);

	return r + q;
}

/* A struct passed by value: at -O2 in two registers, a location of
 * DW_OP_piece parts. */
struct tv_pair {
	long a, b;
};

__attribute__((noinline)) long tv_pair_sum(struct tv_pair p)
{
	long x = tv_ext(p.a);

	return x + p.b;
}

/* A function returning nothing: its $$return is "". */
__attribute__((noinline)) void tv_void(int *out, int v)
{
	*out = v;
}

__attribute__((noinline)) long tv_crunch(long a, long b)
{
	long acc = tv_ext(a * 3);
	long second = tv_ext(acc ^ b);	/* TV_LINE_A */

	return second + acc;		/* TV_LINE_B */
}

int main(int argc, char **argv)
{
	struct tv_inner in = { 42, "innername" };
	struct tv_mid m = { 7, &in };
	struct tv_outer o = { &m, { 1, 2, 3, 4 }, "tagv", TV_BLUE,
			      { .i = 0x01020304 }, { 5, -7, 1234 },
			      { { 1, 2, 3 }, { 4, 5, -6 } } };
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long s = 0;
	int j;

	tv_ext((long)&o);	/* o escapes: -O2 stores every field */
	for (j = 0; j < n; j++) {
		int w;

		tv_void(&w, j);
		struct tv_pair pr = { j, 40 + j };

		s += tv_walk(&o, j, "xlabel") + tv_square(j) +
		     tv_crunch(j, 100 + j) + w + tv_inl(j) + tv_pair_sum(pr);
	}
	printf("sum %ld\n", s);
	return 0;
}
