/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tvar_priv.h -- what tvar.c (finding and compiling target variables)
 * and tvar_eval.c (reading them at a stop) share; not installed. */
#ifndef MT_TVAR_PRIV_H
#define MT_TVAR_PRIV_H

#include <elfutils/libdw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <maptap/tvar.h>

struct maptap_tvar_module {
	Dwarf *dw;
	int fd, dfd, efd;
	Elf *elf;			/* the file itself, for .eh_frame */
	Dwarf_CFI *cfi_dw, *cfi_elf;
	char *path;
	int refs;
};

/* The location of one variable at one address. */
struct vloc {
	const Dwarf_Op *ops;		/* NULL: DW_AT_const_value */
	size_t n;
	int64_t cval;
	const Dwarf_Op *fb;		/* frame base, or NULL */
	size_t nfb;
	const Dwarf_Op *cfa;		/* CFA rule at the address, or NULL */
	size_t ncfa;
	Dwarf_Frame *frame;		/* owns CFA */
	int *entry_reg;			/* per op: DW_OP_entry_value(regN) */
	bool at_entry;			/* the address is the function's entry */
	bool entry_regs;		/* entry values from the frame's
					 * ENTRY_REGS (away from the entry) */
	bool missing;			/* no location here ($$parms: "?") */
};

enum step_kind { ST_ADD, ST_DEREF, ST_INDEX };

struct step {
	enum step_kind kind;
	int64_t k;			/* ADD: offset; INDEX: stride */
};

enum base_kind { B_VAR, B_CAST, B_LIST };

enum out_kind { O_LONG, O_ADDR, O_STRING };

struct maptap_tvar {
	struct maptap_tvar_module *m;
	enum base_kind base;
	struct vloc loc;
	struct step *steps;
	size_t nsteps;
	Dwarf_Die type;			/* of the result (unpeeled) */
	bool has_type;
	int size;			/* O_LONG: bytes to read */
	bool is_signed;
	int bit_size, bit_off;		/* a bit-field (bit_off from bit 0) */
	enum out_kind out;
	unsigned flags;
	/* B_LIST: $$parms and friends */
	struct maptap_tvar **items;
	const char **names;
	size_t nitems;
};

/* A growing string (messages, type names, pretty printing). */
struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

void mt_sb_vadd(struct sbuf *b, const char *fmt, va_list ap);
void mt_sb_add(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *mt_sb_str(struct sbuf *b);

/* Type helpers (tvar.c): DIE's DW_AT_type into *TYPE; T without its
 * typedefs and qualifiers; struct/union/class tags; a type's size in
 * bytes (-1 unknown). */
bool mt_tvar_type_of(Dwarf_Die *die, Dwarf_Die *type);
bool mt_tvar_peel(Dwarf_Die *t, Dwarf_Die *out);
bool mt_tvar_is_aggregate(int tag);
int64_t mt_tvar_type_size(Dwarf_Die *t);

/* A bit-field MEMBER: its width and its first bit counted from bit 0
 * of the member's byte offset (DW_AT_data_member_location, 0 when
 * absent); false for an ordinary member. */
bool mt_tvar_bitfield(Dwarf_Die *member, int *bit_size, int *bit_off);

/* Free what a vloc owns (tvar_eval.c). */
void mt_tvar_vloc_fini(struct vloc *vl);

#endif
