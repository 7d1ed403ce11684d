/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_maps_reader.c -- both maps sources on live processes.
 *
 * PROCMAP_QUERY and the text of /proc/PID/maps must give identical VMAs,
 * names byte for byte.  A forked child maps files with odd names (spaces,
 * a newline, a real " (deleted)" suffix, an unlinked file, a memfd, shared
 * anonymous memory, a path longer than PATH_MAX) and mprotects the middle
 * of a mapping, then waits while the parent reads it both ways.  Then the
 * mm goes away (exit, exec) and readers must say -ESRCH, also when it
 * goes between two reads of one text (this file's pread() cuts it there).
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <maptap/maps.h>

#include "testsuite/lib/tap.h"

#define PAGE 4096

static bool vma_eq(const struct maptap_vma *a, const struct maptap_vma *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->offset == b->offset && a->inode == b->inode &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->perms == b->perms && a->kind == b->kind &&
	       a->name_len == b->name_len &&
	       memcmp(a->name, b->name, a->name_len) == 0;
}

static bool bufs_eq(const struct maptap_vma_buf *a,
		    const struct maptap_vma_buf *b)
{
	size_t i;

	if (a->n != b->n) {
		tap_diag("%zu VMAs vs %zu", a->n, b->n);
		return false;
	}
	for (i = 0; i < a->n; i++)
		if (!vma_eq(&a->v[i], &b->v[i])) {
			tap_diag("VMA %zu differs: %.80s vs %.80s", i,
				 a->v[i].name, b->v[i].name);
			return false;
		}
	return true;
}

/* The library's pread(2) comes here (it is linked into this program):
 * once armed, the first read of a text at an offset past 0 -- the
 * second read of one text -- first kills CUT and waits until it is a
 * zombie, not reaped: its mm is gone, /proc/PID still there. */
static pid_t cut_pid;

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	if (cut_pid > 0 && off > 0) {
		siginfo_t si;

		kill(cut_pid, SIGKILL);
		waitid(P_PID, (id_t)cut_pid, &si, WEXITED | WNOWAIT);
		cut_pid = 0;
	}
	return syscall(SYS_pread64, fd, buf, n, off);
}

static int read_all(pid_t pid, enum maptap_maps_source src,
		    struct maptap_vma_buf *buf)
{
	struct maptap_maps_reader *r;
	int err = maptap_maps_open(pid, src, &r);

	if (err)
		return err;
	err = maptap_maps_read_all(r, buf);
	maptap_maps_close(r);
	return err;
}

static bool have_query(void)
{
	struct maptap_maps_reader *r;

	if (maptap_maps_open(getpid(), MAPTAP_MAPS_QUERY, &r))
		return false;
	maptap_maps_close(r);
	return true;
}

/* "Self" is read through a forked copy that waits on a pipe: this very
 * process may map memory between two reads (the sanitizers' allocators
 * do), and a test must not depend on when. */
static void test_self(void)
{
	struct maptap_vma_buf q = { 0 }, t = { 0 };
	int go[2];
	char x;
	pid_t pid;

	if (pipe(go))
		return;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		_exit(read(go[0], &x, 1) < 0);
	}
	close(go[0]);
	tap_int_eq(read_all(pid, MAPTAP_MAPS_QUERY, &q), 0,
		   "read a copy of self with PROCMAP_QUERY");
	tap_int_eq(read_all(pid, MAPTAP_MAPS_TEXT, &t), 0,
		   "read a copy of self from the text");
	tap_ok(q.n > 5 && bufs_eq(&q, &t),
	       "self: both sources give the same VMAs (%zu)", q.n);
	close(go[1]);
	waitpid(pid, NULL, 0);
	maptap_vma_buf_free(&q);
	maptap_vma_buf_free(&t);
}

struct child {
	pid_t pid;
	int go;			/* write end: a byte or EOF lets it go on */
	char dir[64];
	uintptr_t mid;		/* the 8-page mapping with r-- in the middle */
	void *hole;		/* MID with a guard page on either side */
	char longpath[PATH_MAX + 1024];
};

static void *map_file(int dirfd, const char *name, int prot)
{
	int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *p;

	if (fd < 0 || ftruncate(fd, 2 * PAGE))
		return MAP_FAILED;
	p = mmap(NULL, 2 * PAGE, prot, MAP_PRIVATE, fd, 0);
	close(fd);
	return p;
}

/* A chain of 250-byte directory names, deeper than PATH_MAX, built with
 * *at() calls since no single path to it fits in PATH_MAX. */
static int deep_dir(int dirfd)
{
	char name[251];
	int fd = dup(dirfd), i;

	memset(name, 'd', 250);
	name[250] = '\0';
	for (i = 0; i < 18 && fd >= 0; i++) {
		int next;

		if (mkdirat(fd, name, 0700) && errno != EEXIST)
			return -1;
		next = openat(fd, name, O_DIRECTORY | O_RDONLY);
		close(fd);
		fd = next;
	}
	return fd;
}

static void child_setup(struct child *c, int ready)
{
	int dirfd = open(c->dir, O_DIRECTORY | O_RDONLY);
	int deep = dirfd >= 0 ? deep_dir(dirfd) : -1;
	int mfd = memfd_create("pool", 0);
	char *mid = (char *)c->mid;
	bool ok = dirfd >= 0 && deep >= 0 && mfd >= 0;

	/* First, before other mappings can land in the parent's hole. */
	ok = ok && mmap(mid, 8 * PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == mid;
	ok = ok && mprotect(mid + 3 * PAGE, 2 * PAGE, PROT_READ) == 0;

	ok = ok && map_file(dirfd, "a name with  spaces", PROT_READ) != MAP_FAILED;
	ok = ok && map_file(dirfd, "new\nline", PROT_READ) != MAP_FAILED;
	ok = ok && map_file(dirfd, "real (deleted)", PROT_READ) != MAP_FAILED;
	ok = ok && map_file(dirfd, "gone", PROT_READ | PROT_WRITE) != MAP_FAILED;
	ok = ok && unlinkat(dirfd, "gone", 0) == 0;
	ok = ok && map_file(deep, "deep", PROT_READ) != MAP_FAILED;
	ok = ok && ftruncate(mfd, PAGE) == 0 &&
	     mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0) !=
	     MAP_FAILED;
	ok = ok && mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0) != MAP_FAILED;
	if (write(ready, ok ? "y" : "n", 1) != 1)
		_exit(2);
}

static bool start_child(struct child *c)
{
	int ready[2], go[2];
	char b;
	void *hole;

	snprintf(c->dir, sizeof(c->dir), "/tmp/maptap-reader-XXXXXX");
	if (!mkdtemp(c->dir) || pipe(ready) || pipe(go))
		return false;
	/* A place for the child's mapping, known to both, between two
	 * PROT_NONE guard pages so that it cannot merge with a neighbour. */
	hole = mmap(NULL, 10 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (hole == MAP_FAILED)
		return false;
	c->hole = hole;
	c->mid = (uintptr_t)hole + PAGE;
	c->pid = fork();
	if (c->pid == 0) {
		close(ready[0]);
		close(go[1]);
		child_setup(c, ready[1]);
		if (read(go[0], &b, 1) < 0)
			_exit(3);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	c->go = go[1];
	if (read(ready[0], &b, 1) != 1 || b != 'y') {
		close(ready[0]);
		return false;
	}
	close(ready[0]);
	return true;
}

static const struct maptap_vma *named(const struct maptap_vma_buf *b,
				      const char *suffix)
{
	size_t i, n = strlen(suffix);

	for (i = 0; i < b->n; i++)
		if (b->v[i].name_len >= n &&
		    memcmp(b->v[i].name + b->v[i].name_len - n, suffix, n) == 0)
			return &b->v[i];
	return NULL;
}

static void check_names(const struct maptap_vma_buf *b, const char *src)
{
	const struct maptap_vma *v;

	tap_ok(named(b, "/a name with  spaces") != NULL,
	       "%s: a name with spaces", src);
	tap_ok(named(b, "/new\\012line") != NULL,
	       "%s: a newline shows as \\012", src);
	tap_ok(named(b, "/real (deleted)") != NULL,
	       "%s: a real name ending in \" (deleted)\"", src);
	v = named(b, "/gone (deleted)");
	tap_ok(v && v->perms == (MAPTAP_PERM_R | MAPTAP_PERM_W) && v->inode,
	       "%s: an unlinked file is \" (deleted)\"", src);
	v = named(b, "/memfd:pool (deleted)");
	tap_ok(v && v->name[0] == '/' && v->inode, "%s: a memfd", src);
	v = named(b, "/dev/zero (deleted)");
	tap_ok(v && (v->perms & MAPTAP_PERM_S) && v->kind == MAPTAP_VMA_FILE,
	       "%s: shared anonymous memory", src);
	v = named(b, "/deep");
	tap_ok(v && v->name_len > PATH_MAX, "%s: a path longer than PATH_MAX "
	       "(%zu bytes)", src, v ? v->name_len : 0);
}

static void check_range(struct maptap_maps_reader *r, uintptr_t mid,
			const char *src)
{
	struct maptap_vma_buf b = { 0 };

	tap_int_eq(maptap_maps_read_range(r, mid + 3 * PAGE + 100,
					  mid + 4 * PAGE, &b), 0,
		   "read a range inside one VMA");
	tap_ok(b.n == 1 && b.v[0].start == mid + 3 * PAGE &&
	       b.v[0].end == mid + 5 * PAGE && b.v[0].perms == MAPTAP_PERM_R,
	       "%s: the mprotected middle, whole", src);
	maptap_vma_buf_clear(&b);
	maptap_maps_read_range(r, mid + PAGE, mid + 6 * PAGE, &b);
	tap_ok(b.n == 3 && b.v[0].start == mid && b.v[2].end == mid + 8 * PAGE &&
	       b.v[1].perms == MAPTAP_PERM_R &&
	       b.v[2].perms == (MAPTAP_PERM_R | MAPTAP_PERM_W),
	       "%s: a range across three VMAs gives them unclipped", src);
	maptap_vma_buf_clear(&b);
	maptap_maps_read_range(r, mid + 8 * PAGE, mid + 8 * PAGE, &b);
	tap_int_eq((long long)b.n, 0, "an empty range gives nothing");
	maptap_vma_buf_free(&b);
}

/* rm -r with *at() calls, which, unlike paths, work past PATH_MAX. */
static void rm_tree(int at, const char *name)
{
	int fd = openat(at, name, O_DIRECTORY | O_RDONLY | O_NOFOLLOW);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		unlinkat(at, name, 0);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rm_tree(dirfd(d), e->d_name);
	closedir(d);
	unlinkat(at, name, AT_REMOVEDIR);
}

static void test_child(void)
{
	struct child c = { 0 };
	struct maptap_vma_buf q = { 0 }, t = { 0 };
	struct maptap_maps_reader *rq = NULL, *rt = NULL;
	int status = 0;

	if (!tap_ok(start_child(&c), "child maps its odd files"))
		return;
	tap_int_eq(maptap_maps_open(c.pid, MAPTAP_MAPS_QUERY, &rq), 0,
		   "open child with PROCMAP_QUERY");
	tap_int_eq(maptap_maps_open(c.pid, MAPTAP_MAPS_TEXT, &rt), 0,
		   "open child's text");
	if (!rq || !rt)
		return;
	tap_int_eq(maptap_maps_read_all(rq, &q), 0, "read child by query");
	tap_int_eq(maptap_maps_read_all(rt, &t), 0, "read child's text");
	tap_ok(bufs_eq(&q, &t), "child: both sources give the same VMAs");
	maptap_vma_buf_clear(&t);
	tap_int_eq(read_all(c.pid, MAPTAP_MAPS_AUTO, &t), 0,
		   "read child with AUTO (full reads by text)");
	tap_ok(bufs_eq(&q, &t), "child: AUTO gives the same VMAs");
	maptap_vma_buf_clear(&t);
	tap_int_eq(maptap_maps_read_all(rt, &t), 0, "read child's text again");
	check_names(&q, "query");
	check_names(&t, "text");
	check_range(rq, c.mid, "query");
	check_range(rt, c.mid, "text");
	close(c.go);		/* EOF: the child exits */
	waitpid(c.pid, &status, 0);
	rm_tree(AT_FDCWD, c.dir);
	munmap(c.hole, 10 * PAGE);
	maptap_vma_buf_clear(&q);
	tap_int_eq(maptap_maps_read_all(rq, &q), -ESRCH,
		   "query after the process is gone: -ESRCH");
	tap_int_eq(maptap_maps_read_all(rt, &q), -ESRCH,
		   "text after the process is gone: -ESRCH");
	maptap_maps_close(rq);
	maptap_maps_close(rt);
	maptap_vma_buf_free(&q);
	maptap_vma_buf_free(&t);
}

/* A reader is bound to the mm it was opened on: after exec, -ESRCH. */
static void test_exec(void)
{
	struct maptap_maps_reader *r[2] = { NULL, NULL };
	struct maptap_vma_buf b = { 0 };
	int go[2], done[2], i;
	char x;
	pid_t pid;

	if (pipe(go) || pipe2(done, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(done[0]);
		if (read(go[0], &x, 1) != 1)
			_exit(3);
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(4);
	}
	close(go[0]);
	close(done[1]);
	tap_int_eq(maptap_maps_open(pid, MAPTAP_MAPS_QUERY, &r[0]), 0,
		   "open before exec (query)");
	tap_int_eq(maptap_maps_open(pid, MAPTAP_MAPS_TEXT, &r[1]), 0,
		   "open before exec (text)");
	if (write(go[1], "x", 1) != 1)
		return;
	/* EOF once exec closed the CLOEXEC end: the old mm is gone. */
	tap_int_eq((int)read(done[0], &x, 1), 0, "child exec'd");
	for (i = 0; i < 2; i++) {
		if (!r[i])
			continue;
		maptap_vma_buf_clear(&b);
		tap_int_eq(maptap_maps_read_all(r[i], &b), -ESRCH,
			   i ? "text after exec: -ESRCH" :
			       "query after exec: -ESRCH");
		maptap_maps_close(r[i]);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(go[1]);
	close(done[0]);
	maptap_vma_buf_free(&b);
}

/* A text longer than one read whose mm goes away between two reads:
 * its end then looks like the file's, and what was read (the low part
 * of the address space) was taken for all of it -- every VMA above the
 * cut an unmap.  It must be -ESRCH. */
static void test_cut_text(void)
{
	struct maptap_maps_reader *r;
	struct maptap_vma_buf b = { 0 };
	int go[2], err;
	char x;
	pid_t pid;

	if (pipe(go))
		return;
	pid = fork();
	if (pid == 0) {
		/* 3000 VMAs: far more text than one 64 KiB read. */
		char *p = mmap(NULL, 3000UL * PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t i;

		if (p == MAP_FAILED)
			_exit(1);
		for (i = 0; i < 3000; i += 2)
			mprotect(p + i * PAGE, PAGE, PROT_READ);
		if (write(go[1], "", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[1]);
	if (read(go[0], &x, 1) != 1) {
		tap_ok(false, "the child with 3000 VMAs started");
		return;
	}
	close(go[0]);
	tap_int_eq(read_all(pid, MAPTAP_MAPS_TEXT, &b), 0,
		   "read a process with 3000 VMAs from the text");
	tap_ok(b.n >= 3000, "all of them (%zu VMAs)", b.n);
	maptap_vma_buf_clear(&b);
	tap_int_eq(maptap_maps_open(pid, MAPTAP_MAPS_TEXT, &r), 0,
		   "open its text again");
	cut_pid = pid;
	err = maptap_maps_read_all(r, &b);
	tap_int_eq(err, -ESRCH, "its mm gone between two reads of the text: "
		   "-ESRCH, not the VMAs read before");
	if (err == 0)
		tap_diag("%zu VMAs taken for all", b.n);
	tap_ok(cut_pid == 0, "the read was cut (more than one read)");
	maptap_maps_close(r);
	cut_pid = 0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	maptap_vma_buf_free(&b);
}

static void test_open(void)
{
	struct maptap_maps_reader *r = NULL;

	tap_int_eq(maptap_maps_open(getpid(), MAPTAP_MAPS_AUTO, &r), 0,
		   "open AUTO");
	tap_int_eq(r ? (int)maptap_maps_source_of(r) : -1, MAPTAP_MAPS_QUERY,
		   "AUTO picks PROCMAP_QUERY on this kernel");
	maptap_maps_close(r);
	tap_int_eq(maptap_maps_open(0x7ffffff0, MAPTAP_MAPS_AUTO, &r), -ENOENT,
		   "no such process: -ENOENT");
	maptap_maps_close(NULL);
}

int main(void)
{
	test_cut_text();
	if (!have_query()) {
		tap_skip("this kernel lacks PROCMAP_QUERY (Linux < 6.11): "
			 "nothing to compare the text with");
		return tap_done();
	}
	test_open();
	test_self();
	test_child();
	test_exec();
	return tap_done();
}
