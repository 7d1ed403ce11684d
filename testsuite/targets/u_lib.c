/* u_lib.c -- the library u_calls dlopens (uprobes.py). */
__attribute__((noinline)) long u_libfn(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}
