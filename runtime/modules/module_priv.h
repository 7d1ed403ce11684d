/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* module_priv.h -- the module tracker's objects, shared by module*.c and
 * sym*.c.  Private to libmaptap.
 *
 * Ownership: a tracker (struct maptap_modules) owns its files (the ELF
 * cache), its address spaces and every instance ever created (live ones
 * through their space, unloaded ones in its retired ring).  An instance
 * holds a reference on its file; a file lives as long as any instance or
 * the cache holds it.
 */
#ifndef MAPTAP_MODULE_PRIV_H
#define MAPTAP_MODULE_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <libelf.h>

#include <maptap/module.h>
#include <maptap/symbols.h>

#include "elf_priv.h"
#include "../common/hash.h"

struct mt_symtab;
struct mt_perfmap;

/* One file as mapped: the bytes behind an inode at one version. */
struct mt_file {
	unsigned refs;
	struct mt_file *hnext;	/* ELF cache bucket chain */
	/* cache key: fstat of the opened file */
	uint64_t st_dev, st_ino, size, mtime_ns;
	bool is_vdso;
	int fd;			/* open on the mapped bytes; -1 if none */
	Elf *elf;		/* NULL when not ELF */
	struct mt_elf_info info;	/* valid when elf != NULL */
	enum maptap_module_type type;
	char *path;		/* path of first sighting, no " (deleted)" */
	char *build_id;		/* hex, or NULL */
	char *error;		/* why not ELF; NULL if ELF or plainly not */
	struct mt_symtab *syms;	/* built on first lookup (sym_index.c) */
	bool syms_tried;
};

/* One instance: a file at one bias in one address space. */
struct mt_inst {
	struct mt_file *file;
	pid_t pid;
	uint64_t bias;
	unsigned pieces;	/* live VMAs (pieces) that map it */
	uint64_t load_ns;	/* time of the event that loaded it */
	uint64_t unload_ns;	/* 0 while live */
	bool dead_noted;	/* in its space's dead list */
	char *path;		/* as this space maps it */
	bool deleted;
	struct maptap_module_info info;	/* strings point into file/inst */
};

/* One file-backed VMA (or part of one) of an address space. */
struct mt_piece {
	uint64_t start, end;	/* bytes */
	uint64_t offset;	/* file offset at start, bytes */
	uint32_t perms;
	struct mt_inst *inst;
	const struct mt_seg *seg;	/* NULL: no PT_LOAD maps it */
	/* Anonymous memory mapped over this part of a file segment with
	 * MAP_FIXED (text copied onto huge pages): it keeps the file's
	 * association, see adopt() in module.c. */
	bool anon;
};

/* Instances sorted by (pid, info.lo, pointer), module_index.c.  REACH is
 * the largest hi - lo ever inserted: no entry starting REACH or more
 * below an address can contain it. */
struct mt_insts {
	struct mt_inst **v;
	size_t n, cap;
	uint64_t reach;
};

/* The modules of one address space. */
struct mt_space {
	pid_t pid;
	struct mt_space *hnext;	/* bucket chain of the tracker's spaces */
	struct mt_piece *p;	/* sorted by start, disjoint */
	size_t n, cap;
	struct mt_insts live;	/* live instances */
	/* Instances whose piece count dropped to 0 during the event being
	 * applied: the only ones the sweep after it must look at. */
	struct mt_inst **dead;
	size_t ndead, dead_cap;
	bool sweep_all;		/* noting one failed: sweep every instance */
	/* AT_SYSINFO_EHDR from /proc/PID/auxv, read on first need (0: none
	 * or unreadable); reset by exec. */
	uint64_t sysinfo_ehdr;
	bool auxv_read;
	struct mt_perfmap *perfmap;	/* read on first need (sym_perfmap.c) */
};

struct maptap_modules {
	struct mt_file **file_tab;	/* the cache: chained hash buckets */
	size_t nfile_buckets, nfiles;
	struct mt_space **space_tab;	/* spaces: chained hash by pid */
	size_t nspace_buckets, nspaces;
	struct mt_inst **retired;	/* ring of unloaded instances */
	size_t retired_cap, retired_n, retired_head;
	struct mt_insts retired_index;	/* the same, sorted */
	struct maptap_modules_stats stats;
	struct maptap_sym_stats sym_stats;
	/* demangler: __cxa_demangle from libstdc++, loaded on first use */
	void *cxx_handle;
	char *(*cxa_demangle)(const char *, char *, size_t *, int *);
	bool cxx_tried;
	char *demangled[2];	/* last demangled func and data names */
	char *src_path;		/* last source path joined to its CU's
				 * DW_AT_comp_dir (sym_lookup.c) */
	char *debuginfo_path;	/* NULL: libdwfl's default */
	/* libdwfl callbacks of every Dwfl of this tracker (sym_index.c);
	 * they must outlive those Dwfls. */
	const void *dwfl_callbacks;
};

/* ---- module_file.c: opening mapped files, the ELF cache ---- */

/* The file behind the file-backed VMA V of process PID, from the cache
 * or opened now (see maptap/module.h for the order of attempts).  A
 * reference for the caller.  Returns 0, -ENOENT when no way to open it
 * worked, -ENOMEM. */
int mt_file_get(struct maptap_modules *m, pid_t pid,
		const struct maptap_vma *v, struct mt_file **out);

/* The [vdso] image of PID (V is its VMA), read from its memory; when
 * that fails (PID gone) and LIKE (an ELF PID maps, or NULL) is of the
 * ABI of maptap's own vdso, of the same length, that image.  Returns
 * 0, -ENOENT when neither could be read, or file_parse()'s error. */
int mt_file_get_vdso(struct maptap_modules *m, pid_t pid,
		     const struct maptap_vma *v, Elf *like,
		     struct mt_file **out);

void mt_file_put(struct mt_file *f);

/* Free the whole cache. */
void mt_files_free(struct maptap_modules *m);


/* ---- module_index.c ---- */

typedef bool (*mt_inst_match_fn)(const struct mt_inst *in, void *arg);

/* Insert IN (its pid and info.lo/hi set) into A: 0 or -ENOMEM. */
int mt_insts_insert(struct mt_insts *a, struct mt_inst *in);

/* Remove IN from A (nothing if absent). */
void mt_insts_remove(struct mt_insts *a, const struct mt_inst *in);

void mt_insts_free(struct mt_insts *a);

/* The entry of PID whose [info.lo, info.hi) holds ADDR and that MATCH
 * accepts, the one starting closest below ADDR first; NULL if none. */
struct mt_inst *mt_insts_at(const struct mt_insts *a, pid_t pid,
			    uint64_t addr, mt_inst_match_fn match, void *arg);

/* The entry of PID with info.lo == LO that MATCH accepts, or NULL. */
struct mt_inst *mt_insts_find(const struct mt_insts *a, pid_t pid,
			      uint64_t lo, mt_inst_match_fn match, void *arg);

/* The space of PID, or NULL. */
struct mt_space *mt_space_find(const struct maptap_modules *m, pid_t pid);

/* Add SP (its pid set) to M's spaces: 0 or -ENOMEM. */
int mt_space_add(struct maptap_modules *m, struct mt_space *sp);

/* Take SP out of M's spaces (it is not freed). */
void mt_space_unlink(struct maptap_modules *m, struct mt_space *sp);

/* ---- module_space.c ---- */

/* Free IN (its file reference dropped), or SP with its pieces, live
 * instances and perf map.  Neither is unlinked from anything first. */
void mt_inst_free(struct mt_inst *in);
void mt_space_free(struct mt_space *sp);

/* The space of PID, made empty and added to M if it has none; NULL on
 * -ENOMEM. */
struct mt_space *mt_space_get(struct maptap_modules *m, pid_t pid);

/* One piece of IN went away.  An instance left with none is noted for
 * the sweep after the event; if noting fails the sweep looks at all. */
void mt_piece_drop(struct mt_space *sp, struct mt_inst *in);

/* Index of the first piece of SP whose end is above ADDR (SP->n if
 * none). */
size_t mt_piece_lower(const struct mt_space *sp, uint64_t addr);

/* The piece of SP holding ADDR, or NULL. */
struct mt_piece *mt_piece_at(const struct mt_space *sp, uint64_t addr);

/* Make room for EXTRA more pieces in SP: 0 or -ENOMEM. */
int mt_piece_room(struct mt_space *sp, size_t extra);

/* Insert P at index I of SP (room made by mt_piece_room()). */
void mt_piece_insert(struct mt_space *sp, size_t i,
		     const struct mt_piece *p);

/* Remove whatever SP maps in [LO, HI) (bytes): pieces inside go, pieces
 * across an edge are trimmed or split.  Instances may drop to 0 pieces;
 * the caller sweeps them (mt_space_sweep()) once the event is applied.
 * 0 or -ENOMEM (a split found no room; SP is unchanged). */
int mt_space_cut(struct mt_space *sp, uint64_t lo, uint64_t hi);

/* The live instance of F at load bias BIAS (bytes) in SP, or NULL. */
struct mt_inst *mt_inst_find(const struct mt_space *sp,
			     const struct mt_file *f, uint64_t bias);

/* A live instance of SP mapping the inode of V: its file (borrowed),
 * or NULL. */
struct mt_file *mt_file_mapped(const struct mt_space *sp,
			       const struct maptap_vma *v);

/* A new live instance of F (a reference taken) at BIAS in SP, first
 * mapped by V at TIME_NS (ns); NULL on -ENOMEM. */
struct mt_inst *mt_inst_new(struct mt_space *sp, struct mt_file *f,
			    const struct maptap_vma *v, uint64_t bias,
			    uint64_t time_ns);

/* Call FN (when not NULL) with a module event of KIND for IN, caused by
 * EV (NULL: none); returns what FN returns. */
int mt_module_notify(maptap_module_fn fn, void *arg,
		     enum maptap_module_event_kind kind,
		     const struct mt_inst *in, const struct maptap_event *ev);

/* Unload every instance of SP left without pieces (all of them when
 * ALL), telling FN and retiring them for lookups by time.  Returns the
 * first non-zero value of FN, after finishing. */
int mt_space_sweep(struct maptap_modules *m, struct mt_space *sp,
		   bool all, const struct maptap_event *ev,
		   maptap_module_fn fn, void *arg);

/* ---- module.c ---- */

/* The instance of PID's space covering ADDR (live now when TIME_NS is 0;
 * else live at TIME_NS, retired ones included), and the PT_LOAD whose
 * memory image holds ADDR in *SEG (NULL for a non-ELF file). */
struct mt_inst *mt_inst_at(struct maptap_modules *m, pid_t pid,
			   uint64_t addr, uint64_t time_ns,
			   const struct mt_seg **seg);

/* ---- sym_index.c ---- */

/* Build F's symbol index if not done yet.  Returns it, or NULL when F has
 * no usable symbols (remembered: never retried). */
struct mt_symtab *mt_symtab_get(struct maptap_modules *m, struct mt_file *f);

void mt_symtab_free(struct mt_symtab *t);

struct Dwarf_CFI_s;

/* The .debug_frame CFI of T's file, from the file itself or from its
 * separate debuginfo (libdwfl's search, see callbacks_get()), owned by
 * T; NULL when there is none.  *BIAS: subtract it from an ELF vaddr of
 * the file to get a CFI address. */
struct Dwarf_CFI_s *mt_symtab_debug_cfi(struct mt_symtab *t,
					uint64_t *bias);

/* Free the tracker's libdwfl callbacks (after every symtab is freed). */
void mt_symtab_callbacks_free(struct maptap_modules *m);

/* Function (FUNC true) or data symbol of F containing VADDR (module
 * relative, bytes): 0 and *SYM with addr == st_value, or -ENOENT. */
int mt_symtab_lookup(const struct mt_symtab *t, bool func, uint64_t vaddr,
		     struct maptap_sym *sym);

/* Source file and line of VADDR, and the DW_AT_comp_dir of its
 * compilation unit (NULL if none), which a relative FILE is relative to;
 * 0 or -ENOENT. */
int mt_symtab_srcline(struct mt_symtab *t, uint64_t vaddr,
		      const char **file, const char **comp_dir, int *line);

/* ---- sym_perfmap.c ---- */

/* The JIT function of SP's /tmp/perf-PID.map containing ADDR (re-read if
 * the file grew): 0 with *MOD (type jit, bias 0) and *SYM, -ENOENT, or
 * -ENOMEM. */
int mt_perfmap_lookup(struct mt_space *sp, uint64_t addr,
		      struct maptap_module_info *mod, struct maptap_sym *sym);

void mt_perfmap_free(struct mt_perfmap *pm);

/* ---- sym_lookup.c ---- */

/* Release the demangler's library and buffers. */
void mt_demangler_free(struct maptap_modules *m);

#endif
