/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_builtins_user.c -- the user-space script functions
 * (translator/interp/builtins_ucontext.c, builtins_usymbols.c,
 * builtins_uconversions.c) on a live process, without the probe
 * points: a session attaches to a forked copy of this program and, in
 * its on_ready callback (the thread is stopped there), the test runs a
 * script's begin handler with the process context set as pass 5's
 * driver sets it.
 *
 * Expected values come from this program itself: the child is a fork, so
 * its symbols, strings and pages are at the addresses the parent sees;
 * its registers are read with PTRACE_GETREGS by the test directly.
 *
 *   test-builtins-user          TAP
 *   test-builtins-user -b N     also time N calls of each function
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <maptap/module.h>
#include <maptap/session.h>

#include "interp.h"
#include "run_probe.h"
#include "tap.h"

int t_user_data[4] = { 1, 2, 3, 4 };
static const char t_string[] = "maptap\tuser \"funcs\"";
/* a buffer, not a string: NUL, control bytes and a quote inside */
static const char t_buffer[7] = { 'a', 0, 'b', '\n', 1, 'z', '"' };
static const uint32_t t_u32[] = { 'h', 0xe9, 0x20ac, 0x1f600, 0 };
static const uint16_t t_u16[] = { 'h', 0xe9, 0xd83d, 0xde00, 0 };
static const uint32_t t_bad32[] = { 'x', 0x110000, 0 };
static const uint16_t t_bad16[] = { 'x', 0xd800, 'y', 0 };
static const unsigned char t_pattern[8] = {
	0xfe, 0x80, 0x01, 0x90, 0x7f, 0x00, 0x00, 0xc0,
};

static __attribute__((noinline, used)) int t_user_func(int x)
{
	return x * t_user_data[x & 3];
}

struct fixture {
	struct maptap_session *sess;
	struct maptap_modules *mods;
	struct tr_target tgt;
	pid_t child;
	char *edge;	/* last bytes of a page followed by an unmapped one */
	long bench;	/* -b N */
	bool ran;
};

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct fixture *fx = arg;

	return maptap_modules_event(fx->mods, ev, NULL, NULL, NULL) < 0;
}

/* Run SCRIPT's first probe handler in the context of the stopped thread
 * TID; returns its output (malloc'd) and sets *ERRORS. */
static char *run_script(struct fixture *fx, const char *script, pid_t tid,
			long *errors)
{
	/* the benchmark loops run more statements than MAXACTION allows */
	struct run_probe_limits lim = {
		.maxaction = fx->bench > 0 ? 4 * fx->bench + 1000 : 0,
	};

	fx->tgt.sess = fx->sess;
	fx->tgt.mods = fx->mods;
	fx->tgt.pid = fx->child;
	fx->tgt.tid = tid;
	fx->tgt.stopped = true;
	return run_probe(script, &fx->tgt, &lim, errors);
}

static char *expect_fmt(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *expect_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

static void check(struct fixture *fx, pid_t tid, const char *name,
		  const char *script, const char *want)
{
	long errors;
	char *got = run_script(fx, script, tid, &errors);

	tap_str_eq(got ? got : "", want, name);
	free(got);
}

static const char *exe_path(void)
{
	static char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void test_symbols(struct fixture *fx, pid_t tid)
{
	uintptr_t fn = (uintptr_t)t_user_func, data = (uintptr_t)t_user_data;
	struct maptap_module_desc d;
	char *script, *want;

	if (!tap_ok(maptap_modules_find(fx->mods, fx->child, fn, &d) == 0,
		    "the module layer knows this program"))
		return;
	/* umodaddr(fn) + fn is printed: 2 * fn - bias */
	script = expect_fmt("probe begin {\n"
			    "  println(usymname(%#lx))\n"
			    "  println(usymname(%#lx))\n"
			    "  println(usymname(%#lx))\n"
			    "  println(umodname(%#lx))\n"
			    "  println(umodname(%#lx))\n"
			    "  printf(\"%%x\\n\", umodaddr(%#lx) + %#lx)\n"
			    "}\n", fn, fn + 1, data + 8, fn, data, fn, fn);
	want = expect_fmt("t_user_func\nt_user_func\nt_user_data\n%s\n%s\n"
			  "%" PRIx64 "\n", exe_path(), exe_path(),
			  (uint64_t)fn * 2 - d.module.bias);
	check(fx, tid, "usymname, umodname and umodaddr of this program",
	      script, want);
	free(script);
	free(want);

	script = expect_fmt("probe begin {\n"
			    "  println(usymdata(%#lx))\n"
			    "  println(usymname(0x10))\n"
			    "  try { println(umodname(0x10)) }"
			    " catch (e) { println(e) }\n"
			    "}\n", data + 4);
	want = expect_fmt("t_user_data+0x4/0x10 [%s]\n0x10\n"
			  "module cannot be found\n", exe_path());
	check(fx, tid, "usymdata; fallbacks of unmapped addresses", script,
	      want);
	free(script);
	free(want);
}

static void test_strings(struct fixture *fx, pid_t tid)
{
	uintptr_t str = (uintptr_t)t_string, edge = (uintptr_t)fx->edge;
	char *script, *want;

	script = expect_fmt(
		"probe begin {\n"
		"  println(text_str(user_string(%#lx)))\n"
		"  println(user_string_n(%#lx, 6))\n"
		"  println(user_string_quoted(%#lx))\n"
		"  println(user_string_n_quoted(%#lx, 6))\n"
		"  println(user_string_n_quoted(%#lx, 100, 12))\n"
		"  println(user_string_n(%#lx, 2))\n"
		"  println(user_string_n(%#lx, 3, \"fault\"))\n"
		"  try { println(user_string(%#lx)) } catch (e) { println(e) }\n"
		"  println(user_string_quoted(%#lx))\n"
		"}\n", str, str, str, str, str, edge, edge, edge + 1, edge);
	want = expect_fmt(
		"maptap\\tuser \\\"funcs\\\"\n"
		"maptap\n"
		"\"maptap\\tuser \\\"funcs\\\"\"\n"
		"\"maptap\"\n"
		"\"maptap\\\"...\n"
		"ab\n"
		"fault\n"
		"user string copy fault -14 at %#lx [man error::fault]\n"
		"%#lx\n", edge + 1, edge);
	check(fx, tid, "user_string family, at a page edge", script, want);
	free(script);
	free(want);
}

static void test_buffers(struct fixture *fx, pid_t tid)
{
	uintptr_t buf = (uintptr_t)t_buffer, str = (uintptr_t)t_string;
	uintptr_t edge = (uintptr_t)fx->edge;
	char *script, *want;

	/* EDGE: the last 3 bytes ("abc") before an unmapped page */
	script = expect_fmt(
		"probe begin {\n"
		"  println(user_buffer_quoted(%#lx, 7, 100))\n"
		"  println(user_buffer_quoted(%#lx, 2, 100))\n"
		"  println(user_buffer_quoted(%#lx, 0, 100))\n"
		"  println(user_buffer_quoted(%#lx, 19, 12))\n"
		"  println(user_buffer_quoted(%#lx, 3, 100))\n"
		"  println(user_buffer_quoted(%#lx, 4, 100))\n"
		"  try { println(user_buffer_quoted_error(%#lx, 4, 100)) }"
		" catch (e) { println(e) }\n"
		"  println(user_buffer_quoted_error(%#lx, 7, 100))\n"
		"}\n", buf, buf, buf, str, edge, edge, edge, buf);
	want = expect_fmt(
		"\"a\\000b\\n\\001z\\\"\"\n"
		"\"a\\000\"\n"
		"\"\"\n"
		"\"maptap\\\"...\n"
		"\"abc\"\n"
		"%#lx\n"
		"user string copy fault -14 at %#lx [man error::fault]\n"
		"\"a\\000b\\n\\001z\\\"\"\n", edge, edge);
	check(fx, tid, "user_buffer_quoted: NULs escaped, exact lengths, "
	      "faults", script, want);
	free(script);
	free(want);
}

static void test_utf(struct fixture *fx, pid_t tid)
{
	unsigned long u32 = (uintptr_t)t_u32, u16 = (uintptr_t)t_u16;
	unsigned long b32 = (uintptr_t)t_bad32, b16 = (uintptr_t)t_bad16;
	unsigned long edge = (uintptr_t)fx->edge;
	char *script, *want;

	script = expect_fmt(
		"probe begin {\n"
		"  println(user_string_utf32(%#lx))\n"
		"  println(user_string_utf16(%#lx))\n"
		"  println(user_string_quoted_utf32(%#lx))\n"
		"  println(user_string_quoted_utf16(%#lx))\n"
		"  try { user_string_utf32(%#lx) } catch (e) { println(e) }\n"
		"  try { user_string_utf16(%#lx) } catch (e) { println(e) }\n"
		"  try { user_string_utf32(%#lx) } catch (e) { println(e) }\n"
		"  try { user_string_utf16(%#lx) } catch (e) { println(e) }\n"
		"  println(user_string_utf16(%#lx, \"alt\"), \" \","
		" user_string2_utf32(%#lx, \"alt2\"), \" \","
		" user_string_quoted_utf16(%#lx))\n"
		"}\n", u32, u16, u32, u16, b32, b16, edge, edge, b16, edge,
		edge);
	want = expect_fmt(
		"h\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\n"
		"h\xc3\xa9\xf0\x9f\x98\x80\n"
		"\"h\\u00e9\\u20ac\\U0001f600\"\n"
		"\"h\\u00e9\\U0001f600\"\n"
		"invalid UTF-32 character U+110000 at %#lx\n"
		"invalid UTF-16 character U+D800 at %#lx\n"
		"user string copy fault at %#lx [man error::fault]\n"
		"user string copy fault at %#lx [man error::fault]\n"
		"alt alt2 %#lx\n", b32 + 4, b16 + 2, edge, edge + 2, edge);
	check(fx, tid, "UTF-32 and UTF-16 strings", script, want);
	free(script);
	free(want);
}

static void test_readers(struct fixture *fx, pid_t tid)
{
	uintptr_t p = (uintptr_t)t_pattern;
	const unsigned char *b = t_pattern;
	uint64_t u64;
	uint32_t u32;
	uint16_t u16;
	char *script, *want;

	memcpy(&u64, b, 8);
	memcpy(&u32, b, 4);
	memcpy(&u16, b, 2);
	script = expect_fmt(
		"probe begin {\n"
		"  println(user_char(%#lx), \" \", user_uint8(%#lx), \" \","
		" user_short(%#lx), \" \", user_ushort(%#lx))\n"
		"  println(user_int(%#lx), \" \", user_uint32(%#lx), \" \","
		" user_long(%#lx), \" \", user_uint64(%#lx))\n"
		"  println(user_int16_error(%#lx), \" \", user_long_warn(%#lx))\n"
		"}\n", p, p, p, p, p, p, p, p, p, p);
	want = expect_fmt("%d %u %d %u\n%d %u %" PRId64 " %" PRId64 "\n"
			  "%d %" PRId64 "\n",
			  (int8_t)b[0], b[0], (int16_t)u16, u16, (int32_t)u32,
			  u32, (int64_t)u64, (int64_t)u64, (int16_t)u16,
			  (int64_t)u64);
	check(fx, tid, "integer readers: sizes and signs", script, want);
	free(script);
	free(want);
}

static void test_regs(struct fixture *fx, pid_t tid)
{
	struct user_regs_struct r;
	char *script, *want;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &r) < 0) {
		tap_skip("PTRACE_GETREGS: %s", strerror(errno));
		return;
	}
	script = expect_fmt("probe begin {\n"
			    "  println(uaddr(), \" \", register(\"rip\"))\n"
			    "  println(register(\"sp\"), \" \","
			    " register(\"orig_rax\"))\n"
			    "  println(register(\"eax\"), \" \","
			    " u_register(\"eax\"), \" \", register(\"rax\"))\n"
			    "  try { register(\"xyz\") } catch (e) { println(e) }\n"
			    "}\n");
	want = expect_fmt("%" PRId64 " %" PRId64 "\n%" PRId64 " %" PRId64 "\n"
			  "%d %u %" PRId64 "\nUnknown register: xyz\n",
			  (int64_t)r.rip, (int64_t)r.rip, (int64_t)r.rsp,
			  (int64_t)r.orig_rax, (int32_t)r.rax,
			  (uint32_t)r.rax, (int64_t)r.rax);
	check(fx, tid, "uaddr, register and u_register as PTRACE_GETREGS",
	      script, want);
	free(script);
	free(want);
}

/* The VMA of PID that holds ADDR, as /proc/PID/maps says: the kernel
 * may merge the test's page with an anonymous neighbour (ASan's), so
 * its bounds are read, not assumed.  Returns 0, or -1 when none. */
static int vma_of(pid_t pid, uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	char path[64], line[512];
	unsigned long a, b;
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a <= addr &&
		    addr < b) {
			*lo = a;
			*hi = b;
			rc = 0;
		}
	fclose(f);
	return rc;
}

static void test_vma(struct fixture *fx, pid_t tid)
{
	uintptr_t fn = (uintptr_t)t_user_func, edge = (uintptr_t)fx->edge;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (edge / page) * page, hi = lo + page;
	char *script, *want;

	if (vma_of(fx->child, edge, &lo, &hi))
		tap_diag("no VMA at %#lx in /proc/%d/maps", (unsigned long)edge,
			 (int)fx->child);

	script = expect_fmt(
		"probe begin {\n"
		"  println(vma_perms(%#lx), \" \", vma_segment_kind(%#lx), \" \","
		" vma_module(%#lx) == vma_name(%#lx))\n"
		"  printf(\"%%x %%x %%d %%s [%%s] [%%s] [%%s]\\n\", vma_start(%#lx),"
		" vma_end(%#lx), vma_offset(%#lx), vma_perms(%#lx),"
		" vma_name(%#lx), vma_segment_kind(%#lx), vma_module(%#lx))\n"
		"  println(vma_mapped(%#lx), vma_mapped(%#lx))\n"
		"  try { vma_start(%#lx) } catch (e) { println(e) }\n"
		"}\n", fn, fn, fn, fn, edge, edge, edge, edge, edge, edge, edge,
		edge, edge + 3, edge + 3);
	want = expect_fmt("r-xp text 1\n%lx %lx 0 rw-p [] [-] []\n10\n"
			  "no VMA at %#lx\n", lo, hi, edge + 3);
	check(fx, tid, "vma_* of a text page and an anonymous page", script,
	      want);
	free(script);
	free(want);
}

/* stap has no way to time a builtin; this is how the numbers in
 * docs/functions.md were taken. */
static void bench(struct fixture *fx, pid_t tid, const char *what,
		  const char *call)
{
	char script[512];
	struct timespec a, b;
	long errors;
	char *out;
	double ns;

	snprintf(script, sizeof(script), "probe begin { for (i = 0; i < %ld;"
		 " i++) x = %s }\n", fx->bench, call);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	out = run_script(fx, script, tid, &errors);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	free(out);
	ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) /
	     (double)fx->bench;
	tap_diag("%-28s %8.0f ns/call (CPU, %ld calls%s)", what, ns,
		 fx->bench, errors ? ", errors" : "");
}

static void benchmarks(struct fixture *fx, pid_t tid)
{
	char call[128];

	snprintf(call, sizeof(call), "usymname(%#lx)",
		 (unsigned long)(uintptr_t)t_user_func);
	bench(fx, tid, "usymname (function)", call);
	snprintf(call, sizeof(call), "usymdata(%#lx)",
		 (unsigned long)(uintptr_t)t_user_data);
	bench(fx, tid, "usymdata (data)", call);
	snprintf(call, sizeof(call), "umodname(%#lx)",
		 (unsigned long)(uintptr_t)t_user_func);
	bench(fx, tid, "umodname", call);
	snprintf(call, sizeof(call), "user_string(%#lx)",
		 (unsigned long)(uintptr_t)t_string);
	bench(fx, tid, "user_string (20 bytes)", call);
	snprintf(call, sizeof(call), "user_long(%#lx)",
		 (unsigned long)(uintptr_t)t_pattern);
	bench(fx, tid, "user_long", call);
	bench(fx, tid, "register(\"rip\")", "register(\"rip\")");
	snprintf(call, sizeof(call), "vma_perms(%#lx)",
		 (unsigned long)(uintptr_t)t_user_func);
	bench(fx, tid, "vma_perms", call);
	bench(fx, tid, "empty loop (baseline)", "0");
}

static void on_ready(pid_t pid, pid_t tid, enum maptap_ready_why why,
		     void *arg)
{
	struct fixture *fx = arg;

	if (pid != fx->child || why != MAPTAP_READY_ATTACH || fx->ran)
		return;
	fx->ran = true;
	test_symbols(fx, tid);
	test_strings(fx, tid);
	test_buffers(fx, tid);
	test_utf(fx, tid);
	test_readers(fx, tid);
	test_regs(fx, tid);
	test_vma(fx, tid);
	if (fx->bench > 0)
		benchmarks(fx, tid);
}

/* Two pages, the second unmapped: "...abc" ends the first, no NUL. */
static char *make_edge(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + page, page);
	memcpy(p + page - 3, "abc", 3);
	return p + page - 3;
}

int main(int argc, char **argv)
{
	struct maptap_session_opts so;
	struct fixture fx;
	int status, rc;

	memset(&fx, 0, sizeof(fx));
	if (argc > 2 && !strcmp(argv[1], "-b"))
		fx.bench = atol(argv[2]);
	fx.edge = make_edge();
	if (!fx.edge || maptap_modules_new(NULL, &fx.mods) < 0)
		return 99;
	fx.child = fork();
	if (fx.child == 0) {
		for (;;)
			pause();
	}
	memset(&so, 0, sizeof(so));
	so.on_event = on_event;
	so.on_ready = on_ready;
	so.arg = &fx;
	if (maptap_session_new(&so, &fx.sess) < 0)
		return 99;
	rc = maptap_session_attach(fx.sess, fx.child);
	if (rc < 0) {
		tap_skip("cannot attach: %s", maptap_session_errmsg(fx.sess));
	} else {
		tap_ok(fx.ran, "on_ready ran the checks");
	}
	maptap_session_free(fx.sess);
	kill(fx.child, SIGKILL);
	waitpid(fx.child, &status, 0);
	maptap_modules_free(fx.mods);
	return tap_done();
}
