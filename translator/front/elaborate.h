/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elaborate.h -- pass 2: probe-point resolution, symbol resolution, type
 * inference; and what pass 3 adds (slots, compiled formats).
 */
#ifndef TR_ELABORATE_H
#define TR_ELABORATE_H

#include <maptap/session.h>

#include "ast.h"

enum probe_kind {
	PK_INIT,	/* before begin */
	PK_BEGIN,
	PK_END,
	PK_ERROR,
	PK_NEVER,
	PK_TIMER,
	PK_PROCESS,	/* process[(..)].begin/end/thread.begin/thread.end */
	PK_SYSCALL,	/* process.syscall[.return], maptap.syscall(..) */
	PK_EVENT,	/* maptap.vma.*, maptap.module.*, maptap.process.*,
			 * maptap.event */
	PK_PERF,	/* timer.profile[.tick], perf.sw.*, perf.hw.*,
			 * perf.type(T).config(C): samples of the traced
			 * threads (profile.h) */
	PK_UPROBE,	/* process(..).function(..)[.return], .statement(..):
			 * a breakpoint (maptap/uprobe.h) */
};

/* Which lifetime point a PK_PROCESS probe is (docs/probes.md). */
enum tr_proc_point {
	TR_PROC_BEGIN,
	TR_PROC_END,
	TR_THREAD_BEGIN,
	TR_THREAD_END,
};

/* Bits of tr_dprobe.events: 1 << enum maptap_event_kind, and these two
 * for the module layer's events. */
#define TR_EV_MODULE_LOAD (1u << MAPTAP_EV_KIND_COUNT)
#define TR_EV_MODULE_UNLOAD (1u << (MAPTAP_EV_KIND_COUNT + 1))
#define TR_EV_ALL ((1u << (MAPTAP_EV_KIND_COUNT + 2)) - 1)

struct tr_sdt;

/* One probe handler after elaboration: a concrete probe point with the
 * alias prologues/epilogues folded into its own copy of the body. */
struct tr_dprobe {
	enum probe_kind kind;
	int64_t priority;		/* begin(N) / end(N) / error(N) */
	int64_t interval_ns;		/* timers */
	int64_t randomize_ns;		/* timer...randomize(N) */
	bool oneshot;			/* exit() after the handler */
	const char *name;		/* "timer.ms(100)": what pp() says */
	const char *origin;		/* the script's probe point (alias) */
	const char *alias;		/* the outermost alias it came from,
					 * by its own name ("syscall.mmap2"
					 * for "syscall.mm*"); NULL: none */
	struct node *cond;		/* probe point conditions, or NULL */
	struct node *body;
	struct node *prologue, *epilogue;	/* from aliases, pass 2 only */
	struct ptr_vec locals;		/* struct tr_sym * */
	const struct token *tok;
	int order;			/* source order */
	/* Probes on traced processes (PK_PROCESS, PK_SYSCALL, PK_EVENT) */
	enum tr_proc_point proc_point;
	const char *proc_path;		/* process("PATH"), resolved; NULL */
	int64_t proc_pid;		/* process(PID); 0: any */
	bool is_return;			/* .return of a syscall probe */
	bool all_syscalls;		/* every call, known or not */
	uint64_t syscalls[MAPTAP_SYSCALL_SET_WORDS];	/* else these */
	uint32_t events;		/* PK_EVENT: TR_EV_* and kind bits */
	/* PK_PERF: perf_event_attr.type and .config, and one sample every
	 * PERF_PERIOD events or PERF_FREQ samples per second (one is 0) */
	uint32_t perf_type;
	uint64_t perf_config;
	uint64_t perf_period, perf_freq;
	/* PK_UPROBE: the breakpoint at UP_VADDR (an ELF vaddr of the file
	 * UP_MODULE, plus its load bias), or at the absolute address
	 * UP_VADDR when UP_ABS; IS_RETURN for .return. */
	const char *up_module;		/* realpath */
	uint64_t up_ino;		/* its inode */
	uint64_t up_vaddr;
	bool up_abs;
	const char *up_func;		/* probefunc(): the symbol, or "" */
	bool up_plt;			/* a PLT entry: $$name is UP_FUNC */
	const struct maptap_uprobe_ifunc *up_ifunc;	/* UP_VADDR is this
					 * IFUNC's resolver: the probe goes
					 * on its choice; NULL */
	/* .return: the nodes read at the entry (@entry(X), and target
	 * variables other than $return; dwvar_bind.h, interp/dwvars.h),
	 * slot = index; slot 0 is the CFA, which matches the entry to its
	 * return.  They are read at UP_BODY (the address past the
	 * prologue, as stap's entry probe; UP_VADDR when DWARF did not
	 * say). */
	struct ptr_vec up_entry;
	uint64_t up_body;
	/* Entry probes reading a DW_OP_entry_value away from the entry
	 * (optimised code): the registers at UP_FENTRY, the function's
	 * entry, are saved by a hidden breakpoint there and found again
	 * by the CFA UP_CFA (a struct maptap_tvar * of the CFA at
	 * UP_VADDR) computes at the hit (dwvars.h, target.c). */
	bool up_entry_regs;
	uint64_t up_fentry;
	void *up_cfa;
	const struct tr_sdt *sdt;	/* an SDT marker (sdt_points.h) */
};

/* True for the probe kinds that need a traced process (-c / -x). */
static inline bool tr_probe_needs_target(enum probe_kind k)
{
	return k == PK_PROCESS || k == PK_SYSCALL || k == PK_EVENT ||
	       k == PK_PERF || k == PK_UPROBE;
}

/* A built-in function implemented in C, as pass 2 sees it: its name,
 * arity and types, and the id pass 5 calls it by.  The interpreter owns
 * the code (interp/builtins*.c). */
struct tr_builtin {
	const char *name;
	int min_args, max_args;
	enum tr_type args[4];		/* TY_UNKNOWN: any */
	enum tr_type ret;		/* TY_UNKNOWN: no value */
	int id;
};

/* A set of built-ins: their descriptors, and which of them read the
 * thread stopped at the event.  The interpreter has one per file of
 * built-ins and hands them to the front end through tr_session.builtins
 * (tr_interp_builtins()), so pass 2 checks calls against descriptors
 * and never calls the interpreter. */
struct tr_builtin_set {
	const struct tr_builtin *table;
	size_t n;
	bool (*at_stop)(int id);	/* tr_builtin_at_stop(); NULL: none */
};

struct tr_elab {
	struct ptr_vec globals;		/* struct tr_sym *, slot = index */
	struct ptr_vec functions;	/* struct tr_func *, used ones */
	struct ptr_vec probes;		/* struct tr_dprobe * */
	int max_locals;
	/* A built-in that reads the stopped thread (its registers, stack
	 * or memory: tr_builtin_at_stop()) is called somewhere: its
	 * events must come at each call's own stop (issue 16). */
	bool at_stop;
};

/* Pass 2 (and the checks of pass 3).  Parses the tapsets the script
 * needs.  Returns 0, or -1 after printing semantic errors. */
int tr_elaborate(struct tr_session *s, struct tr_file *script);

/* Read the macro libraries (*.stpm) of the tapset directories; call
 * before parsing the script so it can use their macros. */
void tr_load_macro_libs(struct tr_session *s);

/* Print the elaborated script as -p2 shows it. */
void tr_dump_elab(struct tr_session *s, FILE *out);

/* Print what pass 3 made: the slot of every global and local, the
 * compiled formats and the aggregates' histogram shapes (-p3). */
void tr_dump_slots(struct tr_session *s, FILE *out);

/* builtin_sets.c: the descriptor of built-in NAME among the sets S was
 * handed (tr_session.builtins), the first set's first; NULL when none
 * has it. */
const struct tr_builtin *tr_builtin_find(const struct tr_session *s,
					 const char *name);
/* Whether built-in B (a tr_builtin_find() result) reads the thread
 * stopped at the event (its registers, its stack, or memory through
 * it): its value at a later stop would not be the event's. */
bool tr_builtin_at_stop(const struct tr_session *s,
			const struct tr_builtin *b);

#endif
