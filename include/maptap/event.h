/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/event.h -- the events maptap reports.
 *
 * Semantics (docs/model.md, "The diff"): the model of
 * an mm is the function addr -> (perms, backing, name), where backing is
 * (dev, inode, file offset at addr) for a file and "anonymous" otherwise,
 * and a range event covers a maximal address range on which that function
 * changed in one way, with uniform old and new states.  VMA splits and
 * merges that change nothing produce no event.
 */
#ifndef MAPTAP_EVENT_H
#define MAPTAP_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <maptap/vma.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

struct maptap_module_desc;	/* maptap/module.h */
struct maptap_module_event;	/* maptap/module.h */

enum maptap_event_kind {
	/* range events: one mm, one address range */
	MAPTAP_EV_MAP = 0,	/* unmapped before, mapped now */
	MAPTAP_EV_UNMAP,	/* mapped before, unmapped now */
	MAPTAP_EV_PROTECT,	/* same backing and name, perms changed */
	MAPTAP_EV_REPLACE,	/* mapped before and after, new backing */
	MAPTAP_EV_MOVE,		/* mremap moved the range (old.start != vma.start) */
	MAPTAP_EV_RENAME,	/* same backing and perms, name changed */
	MAPTAP_EV_GROW,		/* a mapping extended in place (brk, mremap, stack) */
	MAPTAP_EV_SHRINK,	/* a mapping cut short in place (brk, mremap) */
	/* process events */
	MAPTAP_EV_ATTACH,	/* maptap began tracing this process */
	MAPTAP_EV_EXEC,		/* new program image; the model was rebuilt */
	MAPTAP_EV_FORK,		/* new process (own mm, copy of parent's) */
	MAPTAP_EV_CLONE,	/* new thread, or new process on the same mm
				 * (vfork, CLONE_VM): see THREAD */
	MAPTAP_EV_EXIT,		/* a thread or process ended */
	MAPTAP_EV_DETACH,	/* maptap stopped tracing this thread/process */
	MAPTAP_EV_KIND_COUNT
};

/* Stable lower-case name of KIND ("map", "unmap", ..., "detach"), as used
 * in the text log and in JSON's "event" field.  NULL for an unknown KIND. */
const char *maptap_event_kind_name(enum maptap_event_kind kind);

/* True for the range events MAP..SHRINK. */
static inline bool maptap_event_is_range(enum maptap_event_kind kind)
{
	return kind <= MAPTAP_EV_SHRINK;
}

/* One event.  Valid only during the callback that receives it: every
 * pointer in it (names, paths) is owned by maptap and may be reused after
 * the callback returns; copy what you keep.
 *
 * Range events: VMA is the new state of the range (for UNMAP: the range,
 * with the old state's other fields), OLD the previous state (for MAP:
 * zero and name "").  For MOVE, GROW and SHRINK, OLD.start/OLD.end is the
 * range before the call.  SNAPSHOT is true for the MAP events that list
 * the initial VMAs at attach, exec and fork, so that a log replays into
 * the process's real maps.
 *
 * Process events: PID/TID say who; CHILD is the new pid/tid (FORK, CLONE);
 * THREAD (CLONE only) is true when CHILD is a new thread of PID
 * (clone(2) with CLONE_THREAD), false when CHILD is a process of its own
 * (its pid is CHILD) that shares PID's address space: a vfork(2) child
 * until it execs or exits, a clone(2) with CLONE_VM and no CLONE_THREAD.
 * The kernel says which: the child's Tgid (proc(5)).  For EXEC, PATH is the new executable and OLD_PATH the old one, and
 * FORMER_TID the tid that called execve (it differs from TID when a
 * non-leader thread exec'd); STATUS is the wait status (EXIT); REASON says
 * why (DETACH: "signal", "end", "ptrace by traced process", ...).
 */
struct maptap_event {
	enum maptap_event_kind kind;
	pid_t pid;		/* tgid of the process */
	pid_t tid;		/* thread that caused it (== pid for resyncs) */
	uint64_t time_ns;	/* CLOCK_MONOTONIC, nanoseconds */
	int syscall_nr;		/* the call that caused it, or -1 (resync, none) */
	const char *syscall;	/* its name, or NULL */
	bool snapshot;
	struct maptap_vma vma;
	struct maptap_vma old;
	pid_t child;
	pid_t former_tid;
	int status;
	bool group_exit;	/* EXIT: the process's last thread ended */
	bool thread;		/* CLONE: CHILD is a thread of PID */
	const char *path;
	const char *old_path;
	const char *reason;
	/* Range events: the module and segment of VMA (maptap/module.h,
	 * from maptap_modules_event()), printed when set; NULL: none. */
	const struct maptap_module_desc *where;
};

/* Receives each event, in order.  Return 0 to go on; a non-zero return
 * stops the producer, which passes that value back to its caller. */
typedef int (*maptap_event_fn)(const struct maptap_event *ev, void *arg);

/* Write EV to FP as one line of the text log: time (seconds since
 * BASE_NS, microsecond precision), pid/tid, event, range, perms, offset,
 * path or name, syscall (or "-").  Returns 0 or -errno from the stream.
 * Thread-safety: as stdio on FP. */
int maptap_event_print_text(FILE *fp, const struct maptap_event *ev,
			    uint64_t base_ns);

/* Print the header line of the text log to FP. */
int maptap_event_print_text_header(FILE *fp);

/* Write EV to FP as one JSON Lines object (schema: docs/json-schema.md).
 * Strings are escaped per RFC 8259; bytes that are not valid UTF-8 are
 * written as \u00XX of their byte value.  Returns 0 or -errno. */
int maptap_event_print_json(FILE *fp, const struct maptap_event *ev);

/* Write module event ME (maptap/module.h) to FP as one line of the text
 * log, like maptap_event_print_text(), or as one JSON Lines object
 * ("module_load"/"module_unload" with path, build_id, bias, type; schema:
 * docs/json-schema.md).  Returns 0 or -errno from the stream. */
int maptap_module_event_print_text(FILE *fp,
				   const struct maptap_module_event *me,
				   uint64_t base_ns);
int maptap_module_event_print_json(FILE *fp,
				   const struct maptap_module_event *me);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
