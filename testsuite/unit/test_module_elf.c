/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_module_elf.c -- the segment layer (runtime/modules/elf_segments.c) on ELF
 * images built here in memory: segment choice per VMA, bias, kinds,
 * build-id, and truncated or corrupted headers.
 */
#include <config.h>

#include "../../runtime/modules/elf_priv.h"
#include "../lib/tap.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An image: ELF header, program headers, one build-id note. */
struct image {
	unsigned char buf[4096];
	size_t len;
};

struct phdr_spec {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz;
};

static const uint8_t build_id[20] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	15, 16,
};

/* Build an ET_DYN (or TYPE) image with PH[0..N) plus a PT_NOTE holding a
 * GNU build-id note. */
static void image_make(struct image *im, uint16_t type,
		       const struct phdr_spec *ph, size_t n)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im->buf;
	Elf64_Phdr *p = (Elf64_Phdr *)(im->buf + sizeof(*eh));
	size_t note_off = sizeof(*eh) + (n + 1) * sizeof(*p);
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(im->buf + note_off);
	size_t i;

	memset(im, 0, sizeof(*im));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = type;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*p);
	eh->e_phnum = (uint16_t)(n + 1);
	for (i = 0; i < n; i++) {
		p[i].p_type = ph[i].type;
		p[i].p_flags = ph[i].flags;
		p[i].p_offset = ph[i].offset;
		p[i].p_vaddr = p[i].p_paddr = ph[i].vaddr;
		p[i].p_filesz = ph[i].filesz;
		p[i].p_memsz = ph[i].memsz;
		p[i].p_align = 0x1000;
	}
	nh->n_namesz = 4;
	nh->n_descsz = sizeof(build_id);
	nh->n_type = NT_GNU_BUILD_ID;
	memcpy(nh + 1, "GNU", 4);
	memcpy((char *)(nh + 1) + 4, build_id, sizeof(build_id));
	p[n].p_type = PT_NOTE;
	p[n].p_offset = note_off;
	p[n].p_filesz = sizeof(*nh) + 4 + sizeof(build_id);
	p[n].p_align = 4;
	im->len = note_off + p[n].p_filesz;
}

static int image_read(const struct image *im, size_t len,
		      struct mt_elf_info *info, char *err, size_t errlen)
{
	Elf *elf = elf_memory((char *)im->buf, len);
	int rc;

	if (!elf)
		return -ENOMEM;
	rc = mt_elf_info_read(elf, info, err, errlen);
	elf_end(elf);
	return rc;
}

/* ld -z separate-code, the Debian default: R, R+X, R, R+W + RELRO. */
static const struct phdr_spec sepcode[] = {
	{ PT_LOAD, PF_R, 0, 0, 0x6c0, 0x6c0 },
	{ PT_LOAD, PF_R | PF_X, 0x1000, 0x1000, 0x1b9, 0x1b9 },
	{ PT_LOAD, PF_R, 0x2000, 0x2000, 0xec, 0xec },
	{ PT_LOAD, PF_R | PF_W, 0x2dd0, 0x3dd0, 0x25c, 0x3290 },
	{ PT_GNU_RELRO, PF_R, 0x2dd0, 0x3dd0, 0x230, 0x230 },
};

static int seg_index(const struct mt_elf_info *info, uint64_t off,
		     uint32_t perms)
{
	const struct mt_seg *s[8];

	return mt_elf_segs_for(info, off, perms, s, 8) ? s[0]->index : -1;
}

static void test_sepcode(void)
{
	struct image im;
	struct mt_elf_info info;
	const struct mt_seg *s[8];
	char err[128] = "";
	size_t n;

	image_make(&im, ET_DYN, sepcode, 5);
	if (!tap_ok(image_read(&im, im.len, &info, err, sizeof(err)) == 0,
		    "separate-code image reads (%s)", err))
		return;
	tap_int_eq(info.nload, 4, "four PT_LOADs");
	tap_int_eq(info.e_type, ET_DYN, "ET_DYN");
	tap_ok(info.build_id_len == 20 &&
	       memcmp(info.build_id, build_id, 20) == 0, "build-id read");
	tap_ok(info.has_relro && info.relro_lo == 0x3dd0 &&
	       info.relro_hi == 0x4000, "PT_GNU_RELRO range");
	tap_ok(info.lo == 0 && info.hi == 0x3dd0 + 0x3290, "vaddr span");
	tap_int_eq(seg_index(&info, 0, MAPTAP_PERM_R), 0, "r--p @0: headers");
	tap_int_eq(seg_index(&info, 0x1000, MAPTAP_PERM_R | MAPTAP_PERM_X), 1,
		   "r-xp @0x1000: text");
	tap_int_eq(seg_index(&info, 0x2000, MAPTAP_PERM_R | MAPTAP_PERM_W), 3,
		   "rw-p @0x2000: data segment sharing rodata's page");
	/* r--p at 0x2000 is both .rodata and the mprotected RELRO page. */
	n = mt_elf_segs_for(&info, 0x2000, MAPTAP_PERM_R, s, 8);
	tap_ok(n == 2 && s[0]->index == 2 && s[1]->index == 3,
	       "r--p @0x2000: rodata first, relro candidate second");
	tap_int_eq(seg_index(&info, 0x4000, MAPTAP_PERM_R), -1,
		   "offset past every file range: no segment");
	tap_int_eq(mt_elf_seg_kind(&info, &info.load[1], 0x1000, 0x2000,
				   MAPTAP_PERM_R | MAPTAP_PERM_X),
		   MAPTAP_SEG_TEXT, "kind text");
	tap_int_eq(mt_elf_seg_kind(&info, &info.load[2], 0x2000, 0x3000,
				   MAPTAP_PERM_R), MAPTAP_SEG_RODATA,
		   "kind rodata");
	tap_int_eq(mt_elf_seg_kind(&info, &info.load[3], 0x3000, 0x4000,
				   MAPTAP_PERM_R), MAPTAP_SEG_RELRO,
		   "kind relro (after mprotect)");
	tap_int_eq(mt_elf_seg_kind(&info, &info.load[3], 0x3000, 0x5000,
				   MAPTAP_PERM_R | MAPTAP_PERM_W),
		   MAPTAP_SEG_DATA, "kind data (before mprotect)");
	tap_int_eq(mt_elf_seg_kind(&info, &info.load[3], 0x5000, 0x8000,
				   MAPTAP_PERM_R | MAPTAP_PERM_W),
		   MAPTAP_SEG_BSS, "kind bss past the file page");
	tap_ok(mt_elf_seg_bss(&info, 0x5000) == &info.load[3] &&
	       !mt_elf_seg_bss(&info, 0x4010) &&
	       !mt_elf_seg_bss(&info, 0x3dd0 + 0x3290),
	       "bss range: [PAGE_UP(vaddr+filesz), vaddr+memsz)");
	mt_elf_info_free(&info);
}

/* -z noseparate-code with max-page-size 2 MiB: text and rodata in one
 * R+X segment at offset 0, data at a 2 MiB-aligned vaddr. */
static void test_hugepage(void)
{
	static const struct phdr_spec ph[] = {
		{ PT_LOAD, PF_R | PF_X, 0, 0x400000, 0x1734, 0x1734 },
		{ PT_LOAD, PF_R | PF_W, 0x1e10, 0x601e10, 0x230, 0x240 },
	};
	struct image im;
	struct mt_elf_info info;
	char err[128] = "";
	uint64_t bias;

	image_make(&im, ET_EXEC, ph, 2);
	if (!tap_ok(image_read(&im, im.len, &info, err, sizeof(err)) == 0,
		    "huge-page image reads (%s)", err))
		return;
	tap_int_eq(info.e_type, ET_EXEC, "ET_EXEC");
	tap_int_eq(seg_index(&info, 0x1000, MAPTAP_PERM_R | MAPTAP_PERM_W), 1,
		   "rw-p @0x1000: data, though text's range covers the page");
	tap_int_eq(seg_index(&info, 0x1000, MAPTAP_PERM_R), 1,
		   "r--p @0x1000: relro part of data (it starts on the page)");
	tap_int_eq(seg_index(&info, 0, MAPTAP_PERM_R | MAPTAP_PERM_X), 0,
		   "r-xp @0: text");
	/* The kernel maps data at PAGE_DOWN(0x601e10) from PAGE_DOWN(0x1e10):
	 * bias = vm_start - (p_vaddr + (O - p_offset)) = 0. */
	bias = 0x601000 - (info.load[1].vaddr + (0x1000 - info.load[1].offset));
	tap_int_eq((long long)bias, 0, "ET_EXEC data bias 0");
	mt_elf_info_free(&info);
}

static void test_rejects(void)
{
	static const struct phdr_spec wrap[] = {
		{ PT_LOAD, PF_R, 0, 0xfffffffffffff000ULL, 0x100, 0x2000 },
	};
	static const struct phdr_spec fat[] = {
		{ PT_LOAD, PF_R, 0, 0, 0x2000, 0x1000 },
	};
	struct image im;
	struct mt_elf_info info;
	char err[128] = "";

	image_make(&im, ET_DYN, wrap, 1);
	tap_int_eq(image_read(&im, im.len, &info, err, sizeof(err)), -EINVAL,
		   "p_vaddr + p_memsz wrapping is rejected");
	tap_ok(strstr(err, "wraps") != NULL, "... with a reason: %s", err);
	image_make(&im, ET_DYN, fat, 1);
	tap_int_eq(image_read(&im, im.len, &info, err, sizeof(err)), -EINVAL,
		   "p_filesz > p_memsz is rejected");
	image_make(&im, ET_REL, sepcode, 5);
	tap_int_eq(image_read(&im, im.len, &info, err, sizeof(err)), -ENOEXEC,
		   "ET_REL has nothing to map");
	memcpy(im.buf, "#!/bin/sh\n", 10);
	tap_int_eq(image_read(&im, im.len, &info, err, sizeof(err)), -ENOEXEC,
		   "not ELF");
	image_make(&im, ET_DYN, sepcode + 4, 1);
	tap_int_eq(image_read(&im, im.len, &info, err, sizeof(err)), -EINVAL,
		   "no PT_LOAD is rejected");
}

/* Every prefix of a good image: headers cut short must fail cleanly; a
 * cut note only loses the build-id. */
static void test_truncated(void)
{
	struct image im;
	struct mt_elf_info info;
	char err[128];
	size_t len, phend = sizeof(Elf64_Ehdr) + 6 * sizeof(Elf64_Phdr);
	int bad = 0;

	image_make(&im, ET_DYN, sepcode, 5);
	for (len = 0; len < im.len; len++) {
		int rc = image_read(&im, len, &info, err, sizeof(err));

		if ((rc == 0) != (len >= phend))
			bad++;
		if (rc == 0) {
			if (info.nload != 4 || info.build_id_len)
				bad++;
			mt_elf_info_free(&info);
		}
	}
	tap_int_eq(bad, 0, "every truncation fails exactly when headers are cut");
}

/* Deterministic corruption (xorshift): no crash, and success means a
 * consistent result. */
static void test_corrupted(void)
{
	struct image good, im;
	struct mt_elf_info info;
	char err[128];
	uint64_t x = 88172645463325252ULL;
	int i, j, ok = 0, bad = 0;

	image_make(&good, ET_DYN, sepcode, 5);
	for (i = 0; i < 20000; i++) {
		im = good;
		for (j = 0; j < 4; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			im.buf[(x >> 8) % im.len] ^= (unsigned char)(1u << (x & 7));
		}
		if (image_read(&im, im.len, &info, err, sizeof(err)) != 0)
			continue;
		ok++;
		if (info.nload == 0 || info.hi < info.lo)
			bad++;
		mt_elf_info_free(&info);
	}
	tap_ok(bad == 0, "20000 corrupted images: no crash, %d read, %d bad",
	       ok, bad);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_sepcode();
	test_hugepage();
	test_rejects();
	test_truncated();
	test_corrupted();
	tap_ok(strcmp(maptap_segment_kind_name(MAPTAP_SEG_RELRO), "relro") == 0 &&
	       strcmp(maptap_module_type_name(MAPTAP_MODULE_VDSO), "vdso") == 0 &&
	       !maptap_module_type_name((enum maptap_module_type)42),
	       "type and kind names");
	return tap_done();
}
