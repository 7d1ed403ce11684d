/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/symbols.h -- user addresses to symbols and source lines.
 *
 * Resolution goes through the module tracker (maptap/module.h): the
 * address is first tied to a module instance of the address space it
 * lives in, then looked up, module-relative, in that file's symbol index.
 * The index is built once per file (shared by every address space that
 * maps it) from the ELF symbol tables that elfutils libdwfl finds: the
 * file's own .symtab/.dynsym, the separate debuginfo file (by build-id
 * under /usr/lib/debug/.build-id/XX/YYYY.debug, or by .gnu_debuglink),
 * and the MiniDebugInfo in .gnu_debugdata; debuginfod only when
 * DEBUGINFOD_URLS is set (libdwfl's dwfl_standard_find_debuginfo).
 *
 * Symbol rules (ELF gABI, "Symbol Table"):
 *   - functions are STT_FUNC and STT_GNU_IFUNC symbols, data are
 *     STT_OBJECT and STT_COMMON symbols; STT_TLS values are offsets, not
 *     addresses, and are never used;
 *   - only defined symbols (st_shndx != SHN_UNDEF) of sections that
 *     occupy memory (SHF_ALLOC) with st_size > 0 count, and an address
 *     resolves to a symbol only when
 *     st_value <= a < st_value + st_size: an address outside every symbol
 *     is unresolved (never "the nearest symbol below");
 *   - when several symbols contain an address, the one that starts
 *     closest below it wins; at one start address STB_GLOBAL beats
 *     STB_WEAK beats STB_LOCAL, then the smaller st_size, then the first
 *     in libdwfl's table order (as eu-addr2line(1) chooses).
 *   - source file and line come from DWARF .debug_line
 *     (dwfl_module_getsrc), in the debuginfo file when separate: the row
 *     of the line table, i.e. the innermost inlined line at an address
 *     in inlined code, exactly what eu-addr2line(1) prints without -i
 *     (the inline chain is not reported); a file name the table gives
 *     relative is joined to its compilation unit's DW_AT_comp_dir, as
 *     eu-addr2line prints it.
 *
 * Names are raw (mangled) unless MAPTAP_SYM_DEMANGLE is given; demangling
 * uses the Itanium C++ ABI demangler of libstdc++ (__cxa_demangle, loaded
 * on first use with dlopen(3)); when it is unavailable the raw name is
 * returned.
 *
 * Threads: as the tracker, one owner at a time.
 */
#ifndef MAPTAP_SYMBOLS_H
#define MAPTAP_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <maptap/module.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* What to look up: any combination. */
enum maptap_sym_flags {
	MAPTAP_SYM_FUNC = 1 << 0,	/* function symbol (usymname) */
	MAPTAP_SYM_DATA = 1 << 1,	/* data symbol (usymdata) */
	MAPTAP_SYM_LINE = 1 << 2,	/* file and line (usymfileline) */
	MAPTAP_SYM_DEMANGLE = 1 << 3,	/* demangle C++ names */
};

/* One symbol containing the address.  NAME is owned by the tracker and
 * valid until it is freed (a demangled name: until the next lookup). */
struct maptap_sym {
	const char *name;	/* NULL: unresolved */
	uint64_t addr;		/* st_value + bias: start in the process */
	uint64_t size;		/* st_size, bytes */
	uint64_t offset;	/* address - addr, bytes */
};

/* The result of one lookup.  Strings as in struct maptap_sym. */
struct maptap_sym_info {
	struct maptap_module_desc where;	/* module and segment */
	uint64_t module_addr;	/* address - bias: the ELF vaddr, bytes */
	struct maptap_sym func;	/* with MAPTAP_SYM_FUNC */
	struct maptap_sym data;	/* with MAPTAP_SYM_DATA */
	const char *src_file;	/* with MAPTAP_SYM_LINE; NULL: unknown.
				 * Owned by the tracker; a name joined to
				 * its DW_AT_comp_dir is valid until the
				 * next lookup, others until it is freed */
	int src_line;		/* 0: unknown */
};

/* Resolve ADDR in the address space of PID with FLAGS.  TIME_NS 0 means
 * "as mapped now"; otherwise the CLOCK_MONOTONIC time (ns, as in events)
 * when the address was recorded: instances unloaded since then still
 * resolve, as they were (see maptap_modules_opts.max_retired).
 *
 * Returns 0 when a module covers ADDR (fields of OUT that could not be
 * resolved are NULL / 0), -ESRCH when PID was never seen, -ENOENT when no
 * module covers ADDR, -ENOMEM.  A file whose symbols cannot be read
 * resolves to its module only. */
int maptap_sym_lookup(struct maptap_modules *m, pid_t pid, uint64_t addr,
		      uint64_t time_ns, unsigned flags,
		      struct maptap_sym_info *out);

/* Counters of the symbol indexes of M (all files). */
struct maptap_sym_stats {
	uint64_t indexed_files;	/* files whose symbol index is built */
	uint64_t symbols;	/* entries in all indexes */
	uint64_t index_bytes;	/* memory of all indexes, bytes */
	uint64_t lookups;	/* maptap_sym_lookup() calls */
};

void maptap_sym_get_stats(const struct maptap_modules *m,
			  struct maptap_sym_stats *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
