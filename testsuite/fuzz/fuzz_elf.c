/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_elf.c -- fuzz target for the ELF segment layer
 * (runtime/modules/elf_segments.c) and, through a memfd, the symbol index
 * (runtime/modules/sym_index.c, libdwfl underneath).
 *
 * Two ways to build:
 *   - as a libFuzzer target: clang -DMAPTAP_LIBFUZZER -fsanitize=fuzzer,...
 *     (LLVMFuzzerTestOneInput only);
 *   - by default, a bounded deterministic run for `make check`:
 *       fuzz_elf [-n ITERATIONS] [-s EVERY] [SEED_FILE...]
 *     mutates each seed (default: this program's own file) ITERATIONS times
 *     (bit flips, truncations, program header fields set to edge values)
 *     and prints one TAP line per seed.  Every EVERY-th mutant that reads
 *     as ELF (default 25; 0: none) also gets its symbol index built.  A
 *     crash or a hang fails the test.
 */
#include <config.h>

#include "../../runtime/modules/elf_priv.h"
#include "../../runtime/modules/module_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Exercise the segment layer on DATA[0..SIZE); returns 1 if it read. */
static int one_input(const uint8_t *data, size_t size)
{
	static const uint32_t perms[] = {
		MAPTAP_PERM_R, MAPTAP_PERM_R | MAPTAP_PERM_X,
		MAPTAP_PERM_R | MAPTAP_PERM_W,
	};
	struct mt_elf_info info;
	const struct mt_seg *cand[8];
	char err[160];
	Elf *elf;
	size_t i, j, n;
	int rc;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)data, size);
	if (!elf)
		return 0;
	rc = mt_elf_info_read(elf, &info, err, sizeof(err));
	elf_end(elf);
	if (rc)
		return 0;
	for (i = 0; i < info.nload; i++) {
		const struct mt_seg *s = &info.load[i];

		for (j = 0; j < 3; j++) {
			n = mt_elf_segs_for(&info, s->offset & ~0xfffULL,
					    perms[j], cand, 8);
			if (n)
				mt_elf_seg_kind(&info, cand[0], s->vaddr,
						s->vaddr + s->memsz, perms[j]);
		}
		mt_elf_seg_bss(&info, s->vaddr + s->memsz - 1);
	}
	mt_elf_info_free(&info);
	return 1;
}

/* The symbol index of DATA, through the module layer's file path. */
static void one_symtab(const uint8_t *data, size_t size)
{
	struct maptap_modules *m;
	struct mt_file *f;
	struct maptap_sym sym;
	int fd = memfd_create("fuzz_elf", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size ||
	    maptap_modules_new(NULL, &m) != 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		maptap_modules_free(m);
		return;
	}
	f->refs = 1;
	f->fd = fd;
	f->path = strdup("fuzz.so");
	f->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (f->elf && mt_elf_info_read(f->elf, &f->info, NULL, 0) == 0 &&
	    mt_symtab_get(m, f))
		mt_symtab_lookup(f->syms, true, f->info.lo, &sym);
	mt_file_put(f);
	maptap_modules_free(m);
}

#ifdef MAPTAP_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (one_input(data, size))
		one_symtab(data, size);
	return 0;
}
#else

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Set one field of one program header to an edge value. */
static void poke_phdr(uint8_t *buf, size_t len, uint64_t *x)
{
	static const uint64_t edge[] = {
		0, 1, 0xfff, 0x1000, 0x7fffffffffffffffULL,
		0xfffffffffffff000ULL, 0xffffffffffffffffULL,
	};
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	size_t i, field;
	uint64_t *p;

	if (len < sizeof(*eh) || eh->e_phnum == 0 ||
	    eh->e_phoff > len || len - eh->e_phoff <
	    (size_t)eh->e_phnum * sizeof(Elf64_Phdr))
		return;
	i = next(x) % eh->e_phnum;
	field = next(x) % 6;	/* offset, vaddr, paddr, filesz, memsz, align */
	p = (uint64_t *)(buf + eh->e_phoff + i * sizeof(Elf64_Phdr) + 8) + field;
	*p = edge[next(x) % (sizeof(edge) / sizeof(edge[0]))];
}

static void mutate(uint8_t *buf, size_t *len, size_t full, uint64_t *x)
{
	int k, nflip = 1 + (int)(next(x) % 8);

	switch (next(x) % 4) {
	case 0:
		*len = next(x) % full;
		break;
	case 1:
		poke_phdr(buf, *len, x);
		break;
	default:
		/* Flips concentrated in the headers, where the parser looks. */
		for (k = 0; k < nflip; k++) {
			size_t at = next(x) % (next(x) & 1 ? 4096 : *len);

			if (at < *len)
				buf[at] ^= (uint8_t)(1u << (next(x) & 7));
		}
		break;
	}
}

static int read_seed(const char *path, uint8_t **out, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	ssize_t got;

	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*len = (size_t)st.st_size;
	*out = malloc(*len);
	got = *out ? read(fd, *out, *len) : -1;
	close(fd);
	return got == (ssize_t)*len ? 0 : -1;
}

static int run_seed(const char *path, long iters, int symtabs, int n)
{
	uint8_t *seed, *buf;
	size_t len, full;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	long i, good = 0;

	if (read_seed(path, &seed, &full) != 0) {
		printf("not ok %d - cannot read seed %s\n", n, path);
		return 1;
	}
	buf = malloc(full);
	for (i = 0; buf && i < iters; i++) {
		memcpy(buf, seed, full);
		len = full;
		mutate(buf, &len, full, &x);
		if (one_input(buf, len)) {
			good++;
			if (symtabs && good % symtabs == 0)
				one_symtab(buf, len);
		}
	}
	printf("%s %d - %s: %ld mutants, %ld read as ELF, no crash\n",
	       buf ? "ok" : "not ok", n, path, iters, good);
	free(buf);
	free(seed);
	return buf ? 0 : 1;
}

int main(int argc, char **argv)
{
	long iters = 20000;
	int c, n = 0, failed = 0, symtabs = 25;

	while ((c = getopt(argc, argv, "n:s:")) != -1) {
		if (c == 'n')
			iters = atol(optarg);
		else if (c == 's')
			symtabs = atoi(optarg);
		else
			return 2;
	}
	if (optind == argc)
		failed |= run_seed("/proc/self/exe", iters, symtabs, ++n);
	for (; optind < argc; optind++)
		failed |= run_seed(argv[optind], iters, symtabs, ++n);
	printf("1..%d\n", n);
	return failed;
}
#endif
