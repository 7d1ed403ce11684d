/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/uprobe.h -- user-space breakpoint probes in traced processes.
 *
 * A uprobe is an int3 (0xCC) written over the first byte of an
 * instruction of a traced process's text, through /proc/PID/mem, which
 * writes read-only private mappings as ptrace(2)'s POKETEXT does (a
 * copy-on-write page of the process; the file is never changed).  When
 * a thread executes it, the kernel stops it with SIGTRAP (si_code
 * SI_KERNEL, rip one past the int3); the session recognises its own
 * breakpoints at that signal-delivery stop, never delivers that SIGTRAP
 * to the target (a SIGTRAP from anything else still is), calls the
 * handler, and resumes the thread in an out-of-line copy of the
 * displaced instruction (XOL, as kernel uprobes do): a page the session
 * maps into the target with an injected mmap(2) at the first hit, where
 * each breakpoint gets a slot holding its instruction (rip-relative
 * operands rewritten for the slot's address, relative branches and
 * calls rewritten to absolute ones, instructions decoded by Capstone)
 * followed by a jump back.  The original instruction is never put back
 * while the process runs, so sibling threads can neither pass the
 * address without a hit nor see a half-restored instruction; one hit
 * costs one ptrace stop.
 *
 * Return probes: at the function's entry hit the return address (the
 * word at rsp) and rsp go on a per-thread shadow stack, and a
 * breakpoint is put at that return address (the return site, kept
 * until detach).  A hit of a return site with rsp 8 above the top
 * frame's is that frame's return.  Frames below the current stack
 * pointer at an entry or a return are dropped as stale (longjmp,
 * exceptions), as the kernel's uretprobes do.  Unlike uretprobes, the
 * stack is never changed: the target's own unwinders (C++ exceptions,
 * backtrace(3)) and maptap's see the real return addresses, and a
 * detach has no return address to put back.
 *
 * fork: the child's text holds the parent's breakpoints and the session
 * copies their table (and the forking thread's shadow stack) to the
 * child, which is traced like its parent.  exec: the table goes with the
 * old image.  Detach (maptap_session_request_detach() in attach mode)
 * and the let-go of a process write every original byte back first:
 * the text is the file's again, byte for byte.  The XOL page stays
 * mapped (a thread may be executing in it); it is anonymous memory, not
 * text.
 *
 * The session does not know modules: its caller places breakpoints at
 * the addresses it computes from the module layer (maptap/module.h:
 * ELF vaddr + load bias, for each text VMA as it is mapped), and forgets
 * them at a module's unload.
 *
 * Threads: as maptap/session.h (the session's thread only).
 * x86-64 only (configure refuses other hosts).
 */
#ifndef MAPTAP_UPROBE_H
#define MAPTAP_UPROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

struct maptap_session;
struct user_regs_struct;	/* <sys/user.h> */
struct maptap_uprobe_ifunc;	/* below */

/* One hit handed to the handler; valid during the call only.  Thread
 * TID is in a ptrace stop for the whole call and its registers read
 * (maptap_session_get_regs(), libunwind) as at the probed instruction:
 * rip is ADDR for an entry hit; for a return hit rip is RET_ADDR (the
 * function has returned, rax holds its value, rsp is past the return
 * address), as stap's uretprobe context: the hit is the return site's
 * breakpoint. */
struct maptap_uprobe_hit {
	pid_t pid;			/* tgid */
	pid_t tid;
	int id;				/* given to maptap_uprobe_insert() */
	bool is_return;
	uint64_t addr;			/* the breakpoint's address (for a
					 * return: the function's entry) */
	uint64_t ret_addr;		/* return hit: where it returns to */
	const struct user_regs_struct *regs;	/* as described above */
	uint64_t time_ns;		/* CLOCK_MONOTONIC of the stop, ns */
};

/* Receives hits.  Return 0 to go on; non-zero ends the session as an
 * on_event return does (maptap/session.h). */
typedef int (*maptap_uprobe_fn)(const struct maptap_uprobe_hit *hit,
				void *arg);

/* Make FN (with ARG) S's handler of every hit.  Call before the run.
 * Returns 0, -ENOMEM, or -EIO when the instruction decoder cannot be
 * opened. */
int maptap_uprobe_set_handler(struct maptap_session *s, maptap_uprobe_fn fn,
			      void *arg);

/* Probe the instruction at ADDR (bytes, absolute) of traced process PID
 * with ID, as an entry probe or, IS_RETURN, a return probe of the
 * function starting there.  Idempotent: the same (ADDR, ID, IS_RETURN)
 * again adds nothing, and a breakpoint whose byte was replaced since
 * (a MAP_FIXED mapping over the text, the dynamic linker's way of
 * mapping a library's segments) is written again.  Several ids may share
 * one address; each gets its call.  The instruction is decoded now.
 * Returns 0; -ESRCH when PID is not traced; -EFAULT when ADDR cannot be
 * read or written; -EINVAL when the bytes there do not decode as an
 * x86-64 instruction or already are an int3; -ENOTSUP for an
 * instruction that cannot run out of line (a call through memory
 * addressed by rsp); -EPERM when a thread of PID's address space was
 * let go while others there stay traced (another tracer took it: an
 * int3 would kill it, so the mm's breakpoints were removed for good);
 * -ENOMEM; -EIO when no handler was set. */
int maptap_uprobe_insert(struct maptap_session *s, pid_t pid, uint64_t addr,
			 int id, bool is_return);

/* Probe the function the IFUNC resolver F (maptap_uprobe_ifuncs() of
 * the module, mapped at load bias BIAS in PID) chooses in PID, with ID,
 * as an entry probe or, IS_RETURN, a return probe: a breakpoint of no
 * id of its own at the resolver catches each of its returns, and the
 * value it returns (rax) gets the probe (as maptap_uprobe_insert()), so
 * a choice made later (relocation under -c, a lazy binding, dlopen,
 * dlsym) is probed before it is first called.  A choice made before
 * (an attached process): F's GOT words are read now, and a word that is
 * no longer its file value and points into F's text segment is taken
 * as the choice.  Returns maptap_uprobe_insert()'s value for the
 * resolver's breakpoint (a failed read of a GOT word is no error). */
int maptap_uprobe_insert_ifunc(struct maptap_session *s, pid_t pid,
			       const struct maptap_uprobe_ifunc *f,
			       uint64_t bias, int id, bool is_return);

/* Forget the breakpoints of PID's address space in [LO, HI) without
 * writing memory: for a module's unload, when that text is gone; the
 * semaphore counts of maptap/sdt.h in the range go too (their memory is
 * gone, or mapped afresh).  Returns the number forgotten, or -ESRCH. */
int maptap_uprobe_forget(struct maptap_session *s, pid_t pid, uint64_t lo,
			 uint64_t hi);

/* Hits handled by S so far (entry and return). */
uint64_t maptap_uprobe_hits(const struct maptap_session *s);

/* Calls FN(NAME, VADDR, SIZE, ARG) for every function symbol (STT_FUNC
 * and STT_GNU_IFUNC, defined) of the ELF file PATH whose name matches
 * the fnmatch(3) pattern GLOB, from .symtab and .dynsym (a stripped file
 * still has the latter), once per address: of several names at one
 * address (aliases) the first that matches is given, .symtab's before
 * .dynsym's.  VADDR is the ELF st_value (add the load bias; for an IFUNC
 * that is its resolver, see maptap_uprobe_ifuncs()).  A non-zero
 * return of FN stops the walk and is returned.  Returns the number of
 * calls made (>= 0), or -errno: -ENOENT/-EACCES opening PATH, -EINVAL
 * when it is not ELF, -ENOMEM. */
int maptap_uprobe_functions(const char *path, const char *glob,
			    int (*fn)(const char *name, uint64_t vaddr,
				      uint64_t size, void *arg),
			    void *arg);

/* The most GOT words maptap_uprobe_ifuncs() gives per IFUNC symbol. */
#define MAPTAP_UPROBE_IFUNC_SLOTS 8

/* One IFUNC symbol (STT_GNU_IFUNC) of an ELF file, valid during the
 * callback; all addresses are ELF vaddrs (add the load bias).  The
 * symbol's value is a resolver, which the dynamic linker calls (at
 * relocation, or at a lazy PLT call's binding) to choose the function
 * that runs (glibc's strlen, memcpy, libm's cos ...).  SLOT: the GOT
 * words the file's own R_X86_64_IRELATIVE relocations with RESOLVER as
 * addend fill with that choice (the library's calls of its own IFUNC
 * go through them); INIT: each word's bytes in the file (what it holds
 * before the relocation).  TEXT_LO..TEXT_HI: the executable PT_LOAD
 * segment that holds RESOLVER, where the choice is. */
struct maptap_uprobe_ifunc {
	const char *name;
	uint64_t resolver;
	uint64_t text_lo, text_hi;
	size_t nslots;
	uint64_t slot[MAPTAP_UPROBE_IFUNC_SLOTS];
	uint64_t init[MAPTAP_UPROBE_IFUNC_SLOTS];
};

/* Calls FN(F, ARG) for every defined IFUNC symbol of the ELF file PATH
 * (from .symtab and .dynsym, once per address as
 * maptap_uprobe_functions() does).  Returns the number of calls, FN's
 * non-zero value, or -errno as maptap_uprobe_functions(). */
int maptap_uprobe_ifuncs(const char *path,
			 int (*fn)(const struct maptap_uprobe_ifunc *f,
				   void *arg),
			 void *arg);

/* Calls FN(NAME, VADDR, 16, ARG) for every PLT entry of the ELF file
 * PATH (.plt.sec when there is one, else .plt without its first entry)
 * whose called symbol matches GLOB: the symbol named by the
 * R_X86_64_JUMP_SLOT relocation of the GOT slot the entry jumps through
 * (binutils' "NAME@plt").  VADDR is the entry's ELF address.  Returns
 * the number of calls, FN's non-zero value, or -errno as
 * maptap_uprobe_functions(). */
int maptap_uprobe_plt(const char *path, const char *glob,
		      int (*fn)(const char *name, uint64_t vaddr,
				uint64_t size, void *arg),
		      void *arg);

/* Calls FN(NAME, ARG) for each DT_NEEDED entry of the ELF file PATH, in
 * order (the libraries it names, not yet searched for).  Returns the
 * number of calls, FN's non-zero value, or -errno as
 * maptap_uprobe_functions(). */
int maptap_uprobe_needed(const char *path,
			 int (*fn)(const char *name, void *arg), void *arg);

/* One function of a module's DWARF, valid during the callback. */
struct maptap_uprobe_func {
	const char *name;		/* DW_AT_name */
	const char *file;		/* DW_AT_decl_file's path, or NULL */
	int line;			/* DW_AT_decl_line, or 0 */
	uint64_t entry;			/* first instruction (ELF vaddr); for
					 * an inlined instance its entry pc */
	uint64_t body;			/* after the prologue: the first line
					 * table row past ENTRY marked
					 * prologue_end, else the first
					 * statement row past it on another
					 * line (gdb's and stap's rule);
					 * ENTRY when there is none */
	bool inlined;			/* an inlined instance */
};

/* maptap_uprobe_dwarf_functions() FLAGS */
#define MAPTAP_UPROBE_INLINE 1u		/* inlined instances only (stap's
					 * .inline); else out-of-line
					 * functions only */

/* Calls FN(F, ARG) for every function in the DWARF of the ELF file PATH
 * (its own .debug_info, else the separate debug file
 * /usr/lib/debug/.build-id/NN/N*.debug named by its build-id) whose name
 * matches the fnmatch(3) pattern GLOB, declared in a file matching
 * FILE_GLOB (NULL: any; matched against the whole path, or a trailing
 * part of it after a '/') at line LINE (0: any).  Declarations without
 * code are left out.  A non-zero return of FN stops the walk and is
 * returned.  Returns the number of calls made (>= 0), or -errno:
 * -ENODATA when PATH has no DWARF, -ENOENT/-EACCES. */
int maptap_uprobe_dwarf_functions(const char *path, const char *glob,
				  const char *file_glob, int line,
				  unsigned flags,
				  int (*fn)(const struct maptap_uprobe_func *f,
					    void *arg),
				  void *arg);

/* Calls FN(VADDR, FILE, LINE, ARG) for the statements of line LINE of
 * the source files matching FILE_GLOB (as in
 * maptap_uprobe_dwarf_functions()) in the DWARF line table of PATH:
 * the first address of each run of is_stmt rows on that line, so a line
 * the compiler split (a loop's condition) gives one address per part.
 * Returns the number of calls, FN's non-zero value, or -errno
 * (-ENODATA: no DWARF). */
int maptap_uprobe_dwarf_lines(const char *path, const char *file_glob,
			      int line,
			      int (*fn)(uint64_t vaddr, const char *file,
					int line, void *arg),
			      void *arg);

/* Calls FN(NAME, TYPE, ARG) for each formal parameter of the function
 * (or inlined instance) whose code holds ELF address VADDR of the file
 * PATH, in order, from its DWARF (in the file or a separate debug file
 * libdwfl finds); TYPE is spelled as stap -L does ("int", "char*",
 * "struct foo const*").  For listing probe points: nothing is read from
 * a process.  Returns the number of calls, FN's non-zero value, or
 * -errno: -ENODATA when no DWARF function holds VADDR, -ENOENT when PATH
 * cannot be opened, -ENOMEM. */
int maptap_uprobe_dwarf_params(const char *path, uint64_t vaddr,
			       int (*fn)(const char *name, const char *type,
					 void *arg),
			       void *arg);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
