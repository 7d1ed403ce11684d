/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* profile.c -- sampling with perf_event_open(2): one event and one ring
 * per thread, read without stopping the thread (maptap/profile.h).  The
 * ring itself is read by runtime/common/perf_ring.c, which the tracer's
 * perf event source shares.
 */
#include <config.h>

#include <maptap/profile.h>

#include "../common/perf_ring.h"
#include "../common/perf_regs.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

/* One sampled thread. */
struct pf_thread {
	pid_t pid, tid;
	int fd;
	struct mt_perf_ring ring;
	uint64_t lost;
};

struct maptap_profiler {
	struct maptap_profile_opts o;
	size_t page;
	bool exclude_kernel;	/* the kernel refused kernel samples */
	bool no_format_lost;	/* the kernel predates PERF_FORMAT_LOST */
	struct pf_thread *v;
	size_t n, cap;
	struct maptap_profile_stats st;
	char errmsg[256];
};

static void set_err(struct maptap_profiler *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_err(struct maptap_profiler *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->errmsg, sizeof(p->errmsg), fmt, ap);
	va_end(ap);
}

int maptap_profiler_new(const struct maptap_profile_opts *opts,
			struct maptap_profiler **out)
{
	struct maptap_profile_opts o = { .default_event = true };
	struct maptap_profiler *p;

	if (!out)
		return -EINVAL;
	if (opts)
		o = *opts;
	if (o.freq && o.period)
		return -EINVAL;
	if (!o.freq && !o.period)
		o.freq = MAPTAP_PROFILE_FREQ;
	if (!o.stack_bytes)
		o.stack_bytes = MAPTAP_PROFILE_STACK;
	if (o.stack_bytes % 8 || o.stack_bytes > 65528)
		return -EINVAL;
	if (!o.pages)
		o.pages = o.no_stack ? MAPTAP_PROFILE_PAGES_NO_STACK :
			  MAPTAP_PROFILE_PAGES;
	if (o.pages & (o.pages - 1))
		return -EINVAL;
	if (o.default_event) {
		o.type = PERF_TYPE_SOFTWARE;
		o.config = PERF_COUNT_SW_CPU_CLOCK;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = o;
	p->page = (size_t)sysconf(_SC_PAGESIZE);
	*out = p;
	return 0;
}

static void thread_close(struct pf_thread *t)
{
	mt_perf_ring_unmap(&t->ring);
	if (t->fd >= 0)
		close(t->fd);
}

void maptap_profiler_free(struct maptap_profiler *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		thread_close(&p->v[i]);	/* nobody reads the stats now */
	free(p->v);
	free(p);
}

static void attr_of(const struct maptap_profiler *p, uint32_t type,
		    uint64_t config, bool sampling,
		    struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->exclude_hv = 1;
	a->exclude_kernel = p->exclude_kernel;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (!sampling)
		return;
	/* The kernel writes a PERF_RECORD_LOST only once the ring has room
	 * again, so samples lost just before the end would never be told;
	 * read(2) of the event gives the count in any case (Linux 6.0). */
	if (!p->no_format_lost)
		a->read_format = PERF_FORMAT_LOST;
	if (p->o.freq) {
		a->freq = 1;
		a->sample_freq = p->o.freq;
	} else {
		a->sample_period = p->o.period;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = REGS_MASK;
	if (!p->o.no_stack) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = p->o.stack_bytes;
	}
	/* A reader that drains by time needs no wake-ups. */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(p->o.pages * p->page / 2);
}

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid)
{
	return (int)syscall(SYS_perf_event_open, a, pid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* Open an event of TYPE/CONFIG on TID: kernel samples where the kernel
 * allows them, else user mode only (remembered, so the next thread is
 * not refused first). */
static int event_open(struct maptap_profiler *p, uint32_t type,
		      uint64_t config, bool sampling, pid_t tid)
{
	struct perf_event_attr a;
	int fd;

	attr_of(p, type, config, sampling, &a);
	fd = sys_perf_event_open(&a, tid);
	if (fd < 0 && errno == EINVAL && sampling && !p->no_format_lost) {
		p->no_format_lost = true;
		attr_of(p, type, config, sampling, &a);
		fd = sys_perf_event_open(&a, tid);
	}
	if (fd < 0 && (errno == EACCES || errno == EPERM) &&
	    !p->exclude_kernel) {
		p->exclude_kernel = true;
		p->st.kernel_excluded = true;
		attr_of(p, type, config, sampling, &a);
		fd = sys_perf_event_open(&a, tid);
	}
	return fd < 0 ? -errno : fd;
}

const char *maptap_profile_event_name(uint32_t type, uint64_t config,
				      char *buf, size_t size)
{
	const char *n = NULL;

	if (type == PERF_TYPE_SOFTWARE && config == PERF_COUNT_SW_CPU_CLOCK)
		n = "cpu-clock";
	else if (type == PERF_TYPE_SOFTWARE &&
		 config == PERF_COUNT_SW_TASK_CLOCK)
		n = "task-clock";
	else if (type == PERF_TYPE_HARDWARE &&
		 config == PERF_COUNT_HW_CPU_CYCLES)
		n = "cycles";
	else if (type == PERF_TYPE_HARDWARE &&
		 config == PERF_COUNT_HW_INSTRUCTIONS)
		n = "instructions";
	if (n)
		snprintf(buf, size, "%s", n);
	else
		snprintf(buf, size, "type %u config %llu", type,
			 (unsigned long long)config);
	return buf;
}

static void open_err(struct maptap_profiler *p, uint32_t type,
		     uint64_t config, int err)
{
	char name[64];

	maptap_profile_event_name(type, config, name, sizeof(name));
	switch (err) {
	case -ENOENT:
	case -EOPNOTSUPP:
	case -ENODEV:
		set_err(p, "perf event %s is not supported on this machine "
			"(perf_event_open: %s)", name, strerror(-err));
		break;
	case -EACCES:
	case -EPERM:
		set_err(p, "perf event %s: permission denied (see "
			"/proc/sys/kernel/perf_event_paranoid)", name);
		break;
	default:
		set_err(p, "perf event %s: %s", name, strerror(-err));
	}
}

int maptap_profile_probe(struct maptap_profiler *p, uint32_t type,
			 uint64_t config)
{
	int fd = event_open(p, type, config, false, 0);

	if (fd < 0) {
		open_err(p, type, config, fd);
		return fd;
	}
	close(fd);
	return 0;
}

static struct pf_thread *find(struct maptap_profiler *p, pid_t tid)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->v[i].tid == tid)
			return &p->v[i];
	return NULL;
}

int maptap_profile_open(struct maptap_profiler *p, pid_t pid, pid_t tid)
{
	struct pf_thread t = { .pid = pid, .tid = tid, .fd = -1 };
	int err;

	if (find(p, tid))
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct pf_thread *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	t.fd = event_open(p, p->o.type, p->o.config, true, tid);
	if (t.fd < 0) {
		err = t.fd;
		open_err(p, p->o.type, p->o.config, err);
		p->st.open_fails++;
		return err;
	}
	err = mt_perf_ring_map(&t.ring, t.fd, p->o.pages);
	if (err) {
		set_err(p, "perf ring of thread %d (%zu KiB): %s", (int)tid,
			(size_t)p->o.pages * p->page / 1024, strerror(-err));
		thread_close(&t);
		p->st.open_fails++;
		return err == -EPERM ? -ENOMEM : err;
	}
	p->v[p->n++] = t;
	p->st.threads++;
	return 0;
}

/* Bring the count of T's lost samples up to the event's own counter
 * (PERF_FORMAT_LOST: read(2) gives { u64 value; u64 lost; }), which has
 * the samples no PERF_RECORD_LOST has told of yet too. */
static void count_unreported_lost(struct maptap_profiler *p,
				  struct pf_thread *t)
{
	uint64_t v[2];

	if (p->no_format_lost || read(t->fd, v, sizeof(v)) != sizeof(v))
		return;
	if (v[1] > t->lost) {
		p->st.lost += v[1] - t->lost;
		t->lost = v[1];
	}
}

static void remove_at(struct maptap_profiler *p, size_t i)
{
	count_unreported_lost(p, &p->v[i]);
	thread_close(&p->v[i]);
	p->v[i] = p->v[--p->n];
}

void maptap_profile_close(struct maptap_profiler *p, pid_t tid)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->v[i].tid == tid) {
			remove_at(p, i);
			return;
		}
}

void maptap_profile_close_pid(struct maptap_profiler *p, pid_t pid)
{
	size_t i = 0;

	while (i < p->n) {
		if (p->v[i].pid == pid)
			remove_at(p, i);
		else
			i++;
	}
}

/* A reader of one record's fields, in the order perf_event_open(2)
 * lists them for PERF_RECORD_SAMPLE. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->end - r->p < 8) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, 8);
	r->p += 8;
	return v;
}

/* Parse the sample record REC of LEN bytes (header included) into *S;
 * false when it is malformed. */
static bool parse_sample(const struct maptap_profiler *p, const uint8_t *rec,
			 size_t len, struct maptap_profile_sample *s,
			 struct user_regs_struct *regs)
{
	const struct perf_event_header *h = (const void *)rec;
	struct rd r = { rec + sizeof(*h), rec + len, false };
	uint64_t v, pr[PR_COUNT] = { 0 }, size;
	int i;

	memset(s, 0, sizeof(*s));
	s->user_mode = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		       PERF_RECORD_MISC_USER;
	s->ip = rd_u64(&r);
	v = rd_u64(&r);
	s->pid = (pid_t)(uint32_t)v;
	s->tid = (pid_t)(uint32_t)(v >> 32);
	s->time_ns = rd_u64(&r);
	s->cpu = (uint32_t)rd_u64(&r);
	s->period = rd_u64(&r);
	v = rd_u64(&r);		/* regs abi */
	if (v != PERF_SAMPLE_REGS_ABI_NONE) {
		for (i = 0; i < PR_COUNT; i++)
			if (REGS_MASK >> i & 1)
				pr[i] = rd_u64(&r);
		mt_perf_regs_user(pr, regs);
		s->regs = regs;
		s->has_regs = true;
	}
	if (!p->o.no_stack) {
		size = rd_u64(&r);
		if (size) {
			const uint8_t *data = r.p;

			if ((size_t)(r.end - r.p) < size + 8)
				return false;
			r.p += size;
			v = rd_u64(&r);	/* dyn_size: what was copied */
			s->stack = data;
			s->stack_len = v < size ? (size_t)v : (size_t)size;
		}
	}
	return !r.bad;
}

/* Read the records of thread T.  Returns the samples read, or the
 * negated non-zero return of FN (then *STOP). */
static long drain_one(struct maptap_profiler *p, struct pf_thread *t,
		      maptap_profile_fn fn, void *arg, bool *stop)
{
	const struct perf_event_header *hp;
	struct maptap_profile_sample s;
	struct user_regs_struct regs;
	long n = 0;
	int rc;

	mt_perf_ring_begin(&t->ring);
	while (!*stop && (hp = mt_perf_ring_peek(&t->ring))) {
		const uint8_t *rec = (const uint8_t *)hp;
		struct perf_event_header h = *hp;

		if (h.type == PERF_RECORD_LOST) {
			uint64_t lost = 0;

			/* { header; u64 id; u64 lost; } */
			if (h.size >= sizeof(h) + 16)
				memcpy(&lost, rec + sizeof(h) + 8, 8);
			/* with PERF_FORMAT_LOST the event's own counter
			 * has these already (count_unreported_lost) */
			if (p->no_format_lost) {
				t->lost += lost;
				p->st.lost += lost;
			}
			p->st.lost_records++;
		} else if (h.type != PERF_RECORD_SAMPLE ||
			   !parse_sample(p, rec, h.size, &s, &regs)) {
			p->st.other_records++;
		} else {
			p->st.samples++;
			if (!s.user_mode)
				p->st.kernel_samples++;
			n++;
			rc = fn ? fn(&s, arg) : 0;
			if (rc) {
				*stop = true;
				n = rc > 0 ? -rc : rc;
			}
		}
		mt_perf_ring_next(&t->ring);
	}
	mt_perf_ring_end(&t->ring);
	return n;
}

long maptap_profile_drain(struct maptap_profiler *p, maptap_profile_fn fn,
			  void *arg)
{
	bool stop = false;
	long total = 0, n;
	size_t i;

	for (i = 0; i < p->n && !stop; i++) {
		count_unreported_lost(p, &p->v[i]);
		n = drain_one(p, &p->v[i], fn, arg, &stop);
		if (stop)
			return n;
		total += n;
	}
	return total;
}

void maptap_profile_get_stats(const struct maptap_profiler *p,
			      struct maptap_profile_stats *out)
{
	*out = p->st;
}

const char *maptap_profile_errmsg(const struct maptap_profiler *p)
{
	return p->errmsg;
}
