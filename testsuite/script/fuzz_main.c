/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_main.c -- a bounded, repeatable fuzz run of fuzz_parse.c without
 * libFuzzer: every seed script given on the command line, then a fixed
 * number of mutations of them (byte flips, insertions of language
 * tokens, truncations, splices) from a fixed seed.  A crash or a
 * sanitizer report fails the test; TAP output.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROUNDS 3000

struct seed {
	char *data;
	size_t len;
};

static uint64_t next_rand(uint64_t *state)
{
	/* xorshift64*: good enough to pick mutations, and repeatable */
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ULL;
}

static const char *const pieces[] = {
	"%(", "%?", "%:", "%)", "@define X %( 1 %)", "@X", "$1", "@1",
	"probe", "global", "function", "foreach", "[", "]", "{", "}", "(",
	")", "\"", "/*", "*/", "<<<", "@hist_log(", "in", "limit", "%{",
	"%}", "=", "+=", "?", ":", ",", ";", "delete", "try", "catch",
	"printf(\"%d\\n\", ", "0x", "9223372036854775808", "@defined($x)",
};

static size_t mutate(const struct seed *a, const struct seed *b,
		     uint64_t *st, char *out, size_t cap)
{
	size_t n = a->len < cap ? a->len : cap, pos, k;
	int ops = 1 + (int)(next_rand(st) % 4);

	memcpy(out, a->data, n);
	while (ops--) {
		pos = n ? next_rand(st) % n : 0;
		switch (next_rand(st) % 4) {
		case 0:
			if (n)
				out[pos] = (char)next_rand(st);
			break;
		case 1: {
			size_t np = sizeof(pieces) / sizeof(pieces[0]);
			const char *p = pieces[next_rand(st) % np];
			size_t l = strlen(p);

			if (n + l >= cap)
				break;
			memmove(out + pos + l, out + pos, n - pos);
			memcpy(out + pos, p, l);
			n += l;
			break;
		}
		case 2:
			n = pos;
			break;
		default:
			k = b->len ? next_rand(st) % b->len : 0;
			for (; k < b->len && pos < cap; k++)
				out[pos++] = b->data[k];
			if (pos > n)
				n = pos;
		}
	}
	return n;
}

static int read_seed(const char *path, struct seed *s)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s->data = malloc((size_t)n + 1);
	s->len = s->data ? fread(s->data, 1, (size_t)n, f) : 0;
	fclose(f);
	return s->data ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct seed *seeds = calloc((size_t)argc, sizeof(*seeds));
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	uint64_t st = 0x9e3779b97f4a7c15ULL;
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		if (read_seed(argv[i], &seeds[n]) < 0) {
			tap_ok(false, "read seed %s", argv[i]);
			continue;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)seeds[n].data,
				       seeds[n].len);
		n++;
	}
	tap_ok(n > 0, "%d seed scripts survive passes 1-2", n);
	for (i = 0; n > 0 && i < ROUNDS; i++) {
		const struct seed *a = &seeds[next_rand(&st) % (uint64_t)n];
		const struct seed *b = &seeds[next_rand(&st) % (uint64_t)n];
		size_t len = mutate(a, b, &st, buf, cap);

		LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	}
	tap_ok(n > 0, "%d mutated scripts survive passes 1-2", ROUNDS);
	for (i = 0; i < n; i++)
		free(seeds[i].data);
	free(seeds);
	free(buf);
	return tap_done();
}
