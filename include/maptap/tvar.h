/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/tvar.h -- target variables: the probed program's parameters,
 * locals and types read from its DWARF at a breakpoint (maptap/uprobe.h).
 *
 * The work is split as stap splits it: maptap_tvar_compile() finds the
 * variable in the scopes at the probe's address (dwarf_getscopes(),
 * dwarf_getscopevar()), picks its location expression for that address
 * (dwarf_getlocation_addr(): location lists), the frame base
 * (DW_AT_frame_base) and the CFA rule of the address (the module's CFI,
 * .debug_frame or .eh_frame) and walks the member / index chain through
 * the types, once, at pass 2.  A hit then only runs the location
 * expressions against the stopped thread's registers and reads the
 * target's memory (maptap_read_user(), maptap/session.h): no DWARF is
 * searched per hit.
 *
 * DWARF expressions are evaluated by maptap itself (libdw only decodes
 * them): DW_OP_addr (plus the load bias), literals and constants,
 * stack and arithmetic operators, DW_OP_deref[_size], DW_OP_reg*,
 * DW_OP_regx, DW_OP_breg*, DW_OP_bregx, DW_OP_fbreg, DW_OP_call_frame_cfa,
 * DW_OP_stack_value, DW_OP_implicit_value, DW_OP_piece, and
 * DW_OP_entry_value / DW_OP_GNU_entry_value of a register when the
 * probe address is the function's entry (where the register still holds
 * it), or elsewhere with MAPTAP_TVAR_ENTRY_REGS from registers the
 * caller saved at that entry; else an entry value is "not accessible",
 * as a variable with no location at the address is.  x86-64 general
 * registers only.
 *
 * Threads: a module handle and its compiled variables are used by one
 * thread at a time.  Memory: maptap_tvar_free(), maptap_tvar_module_put().
 */
#ifndef MAPTAP_TVAR_H
#define MAPTAP_TVAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

struct user_regs_struct;	/* <sys/user.h> */

/* The DWARF of one ELF file, opened for target variables. */
struct maptap_tvar_module;

/* Open the DWARF of the ELF file PATH (its own .debug_info, else the
 * separate debug file named by its build-id, as
 * maptap_uprobe_dwarf_functions() finds it) and its CFI.  Returns 0
 * with *OUT (give it to maptap_tvar_module_put()), -ENODATA when PATH
 * has no DWARF, -ENOMEM, or -errno opening PATH. */
int maptap_tvar_module_open(const char *path,
			    struct maptap_tvar_module **out);

/* Drop the caller's reference to M (NULL: nothing).  Compiled variables
 * hold references of their own: M is closed with the last. */
void maptap_tvar_module_put(struct maptap_tvar_module *m);

/* One step of a target expression after its base. */
enum maptap_tvar_op_kind {
	MAPTAP_TVAR_MEMBER,	/* ->NAME (of a struct/union, or of a
				 * pointer to one: stap's -> is both) */
	MAPTAP_TVAR_INDEX,	/* [i] of an array or a pointer; i is given
				 * at each read, in order of the INDEX ops */
};

struct maptap_tvar_op {
	enum maptap_tvar_op_kind kind;
	const char *member;	/* MEMBER: the name */
};

/* maptap_tvar_compile() FLAGS */
#define MAPTAP_TVAR_ADDR	1u	/* &EXPR: its address, a long */
#define MAPTAP_TVAR_PRETTY	2u	/* EXPR$: a string, one level */
#define MAPTAP_TVAR_DEEP	4u	/* EXPR$$: a string, nested too */
#define MAPTAP_TVAR_ENTRY_REGS	8u	/* the reads will give the registers
					 * of the function's entry
					 * (maptap_tvar_frame.entry_regs): a
					 * DW_OP_entry_value of a register
					 * away from the entry is readable */

/* A target expression compiled for one probe address. */
struct maptap_tvar;

/* Compile NAME at the ELF address PC of M: "$x" (a parameter or local in
 * scope at PC), "$return" (the value of the function whose entry is PC,
 * in rax: read it at the return), "$$parms", "$$locals", "$$vars",
 * "$$return" (strings: "a=0x1 b=0x2" as stap prints them, pretty with
 * MAPTAP_TVAR_PRETTY / _DEEP), followed by the NOPS steps OPS and FLAGS.
 * Returns 0 with *OUT; or -1 with *ERR, a malloc'd message in stap's
 * words ("unable to find local 'x', [man error::dwarf] dieoffset ... 
 * (alternatives: a b)", "not accessible at this address (pc: 0x...)
 * [man error::dwarf]", "unable to find member 'f' for struct s
 * (alternatives: ...)") for the caller to print and free.  The result
 * is a long (integers, enums, pointers, arrays as their address) or a
 * string (maptap_tvar_is_string()). */
int maptap_tvar_compile(struct maptap_tvar_module *m, uint64_t pc,
			const char *name, const struct maptap_tvar_op *ops,
			size_t nops, unsigned flags, struct maptap_tvar **out,
			char **err);

/* Compile @cast(ADDR, TYPE)OPS: TYPE ("struct foo", "union u", "enum e",
 * a typedef or base type name; a pointer type "T *" is refused: cast to
 * T) looked up among the top-level types of every compile unit of M
 * (declarations without a body skipped); the address is given at each
 * read.  Returns and reports as maptap_tvar_compile() ("type definition
 * 'struct foo' not found in '/path'"). */
int maptap_tvar_compile_cast(struct maptap_tvar_module *m, const char *type,
			     const struct maptap_tvar_op *ops, size_t nops,
			     unsigned flags, struct maptap_tvar **out,
			     char **err);

/* Compile the canonical frame address at PC (the CFI's CFA rule: the
 * caller's rsp before its call, so equal to rsp after the return) as a
 * long.  Returns as maptap_tvar_compile() ("no call frame information
 * at pc 0x..."). */
int maptap_tvar_compile_cfa(struct maptap_tvar_module *m, uint64_t pc,
			    struct maptap_tvar **out, char **err);

/* Where an entry probe of the function at ENTRY (ELF addresses of M)
 * best reads its parameters: BODY (past the prologue, where -O0 code
 * has stored them) when each has a location there that needs no entry
 * value, else ENTRY itself (optimised code, where they are still in
 * their argument registers).  For .return probes' entry values. */
uint64_t maptap_tvar_entry_pc(struct maptap_tvar_module *m, uint64_t entry,
			      uint64_t body);

/* True when M's DWARF describes a function at the ELF address PC (a
 * compile unit and a subprogram or inlined instance cover it), and, with
 * FUNC, when the innermost one is named FUNC: false for code DWARF
 * leaves out (assembly), whose probes have only registers, and for an
 * inlined instance left without code of its own (an empty range). */
bool maptap_tvar_covers(struct maptap_tvar_module *m, uint64_t pc,
			const char *func);

/* True when V (compiled with MAPTAP_TVAR_ENTRY_REGS) reads a register
 * of the function's entry away from the entry: its reads need
 * maptap_tvar_frame.entry_regs. */
bool maptap_tvar_needs_entry_regs(const struct maptap_tvar *v);

/* The entry (ELF address) of the function -- the subprogram, not an
 * inlined instance -- whose code holds PC in M, or 0. */
uint64_t maptap_tvar_func_entry(struct maptap_tvar_module *m, uint64_t pc);

/* True when V reads as a string. */
bool maptap_tvar_is_string(const struct maptap_tvar *v);

/* Free V (NULL: nothing); its module reference goes with it.  An item
 * of a $$parms string with no location at the address prints as "?". */
void maptap_tvar_free(struct maptap_tvar *v);

/* A window of target memory kept for the reads of one stop: the
 * variables of a frame sit side by side, so one process_vm_readv(2)
 * serves most of them.  Zero LEN at each new stop (the memory may have
 * changed since); owned by the caller. */
#define MAPTAP_TVAR_CACHE_BYTES 512
struct maptap_tvar_cache {
	uint64_t addr;
	size_t len;			/* 0: empty */
	unsigned char buf[MAPTAP_TVAR_CACHE_BYTES];
};

/* What a read needs: the stopped thread's registers, its process, the
 * load bias of the module, the values of the INDEX steps and the @cast
 * address, optionally a cache of the stop's memory, and the reader of
 * target memory: READ(PID, ADDR, BUF, LEN) returns the bytes read
 * (short at an unmapped page) or -errno, as maptap_read_user() of
 * maptap/session.h does (pass it); NULL: process_vm_readv(2) alone. */
struct maptap_tvar_frame {
	pid_t pid;
	const struct user_regs_struct *regs;
	uint64_t bias;
	const int64_t *index;		/* one per MAPTAP_TVAR_INDEX op */
	uint64_t cast_addr;
	struct maptap_tvar_cache *cache;	/* NULL: none */
	ssize_t (*read)(pid_t pid, uint64_t addr, void *buf, size_t len);
	/* the thread's registers at the entry of this call of the
	 * function (MAPTAP_TVAR_ENTRY_REGS); NULL: not known */
	const struct user_regs_struct *entry_regs;
};

/* Read the long V.  Returns 0 with *OUT, -EFAULT when target memory on
 * the way cannot be read, -ENOENT when a location is not available (an
 * entry value, an empty piece), -EINVAL when V is a string. */
int maptap_tvar_read_long(const struct maptap_tvar *v,
			  const struct maptap_tvar_frame *f, int64_t *out);

/* Write the string V (or a long V as stap's $$parms would print it)
 * into BUF of SIZE bytes, NUL-terminated and truncated to fit.  Returns
 * its length (before truncation, as snprintf(3)), or -errno as
 * maptap_tvar_read_long() when its base cannot be read. */
int maptap_tvar_read_string(const struct maptap_tvar *v,
			    const struct maptap_tvar_frame *f, char *buf,
			    size_t size);

/* Calls FN(NAME, TYPE, ARG) for each variable in scope at the ELF address
 * PC of the file PATH, as stap -L lists them: the parameters of the
 * function (in order), then its locals in scope at PC, innermost block
 * first; TYPE as stap names it ("int", "char const*", "struct foo*",
 * "size_t", "char[16]").  With AT_RETURN, "return" and the function's
 * return type come first (a .return probe's $return) when it has one.
 * NAME is without the '$'.  A non-zero return of FN stops the walk and
 * is returned.  Returns the number of calls, or -errno: -ENODATA when
 * PATH has no DWARF or no compile unit covers PC.  This is the -L
 * listing's source (stap -L 'process("P").function("F")'). */
int maptap_tvar_list(const char *path, uint64_t pc, bool at_return,
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
