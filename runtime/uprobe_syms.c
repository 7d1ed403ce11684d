/* uprobe_syms.c -- the functions of an ELF file by name, for placing
 * breakpoints (maptap_uprobe_functions() in maptap/uprobe.h).
 */
#include <config.h>

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

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return -EINVAL;
	}
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
	elf_end(elf);
	close(fd);
	return rc ? rc : calls;
}
