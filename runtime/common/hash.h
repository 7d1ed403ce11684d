/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hash.h -- the one 64-bit mixing function of libmaptap's hash tables.
 * Private to libmaptap (not installed).
 */
#ifndef MAPTAP_RUNTIME_HASH_H
#define MAPTAP_RUNTIME_HASH_H

#include <stdint.h>

/* Mix X so that every input bit reaches every output bit: masking the
 * low bits then makes a good bucket index.  The finalizer of
 * MurmurHash3 (Austin Appleby, public domain); any good avalanche would
 * do.  Pure. */
static inline uint64_t mt_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
