/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report_frames.c -- the report's view of a stack: which frames are the
 * C library's or the loader's mapping and allocation internals (skipped
 * to find the call site), which name dlopen/dlclose, and the frames'
 * symbols, copied so that they outlive the modules they name.
 *
 * The lists are what glibc 2.36 shows in maptap --stacks (with its
 * debug symbols: the symbol table of libc6-dbg names the static helpers
 * too) and are documented in docs/report.md.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/symbols.h>
#include <maptap/unwind.h>

#include "report_priv.h"

/* Functions that map or allocate on their caller's behalf, in any module
 * (a static binary carries its own copy of malloc, with no libc.so to
 * recognize it by).  The names are those of glibc 2.36's malloc.o and
 * its mmap/munmap/mremap/brk/sbrk wrappers as `nm libc.a` lists them;
 * a compiler's clone suffix (".constprop.0", ".part.0") is ignored. */
static const char *const internal_syms[] = {
	"mmap", "mmap64", "munmap", "mremap", "brk", "sbrk",
	"malloc", "calloc", "realloc", "free", "cfree", "memalign",
	"posix_memalign", "aligned_alloc", "valloc", "pvalloc",
	"alloc_perturb", "unlink_chunk", "munmap_chunk", "mremap_chunk",
	"malloc_consolidate", "malloc_init_state", "malloc_printerr",
	"detach_arena", "reused_arena", "get_free_list", "new_heap",
	"alloc_new_heap", "grow_heap", "shrink_heap", "heap_trim",
	"malloc_hook_ini", "realloc_hook_ini", "memalign_hook_ini",
};

/* Prefixes.  Names with a leading underscore are the implementation's
 * (C11 7.1.3): "__libc_" and "__malloc_" (glibc's entry points and
 * their helpers), "__mmap", "__munmap", "__mremap", "__brk", "__sbrk",
 * "__posix_memalign", "__memalign", "__valloc", "__pvalloc", "__calloc",
 * "__realloc", "__free" (aliases), "_int_" and "_mid_memalign" (malloc's
 * workers).  Without the underscore only glibc malloc's own families,
 * whose names a program has no reason to share: "sysmalloc" (also
 * sysmalloc_mmap, sysmalloc_mmap_fallback), "systrim", "tcache_",
 * "ptmalloc_", "arena_get".  C++ operator new / new[] in every mangled
 * form (Itanium C++ ABI: _Znwm, _Znam, with nothrow_t and align_val_t
 * overloads; _Znwj/_Znaj where size_t is 32 bits).  A program's own
 * "heap_push" or "arena_alloc" is a call site, so "heap" and "arena_"
 * are matched only as the exact names above. */
static const char *const internal_prefixes[] = {
	"__libc_", "__malloc", "__mmap", "__munmap", "__mremap", "__brk",
	"__sbrk", "__posix_memalign", "__memalign", "__valloc", "__pvalloc",
	"__calloc", "__realloc", "__free", "_int_", "_mid_memalign",
	"sysmalloc", "systrim", "tcache_", "ptmalloc_", "arena_get",
	"_Znwm", "_Znam", "_Znwj", "_Znaj",
};

static const char *const dlopen_syms[] = {
	"dlopen", "dlmopen", "__libc_dlopen_mode", "_dl_open",
	"dlopen_implementation", "dlmopen_implementation", "dlopen_doit",
	"dlmopen_doit", "___dlopen", "__dlopen",
};

static const char *const dlclose_syms[] = {
	"dlclose", "__libc_dlclose", "_dl_close", "_dl_close_worker",
	"__dlclose", "___dlclose", "dlclose_doit",
};

const char *rp_basename(const char *path)
{
	const char *slash;

	if (!path)
		return "";
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

bool rp_module_is_libc(const char *base)
{
	if (!base)
		return false;
	return strncmp(base, "libc.so", 7) == 0 ||
	       strncmp(base, "ld-linux", 8) == 0 ||
	       strncmp(base, "ld.so", 5) == 0;
}

/* SYM without its version suffix ("dlopen@GLIBC_2.2.5") and without the
 * suffix of a compiler's clone ("tcache_init.part.0") is in LIST. */
static bool sym_in(const char *sym, const char *const *list, size_t n)
{
	size_t len = strcspn(sym, "@."), i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && memcmp(list[i], sym, len) == 0)
			return true;
	return false;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

bool rp_frame_internal(const char *base, const char *sym)
{
	size_t i;

	if (rp_module_is_libc(base))
		return true;
	if (!sym)
		return false;
	if (sym_in(sym, internal_syms, N_OF(internal_syms)))
		return true;
	for (i = 0; i < N_OF(internal_prefixes); i++)
		if (strncmp(sym, internal_prefixes[i],
			    strlen(internal_prefixes[i])) == 0)
			return true;
	return strstr(sym, "morecore") != NULL;
}

bool rp_symbol_is(const char *sym, const char *name)
{
	return sym && sym_in(sym, &name, 1);
}

enum rp_dl_op rp_symbol_dl_op(const char *sym)
{
	if (!sym)
		return RP_DL_NONE;
	if (sym_in(sym, dlopen_syms, N_OF(dlopen_syms)))
		return RP_DL_OPEN;
	if (sym_in(sym, dlclose_syms, N_OF(dlclose_syms)))
		return RP_DL_CLOSE;
	return RP_DL_NONE;
}

void rp_frame_quick(struct maptap_modules *m, pid_t pid,
		    const struct maptap_frame *f, const char **base,
		    const char **sym)
{
	struct maptap_sym_info si;

	*base = *sym = NULL;
	if (!m || maptap_frame_lookup(m, pid, f, MAPTAP_SYM_FUNC, &si) != 0)
		return;
	if (si.where.has_module && si.where.module.path)
		*base = rp_basename(si.where.module.path);
	*sym = si.func.name;
}

unsigned rp_site_start(struct maptap_modules *m, pid_t pid,
		       const struct maptap_frame *frames, unsigned n,
		       unsigned k, unsigned *count)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		const char *base, *sym;

		rp_frame_quick(m, pid, &frames[i], &base, &sym);
		if (!rp_frame_internal(base, sym))
			break;
	}
	if (i == n)	/* all internal: the outermost frames */
		i = n > k ? n - k : 0;
	*count = n - i < k ? n - i : k;
	return i;
}

static char *dup_or_null(const char *s, int *err)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*err = -ENOMEM;
	return d;
}

void rp_frames_free(struct rp_frame *f, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		free(f[i].symbol);
		free(f[i].module);
		free(f[i].file);
	}
	if (n)
		memset(f, 0, n * sizeof(*f));
}

int rp_frames_symbolize(struct maptap_modules *m, pid_t pid,
			const struct maptap_frame *f, unsigned n,
			struct rp_frame *out)
{
	unsigned i;
	int err = 0;

	if (n)
		memset(out, 0, n * sizeof(*out));
	for (i = 0; i < n && !err; i++) {
		struct maptap_sym_info si;

		out[i].pc = f[i].pc;
		if (!m || maptap_frame_lookup(m, pid, &f[i],
					      MAPTAP_SYM_FUNC | MAPTAP_SYM_LINE,
					      &si) != 0)
			continue;
		if (si.where.has_module)
			out[i].module = dup_or_null(si.where.module.path, &err);
		out[i].symbol = dup_or_null(si.func.name, &err);
		out[i].offset = si.func.name ? si.func.offset : 0;
		out[i].file = dup_or_null(si.src_file, &err);
		out[i].line = si.src_line;
	}
	if (err)
		rp_frames_free(out, n);
	return err;
}
