/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sdt_notes.c -- the SDT markers of an ELF file (.note.stapsdt) and
 * their argument descriptors (maptap/sdt.h).
 */
#include <config.h>

#include "elf_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <maptap/sdt.h>

#define NT_STAPSDT 3

/* x86-64 register names, by width, in the order of maptap_sdt_arg.reg
 * (rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp, r8..r15, rip). */
static const char *const reg64[] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};
static const char *const reg32[] = {
	"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp",
	"r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", "eip",
};
static const char *const reg16[] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "sp",
	"r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w", "ip",
};
static const char *const reg8[] = {
	"al", "bl", "cl", "dl", "sil", "dil", "bpl", "spl",
	"r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b", NULL,
};
static const char *const reg8h[] = { "ah", "bh", "ch", "dh" };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The register named at *P (after its '%'), up to a character that
 * cannot be in a name; *P moves past it.  Returns 0..16 or -1. */
static int parse_reg(const char **p, int *bits, int *shift)
{
	static const struct { const char *const *v; size_t n; int bits; }
	tabs[] = {
		{ reg64, N_OF(reg64), 64 }, { reg32, N_OF(reg32), 32 },
		{ reg16, N_OF(reg16), 16 }, { reg8, N_OF(reg8), 8 },
	};
	size_t len = strspn(*p, "abcdefghijklmnopqrstuvwxyz0123456789");
	size_t t, i;

	*shift = 0;
	for (t = 0; t < N_OF(tabs); t++)
		for (i = 0; i < tabs[t].n; i++)
			if (tabs[t].v[i] && strlen(tabs[t].v[i]) == len &&
			    !strncmp(tabs[t].v[i], *p, len)) {
				*bits = tabs[t].bits;
				*p += len;
				return (int)i;
			}
	for (i = 0; i < N_OF(reg8h); i++)
		if (len == 2 && !strncmp(reg8h[i], *p, 2)) {
			*bits = 8;
			*shift = 8;
			*p += len;
			return (int)i;
		}
	return -1;
}

static bool parse_num(const char **p, int64_t *v)
{
	char *end;

	errno = 0;
	if (**p == '-')
		*v = strtoll(*p, &end, 0);
	else
		*v = (int64_t)strtoull(*p, &end, 0);
	if (end == *p || errno)
		return false;
	*p = end;
	return true;
}

/* "(%base[,%index[,scale]])" at *P. */
static int parse_mem(const char **p, struct maptap_sdt_arg *a)
{
	int bits, shift;

	a->kind = MAPTAP_SDT_ARG_MEM;
	a->index = -1;
	a->scale = 1;
	if (**p != '(')
		return 0;	/* an absolute address */
	(*p)++;
	if (**p == '%') {
		(*p)++;
		a->reg = parse_reg(p, &bits, &shift);
		if (a->reg < 0 || bits < 32)
			return -EINVAL;
	}
	if (**p == ',') {
		int64_t sc = 1;

		(*p)++;
		if (**p == '%') {
			(*p)++;
			a->index = parse_reg(p, &bits, &shift);
			if (a->index < 0 || bits < 32)
				return -EINVAL;
		}
		if (**p == ',') {
			(*p)++;
			if (!parse_num(p, &sc) || (sc != 1 && sc != 2 &&
						   sc != 4 && sc != 8))
				return -EINVAL;
		}
		a->scale = (int)sc;
	}
	if (**p != ')')
		return -EINVAL;
	(*p)++;
	return 0;
}

/* TEXT (one descriptor, up to a space or the end) into *A.  SYM, when
 * not NULL, resolves a symbol name (LEN bytes) to its ELF address;
 * returns false when unknown. */
static int parse_arg(const char *text, struct maptap_sdt_arg *a,
		     bool (*sym)(void *ctx, const char *name, size_t len,
				 uint64_t *vaddr),
		     void *ctx)
{
	const char *p = text, *at = NULL;
	int64_t size = 8;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->reg = a->index = -1;
	a->scale = 1;
	/* SIZE@: digits with an optional '-' right before '@' */
	for (i = 0; text[i] && text[i] != ' '; i++)
		if (text[i] == '@') {
			at = text + i;
			break;
		}
	if (at) {
		if (!parse_num(&p, &size) || p != at)
			return -EINVAL;
		p = at + 1;
	}
	a->is_signed = size < 0;
	a->size = (int)(size < 0 ? -size : size);
	if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8)
		return -EINVAL;
	if (*p == '%') {
		p++;
		a->kind = MAPTAP_SDT_ARG_REG;
		a->reg = parse_reg(&p, &a->reg_bits, &a->reg_shift);
		if (a->reg < 0 || a->reg == 16)
			return -EINVAL;
	} else if (*p == '$') {
		p++;
		a->kind = MAPTAP_SDT_ARG_IMM;
		if (!parse_num(&p, &a->disp))
			return -EINVAL;
	} else if (*p == '(' || *p == '-' || (*p >= '0' && *p <= '9')) {
		if (*p != '(' && !parse_num(&p, &a->disp))
			return -EINVAL;
		if (parse_mem(&p, a))
			return -EINVAL;
	} else {
		/* SYMBOL[+-N](%rip) or SYMBOL[+-N]: the symbol's address */
		size_t len = strcspn(p, "+-( ");
		uint64_t vaddr;
		int64_t off = 0;

		if (!len || !sym || !sym(ctx, p, len, &vaddr))
			return -EINVAL;
		p += len;
		if ((*p == '+' || *p == '-') && !parse_num(&p, &off))
			return -EINVAL;
		if (parse_mem(&p, a))
			return -EINVAL;
		if (a->reg >= 0 && a->reg != 16)
			return -EINVAL;	/* SYMBOL(%reg): no address */
		a->reg = -1;
		a->disp = (int64_t)vaddr + off;
		a->rel_bias = true;
	}
	if (*p && *p != ' ')
		return -EINVAL;
	return 0;
}

int maptap_sdt_parse_arg(const char *text, struct maptap_sdt_arg *out)
{
	return parse_arg(text, out, NULL, NULL);
}

/* ---- the notes ---- */

struct symtab {
	Elf *elf;
};

/* NAME (LEN bytes) in ELF's .symtab, else .dynsym: a defined symbol. */
static bool sym_lookup(void *ctx, const char *name, size_t len,
		       uint64_t *vaddr)
{
	static const unsigned types[] = { SHT_SYMTAB, SHT_DYNSYM };
	struct symtab *st = ctx;
	unsigned k;

	for (k = 0; k < 2; k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(st->elf, scn))) {
			Elf_Data *d;
			GElf_Shdr sh;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != types[k] ||
			    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 1; i < n; i++) {
				GElf_Sym s;
				const char *nm;

				if (!gelf_getsym(d, (int)i, &s) ||
				    s.st_shndx == SHN_UNDEF)
					continue;
				nm = elf_strptr(st->elf, sh.sh_link, s.st_name);
				if (nm && strlen(nm) == len &&
				    !strncmp(nm, name, len)) {
					*vaddr = s.st_value;
					return true;
				}
			}
		}
	}
	return false;
}

/* The descriptors of N->args into N->arg[]. */
static void parse_args(struct maptap_sdt_note *n, Elf *elf)
{
	struct symtab st = { elf };
	const char *p = n->args;

	n->nargs = 0;
	n->bad = 0;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (n->nargs == MAPTAP_SDT_MAX_ARGS)
			break;
		if (parse_arg(p, &n->arg[n->nargs], sym_lookup, &st))
			n->bad |= 1u << n->nargs;
		n->nargs++;
		p += strcspn(p, " ");
	}
}

/* One note's descriptor DESC (SIZE bytes) into *N; false when it is
 * not a well-formed version 3 note of a 64-bit file. */
static bool read_note(const char *desc, size_t size,
		      struct maptap_sdt_note *n)
{
	const char *end = desc + size, *s;
	uint64_t a[3];

	if (size < sizeof(a) + 3)
		return false;
	memcpy(a, desc, sizeof(a));
	s = desc + sizeof(a);
	n->provider = s;
	s = memchr(s, '\0', (size_t)(end - s));
	if (!s++ || s >= end)
		return false;
	n->name = s;
	s = memchr(s, '\0', (size_t)(end - s));
	if (!s++ || s >= end)
		return false;
	n->args = s;
	if (!memchr(s, '\0', (size_t)(end - s)))
		return false;
	n->pc = a[0];
	n->semaphore = a[2];
	/* a[1] is .stapsdt.base where the link put it: the caller moves
	 * PC and SEMAPHORE by how far the section moved since. */
	n->bad = 0;
	return true;
}

int maptap_sdt_notes(const char *path, const char *provider_glob,
		     const char *name_glob,
		     int (*fn)(const struct maptap_sdt_note *note, void *arg),
		     void *arg)
{
	struct maptap_sdt_note *n;
	Elf_Scn *scn = NULL, *base_scn;
	GElf_Shdr base_sh;
	int fd, rc = 0, calls = 0;
	Elf *elf;

	rc = mt_elf_open(path, &elf, &fd);
	if (rc)
		return rc;
	n = malloc(sizeof(*n));
	if (!n) {
		mt_elf_close(elf, fd);
		return -ENOMEM;
	}
	base_scn = mt_elf_scn_by_name(elf, ".stapsdt.base", &base_sh);
	while (!rc && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while (!rc && (off = gelf_getnote(d, off, &nh, &noff,
						  &doff)) > 0) {
			const char *owner = (const char *)d->d_buf + noff;
			uint64_t base;

			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp(owner, "stapsdt", 8) ||
			    !read_note((const char *)d->d_buf + doff,
				       nh.n_descsz, n))
				continue;
			memcpy(&base, (const char *)d->d_buf + doff + 8, 8);
			if (base_scn && base) {
				n->pc += base_sh.sh_addr - base;
				if (n->semaphore)
					n->semaphore += base_sh.sh_addr - base;
			}
			if ((provider_glob &&
			     fnmatch(provider_glob, n->provider, 0)) ||
			    fnmatch(name_glob, n->name, 0))
				continue;
			parse_args(n, elf);
			calls++;
			rc = fn(n, arg);
		}
	}
	free(n);
	mt_elf_close(elf, fd);
	return rc ? rc : calls;
}
