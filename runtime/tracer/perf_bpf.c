/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* perf_bpf.c -- perf mode: the system calls' records through BPF
 * programs on their tracepoints instead of tracepoint events in every
 * thread's perf context (docs/tracer.md, "The system calls through a BPF
 * filter"; the programs: perf_bpf.bpf.c).
 *
 * One tracepoint event per call, opened on one CPU for every task and
 * never enabled, carries the program: the kernel runs a tracepoint's
 * programs at each hit on any CPU whether or not one of its events is
 * on (perf_syscall_enter(), kernel/trace/trace_syscalls.c), and an event
 * that is off writes nothing.  The records come out of the bpf-output
 * events perf_source.c opens on every CPU into its rings, so that they
 * are read, merged and ordered with the rest.  Closing the carriers
 * detaches the programs.
 */
#include "tracer_priv.h"
#include "../common/perf_close.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* the object perf_bpf.bpf.c compiles to (perf_bpf_obj.c, generated) */
extern const unsigned char mt_perf_bpf_obj[];
extern const size_t mt_perf_bpf_obj_len;

/* As struct mt_route of perf_bpf.bpf.c. */
struct mt_route {
	uint16_t enter_id, exit_id;
	uint8_t enter_stack, pad[3];
};

/* the bytes of the .bss mapped: one page holds it */
#define MT_BSS_MAP 4096

/* As struct mt_bpf_state of perf_bpf.bpf.c: its .bss. */
struct mt_bpf_state {
	uint64_t out_failed, follow_failed;
	uint32_t phase, lock_type;
};

struct mt_perf_bpf {
	struct bpf_object *obj;
	int prog_enter[7];	/* fds: by the entry's count of arguments */
	int prog_exit, prog_newtask, prog_lock, prog_gone;
	int map_out, map_out_stack, map_tgids, map_route;
	volatile struct mt_bpf_state *bss;	/* mapped: shared */
	int *carriers;			/* fds: one event per tracepoint */
	size_t ncarriers, capcarriers;
};

static int silent(enum libbpf_print_level level, const char *fmt,
		  va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int map_fd(struct bpf_object *o, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(o, name);

	return m ? bpf_map__fd(m) : -1;
}

static int prog_fd(struct bpf_object *o, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(o, name);

	return p ? bpf_program__fd(p) : -1;
}

struct mt_perf_bpf *mt_perf_bpf_new(char *why, size_t wsize)
{
	struct mt_perf_bpf *b = calloc(1, sizeof(*b));
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "maptap");
	struct bpf_map *bss;
	bool missing = false;
	int err, i;

	if (!b) {
		snprintf(why, wsize, "out of memory");
		return NULL;
	}
	libbpf_set_print(silent);
	b->obj = bpf_object__open_mem(mt_perf_bpf_obj, mt_perf_bpf_obj_len,
				      &oo);
	if (!b->obj) {
		snprintf(why, wsize, "cannot open the BPF object: %s",
			 strerror(errno));
		goto fail;
	}
	err = bpf_object__load(b->obj);
	if (err) {
		/* EPERM: no CAP_BPF and CAP_PERFMON, or a kernel that
		 * refuses them (lockdown) */
		snprintf(why, wsize, "cannot load its BPF programs: %s",
			 strerror(-err));
		goto fail;
	}
	for (i = 0; i < 7; i++) {
		char name[32];

		snprintf(name, sizeof(name), "mt_sys_enter%d", i);
		b->prog_enter[i] = prog_fd(b->obj, name);
		if (b->prog_enter[i] < 0)
			missing = true;
	}
	b->prog_exit = prog_fd(b->obj, "mt_sys_exit");
	b->prog_newtask = prog_fd(b->obj, "mt_newtask");
	b->prog_lock = prog_fd(b->obj, "mt_lock");
	b->prog_gone = prog_fd(b->obj, "mt_exit");
	b->map_out = map_fd(b->obj, "out");
	b->map_out_stack = map_fd(b->obj, "out_stack");
	b->map_tgids = map_fd(b->obj, "tgids");
	b->map_route = map_fd(b->obj, "route");
	/* The programs' globals, shared: the map is BPF_F_MMAPABLE
	 * (libbpf makes .bss so); libbpf maps it shared only for
	 * skeletons. */
	bss = bpf_object__find_map_by_name(b->obj, ".bss");
	if (bss && bpf_map__value_size(bss) >= sizeof(*b->bss)) {
		void *m = mmap(NULL, MT_BSS_MAP, PROT_READ | PROT_WRITE,
			       MAP_SHARED, bpf_map__fd(bss), 0);

		if (m != MAP_FAILED)
			b->bss = m;
	}
	if (missing || b->prog_exit < 0 || b->prog_newtask < 0 ||
	    b->prog_lock < 0 || b->prog_gone < 0 ||
	    b->map_out < 0 || b->map_out_stack < 0 || b->map_tgids < 0 ||
	    b->map_route < 0 || !b->bss) {
		snprintf(why, wsize, "its BPF object lacks a part");
		goto fail;
	}
	return b;
fail:
	mt_perf_bpf_free(b);
	return NULL;
}

int mt_perf_bpf_route(struct mt_perf_bpf *b, int nr, int id, bool enter,
		      bool stack)
{
	uint32_t key = (uint32_t)nr;
	struct mt_route r;

	if (nr < 0 || nr >= MT_PERF_BPF_MAX_NR || id <= 0 || id > 0xffff)
		return -EINVAL;
	if (bpf_map_lookup_elem(b->map_route, &key, &r) != 0)
		return -errno;
	if (enter) {
		r.enter_id = (uint16_t)id;
		r.enter_stack = stack;
	} else {
		r.exit_id = (uint16_t)id;
	}
	if (bpf_map_update_elem(b->map_route, &key, &r, BPF_ANY) != 0)
		return -errno;
	return 0;
}

int mt_perf_bpf_output(struct mt_perf_bpf *b, int cpu, int fd, bool stack)
{
	uint32_t key = (uint32_t)cpu;
	uint32_t val = (uint32_t)fd;

	if (bpf_map_update_elem(stack ? b->map_out_stack : b->map_out, &key,
				&val, BPF_ANY) != 0)
		return -errno;
	return 0;
}

int mt_perf_bpf_attach(struct mt_perf_bpf *b, int tp_id,
		       enum mt_perf_bpf_prog prog, unsigned nargs, int cpu)
{
	struct perf_event_attr a;
	int fd, pfd;

	if (prog == MT_PERF_BPF_ENTER && nargs > 6)
		return -EINVAL;
	pfd = prog == MT_PERF_BPF_ENTER ? b->prog_enter[nargs] :
	      prog == MT_PERF_BPF_EXIT ? b->prog_exit :
	      prog == MT_PERF_BPF_LOCK ? b->prog_lock :
	      prog == MT_PERF_BPF_GONE ? b->prog_gone : b->prog_newtask;
	if (prog == MT_PERF_BPF_LOCK)	/* its records' common_type */
		__atomic_store_n(&b->bss->lock_type, (uint32_t)tp_id,
				 __ATOMIC_SEQ_CST);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)tp_id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	a.disabled = 1;		/* it never writes: the program does */
	fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, pfd) != 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (mt_fds_push(&b->carriers, &b->ncarriers, &b->capcarriers, 32,
			fd) != 0) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

int mt_perf_bpf_follow(struct mt_perf_bpf *b, pid_t tgid)
{
	uint32_t key = (uint32_t)tgid;
	uint8_t one = 1;

	if (bpf_map_update_elem(b->map_tgids, &key, &one, BPF_ANY) != 0)
		return -errno;
	return 0;
}

void mt_perf_bpf_phase(struct mt_perf_bpf *b, enum mt_perf_bpf_phase ph)
{
	__atomic_store_n(&b->bss->phase, (uint32_t)ph, __ATOMIC_SEQ_CST);
}

uint64_t mt_perf_bpf_failed(const struct mt_perf_bpf *b)
{
	return b->bss->out_failed + b->bss->follow_failed;
}

long mt_perf_bpf_count(const struct mt_perf_bpf *b)
{
	uint32_t key, next;
	long n = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(b->map_tgids, prev, &next) == 0) {
		key = next;
		prev = &key;
		n++;
	}
	return n;
}

void mt_perf_bpf_free(struct mt_perf_bpf *b)
{
	if (!b)
		return;
	mt_perf_close_all(b->carriers, b->ncarriers);
	free(b->carriers);
	if (b->bss)
		munmap((void *)b->bss, MT_BSS_MAP);
	bpf_object__close(b->obj);
	free(b);
}

#else /* !HAVE_BPF */

struct mt_perf_bpf {
	int unused;
};

struct mt_perf_bpf *mt_perf_bpf_new(char *why, size_t wsize)
{
	snprintf(why, wsize, "maptap was built without BPF (--disable-bpf)");
	return NULL;
}

int mt_perf_bpf_route(struct mt_perf_bpf *b, int nr, int id, bool enter,
		      bool stack)
{
	return -ENOSYS;
}

int mt_perf_bpf_output(struct mt_perf_bpf *b, int cpu, int fd, bool stack)
{
	return -ENOSYS;
}

int mt_perf_bpf_attach(struct mt_perf_bpf *b, int tp_id,
		       enum mt_perf_bpf_prog prog, unsigned nargs, int cpu)
{
	return -ENOSYS;
}

int mt_perf_bpf_follow(struct mt_perf_bpf *b, pid_t tgid)
{
	return -ENOSYS;
}

void mt_perf_bpf_phase(struct mt_perf_bpf *b, enum mt_perf_bpf_phase ph)
{
}

uint64_t mt_perf_bpf_failed(const struct mt_perf_bpf *b)
{
	return 0;
}

long mt_perf_bpf_count(const struct mt_perf_bpf *b)
{
	return -ENOSYS;
}

void mt_perf_bpf_free(struct mt_perf_bpf *b)
{
	free(b);
}

#endif /* HAVE_BPF */
