/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uprobe_syms.c -- the functions of an ELF file by name, for placing
 * breakpoints (maptap_uprobe_functions() in maptap/uprobe.h).
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

#include <maptap/uprobe.h>

struct seen {
	uint64_t *v;
	size_t n, cap;
};

static bool seen_add(struct seen *s, uint64_t a)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == a)
			return false;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		uint64_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return false;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = a;
	return true;
}

/* The symbols of section SCN (SHT_SYMTAB or SHT_DYNSYM). */
static int walk(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		const char *glob, struct seen *seen, int *calls,
		int (*fn)(const char *, uint64_t, uint64_t, void *),
		void *arg)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;

	if (!d || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int rc, type;

		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || fnmatch(glob, name, 0) != 0)
			continue;
		if (!seen_add(seen, sym.st_value))
			continue;
		(*calls)++;
		rc = fn(name, sym.st_value, sym.st_size, arg);
		if (rc)
			return rc;
	}
	return 0;
}

int maptap_uprobe_functions(const char *path, const char *glob,
			    int (*fn)(const char *name, uint64_t vaddr,
				      uint64_t size, void *arg),
			    void *arg)
{
	static const unsigned types[] = { SHT_SYMTAB, SHT_DYNSYM };
	struct seen seen = { 0 };
	int fd, rc = 0, calls = 0;
	unsigned k;
	Elf *elf;

	rc = mt_elf_open(path, &elf, &fd);
	if (rc)
		return rc;
	for (k = 0; k < 2 && !rc; k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn)) && !rc) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == types[k])
				rc = walk(elf, scn, &sh, glob, &seen, &calls,
					  fn, arg);
		}
	}
	free(seen.v);
	mt_elf_close(elf, fd);
	return rc ? rc : calls;
}

/* ---- PLT entries ---- */

/* The symbol whose R_X86_64_JUMP_SLOT relocation is at GOT, or NULL. */
static const char *slot_name(Elf *elf, Elf_Scn *rela, const GElf_Shdr *rsh,
			     uint64_t got)
{
	Elf_Data *d = elf_getdata(rela, NULL);
	Elf_Scn *symscn = elf_getscn(elf, rsh->sh_link);
	Elf_Data *sd = symscn ? elf_getdata(symscn, NULL) : NULL;
	GElf_Shdr ssh;
	size_t i, n;

	if (!d || !sd || !rsh->sh_entsize || !gelf_getshdr(symscn, &ssh))
		return NULL;
	n = rsh->sh_size / rsh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;

		if (!gelf_getrela(d, (int)i, &r) || r.r_offset != got ||
		    GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT)
			continue;
		if (!gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
			return NULL;
		return elf_strptr(elf, ssh.sh_link, sym.st_name);
	}
	return NULL;
}

/* Each 16-byte PLT entry jumps through its GOT slot: "jmp *disp(%rip)"
 * (ff 25), after an endbr64 and a bnd prefix in IBT PLTs; the slot's
 * JUMP_SLOT relocation names the called symbol (as binutils' synthetic
 * "NAME@plt" symbols do, elf_x86_64_get_synthetic_symtab). */
int maptap_uprobe_plt(const char *path, const char *glob,
		      int (*fn)(const char *name, uint64_t vaddr,
				uint64_t size, void *arg),
		      void *arg)
{
	GElf_Shdr psh, rsh;
	Elf_Scn *plt, *rela;
	Elf_Data *d;
	int fd, rc = 0, calls = 0;
	uint64_t first = 16;		/* .plt: PLT0 is no entry */
	Elf *elf;
	size_t off;

	rc = mt_elf_open(path, &elf, &fd);
	if (rc)
		return rc;
	plt = mt_elf_scn_by_name(elf, ".plt.sec", &psh);
	if (plt)
		first = 0;
	else
		plt = mt_elf_scn_by_name(elf, ".plt", &psh);
	rela = mt_elf_scn_by_name(elf, ".rela.plt", &rsh);
	d = plt ? elf_getdata(plt, NULL) : NULL;
	for (off = first; d && rela && off + 16 <= d->d_size && !rc;
	     off += 16) {
		const uint8_t *e = (const uint8_t *)d->d_buf + off;
		const char *name;
		int32_t disp;
		size_t k;

		for (k = 0; k + 6 <= 16; k++)
			if (e[k] == 0xff && e[k + 1] == 0x25)
				break;
		if (k + 6 > 16)
			continue;
		memcpy(&disp, e + k + 2, 4);
		name = slot_name(elf, rela, &rsh,
				 psh.sh_addr + off + k + 6 + (int64_t)disp);
		if (!name || !*name || fnmatch(glob, name, 0) != 0)
			continue;
		calls++;
		rc = fn(name, psh.sh_addr + off, 16, arg);
	}
	mt_elf_close(elf, fd);
	return rc ? rc : calls;
}

/* ---- DT_NEEDED ---- */

int maptap_uprobe_needed(const char *path,
			 int (*fn)(const char *name, void *arg), void *arg)
{
	Elf_Scn *scn = NULL;
	int fd, rc = 0, calls = 0;
	Elf *elf;

	rc = mt_elf_open(path, &elf, &fd);
	if (rc)
		return rc;
	while ((scn = elf_nextscn(elf, scn)) && !rc) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n && !rc; i++) {
			GElf_Dyn dyn;
			const char *name;

			if (!gelf_getdyn(d, (int)i, &dyn) ||
			    dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!name)
				continue;
			calls++;
			rc = fn(name, arg);
		}
	}
	mt_elf_close(elf, fd);
	return rc ? rc : calls;
}

/* ---- IFUNC symbols ---- */

struct ifuncs {
	struct maptap_uprobe_ifunc *v;
	size_t n, cap;
};

static int ifunc_add(Elf *elf, const GElf_Shdr *sh, const GElf_Sym *sym,
		     struct ifuncs *fs)
{
	struct maptap_uprobe_ifunc *f;
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->v[i].resolver == sym->st_value)
			return 0;
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? 2 * fs->cap : 32;
		struct maptap_uprobe_ifunc *v = realloc(fs->v,
							cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		fs->v = v;
		fs->cap = cap;
	}
	f = &fs->v[fs->n++];
	memset(f, 0, sizeof(*f));
	f->name = elf_strptr(elf, sh->sh_link, sym->st_name);
	f->resolver = sym->st_value;
	return 0;
}

/* The defined IFUNC symbols of symbol table SCN into FS. */
static int ifunc_syms(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		      struct ifuncs *fs)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;
	int rc = 0;

	if (!d || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n && !rc; i++) {
		GElf_Sym sym;

		if (gelf_getsym(d, (int)i, &sym) &&
		    GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC &&
		    sym.st_shndx != SHN_UNDEF && sym.st_value)
			rc = ifunc_add(elf, sh, &sym, fs);
	}
	return rc;
}

/* The 8 bytes of the file at ELF vaddr ADDR (0 when no section holds
 * them in the file). */
static uint64_t file_word(Elf *elf, uint64_t addr)
{
	Elf_Scn *scn = NULL;
	uint64_t w = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || addr < sh.sh_addr ||
		    addr + 8 > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && addr - sh.sh_addr + 8 <= d->d_size)
			memcpy(&w, (const char *)d->d_buf +
			       (addr - sh.sh_addr), 8);
		break;
	}
	return w;
}

/* The GOT words of FS's resolvers: R_X86_64_IRELATIVE relocations
 * (in .rela.dyn or .rela.plt) whose addend is a resolver. */
static void ifunc_slots(Elf *elf, struct ifuncs *fs)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, k, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Rela r;

			if (!gelf_getrela(d, (int)i, &r) ||
			    GELF_R_TYPE(r.r_info) != R_X86_64_IRELATIVE)
				continue;
			for (k = 0; k < fs->n; k++) {
				struct maptap_uprobe_ifunc *f = &fs->v[k];

				if (f->resolver != (uint64_t)r.r_addend ||
				    f->nslots == MAPTAP_UPROBE_IFUNC_SLOTS)
					continue;
				f->slot[f->nslots] = r.r_offset;
				f->init[f->nslots++] = file_word(elf,
								 r.r_offset);
			}
		}
	}
}

/* Each resolver's executable PT_LOAD. */
static void ifunc_text(Elf *elf, struct ifuncs *fs)
{
	size_t i, k, n;

	if (elf_getphdrnum(elf, &n) != 0)
		return;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		for (k = 0; k < fs->n; k++)
			if (fs->v[k].resolver >= ph.p_vaddr &&
			    fs->v[k].resolver < ph.p_vaddr + ph.p_memsz) {
				fs->v[k].text_lo = ph.p_vaddr;
				fs->v[k].text_hi = ph.p_vaddr + ph.p_memsz;
			}
	}
}

int maptap_uprobe_ifuncs(const char *path,
			 int (*fn)(const struct maptap_uprobe_ifunc *f,
				   void *arg),
			 void *arg)
{
	static const unsigned types[] = { SHT_SYMTAB, SHT_DYNSYM };
	struct ifuncs fs = { 0 };
	int fd, rc;
	unsigned k;
	size_t i;
	Elf *elf;

	rc = mt_elf_open(path, &elf, &fd);
	if (rc)
		return rc;
	for (k = 0; k < 2 && !rc; k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn)) && !rc) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == types[k])
				rc = ifunc_syms(elf, scn, &sh, &fs);
		}
	}
	if (!rc) {
		ifunc_slots(elf, &fs);
		ifunc_text(elf, &fs);
	}
	for (i = 0; i < fs.n && !rc; i++)
		rc = fn(&fs.v[i], arg);
	free(fs.v);
	mt_elf_close(elf, fd);
	return rc ? rc : (int)i;
}
