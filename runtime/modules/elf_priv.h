/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* elf_priv.h -- the segment layer: what maptap needs from an ELF file's
 * program headers, read once per file, and the choice of the PT_LOAD a
 * VMA maps.  Private to libmaptap.
 */
#ifndef MAPTAP_ELF_PRIV_H
#define MAPTAP_ELF_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>
#include <libelf.h>

#include <maptap/module.h>

/* Page size the loaders use to map segments (fs/binfmt_elf.c
 * ELF_MIN_ALIGN, glibc's _dl_map_segments with GLRO(dl_pagesize)). */
#define MT_ELF_PAGE 4096ULL

/* One PT_LOAD header. */
struct mt_seg {
	int index;		/* program header index */
	uint32_t flags;		/* PF_R | PF_W | PF_X */
	uint64_t vaddr, offset, filesz, memsz;
};

/* What the program headers say.  Filled by mt_elf_info_read(). */
struct mt_elf_info {
	int e_type;		/* ET_EXEC, ET_DYN, ... */
	struct mt_seg *load;	/* PT_LOADs in header order */
	size_t nload;
	bool has_relro;
	uint64_t relro_lo, relro_hi;	/* PT_GNU_RELRO [vaddr, vaddr+memsz) */
	uint8_t build_id[64];
	size_t build_id_len;	/* 0: no NT_GNU_BUILD_ID note */
	uint64_t lo, hi;	/* lowest p_vaddr, highest p_vaddr + p_memsz */
};

/* Read the ELF header and program headers of ELF into *INFO (zeroed
 * first).  Checks every header against the file's size, so a truncated
 * or corrupt file fails cleanly.  Returns 0; -ENOEXEC when ELF is not a
 * 64-bit ELF file of a type with segments (ET_EXEC, ET_DYN), with a
 * one-line reason in ERR (ERRLEN bytes); -EINVAL for a malformed header
 * (same); -ENOMEM. */
int mt_elf_info_read(Elf *elf, struct mt_elf_info *info, char *err,
		     size_t errlen);

/* Free what *INFO holds and zero it. */
void mt_elf_info_free(struct mt_elf_info *info);

/* The PT_LOADs that a VMA with file offset OFFSET (bytes, page aligned)
 * and permissions PERMS (enum maptap_perm) may map: those whose
 * page-aligned file range holds OFFSET, best first (flags equal to PERMS,
 * then starting on OFFSET's page).  Up to MAX into OUT; returns how many.
 * Several remain when segments share a file page (a small .rodata and the
 * RELRO part of the data segment both at one offset): the caller picks
 * the one whose bias the file already has in that address space. */
size_t mt_elf_segs_for(const struct mt_elf_info *info, uint64_t offset,
		       uint32_t perms, const struct mt_seg **out, size_t max);

/* The writable PT_LOAD whose memory-only tail (past the page holding its
 * last file byte, up to p_vaddr + p_memsz) contains VADDR, or NULL: the
 * segment of a bss address. */
const struct mt_seg *mt_elf_seg_bss(const struct mt_elf_info *info,
				    uint64_t vaddr);

/* The PT_LOAD whose memory image [p_vaddr, p_vaddr + p_memsz) contains
 * VADDR, or NULL. */
const struct mt_seg *mt_elf_seg_at(const struct mt_elf_info *info,
				   uint64_t vaddr);

/* The kind of the VMA that maps SEG from ELF address VLO to VHI (bytes,
 * ELF vaddrs) with permissions PERMS. */
enum maptap_segment_kind mt_elf_seg_kind(const struct mt_elf_info *info,
					 const struct mt_seg *seg,
					 uint64_t vlo, uint64_t vhi,
					 uint32_t perms);

/* Fill OUT from SEG (NULL: index -1, kind NONE) and KIND. */
void mt_elf_seg_describe(const struct mt_seg *seg,
			 enum maptap_segment_kind kind,
			 struct maptap_segment_info *out);

/* elf_file.c */

/* Open PATH read-only and begin reading it with libelf (ELF_C_READ_MMAP)
 * into *ELF and *FD, which the caller closes with mt_elf_close().
 * Returns 0; -errno of open(2); -EINVAL when PATH is not a 64-bit ELF
 * file (nothing is left open).  Thread-safe (libelf's own rules). */
int mt_elf_open(const char *path, Elf **elf, int *fd);

/* elf_end(ELF) and close(FD) (FD < 0: none). */
void mt_elf_close(Elf *elf, int fd);

/* The first section of ELF named WANT (by the section header string
 * table, ELF gABI "Section Header"), its header in *SH; NULL when there
 * is none or the table cannot be read. */
Elf_Scn *mt_elf_scn_by_name(Elf *elf, const char *want, GElf_Shdr *sh);

#endif
