/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* elf_segments.c -- program headers of an ELF file and the choice of the
 * PT_LOAD a VMA maps (rules in maptap/module.h).
 *
 * Everything read here comes from untrusted bytes (a file any process can
 * map), so every header is checked before use: libelf checks table
 * bounds against the file size, and this file rejects sums that overflow.
 */
#include <config.h>

#include "elf_priv.h"

#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_DOWN(x) ((x) & ~(MT_ELF_PAGE - 1))
#define PAGE_UP(x) (((x) + MT_ELF_PAGE - 1) & ~(MT_ELF_PAGE - 1))

/* The GNU build-id note type and owner (binutils include/elf/common.h,
 * NT_GNU_BUILD_ID); <elf.h> has the number, spelled out for clarity. */
#define BUILD_ID_OWNER "GNU"

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

void mt_elf_info_free(struct mt_elf_info *info)
{
	free(info->load);
	memset(info, 0, sizeof(*info));
}

/* Look for NT_GNU_BUILD_ID in one PT_NOTE segment.  A corrupt note
 * segment is not fatal: the file simply has no build-id. */
static void read_build_id(Elf *elf, const GElf_Phdr *ph,
			  struct mt_elf_info *info)
{
	Elf_Data *d;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	if (ph->p_filesz == 0 || info->build_id_len)
		return;
	d = elf_getdata_rawchunk(elf, ph->p_offset, ph->p_filesz,
				 ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	if (!d)
		return;
	while (off < d->d_size &&
	       (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID ||
		    nh.n_namesz != sizeof(BUILD_ID_OWNER) ||
		    memcmp((char *)d->d_buf + name_off, BUILD_ID_OWNER,
			   sizeof(BUILD_ID_OWNER)) != 0)
			continue;
		if (nh.n_descsz == 0 || nh.n_descsz > sizeof(info->build_id))
			continue;
		memcpy(info->build_id, (char *)d->d_buf + desc_off,
		       nh.n_descsz);
		info->build_id_len = nh.n_descsz;
		return;
	}
}

static int add_load(struct mt_elf_info *info, size_t i, const GElf_Phdr *ph,
		    size_t cap)
{
	struct mt_seg *s;

	if (info->nload == cap)
		return -EINVAL;
	s = &info->load[info->nload++];
	s->index = (int)i;
	s->flags = ph->p_flags & (PF_R | PF_W | PF_X);
	s->vaddr = ph->p_vaddr;
	s->offset = ph->p_offset;
	s->filesz = ph->p_filesz;
	s->memsz = ph->p_memsz;
	if (info->nload == 1 || s->vaddr < info->lo)
		info->lo = s->vaddr;
	if (s->vaddr + s->memsz > info->hi)
		info->hi = s->vaddr + s->memsz;
	return 0;
}

/* One program header: sanity checks, then record what matters. */
static int read_phdr(Elf *elf, size_t i, const GElf_Phdr *ph,
		     struct mt_elf_info *info, size_t cap, char *err,
		     size_t errlen)
{
	if (ph->p_type != PT_LOAD && ph->p_type != PT_GNU_RELRO &&
	    ph->p_type != PT_NOTE)
		return 0;
	if (ph->p_vaddr + ph->p_memsz < ph->p_vaddr ||
	    ph->p_offset + ph->p_filesz < ph->p_offset)
		return fail(err, errlen, -EINVAL,
			    "program header %zu wraps around", i);
	switch (ph->p_type) {
	case PT_LOAD:
		if (ph->p_filesz > ph->p_memsz)
			return fail(err, errlen, -EINVAL,
				    "PT_LOAD %zu: p_filesz > p_memsz", i);
		return add_load(info, i, ph, cap);
	case PT_GNU_RELRO:
		info->has_relro = true;
		info->relro_lo = ph->p_vaddr;
		info->relro_hi = ph->p_vaddr + ph->p_memsz;
		return 0;
	default:
		read_build_id(elf, ph, info);
		return 0;
	}
}

int mt_elf_info_read(Elf *elf, struct mt_elf_info *info, char *err,
		     size_t errlen)
{
	GElf_Ehdr eh;
	size_t phnum, i;
	int rc;

	memset(info, 0, sizeof(*info));
	if (elf_kind(elf) != ELF_K_ELF)
		return fail(err, errlen, -ENOEXEC, "not an ELF file");
	if (!gelf_getehdr(elf, &eh))
		return fail(err, errlen, -EINVAL, "bad ELF header: %s",
			    elf_errmsg(-1));
	info->e_type = eh.e_type;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return fail(err, errlen, -ENOEXEC,
			    "ELF type %u has no program to map", eh.e_type);
	if (elf_getphdrnum(elf, &phnum) != 0)
		return fail(err, errlen, -EINVAL,
			    "bad program header count: %s", elf_errmsg(-1));
	if (phnum == 0)
		return fail(err, errlen, -EINVAL, "no program headers");
	info->load = calloc(phnum, sizeof(*info->load));
	if (!info->load)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph)) {
			rc = fail(err, errlen, -EINVAL,
				  "program header %zu unreadable: %s", i,
				  elf_errmsg(-1));
			goto bad;
		}
		rc = read_phdr(elf, i, &ph, info, phnum, err, errlen);
		if (rc)
			goto bad;
	}
	if (info->nload == 0) {
		rc = fail(err, errlen, -EINVAL, "no PT_LOAD header");
		goto bad;
	}
	return 0;
bad:
	mt_elf_info_free(info);
	return rc;
}

/* How well SEG fits a VMA at file offset OFF with PERMS: a segment that
 * starts on this very page and whose flags equal the permissions is the
 * one a loader mapped; the partial pages that neighbouring segments share
 * make the other candidates. */
static int seg_score(const struct mt_seg *s, uint64_t off, uint32_t perms)
{
	uint32_t want = 0;
	int score = 0;

	if (perms & MAPTAP_PERM_R)
		want |= PF_R;
	if (perms & MAPTAP_PERM_W)
		want |= PF_W;
	if (perms & MAPTAP_PERM_X)
		want |= PF_X;
	if (s->flags == want)
		score += 4;
	if (PAGE_DOWN(s->offset) == off)
		score += 2;
	if ((s->flags & PF_X) == (want & PF_X))
		score += 1;
	return score;
}

size_t mt_elf_segs_for(const struct mt_elf_info *info, uint64_t offset,
		       uint32_t perms, const struct mt_seg **out, size_t max)
{
	int score[8];
	size_t i, j, n = 0;

	if (max > 8)
		max = 8;
	for (i = 0; i < info->nload; i++) {
		const struct mt_seg *s = &info->load[i];
		int sc;

		if (s->filesz == 0 || offset < PAGE_DOWN(s->offset) ||
		    offset >= s->offset + s->filesz)
			continue;
		sc = seg_score(s, offset, perms);
		/* Insertion into the short list, best first. */
		for (j = n; j > 0 && score[j - 1] < sc; j--) {
			if (j < max) {
				out[j] = out[j - 1];
				score[j] = score[j - 1];
			}
		}
		if (j < max) {
			out[j] = s;
			score[j] = sc;
			if (n < max)
				n++;
		}
	}
	return n;
}

const struct mt_seg *mt_elf_seg_at(const struct mt_elf_info *info,
				   uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < info->nload; i++) {
		const struct mt_seg *s = &info->load[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->memsz)
			return s;
	}
	return NULL;
}

const struct mt_seg *mt_elf_seg_bss(const struct mt_elf_info *info,
				    uint64_t vaddr)
{
	const struct mt_seg *s = mt_elf_seg_at(info, vaddr);

	if (!s || !(s->flags & PF_W))
		return NULL;
	if (vaddr < PAGE_UP(s->vaddr + s->filesz))
		return NULL;
	return s;
}

enum maptap_segment_kind mt_elf_seg_kind(const struct mt_elf_info *info,
					 const struct mt_seg *seg,
					 uint64_t vlo, uint64_t vhi,
					 uint32_t perms)
{
	if (!seg)
		return MAPTAP_SEG_NONE;
	if (seg->flags & PF_X)
		return MAPTAP_SEG_TEXT;
	if (!(seg->flags & PF_W))
		return MAPTAP_SEG_RODATA;
	/* ld.so makes [PAGE_DOWN(relro_lo), PAGE_DOWN(relro_hi)) read-only
	 * (glibc elf/dl-reloc.c _dl_protect_relro); a VMA inside that range
	 * is relro, one reaching past it (before the mprotect) is data. */
	if (info->has_relro && vlo >= PAGE_DOWN(info->relro_lo) &&
	    vhi <= PAGE_DOWN(info->relro_hi) && vlo < vhi)
		return MAPTAP_SEG_RELRO;
	if (vlo >= PAGE_UP(seg->vaddr + seg->filesz) &&
	    vlo < seg->vaddr + seg->memsz && !(perms & MAPTAP_PERM_X))
		return MAPTAP_SEG_BSS;
	return MAPTAP_SEG_DATA;
}

void mt_elf_seg_describe(const struct mt_seg *seg,
			 enum maptap_segment_kind kind,
			 struct maptap_segment_info *out)
{
	memset(out, 0, sizeof(*out));
	out->index = seg ? seg->index : -1;
	out->kind = seg ? kind : MAPTAP_SEG_NONE;
	if (!seg)
		return;
	out->p_vaddr = seg->vaddr;
	out->p_offset = seg->offset;
	out->p_filesz = seg->filesz;
	out->p_memsz = seg->memsz;
	out->p_flags = seg->flags;
}
