/* SPDX-License-Identifier: GPL-2.0-or-later */
/* standalone.c -- run the libFuzzer target without libFuzzer.
 *
 * For make check under any compiler: feed every file of the seed corpus
 * (testsuite/fuzz/corpus/maps/) to LLVMFuzzerTestOneInput(), then a
 * bounded, deterministic set of mutations of each (a seeded xorshift: the
 * same run every time, so a failure reproduces).  A crash or sanitizer
 * report fails the test; each seed that survives is one TAP case.
 */
#include <config.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testsuite/lib/tap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUTATIONS 400

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Interesting bytes for maps text: field separators and digits. */
static const char alphabet[] = "0123456789abcdefx-: \n/[]()rwxps\\";

static size_t mutate(uint64_t *s, const uint8_t *in, size_t n, uint8_t *out,
		     size_t cap)
{
	size_t len = n < cap ? n : cap, i, pos, k;

	memcpy(out, in, len);
	for (k = 1 + next(s) % 4; k > 0; k--) {
		pos = len ? next(s) % len : 0;
		switch (next(s) % 5) {
		case 0:		/* flip a byte */
			if (len)
				out[pos] ^= (uint8_t)(1u << next(s) % 8);
			break;
		case 1:		/* a byte from the alphabet */
			if (len)
				out[pos] = (uint8_t)alphabet[next(s) %
						(sizeof(alphabet) - 1)];
			break;
		case 2:		/* delete a run */
			i = 1 + next(s) % 8;
			if (pos + i <= len) {
				memmove(out + pos, out + pos + i, len - pos - i);
				len -= i;
			}
			break;
		case 3:		/* insert an alphabet byte */
			if (len < cap) {
				memmove(out + pos + 1, out + pos, len - pos);
				out[pos] = (uint8_t)alphabet[next(s) %
						(sizeof(alphabet) - 1)];
				len++;
			}
			break;
		default:	/* duplicate a chunk (lines, overlaps) */
			i = 1 + next(s) % 64;
			if (pos + i <= len && len + i <= cap) {
				memmove(out + pos + i, out + pos, len - pos);
				len += i;
			}
			break;
		}
	}
	return len;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	char dir[4096], path[8192];
	char *names[256];
	size_t nn = 0, i;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/testsuite/fuzz/corpus/maps",
		 top ? top : "..");
	d = opendir(dir);
	if (!tap_ok(d != NULL, "open the corpus %s", dir))
		return tap_done();
	while ((e = readdir(d)) && nn < 256)
		if (e->d_name[0] != '.')
			names[nn++] = strdup(e->d_name);
	closedir(d);
	qsort(names, nn, sizeof(names[0]), by_name);
	tap_ok(nn >= 4, "the corpus has seeds (%zu)", nn);
	for (i = 0; i < nn; i++) {
		uint64_t s = 0x9e3779b97f4a7c15ULL ^ i;
		size_t n = 0, cap, k;
		uint8_t *in, *out;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		in = slurp(path, &n);
		if (!tap_ok(in != NULL, "read seed %s", names[i]))
			continue;
		cap = n + 512;
		out = malloc(cap);
		LLVMFuzzerTestOneInput(in, n);
		for (k = 0; k < MUTATIONS && out; k++)
			LLVMFuzzerTestOneInput(out, mutate(&s, in, n, out, cap));
		tap_ok(out != NULL, "seed %s and %d mutations of it", names[i],
		       MUTATIONS);
		free(out);
		free(in);
		free(names[i]);
	}
	return tap_done();
}
