/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* module_file.c -- opening the file a VMA really maps, and the cache of
 * files shared by every address space of a tracker.
 *
 * A path in /proc/PID/maps may name a file that was deleted, replaced by
 * another build, lives in another mount namespace, or is a memfd, so the
 * path is never opened as such.  In order:
 *   1. /proc/PID/map_files/START-END: the mapped file itself (Linux 3.3+;
 *      opening needs CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN,
 *      fs/proc/base.c proc_map_files_get_link);
 *   2. /proc/PID/root/PATH, accepted only if its dev and inode are the
 *      VMA's;
 *   3. an open descriptor of the target, /proc/PID/fd/N, with the VMA's dev
 *      and inode (a memfd or a deleted file the target still holds open);
 *   4. PATH as maptap itself sees it, accepted only if its dev and inode
 *      are the VMA's: the perf event source reads its records after the
 *      fact, when a short-lived target, and its /proc, may be gone.
 * The cache key is the opened file's (st_dev, st_ino, st_size, st_mtim):
 * a file rewritten in place gets a new entry, and so its own build-id.
 */
#include <config.h>

#include "module_priv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#define DELETED_SUFFIX " (deleted)"

/* The limit on a [vdso] image read from a target (Linux's vdso is 2 pages
 * on x86_64; anything this large is not a vdso). */
#define VDSO_MAX (1U << 20)

static bool same_inode(const struct stat *st, const struct maptap_vma *v)
{
	return st->st_ino == v->inode && major(st->st_dev) == v->dev_major &&
	       minor(st->st_dev) == v->dev_minor;
}

/* The mapped path of V without " (deleted)", malloc'd; *DELETED says
 * whether the suffix was there. */
static char *vma_path(const struct maptap_vma *v, bool *deleted)
{
	size_t len = v->name_len, sl = strlen(DELETED_SUFFIX);
	char *p;

	*deleted = len > sl &&
		   memcmp(v->name + len - sl, DELETED_SUFFIX, sl) == 0;
	if (*deleted)
		len -= sl;
	p = malloc(len + 1);
	if (!p)
		return NULL;
	memcpy(p, v->name, len);
	p[len] = '\0';
	return p;
}

static int open_map_files(pid_t pid, const struct maptap_vma *v)
{
	char buf[80];

	snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, v->start, v->end);
	return open(buf, O_RDONLY | O_CLOEXEC);
}

static int open_checked(const char *path, const struct maptap_vma *v)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && same_inode(&st, v))
		return fd;
	close(fd);
	return -1;
}

static int open_root_path(pid_t pid, const char *path,
			  const struct maptap_vma *v)
{
	char *full;
	int fd;

	if (path[0] != '/')
		return -1;
	if (asprintf(&full, "/proc/%d/root%s", (int)pid, path) < 0)
		return -1;
	fd = open_checked(full, v);
	free(full);
	return fd;
}

static int open_from_fds(pid_t pid, const struct maptap_vma *v)
{
	char dir[40], path[40 + sizeof(((struct dirent *)0)->d_name)];
	struct dirent *de;
	DIR *d;
	int fd = -1;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while (fd < 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open_checked(path, v);
	}
	closedir(d);
	return fd;
}

static int open_mapped(pid_t pid, const struct maptap_vma *v,
		       const char *path)
{
	int fd = open_map_files(pid, v);

	if (fd < 0)
		fd = open_root_path(pid, path, v);
	if (fd < 0)
		fd = open_from_fds(pid, v);
	if (fd < 0 && path[0] == '/')
		fd = open_checked(path, v);
	return fd;
}

static char *hex_of(const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = malloc(2 * n + 1);
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < n; i++) {
		s[2 * i] = digits[b[i] >> 4];
		s[2 * i + 1] = digits[b[i] & 15];
	}
	s[2 * n] = '\0';
	return s;
}

void mt_file_put(struct mt_file *f)
{
	if (!f || --f->refs > 0)
		return;
	mt_symtab_free(f->syms);
	if (f->elf)
		elf_end(f->elf);
	mt_elf_info_free(&f->info);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	free(f->build_id);
	free(f->error);
	free(f);
}

void mt_files_free(struct maptap_modules *m)
{
	size_t i;

	for (i = 0; i < m->nfile_buckets; i++) {
		struct mt_file *f = m->file_tab[i], *next;

		for (; f; f = next) {
			next = f->hnext;
			mt_file_put(f);
		}
	}
	free(m->file_tab);
	m->file_tab = NULL;
	m->nfile_buckets = m->nfiles = 0;
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ULL +
	       (uint64_t)st->st_mtim.tv_nsec;
}

/* The cache is a chained hash: a file by (st_dev, st_ino), a vdso by its
 * build-id (hex) and size; the rest of the key is compared in the
 * chain. */
static uint64_t file_hash(const struct mt_file *f)
{
	uint64_t h;
	const char *c;

	if (!f->is_vdso)
		return mt_hash64(f->st_dev * 0x9e3779b97f4a7c15ULL ^ f->st_ino);
	h = f->size;
	for (c = f->build_id ? f->build_id : ""; *c; c++)
		h = mt_hash64(h ^ (unsigned char)*c);
	return h;
}

static bool file_same(const struct mt_file *f, const struct mt_file *k)
{
	if (f->is_vdso != k->is_vdso || f->size != k->size)
		return false;
	if (k->is_vdso)
		return f->build_id && k->build_id &&
		       strcmp(f->build_id, k->build_id) == 0;
	return f->st_dev == k->st_dev && f->st_ino == k->st_ino &&
	       f->mtime_ns == k->mtime_ns;
}

/* The cached file with KEY's identity, or NULL. */
static struct mt_file *cache_find(struct maptap_modules *m,
				  const struct mt_file *key)
{
	struct mt_file *f;

	if (!m->nfile_buckets)
		return NULL;
	f = m->file_tab[file_hash(key) & (m->nfile_buckets - 1)];
	for (; f; f = f->hnext)
		if (file_same(f, key))
			return f;
	return NULL;
}

static int cache_grow(struct maptap_modules *m)
{
	size_t nb = m->nfile_buckets ? 2 * m->nfile_buckets : 64, i;
	struct mt_file **tab = calloc(nb, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < m->nfile_buckets; i++) {
		struct mt_file *f = m->file_tab[i], *next;

		for (; f; f = next) {
			size_t s = file_hash(f) & (nb - 1);

			next = f->hnext;
			f->hnext = tab[s];
			tab[s] = f;
		}
	}
	free(m->file_tab);
	m->file_tab = tab;
	m->nfile_buckets = nb;
	return 0;
}

static int cache_add(struct maptap_modules *m, struct mt_file *f)
{
	size_t s;

	if (m->nfiles >= m->nfile_buckets && cache_grow(m))
		return -ENOMEM;
	s = file_hash(f) & (m->nfile_buckets - 1);
	f->hnext = m->file_tab[s];
	m->file_tab[s] = f;
	m->nfiles++;
	f->refs++;
	m->stats.files++;
	return 0;
}

/* Read F's ELF headers; a file that is not ELF, or is broken ELF, becomes
 * a module of type "file" (the latter with F->error, reported once since
 * the file is cached). */
static int file_parse(struct maptap_modules *m, struct mt_file *f)
{
	char err[160] = "";
	int rc;

	f->type = MAPTAP_MODULE_FILE;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf)
		return 0;
	rc = mt_elf_info_read(f->elf, &f->info, err, sizeof(err));
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		/* Only what claims to be ELF is worth a complaint. */
		if (elf_kind(f->elf) == ELF_K_ELF) {
			f->error = strdup(err);
			m->stats.bad_elf++;
		}
		elf_end(f->elf);
		f->elf = NULL;
		return 0;
	}
	f->type = f->is_vdso ? MAPTAP_MODULE_VDSO :
		  f->info.e_type == ET_EXEC ? MAPTAP_MODULE_EXEC :
		  MAPTAP_MODULE_DYN;
	if (f->info.build_id_len) {
		f->build_id = hex_of(f->info.build_id, f->info.build_id_len);
		if (!f->build_id)
			return -ENOMEM;
	}
	return 0;
}

static int file_new(struct maptap_modules *m, int fd, const struct stat *st,
		    const char *path, bool vdso, struct mt_file **out)
{
	struct mt_file *f = calloc(1, sizeof(*f));
	int rc;

	if (!f || !(f->path = strdup(path))) {
		free(f);
		close(fd);
		return -ENOMEM;
	}
	f->refs = 1;
	f->fd = fd;
	f->is_vdso = vdso;
	f->st_dev = st->st_dev;
	f->st_ino = st->st_ino;
	f->size = (uint64_t)st->st_size;
	f->mtime_ns = mtime_ns(st);
	rc = file_parse(m, f);
	if (!rc)
		rc = cache_add(m, f);
	if (rc) {
		mt_file_put(f);
		return rc;
	}
	*out = f;
	return 0;
}

int mt_file_get(struct maptap_modules *m, pid_t pid,
		const struct maptap_vma *v, struct mt_file **out)
{
	struct mt_file *f, key = { .refs = 0 };
	struct stat st;
	bool deleted;
	char *path = vma_path(v, &deleted);
	int fd, rc;

	if (!path)
		return -ENOMEM;
	m->stats.opens++;
	fd = open_mapped(pid, v, path);
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		free(path);
		m->stats.open_fails++;
		return -ENOENT;
	}
	key.st_dev = st.st_dev;
	key.st_ino = st.st_ino;
	key.size = (uint64_t)st.st_size;
	key.mtime_ns = mtime_ns(&st);
	f = cache_find(m, &key);
	if (f) {
		close(fd);
		free(path);
		f->refs++;
		*out = f;
		return 0;
	}
	rc = file_new(m, fd, &st, path, false, out);
	free(path);
	return rc;
}

/* Copy the vdso image out of PID into a memfd, so that it is a file like
 * any other for libelf and libdwfl. */
static int vdso_memfd(pid_t pid, const struct maptap_vma *v)
{
	size_t len = v->end - v->start;
	struct iovec local, remote;
	void *buf;
	ssize_t got;
	int fd;

	if (len == 0 || len > VDSO_MAX)
		return -1;
	buf = malloc(len);
	if (!buf)
		return -1;
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)v->start;
	remote.iov_len = len;
	got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	fd = got == (ssize_t)len ? memfd_create("maptap-vdso", MFD_CLOEXEC) :
		-1;
	if (fd >= 0 && write(fd, buf, len) != (ssize_t)len) {
		close(fd);
		fd = -1;
	}
	free(buf);
	return fd;
}

/* maptap's own [vdso] VMA, from /proc/self/maps; false when it has
 * none. */
static bool own_vdso_vma(struct maptap_vma *own)
{
	unsigned long long lo, hi;
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " [vdso]\n") &&
			sscanf(line, "%llx-%llx", &lo, &hi) == 2;
	fclose(f);
	if (!found)
		return false;
	memset(own, 0, sizeof(*own));
	own->start = lo;
	own->end = hi;
	own->kind = MAPTAP_VMA_VDSO;
	return true;
}

/* Whether ELF images A and B are of one ABI: class and machine (ELF
 * gABI, e_ident[EI_CLASS], e_machine). */
static bool same_abi(Elf *a, Elf *b)
{
	GElf_Ehdr ea, eb;

	return gelf_getehdr(a, &ea) && gelf_getehdr(b, &eb) &&
	       ea.e_ident[EI_CLASS] == eb.e_ident[EI_CLASS] &&
	       ea.e_machine == eb.e_machine;
}

/* The image of the vdso VMA V (bytes [start, end)), read from PID, or
 * when PID's memory cannot be read (a process gone before a perf-mode
 * record of its exec was read), from maptap's own vdso: the kernel maps
 * one vdso image per ABI, so a process of LIKE's ABI (an ELF it maps)
 * whose vdso has the length of maptap's own has maptap's image
 * (arch/x86/entry/vdso/vma.c: vdso_image_64 for every 64-bit process).
 * A descriptor on the bytes, or -1. */
static int vdso_image_fd(pid_t pid, const struct maptap_vma *v, Elf *like)
{
	struct maptap_vma own;
	Elf *e;
	int fd = vdso_memfd(pid, v);

	if (fd >= 0 || !like || !own_vdso_vma(&own) ||
	    own.end - own.start != v->end - v->start)
		return fd;
	fd = vdso_memfd(getpid(), &own);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || !same_abi(e, like)) {
		close(fd);
		fd = -1;
	}
	if (e)
		elf_end(e);
	return fd;
}

int mt_file_get_vdso(struct maptap_modules *m, pid_t pid,
		     const struct maptap_vma *v, Elf *like,
		     struct mt_file **out)
{
	struct mt_file *f, probe = { .refs = 1, .is_vdso = true };
	struct stat st;
	int fd, rc;

	m->stats.opens++;
	fd = vdso_image_fd(pid, v, like);
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		m->stats.open_fails++;
		return -ENOENT;
	}
	/* The cache key of a vdso is its build-id: parse first. */
	probe.fd = fd;
	rc = file_parse(m, &probe);
	if (rc) {
		close(fd);
		return rc;
	}
	probe.size = (uint64_t)st.st_size;
	f = cache_find(m, &probe);
	if (probe.elf)
		elf_end(probe.elf);
	mt_elf_info_free(&probe.info);
	free(probe.build_id);
	free(probe.error);
	if (f) {
		close(fd);
		f->refs++;
		*out = f;
		return 0;
	}
	return file_new(m, fd, &st, "[vdso]", true, out);
}
