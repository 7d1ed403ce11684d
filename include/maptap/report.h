/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/report.h -- who holds the address space: the attribution report
 * of maptap --report.
 * A report consumes the events of maptap/event.h and the module events of
 * maptap/module.h, each with the user stack of the thread that caused it
 * (maptap/unwind.h), and keeps, per traced process (tgid), its own
 * interval map of the mapped address space: every mapped byte carries
 * the call site that mapped it and its class (module + segment kind for
 * file-backed memory and a module's bss, else the anonymous name:
 * "[heap]", "[stack]", "[anon:NAME]", "[anon]", ...).  At the end it
 * prints, per process:
 *   - live mapped bytes by call site, largest first: a site is the
 *     first frames of the stack that are not the C library's or the
 *     dynamic loader's mapping and allocation internals (mmap, malloc,
 *     the loader's _dl_map_* path, C++ operator new), so that memory
 *     malloc mapped is charged to malloc's caller and a library dlopen
 *     mapped to dlopen's caller;
 *   - live mapped bytes by module and segment kind, and by anonymous
 *     name, largest first;
 *   - the peak of mapped bytes, when it was reached and the sites that
 *     held it then (kept lazily: O(1) per event);
 *   - every dlopen and dlclose seen (module loads and unloads whose
 *     stack passes through dlopen/dlclose; an unload inside a dlopen,
 *     not a dlclose, is a failed dlopen), with the stack that made it.
 * Bytes are virtual bytes of VMAs (what /proc/PID/maps lists), whatever
 * their protection: a PROT_NONE reservation is mapped memory too.
 * Memory mapped before maptap attached, by the kernel at execve, and
 * memory a fork child inherited keeps pseudo call sites that say so.
 * Each program image of a process is a record of its own (an exec ends
 * one and starts the next); a process that shares another's mm (vfork)
 * has none until its exec (maptap_report_mm_owner()).
 * The state of a process is kept after it exits, so that the report of
 * an exited process and of one still running at detach look alike.
 * Threads: a report is not thread-safe; one owner (the thread that runs
 * the session) at a time.  Two reports share nothing.
 */
#ifndef MAPTAP_REPORT_H
#define MAPTAP_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <maptap/event.h>
#include <maptap/module.h>
#include <maptap/unwind.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* Options.  Zero-initialize, then set what you need. */
struct maptap_report_opts {
	unsigned site_frames;	/* frames that name a call site; 0 means 3 */
	unsigned top;		/* rows per table in the text report; 0
				 * means 20 (the rest summed on one line);
				 * JSON always has every row */
	uint64_t base_ns;	/* CLOCK_MONOTONIC (ns) the text report's
				 * times count from; 0: the first event */
};

struct maptap_report;

/* Create a report that symbolizes through M (borrowed: M must outlive
 * the report and must have seen each event before the report does, as
 * maptap_modules_event() is called before the report's event call).
 * Returns 0 and *OUT, -EINVAL (M or OUT NULL), -ENOMEM. */
int maptap_report_new(struct maptap_modules *m,
		      const struct maptap_report_opts *opts,
		      struct maptap_report **out);

/* Free R.  NULL allowed. */
void maptap_report_free(struct maptap_report *r);

/* True when maptap_report_event() would use the stack of EV->tid for EV:
 * a range event that brings new bytes (map, replace, grow, and a move
 * whose new range is longer than its old one) caused by a system call
 * (EV->syscall_nr >= 0) and not a snapshot.  Callers unwind only then;
 * other events take no frames.  Pure. */
bool maptap_report_wants_stack(const struct maptap_event *ev);

/* True when FRAMES[0..NFRAMES) of process PID (symbolized through the
 * report's module layer, as mapped now) hold a frame that is not one of
 * the mapping and allocation internals above, so that they name a call
 * site.  A caller whose walk ended MAPTAP_UNWIND_TRUNCATED with no such
 * frame (a malloc inside dlopen runs 20 frames deep in glibc before it
 * reaches the caller) walks deeper before handing the frames over.
 * Thread-safety as the report's. */
bool maptap_report_has_site(const struct maptap_report *r, pid_t pid,
			    const struct maptap_frame *frames,
			    unsigned nframes);

/* Account EV.  Every event of the session goes through here, in order.
 * EV->where is the module layer's description of EV->vma (NULL: none).
 * FRAMES[0..NFRAMES) is the stack of EV->tid at this stop, innermost
 * first, from maptap_unwind() (NULL/0: none, or unwinding failed: the
 * bytes go to the pseudo site "no stack").  The target thread must still
 * be stopped: a new call site is symbolized during this call, because
 * the modules it names may be gone by the time the report is printed.
 * Rules per event (maptap/event.h): map, replace: the range is (re)charged
 * to the site of FRAMES; unmap: uncharged; protect, rename: the site is
 * kept, the class follows the new state; move: the bytes keep their
 * sites at the new address; grow: the added bytes are charged to FRAMES'
 * site ("kernel" when no system call grew it: stack growth); shrink: the
 * cut bytes are uncharged; fork: the child starts empty and its
 * snapshot (the map events that follow under its pid) is charged to
 * "inherited" (docs/model.md, "Processes"); clone of a process (THREAD false): the child shares
 * its parent's record until its exec or exit (maptap_report_mm_owner());
 * exec: the record of the old image ends (state "exec", frozen with its
 * peak) and a new record of the same pid starts empty (the snapshot that
 * follows is charged to "execve"); exit with group_exit and detach of a
 * process: the process's state is frozen as it was.
 * Returns 0, or -ENOMEM (the report is then incomplete and says so). */
int maptap_report_event(struct maptap_report *r,
			const struct maptap_event *ev,
			const struct maptap_frame *frames, unsigned nframes);

/* The pid whose address space (and record) process PID uses: PID
 * itself, or, for a process that shares another's mm (a vfork child,
 * clone(2) with CLONE_VM and no CLONE_THREAD: a MAPTAP_EV_CLONE with
 * THREAD false) until it execs or exits, that other process (followed
 * along chains).  Its range events are charged to that process's
 * record, with the call site from its own stack; callers unwind its
 * thread with the owner's modules (maptap_unwind(u, OWNER, TID, ...)),
 * as only the owner's address space was ever described to the module
 * layer.  R NULL: PID.  Pure. */
pid_t maptap_report_mm_owner(const struct maptap_report *r, pid_t pid);

/* Record module event ME with the stack of ME->tid (FRAMES as for
 * maptap_report_event()): a load whose stack passes through dlopen (or
 * dlmopen) is listed as a dlopen, an unload whose stack passes through
 * dlclose as a dlclose, and one through dlopen but not dlclose (the
 * loader unmapping a library it could not link, glibc elf/dl-open.c) as
 * a failed dlopen; others (the loader's start-up loads, exec) are
 * only counted.  Returns 0 or -ENOMEM. */
int maptap_report_module_event(struct maptap_report *r,
			       const struct maptap_module_event *me,
			       const struct maptap_frame *frames,
			       unsigned nframes);

/* Totals of process PID, for callers and tests: of its latest record
 * (after an exec, the current image's).  Bytes; times in ns
 * (CLOCK_MONOTONIC, as in events). */
struct maptap_report_totals {
	uint64_t live_bytes;	/* mapped now (at exit/detach if ended) */
	uint64_t peak_bytes;	/* the most mapped after any one event */
	uint64_t peak_ns;	/* when the peak was first reached */
	unsigned sites;		/* call sites with live bytes */
	bool ended;		/* exited, or detached */
	bool exited;		/* its last thread exited (STATUS valid) */
	int status;		/* wait(2) status of the exit */
};

/* Returns 0 and *OUT, or -ESRCH when the report never saw PID. */
int maptap_report_totals(const struct maptap_report *r, pid_t pid,
			 struct maptap_report_totals *out);

/* Print the report of every process seen, in the order they were first
 * seen, to FP: as text (format: docs/report.md) or as JSON Lines, one
 * {"event":"report", ...} object per process (schema:
 * docs/json-schema.md).  Returns 0 or -errno from the stream. */
int maptap_report_print_text(struct maptap_report *r, FILE *fp);
int maptap_report_print_json(struct maptap_report *r, FILE *fp);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
