/* SPDX-License-Identifier: GPL-2.0-or-later */
/* interp.h -- pass 5: the interpreter of an elaborated script.
 *
 * A tree-walking interpreter over the resolved parse tree: locals live
 * in slots of a preallocated frame stack, globals in a slot table, arrays
 * and aggregates in the script runtime library (include/maptap/
 * script_*.h).  A runtime error longjmp()s out of the handler to the
 * probe's (or try's) recovery point, as stap's generated code jumps to
 * its "out" label.  Not thread-safe: one interpreter, one thread.
 */
#ifndef TR_INTERP_H
#define TR_INTERP_H

#include <setjmp.h>
#include <stdbool.h>
#include <sys/types.h>

#include <maptap/script_ctx.h>
#include <maptap/script_format.h>
#include <maptap/script_map.h>
#include <maptap/script_regex.h>
#include <maptap/script_stat.h>
#include <maptap/script_string.h>
#include <maptap/profile.h>
#include <maptap/unwind.h>
#include <maptap/uprobe.h>

#include "elaborate.h"

struct sref {
	const char *p;
	size_t len;
};

struct slot {
	int64_t l;
	struct maptap_script_buf s;
};

struct gslot {
	int64_t l;
	struct maptap_script_buf s;
	struct maptap_script_map *map;
	struct maptap_script_stat *stat;
};

struct maptap_session;
struct maptap_modules;
struct maptap_event;
struct maptap_module_event;
struct maptap_syscall_stop;
struct maptap_unwinder;
struct tr_saved;
struct maptap_tvar_cache;

/* The traced processes as pass 5 sees them (-c / -x), and the context of
 * the probe handler that runs now.  Owned by the driver of the run
 * (target.c); builtins read it.  SESS is NULL without -c/-x. */
struct tr_target {
	struct maptap_session *sess;
	struct maptap_modules *mods;	/* module and symbol layer */
	pid_t target_pid;		/* target(): -x PID or the command */
	/* The current handler's process context; PID 0: none (begin,
	 * end, timer probes).  TID is in a ptrace stop while the handler
	 * runs, unless STOPPED is false (a thread that already exited). */
	pid_t pid, tid;
	bool stopped;
	const struct maptap_event *ev;		/* maptap.vma/process */
	const struct maptap_module_event *mev;	/* maptap.module */
	const struct maptap_syscall_stop *sc;	/* syscalls */
	/* timer.profile, perf.*: the sample (profile.h); the thread runs
	 * on (STOPPED is false), its registers and stack are the
	 * sample's */
	const struct maptap_profile_sample *sample;
	const struct maptap_uprobe_hit *up;	/* breakpoint probes */
	/* a .return hit: the values saved at its entry (dwvars.h), or
	 * NULL when its entry was not seen */
	const struct tr_saved *entry;
	size_t nentry;
	/* an entry probe whose variables need the registers of its
	 * function's entry (dwvars.h): those of this call, or NULL */
	const struct user_regs_struct *entry_regs;
	/* dwvars.c: target memory read at the current stop (its TVC_NS,
	 * TVC_TID); made on the first read, freed with the target */
	struct maptap_tvar_cache *tvc;
	uint64_t tvc_ns;
	pid_t tvc_tid;
	/* execname() of a task that is gone (end, thread.end): the
	 * process's name at its begin; NULL: read it from /proc. */
	const char *comm;
	/* builtins_stack.c's unwinder, made on the first backtrace;
	 * freed with the target (maptap_unwinder_free). */
	struct maptap_unwinder *unw;
	/* builtins_stack.c's walk of the last stop (maptap_uframe*);
	 * freed with the target (tr_stack_cache_free). */
	struct tr_stack_cache *stk;
};

void tr_stack_cache_free(struct tr_stack_cache *c);

/* The frames of thread TID of PID, stopped at the stop of TIME_NS
 * (CLOCK_MONOTONIC ns, the stop's events' time; 0: an unknown stop),
 * up to MAX, innermost first, in *OUT: the per-stop walk the backtrace
 * functions share (builtins_stack.c), so a stop is walked once whoever
 * asks first; a request deeper than a truncated walk walks again.
 * *OUT is valid until the next call for another stop.  Returns the
 * number of frames (0: none), -1 when the unwinder or memory failed;
 * *END says why the walk ended. */
int tr_stack_raw(struct tr_target *t, pid_t pid, pid_t tid,
		 uint64_t time_ns, unsigned max,
		 const struct maptap_frame **out, enum maptap_unwind_end *end);

struct interp {
	struct tr_target *tgt;		/* never NULL during pass 5 */
	struct tr_session *s;
	struct tr_elab *el;
	struct maptap_script_ctx *ctx;
	struct maptap_script_limits lim;
	struct gslot *globals;
	struct slot *stack;		/* frames of locals */
	size_t stack_slots;
	size_t frame;			/* base of the current frame */
	size_t frame_size;
	struct maptap_script_buf **tmp;	/* temporaries, used as a stack;
					 * each buffer never moves */
	size_t ntmp, tmp_cap;
	struct maptap_script_buf out;	/* pending script output */
	FILE *outf;
	int out_fd;			/* OUTF's descriptor, or -1 (memory) */
	jmp_buf *recover;
	struct ptr_vec snaps;		/* live foreach snapshots */
	struct maptap_script_buf errmsg;
	const struct token *err_tok;
	int64_t actions;
	int depth;
	const struct tr_dprobe *cur;
	int64_t ret_l;
	struct maptap_script_buf ret_s;
	bool out_failed;		/* writing the output failed: drop it */
	bool out_tty;			/* the output is a terminal: no delay */
	bool exit_requested;
	bool aborted;
	bool in_end;
	long errors;
};

/* Set up globals, aggregates and frames for S's elaborated script.
 * Returns 0, or -1 after printing why. */
int tr_interp_init(struct interp *I, struct tr_session *s, FILE *out);
void tr_interp_fini(struct interp *I);

/* Run one probe handler: conditions, body, error reporting.  Returns
 * false when the handler ended in a runtime error. */
bool tr_interp_run_probe(struct interp *I, const struct tr_dprobe *dp);

/* The entry hit of the .return probe DP: its entry values (@entry, and
 * target variables other than $return) in a new frame, or NULL after
 * reporting a runtime error as a handler does (dwvars.h). */
struct tr_entry_frame *tr_interp_save_entry(struct interp *I,
					    const struct tr_dprobe *dp);

/* Run the whole script: init and begin probes, timers until exit() or a
 * signal, then end (or error) probes and the dump of unread globals.
 * Returns the exit status. */
int tr_interp_run(struct interp *I);

/* Write pending output. */
void tr_interp_flush(struct interp *I);
/* After each handler: write the output now to a terminal, else once 4 KiB
 * of it has gathered. */
void tr_interp_output(struct interp *I);

/* ---- for builtins.c ---- */
void __attribute__((noreturn, format(printf, 3, 4)))
tr_rt_error(struct interp *I, const struct token *tok, const char *fmt, ...);
void __attribute__((noreturn))
tr_rt_ctx_error(struct interp *I, const struct token *tok);
int64_t tr_eval_long(struct interp *I, struct node *n);
struct sref tr_eval_str(struct interp *I, struct node *n);
struct maptap_script_buf *tr_tmp_get(struct interp *I);

/* Call builtin N->builtin; the result is a long (*L) or a string (*S). */
void tr_builtin_call(struct interp *I, struct node *n, int64_t *l,
		     struct sref *s);

/* Hand S the descriptors of every built-in (builtins.c's, then the
 * groups'), which pass 2 resolves calls against: call it after
 * tr_session_init(), before tr_elaborate(). */
void tr_interp_builtins(struct tr_session *s);

/* A group of builtins in a file of its own.  Group G (1, 2, ...) in
 * builtins.c's list gives its functions ids from G * TR_BUILTIN_GROUP_BASE
 * on; SET is what pass 2 sees of them (elaborate.h), CALL runs one of
 * them (arguments through tr_eval_long/str, a string result in a
 * tr_tmp_get() buffer, *L for a long). */
#define TR_BUILTIN_GROUP_BASE 1000

struct tr_builtin_group {
	struct tr_builtin_set set;
	void (*call)(struct interp *I, struct node *n, int64_t *l,
		     struct sref *s);
};

extern const struct tr_builtin_group tr_builtins_proc;	/* id 1000.. */
extern const struct tr_builtin_group tr_builtins_ucontext;	/* 2000.. */
extern const struct tr_builtin_group tr_builtins_stack;	/* id 3000.. */
extern const struct tr_builtin_group tr_builtins_usymbols;	/* 4000.. */
extern const struct tr_builtin_group tr_builtins_uconversions; /* 5000.. */

#endif
