/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/sdt.h -- statically defined tracing markers (<sys/sdt.h>) of
 * ELF files: the notes that describe them, their arguments, and the
 * semaphores that switch guarded ones on.
 *
 * A program built with <sys/sdt.h> (systemtap-sdt-dev) has, for each
 * STAP_PROBE / DTRACE_PROBE marker, a `nop` at the marker's place and
 * one ELF note in section .note.stapsdt (owner "stapsdt", type 3 in the
 * note format version 3 that sys/sdt.h writes): three addresses (the
 * nop, the link-time address of section .stapsdt.base, the marker's
 * semaphore or 0), then three NUL-terminated strings: provider, name,
 * and the arguments as the assembler saw them, one `SIZE@OPERAND` each,
 * separated by spaces ("-4@%edi 8@-16(%rbp) 8@$5").  When a tool such as
 * prelink moved the file, .stapsdt.base's address differs from the one
 * in the note, and the nop and the semaphore moved by the difference
 * (sys/sdt.h's rule; this reader applies it).
 *
 * A marker with a semaphore (built with _SDT_HAS_SEMAPHORES, as
 * python3's are) runs its argument set-up only while the 16-bit counter
 * at the semaphore's address, in section .probes, is not zero; a tracer
 * adds one while it has a probe on the marker and takes it off when it
 * goes (maptap_uprobe_semaphore()).
 *
 * Thread-safety: the functions that read files are reentrant; the
 * semaphore ones are the session's (maptap/session.h: its thread only).
 * x86-64 operands only.
 */
#ifndef MAPTAP_SDT_H
#define MAPTAP_SDT_H

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

/* Most arguments a marker has (sys/sdt.h goes to 12). */
#define MAPTAP_SDT_MAX_ARGS 12

/* Where an argument's value is. */
enum maptap_sdt_arg_kind {
	MAPTAP_SDT_ARG_REG,	/* a register: %rdi, %edi, %al, %ah ... */
	MAPTAP_SDT_ARG_MEM,	/* memory: DISP(%BASE[,%INDEX[,SCALE]]),
				 * SYMBOL[+-N](%rip), or an absolute DISP */
	MAPTAP_SDT_ARG_IMM,	/* a constant: $5, $-1 */
};

/* One parsed argument descriptor. */
struct maptap_sdt_arg {
	enum maptap_sdt_arg_kind kind;
	int size;		/* bytes read and kept: 1, 2, 4 or 8 (a
				 * descriptor without SIZE@ is taken as 8) */
	bool is_signed;		/* SIZE was negative: sign-extended */
	int reg;		/* REG: the register, MEM: the base register;
				 * index into rax, rbx, rcx, rdx, rsi, rdi, rbp,
				 * rsp, r8..r15, rip (0..16); -1: none */
	int reg_bits;		/* REG: its width, 8, 16, 32 or 64 */
	int reg_shift;		/* REG: 8 for %ah %bh %ch %dh; else 0 */
	int index;		/* MEM: the index register (as REG), or -1 */
	int scale;		/* MEM: 1, 2, 4 or 8 */
	int64_t disp;		/* MEM: displacement; IMM: the value */
	bool rel_bias;		/* MEM: DISP is an ELF address of the file
				 * (a SYMBOL(%rip) operand, resolved from the
				 * file's symbol table): add the load bias */
};

/* One marker, valid during the callback only. */
struct maptap_sdt_note {
	const char *provider;
	const char *name;
	uint64_t pc;		/* the nop: ELF vaddr, prelink-adjusted */
	uint64_t semaphore;	/* its semaphore's ELF vaddr, or 0 */
	const char *args;	/* the descriptor text as written */
	int nargs;		/* descriptors in ARGS */
	struct maptap_sdt_arg arg[MAPTAP_SDT_MAX_ARGS];
	uint32_t bad;		/* bit N-1 set: descriptor N could not
				 * be parsed (an operand this reader does
				 * not know: %xmm0, an unknown symbol) */
};

/* Calls FN(NOTE, ARG) for every marker of the ELF file PATH whose
 * provider matches the fnmatch(3) pattern PROVIDER_GLOB (NULL: any) and
 * whose name matches NAME_GLOB, in the order of the notes.  A non-zero
 * return of FN stops the walk and is returned.  Returns the number of
 * calls made (>= 0), or -errno: -ENOENT/-EACCES opening PATH, -EINVAL
 * when it is not ELF, -ENOMEM.  A file without markers gives 0. */
int maptap_sdt_notes(const char *path, const char *provider_glob,
		     const char *name_glob,
		     int (*fn)(const struct maptap_sdt_note *note, void *arg),
		     void *arg);

/* Parse one argument descriptor TEXT ("-4@%edi") into *OUT.  SYMBOL
 * operands cannot be resolved without the file: they give -EINVAL here
 * (maptap_sdt_notes() resolves them).  Returns 0 or -EINVAL. */
int maptap_sdt_parse_arg(const char *text, struct maptap_sdt_arg *out);

/* The value of argument A at a stop of thread TID (of process PID) whose
 * registers are REGS, in a module loaded at BIAS (bytes, added to
 * REL_BIAS addresses): the register, constant or PID's memory (through
 * maptap_read_user()), cut to A->size bytes and sign- or zero-extended.
 * Returns 0 with *VALUE, or -EFAULT when the memory cannot be read. */
int maptap_sdt_arg_value(const struct maptap_sdt_arg *a, pid_t pid,
			 const struct user_regs_struct *regs, uint64_t bias,
			 int64_t *value);

/* Count one tracer's use of the semaphore at ADDR (absolute, bytes: the
 * ELF vaddr plus the load bias) in traced process PID: the 16-bit value
 * there is incremented once, and the session remembers it and
 * decrements it again when it lets the process go (detach, or the
 * let-go of maptap/uprobe.h), so the target is left as it was.  Calling
 * again for the same address of the same address space adds nothing
 * (idempotent) until maptap_uprobe_forget() forgets the range holding it
 * -- call that first when the page was mapped afresh (a MAP_FIXED
 * mapping of the file's data segment) -- or an exec drops the table.
 * A fork's child inherits the count with the memory.  Returns 1 when
 * incremented now, 0 when already counted, -ESRCH when PID is not
 * traced, -EFAULT when ADDR cannot be read or written, -ENOMEM. */
int maptap_uprobe_semaphore(struct maptap_session *s, pid_t pid,
			    uint64_t addr);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
