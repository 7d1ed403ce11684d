/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/module.h -- ELF modules and segments of traced address spaces.
 *
 * The module layer consumes the events of maptap/event.h (it never
 * touches ptrace).  For each file-backed VMA it opens the file that is
 * really mapped (/proc/PID/map_files/START-END; else /proc/PID/root/PATH,
 * then the target's open descriptors in /proc/PID/fd, each checked against
 * the VMA's dev and inode), ties the VMA to the ELF program header it maps,
 * and keeps the module instances of each address space: one instance is
 * one file (dev, inode, build-id) at one load bias.
 *
 * Rules, with their sources:
 *   - segment of a VMA with file offset O: the PT_LOAD whose page-aligned
 *     file range [p_offset & ~(PAGE-1), p_offset + p_filesz) contains O,
 *     preferring the header whose PF_R/PF_W/PF_X match the VMA's
 *     permissions when several do (ELF gABI, "Program Header"; the kernel's
 *     loader, fs/binfmt_elf.c elf_map(), maps each PT_LOAD page-aligned);
 *   - load bias = vm_start - (p_vaddr + (O - p_offset))  (bytes);
 *   - segment kinds: text (PF_X), rodata (neither PF_W nor PF_X), data
 *     (PF_W), relro (a page of a PT_LOAD covered by PT_GNU_RELRO; the
 *     dynamic linker mprotects it read-only after relocation, see
 *     glibc elf/dl-reloc.c _dl_protect_relro), bss (an anonymous VMA that
 *     continues the last writable PT_LOAD up to p_vaddr + p_memsz: the part
 *     of p_memsz beyond p_filesz that is not in the file, gABI);
 *   - build-id: the NT_GNU_BUILD_ID note in a PT_NOTE segment (binutils ld
 *     --build-id);
 *   - module type: exec (ET_EXEC), dyn (ET_DYN: PIE executables and shared
 *     objects), file (not ELF, or an ELF the layer could not read), vdso
 *     (the [vdso] image, read from the target's memory with
 *     process_vm_readv(2)), jit (reserved for perf maps).
 *
 * ELF files are shared between the address spaces of one tracker: a
 * thousand processes running one program open and parse it once.
 *
 * Threads: a tracker is not thread-safe; one owner (the session's thread)
 * at a time.  Two trackers share nothing.
 */
#ifndef MAPTAP_MODULE_H
#define MAPTAP_MODULE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <maptap/event.h>
#include <maptap/maps.h>
#include <maptap/vma.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

enum maptap_module_type {
	MAPTAP_MODULE_EXEC = 0,	/* ELF ET_EXEC: fixed addresses, bias 0 */
	MAPTAP_MODULE_DYN,	/* ELF ET_DYN: PIE executable, shared object */
	MAPTAP_MODULE_FILE,	/* not ELF (or unreadable ELF): no segments */
	MAPTAP_MODULE_VDSO,	/* the [vdso] image */
	MAPTAP_MODULE_JIT,	/* code described by /tmp/perf-PID.map */
};

enum maptap_segment_kind {
	MAPTAP_SEG_NONE = 0,	/* no segment applies */
	MAPTAP_SEG_TEXT,
	MAPTAP_SEG_RODATA,
	MAPTAP_SEG_DATA,
	MAPTAP_SEG_RELRO,
	MAPTAP_SEG_BSS,
};

/* Stable lower-case names, as used in JSON and the text log: "exec",
 * "dyn", "file", "vdso", "jit"; "text", "rodata", "data", "relro", "bss"
 * ("-" for MAPTAP_SEG_NONE).  NULL for an unknown value.  Pure. */
const char *maptap_module_type_name(enum maptap_module_type type);
const char *maptap_segment_kind_name(enum maptap_segment_kind kind);

/* One module instance as seen by a caller.  Strings are owned by the
 * tracker and stay valid until the tracker is freed (instances are never
 * freed before it: see maptap_modules_event()).  Addresses in bytes. */
struct maptap_module_info {
	const char *path;	/* the mapped path as maps shows it, without
				 * " (deleted)"; "[vdso]" for the vdso */
	const char *build_id;	/* lower-case hex, or NULL when none */
	uint64_t bias;		/* load bias: address = ELF vaddr + bias */
	enum maptap_module_type type;
	uint64_t dev;		/* makedev(major, minor) of the VMA */
	uint64_t inode;		/* inode of the VMA (0 for the vdso) */
	uint64_t lo, hi;	/* [lo, hi): lowest PT_LOAD p_vaddr and
				 * highest p_vaddr + p_memsz, plus bias */
	bool deleted;		/* maps said " (deleted)" */
	const char *error;	/* why a file is of type "file" although
				 * its name looked like ELF; else NULL */
};

/* The program header one VMA maps.  Addresses and offsets in bytes, as in
 * the ELF file's Elf64_Phdr (gABI). */
struct maptap_segment_info {
	int index;		/* program header index, -1 when none */
	enum maptap_segment_kind kind;
	uint64_t p_vaddr, p_offset, p_filesz, p_memsz;
	uint32_t p_flags;	/* PF_R | PF_W | PF_X */
};

/* What maptap_modules_event() says about the VMA of a range event. */
struct maptap_module_desc {
	bool has_module;		/* MODULE is set */
	bool has_segment;		/* SEGMENT is set */
	struct maptap_module_info module;
	struct maptap_segment_info segment;
	/* The VMA is anonymous memory that a program mapped over this
	 * file segment with MAP_FIXED (or mremap) and filled itself, as
	 * programs that move their text onto huge pages do: it keeps the
	 * segment's module and symbols, but its bytes are the program's
	 * copy, not necessarily the file's.  Only seen through events (a
	 * snapshot cannot tell such memory from any other). */
	bool anon;
};

enum maptap_module_event_kind {
	MAPTAP_MODULE_LOAD = 0,	/* the first VMA of an instance appeared */
	MAPTAP_MODULE_UNLOAD,	/* its last VMA went */
};

/* A module event, valid during the callback that receives it. */
struct maptap_module_event {
	enum maptap_module_event_kind kind;
	pid_t pid;			/* tgid of the address space */
	pid_t tid;			/* thread of the causing event */
	uint64_t time_ns;		/* CLOCK_MONOTONIC, ns, of that event */
	const char *syscall;		/* its system call, or NULL */
	const struct maptap_module_info *module;
};

/* Receives module events; a non-zero return stops the caller, which
 * passes the value back. */
typedef int (*maptap_module_fn)(const struct maptap_module_event *ev,
				void *arg);

/* The module tracker: module instances of every address space seen in
 * the events it is given, and the cache of ELF files they share. */
struct maptap_modules;

/* Options.  Zero-initialize, then set what you need. */
struct maptap_modules_opts {
	/* Unloaded instances kept for symbolizing addresses recorded while
	 * they were mapped (per tracker); 0 means 4096.  Past the cap the
	 * oldest is forgotten. */
	unsigned max_retired;
	/* Where libdwfl looks for separate debuginfo: a colon-separated
	 * list as eu-addr2line's --debuginfo-path takes (elfutils
	 * libdwfl.h, Dwfl_Callbacks.debuginfo_path); copied.  NULL: the
	 * default ":.debug:/usr/lib/debug". */
	const char *debuginfo_path;
};

/* Create a tracker with OPTS (may be NULL).  Returns 0 and *OUT, or
 * -ENOMEM. */
int maptap_modules_new(const struct maptap_modules_opts *opts,
		       struct maptap_modules **out);

/* Free M and every file, instance and symbol table it holds.  NULL
 * allowed. */
void maptap_modules_free(struct maptap_modules *m);

/* Feed one event of maptap/event.h, in the order the session produced
 * them.  Range events update the address space of EV->pid and call FN
 * (may be NULL) with MAPTAP_MODULE_LOAD / MAPTAP_MODULE_UNLOAD when an
 * instance's first VMA appears or its last one goes; EXEC unloads every
 * instance of the process (the session's snapshot of the new image
 * follows as MAP events).  Files are opened during this call, so call it
 * while the target is still stopped at the event.
 *
 * When DESC is not NULL it receives the module and segment of EV->vma
 * (for UNMAP: as they were before the unmap); has_module/has_segment say
 * which apply.  Its strings are owned by M (see struct
 * maptap_module_info).
 *
 * A file that cannot be read as ELF becomes a module of type "file" with
 * module.error set the first time (reported once, never fatal).
 * Returns 0, FN's non-zero value, or -ENOMEM (the space may then miss
 * this event's change). */
int maptap_modules_event(struct maptap_modules *m,
			 const struct maptap_event *ev,
			 struct maptap_module_desc *desc,
			 maptap_module_fn fn, void *arg);

/* Replace everything known about the address space of PID with the
 * VMAs V[0..N) (address order), as a snapshot: instances that stay are
 * kept, others are unloaded and new ones loaded through FN.  For callers
 * without a session (tests, a one-shot symbolizer reading
 * /proc/PID/maps).  Returns 0, FN's value, or -ENOMEM. */
int maptap_modules_sync(struct maptap_modules *m, pid_t pid,
			const struct maptap_vma *v, size_t n,
			maptap_module_fn fn, void *arg);

/* maptap_modules_sync() with a snapshot of PID's address space read now
 * from SOURCE (maptap/maps.h: maptap_maps_open(), then
 * maptap_maps_read_all()), loading and unloading without a callback.
 * For callers without a session (tests, benchmarks, a one-shot
 * symbolizer); call it while PID is stopped if its mappings must match
 * a stop.  Not thread-safe (M is one owner's).  Returns 0, -EINVAL for
 * a NULL M or PID <= 0, -ENOENT when PID does not exist, -ESRCH when
 * its mm went away during the read, -EACCES/-EPERM when /proc/PID/maps
 * may not be read (ptrace access mode, proc(5)), -EOPNOTSUPP for
 * MAPTAP_MAPS_QUERY on a kernel without PROCMAP_QUERY, -ENOMEM, or
 * another -errno of the read. */
int maptap_modules_sync_pid(struct maptap_modules *m, pid_t pid,
			    enum maptap_maps_source source);

/* Module and segment of the byte at ADDR in the address space of PID as
 * it is now (bss included: an address past the file-backed part of a
 * writable PT_LOAD but below p_vaddr + p_memsz).  Returns 0 and fills
 * DESC, -ESRCH when PID was never seen, -ENOENT when no module covers
 * ADDR. */
int maptap_modules_find(struct maptap_modules *m, pid_t pid, uint64_t addr,
			struct maptap_module_desc *desc);

/* Forget the address space of PID: its live instances are retired, as
 * on unload but without events.  The space of an exited process keeps
 * resolving addresses until it is forgotten, so call this when its
 * addresses need not resolve as "now" any more (retired instances still
 * resolve with a time, see maptap_sym_lookup()).  Returns 0 or -ESRCH. */
int maptap_modules_forget(struct maptap_modules *m, pid_t pid);

/* Counters for benchmarks and -v. */
struct maptap_modules_stats {
	uint64_t files;		/* distinct files opened and cached */
	uint64_t opens;		/* files opened (cache hits included) */
	uint64_t open_fails;	/* VMAs whose file could not be opened */
	uint64_t bad_elf;	/* files reported as malformed ELF */
	uint64_t instances;	/* live instances, all spaces */
	uint64_t retired;	/* retired instances kept */
};

void maptap_modules_get_stats(const struct maptap_modules *m,
			      struct maptap_modules_stats *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
