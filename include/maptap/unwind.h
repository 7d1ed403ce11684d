/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/unwind.h -- user stack backtraces of ptrace-stopped threads.
 *
 * An unwinder walks the call stack of one thread that the caller has
 * stopped with ptrace(2) (any ptrace stop: syscall, seccomp, signal,
 * group stop).  Each step from a frame to its caller evaluates the DWARF
 * CFI row of the frame's pc (DWARF 5, 6.4 "Call Frame Information"),
 * decoded by elfutils' libdw (dwarf_cfi_addrframe(3)) from:
 *   1. .eh_frame of the module's file (LSB Core, "Exception Frames"), as
 *      the module layer (maptap/module.h) has the file open and mapped:
 *      through /proc/PID/map_files, so code of deleted files, memfds and
 *      the [vdso] unwinds too;
 *   2. where .eh_frame covers no pc (code built with -g
 *      -fno-asynchronous-unwind-tables, older or hand-written objects):
 *      .debug_frame of the file or of its separate debuginfo, found as
 *      the symbol layer finds it (maptap/symbols.h);
 *   3. where libdw gives no usable row: libunwind's remote walk
 *      (unw_init_remote(3), unw_step(3)) with maptap's accessors and
 *      the .eh_frame_hdr search table located through PT_GNU_EH_FRAME;
 *   4. where no CFI covers a pc at all (JIT code, a file without
 *      either), the x86_64 frame-pointer chain (saved %rbp at [%rbp],
 *      return address at [%rbp + 8]).
 * Memory is read a page (4 KiB) at a time into a cache that lives for
 * one maptap_unwind() call: pages of read-only segments of modules from
 * the module's file image, the rest (the stack) with process_vm_readv(2),
 * a page and the one above it per call; registers come from one
 * PTRACE_GETREGS per call.  A backtrace costs a few system calls, not
 * one PTRACE_PEEKDATA per word as libunwind's stock _UPT_access_mem.
 * maptap checks that every frame it accepts has a stack pointer above
 * the previous one, so a garbage chain stops the walk with a marker
 * instead of inventing frames.
 *
 * Nothing is read and no system call made until a backtrace is asked
 * for: a session that never unwinds pays nothing.
 *
 * Threads: an unwinder is not thread-safe; one owner at a time, the
 * thread that is the tracer of the threads it unwinds (ptrace requests
 * only work from the tracer thread, ptrace(2)).  Two unwinders share
 * nothing.
 */
#ifndef MAPTAP_UNWIND_H
#define MAPTAP_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <maptap/module.h>
#include <maptap/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

struct user_regs_struct;	/* <sys/user.h> */

/* SystemTap's MAXBACKTRACE default: frames per backtrace when the caller
 * does not say (stap's runtime/stack.c; settable with -D there and
 * here). */
#define MAPTAP_MAXBACKTRACE 20

/* How a frame was found. */
enum maptap_frame_how {
	MAPTAP_FRAME_REGS = 0,	/* frame 0: the thread's registers */
	MAPTAP_FRAME_CFI,	/* the callee's DWARF CFI (.eh_frame) */
	MAPTAP_FRAME_FP,	/* the callee's frame pointer chain: no CFI
				 * covered the callee's pc */
	MAPTAP_FRAME_DEBUG_FRAME,	/* the callee's CFI in .debug_frame
					 * (no .eh_frame covered its pc) */
};

/* One frame of a backtrace.  Addresses in bytes, in the target. */
struct maptap_frame {
	uint64_t pc;		/* frame 0 and frames interrupted by a
				 * signal: the exact pc; others: the return
				 * address (the instruction after the call) */
	uint64_t sp;		/* the stack pointer in this frame */
	bool activation;	/* pc is exact (see pc): symbolize at pc,
				 * else at pc - 1, inside the call */
	bool signal;		/* this frame is a signal trampoline
				 * (__restore_rt): the next one was
				 * interrupted, not calling */
	enum maptap_frame_how how;
};

/* Why a backtrace ended. */
enum maptap_unwind_end {
	MAPTAP_UNWIND_COMPLETE = 0,	/* reached the outermost frame (the
					 * CFI of _start / clone marks the
					 * return address undefined, or pc 0) */
	MAPTAP_UNWIND_TRUNCATED,	/* the frame limit was reached and
					 * the stack goes on */
	MAPTAP_UNWIND_NOINFO,		/* no CFI and no usable frame
					 * pointer for the last frame */
	MAPTAP_UNWIND_BADFRAME,		/* the next frame made no sense:
					 * unreadable stack, or a stack
					 * pointer that did not grow */
};

/* Stable names: "complete", "truncated", "noinfo", "badframe"; NULL for
 * an unknown value.  Pure. */
const char *maptap_unwind_end_name(enum maptap_unwind_end end);

/* One unwinder: libunwind's address space, the page cache and the
 * located unwind tables of every file it has seen. */
struct maptap_unwinder;

/* Create an unwinder that finds modules through M (borrowed: M must
 * outlive the unwinder, and must describe the address spaces of the
 * processes unwound, see maptap_modules_event()/maptap_modules_sync()).
 * Returns 0 and *OUT, -ENOMEM, or -EINVAL when M or OUT is NULL or
 * libunwind refuses to create an address space.  Allocates no page
 * cache until the first backtrace. */
int maptap_unwinder_new(struct maptap_modules *m,
			struct maptap_unwinder **out);

/* Free U.  NULL allowed. */
void maptap_unwinder_free(struct maptap_unwinder *u);

/* Walk the stack of thread TID of process PID (TID == PID for the main
 * thread), which must be in a ptrace stop of the calling thread, from
 * the innermost frame out, into FRAMES[0..MAX).  MAX 0 means
 * MAPTAP_MAXBACKTRACE (FRAMES must then hold that many).  *END (may be
 * NULL) says why the walk ended.  Reads only what the walk needs; the
 * target's memory is cached for this call only, since the target runs
 * between stops.
 *
 * Returns the number of frames (at least 1 when the registers could be
 * read), -ESRCH when TID is not a stopped tracee of the caller
 * (PTRACE_GETREGS failed with ESRCH), -EINVAL for a bad argument,
 * -ENOMEM. */
int maptap_unwind(struct maptap_unwinder *u, pid_t pid, pid_t tid,
		  struct maptap_frame *frames, unsigned max,
		  enum maptap_unwind_end *end);

/* Walk the stack of a sample of thread TID of process PID (a perf
 * sample, maptap/profile.h) taken while the thread ran: from its user
 * registers REGS and STACK_LEN bytes of its stack copied from
 * REGS->rsp upwards at that moment (STACK may be NULL: frame 0 and
 * what the frame-pointer register gives without memory).  Frames and
 * MAX as maptap_unwind().  The thread need not be stopped, or still
 * exist: no system call reads its registers or writable memory, which
 * have changed since; only the copy, and pages of read-only segments
 * of modules from the module layer's files (code, .eh_frame), are
 * read.  A frame whose caller lies above the copy ends the walk with
 * MAPTAP_UNWIND_BADFRAME.  Modules are looked up in the module layer
 * as it is now, so the caller drains samples before it applies later
 * address-space events (maptap/profile.h).  STACK is not kept.
 *
 * Returns the number of frames (at least 1), -EINVAL for a bad
 * argument, -ENOMEM. */
int maptap_unwind_sample(struct maptap_unwinder *u, pid_t pid, pid_t tid,
			 const struct user_regs_struct *regs,
			 const void *stack, size_t stack_len,
			 struct maptap_frame *frames, unsigned max,
			 enum maptap_unwind_end *end);

/* Symbolize frame F of process PID through the symbol layer
 * (maptap_sym_lookup(), FLAGS of enum maptap_sym_flags, "as mapped
 * now"): at F->pc for an activation frame, at F->pc - 1 otherwise (a
 * return address may be the first byte after the function, when the
 * call was its last instruction), with OUT->func.offset then made
 * relative to F->pc again, as stap prints it.  Returns what
 * maptap_sym_lookup() returns. */
int maptap_frame_lookup(struct maptap_modules *m, pid_t pid,
			const struct maptap_frame *f, unsigned flags,
			struct maptap_sym_info *out);

/* Counters since the unwinder was created, for benchmarks and -v. */
struct maptap_unwind_stats {
	uint64_t backtraces;	/* maptap_unwind() calls that read regs */
	uint64_t frames;	/* frames returned */
	uint64_t fp_frames;	/* of which found by frame pointer */
	uint64_t debug_frames;	/* of which found by .debug_frame CFI */
	uint64_t mem_words;	/* words libunwind asked for */
	uint64_t page_reads;	/* process_vm_readv(2) calls */
	uint64_t file_pages;	/* pages copied from a module's file */
	uint64_t read_fails;	/* of which failed (unmapped address) */
	uint64_t table_lookups;	/* find_proc_info calls (libunwind's
				 * steps, the fallback) */
	uint64_t tables_located;	/* files whose tables were located */
};

void maptap_unwinder_get_stats(const struct maptap_unwinder *u,
			       struct maptap_unwind_stats *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
