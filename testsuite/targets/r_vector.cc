/* SPDX-License-Identifier: GPL-2.0-or-later */
// r_vector.cc -- a C++ program whose vector grows into a buffer that
// glibc's malloc maps (report.py): the report's call site must name
// grow_buffer(), not operator new or malloc.  It prints the bytes of
// the chunk malloc mapped as "buffer N", and keeps it to its end.
#include <cstdio>
#include <vector>

extern "C" {
#include "t_common.h"
#include "r_maps.h"
}

static volatile std::size_t grown;

// The store after resize() keeps the call from being a tail call, which
// would leave no frame of grow_buffer() on the stack.
__attribute__((noinline)) void grow_buffer(std::vector<char> &v,
					   std::size_t n)
{
	v.resize(n);
	grown = v.size();
}

int main()
{
	// Never freed: the buffer must still be mapped when the process
	// exits (a vector on main's stack would free it on return).
	std::vector<char> *v = new std::vector<char>;
	uintptr_t lo;
	uint64_t len;

	t_init();
	grow_buffer(*v, 48u << 20);
	r_malloc_chunk(v->data(), &lo, &len);
	std::printf("buffer %llu\n",
		    (unsigned long long)r_mapped((void *)lo, len));
	return 0;
}
