/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe_process.c -- pass 2's probe points on traced processes
 * (docs/probes.md): process("PATH").begin/.end/.thread.*, the
 * .syscall and maptap.vma/proc/module families, and breakpoint probes,
 * process(..).function(..), .statement(..), .mark(..), .plt(..), with
 * the files and functions they name found through DWARF, the symbol
 * tables and DT_NEEDED.  Split from elaborate.c as stap keeps these
 * families in tapset-utrace.cxx and tapsets.cxx, apart from
 * elaborate.cxx's resolution; the code is as it was there.
 */
#include <config.h>

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <maptap/syscalls.h>
#include <maptap/uprobe.h>

#include "elab_int.h"
#include "sdt_points.h"

static const char *const vma_kinds[] = {
	"map", "unmap", "protect", "replace", "move", "rename", "grow",
	"shrink",
};
static const char *const proc_kinds[] = {
	"attach", "exec", "fork", "clone", "exit", "detach",
};

/* ---- breakpoint probes: process(..).function(..), .statement(..) ---- */

/* The file process("NAME") or .library("NAME") means.  A name with '/'
 * is taken as it is; a bare name is searched, as stap does, in PATH
 * (executables) and the dynamic linker's default directories
 * (libraries; LD_LIBRARY_PATH first), a name with ".so" in it libraries
 * first.  Returns a realpath, or NULL. */
static const char *resolve_file(struct tr_session *s, const char *name)
{
	static const char *const libdirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
		"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
	};
	const char *ld = getenv("LD_LIBRARY_PATH"), *p;
	char real[PATH_MAX];
	const char *exe;
	size_t i;

	if (strchr(name, '/'))
		return realpath(name, real) ? arena_strdup(&s->arena, real) :
		       NULL;
	if (!strstr(name, ".so")) {
		exe = tr_resolve_exe(s, name);
		if (exe != name)
			return exe;
	}
	for (p = ld ? ld : ""; *p; ) {
		size_t len = strcspn(p, ":");
		const char *cand = arena_printf(&s->arena, "%.*s/%s",
						(int)len, p, name);

		if (len && realpath(cand, real))
			return arena_strdup(&s->arena, real);
		p += len + (p[len] == ':');
	}
	for (i = 0; i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
		const char *cand = arena_printf(&s->arena, "%s/%s",
						libdirs[i], name);

		if (realpath(cand, real))
			return arena_strdup(&s->arena, real);
	}
	exe = tr_resolve_exe(s, name);
	return exe != name ? exe : NULL;
}

/* The executable of the target: -x PID's, or -c's first word. */
static const char *target_exe(struct tr_session *s, int64_t pid)
{
	const struct tr_options *o = s->opts;
	char path[64], buf[PATH_MAX];
	ssize_t n;

	if (!pid && o)
		pid = o->target_pid;
	if (pid) {
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		n = readlink(path, buf, sizeof(buf) - 1);
		if (n <= 0)
			return NULL;
		buf[n] = '\0';
		return arena_strdup(&s->arena, buf);
	}
	if (o && o->target_cmd) {
		size_t len = strcspn(o->target_cmd, " \t");
		const char *w = arena_printf(&s->arena, "%.*s", (int)len,
					     o->target_cmd);

		return resolve_file(s, w);
	}
	return NULL;
}

struct up_ctx {
	struct elab *e;
	const struct tr_probe_point *pp;
	struct ptr_vec *out;
	const char *qual;		/* process("..")[.library("..")] */
	const char *module;
	uint64_t ino;
	const char *proc_path;
	bool ret;
	bool call;			/* .call: at the entry, no prologue
					 * skipped */
	uint64_t *seen;			/* entries DWARF gave */
	size_t nseen, cap;
	struct ptr_vec ifuncs;		/* the module's IFUNC symbols */
};

static struct tr_dprobe *push_uprobe(struct up_ctx *c, const char *name,
				     uint64_t vaddr)
{
	struct tr_dprobe *dp = tr_push_point(c->e, c->pp, PK_UPROBE, name,
					  c->out);

	dp->up_module = c->module;
	dp->up_ino = c->ino;
	dp->up_vaddr = vaddr;
	dp->up_body = vaddr;
	dp->is_return = c->ret;
	dp->proc_path = c->proc_path;
	return dp;
}

static int up_dwarf(const struct maptap_uprobe_func *f, void *arg)
{
	struct up_ctx *c = arg;
	struct tr_dprobe *dp;
	const char *where = "", *suffix;

	if (c->nseen == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		uint64_t *v = realloc(c->seen, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->seen = v;
		c->cap = cap;
	}
	c->seen[c->nseen++] = f->entry;
	if (f->file)
		where = arena_printf(&c->e->s->arena, "@%s:%d", f->file,
				     f->line);
	suffix = c->ret ? ".return" : c->call ? ".call" :
		 f->inlined ? ".inline" : "";
	dp = push_uprobe(c, arena_printf(&c->e->s->arena,
			 "%s.function(\"%s%s\")%s", c->qual, f->name, where,
			 suffix),
			 c->ret || c->call ? f->entry : f->body);
	dp->up_func = arena_strdup(&c->e->s->arena, f->name);
	dp->up_body = f->body;
	return 0;
}

static int up_function(const char *name, uint64_t vaddr, uint64_t size,
		       void *arg)
{
	struct up_ctx *c = arg;
	struct tr_dprobe *dp;
	const char *pp_name;
	size_t i;

	(void)size;
	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == vaddr)
			return 0;	/* DWARF named it */
	pp_name = arena_printf(&c->e->s->arena, "%s.function(\"%s\")%s",
			       c->qual, name, c->ret ? ".return" : "");
	dp = push_uprobe(c, pp_name, vaddr);
	dp->up_func = arena_strdup(&c->e->s->arena, name);
	for (i = 0; i < (size_t)c->ifuncs.n; i++) {
		const struct maptap_uprobe_ifunc *f = c->ifuncs.v[i];

		if (f->resolver == vaddr)
			dp->up_ifunc = f;
	}
	return 0;
}

/* The module's IFUNC symbols, kept for its probes (docs/probes.md). */
static int up_ifunc(const struct maptap_uprobe_ifunc *f, void *arg)
{
	struct up_ctx *c = arg;
	struct maptap_uprobe_ifunc *k = arena_alloc(&c->e->s->arena,
						    sizeof(*k));

	*k = *f;
	k->name = arena_strdup(&c->e->s->arena, f->name ? f->name : "");
	vec_push(&c->e->s->arena, &c->ifuncs, k);
	return 0;
}

/* The functions NAME ("NAME@FILE[:LINE]") of U's module, for each of
 * the tails the probe point's components from AT match: none, .return,
 * .call, .inline.  From DWARF when the module has it (entry probes after
 * the prologue, .call and .return at the entry, .inline at each inlined
 * instance), and from the ELF symbol table for the functions DWARF does
 * not describe (at the symbol), unless a FILE or .inline asks for
 * DWARF. */
static void match_functions(struct up_ctx *u, const char *spec, int at)
{
	static const char *const tails[][1] = {
		{ "" }, { "return" }, { "call" }, { "inline" },
	};
	const struct tr_probe_point *pp = u->pp;
	char *name = arena_strdup(&u->e->s->arena, spec), *file, *colon;
	int line = 0, k;

	file = strchr(name, '@');
	if (file) {
		*file++ = '\0';
		colon = strrchr(file, ':');
		if (colon) {
			*colon = '\0';
			line = atoi(colon + 1);
		}
	}
	u->ifuncs.n = 0;
	if (!file)
		maptap_uprobe_ifuncs(u->module, up_ifunc, u);
	for (k = 0; k < 4; k++) {
		if (!tr_tail_matches(pp, at, tails[k], k ? 1 : 0))
			continue;
		u->ret = k == 1;
		u->call = k == 2;
		u->nseen = 0;
		maptap_uprobe_dwarf_functions(u->module, name, file, line,
					      k == 3 ? MAPTAP_UPROBE_INLINE : 0,
					      up_dwarf, u);
		if (!file && k != 3)
			maptap_uprobe_functions(u->module, name, up_function,
						u);
	}
	free(u->seen);
	u->seen = NULL;
	u->nseen = u->cap = 0;
}

static void up_mark(void *arg, const char *name, uint64_t pc,
		    const struct tr_sdt *m)
{
	struct tr_dprobe *dp = push_uprobe(arg, name, pc);

	dp->up_func = "";
	dp->sdt = m;
}

static int up_plt(const char *name, uint64_t vaddr, uint64_t size,
		  void *arg)
{
	struct up_ctx *c = arg;
	struct tr_dprobe *dp;

	(void)size;
	dp = push_uprobe(c, arena_printf(&c->e->s->arena,
			 "%s.plt(\"%s\")%s", c->qual, name,
			 c->ret ? ".return" : ""), vaddr);
	dp->up_func = arena_strdup(&c->e->s->arena, name);
	dp->up_plt = true;
	return 0;
}

static int up_line(uint64_t vaddr, const char *file, int line, void *arg)
{
	struct up_ctx *c = arg;
	struct tr_dprobe *dp;

	dp = push_uprobe(c, arena_printf(&c->e->s->arena,
			 "%s.statement(\"*@%s:%d\")", c->qual, file, line),
			 vaddr);
	dp->up_func = "";
	return 0;
}

/* The rest of the probe point, from component AT, in U's module:
 * function("NAME")..., plt[("NAME")][.return], statement(ADDR)... */
static void match_in_module(struct up_ctx *u, int at)
{
	static const char *const ret[] = { "return" };
	static const char *const abs_[] = { "absolute" };
	const struct tr_probe_point *pp = u->pp;
	const struct tr_component *c;
	struct elab *e = u->e;
	struct stat st;

	if (at >= pp->comps.n)
		return;
	c = pp->comps.v[at];
	u->ino = stat(u->module, &st) == 0 ? (uint64_t)st.st_ino : 0;
	if (!strcmp(c->name, "function") && c->arg && c->arg->kind == N_STR) {
		match_functions(u, c->arg->str, at + 1);
		return;
	}
	if (tr_sdt_match(e->s, pp, at, u->module, u->qual, up_mark, u))
		return;
	if (!strcmp(c->name, "plt") && (!c->arg || c->arg->kind == N_STR)) {
		for (u->ret = false; ; u->ret = true) {
			if (tr_tail_matches(pp, at + 1, ret, u->ret))
				maptap_uprobe_plt(u->module, c->arg ?
						  c->arg->str : "*", up_plt, u);
			if (u->ret)
				break;
		}
		u->ret = false;
		return;
	}
	if (!strcmp(c->name, "statement") && c->arg &&
	    c->arg->kind == N_STR && tr_tail_matches(pp, at + 1, ret, 0)) {
		/* "*@FILE:LINE" (the function part is not checked) */
		const char *spec = strchr(c->arg->str, '@');
		const char *colon = spec ? strrchr(spec, ':') : NULL;

		if (!colon || colon[1] < '0' || colon[1] > '9')
			return;
		maptap_uprobe_dwarf_lines(u->module, arena_printf(&e->s->arena,
					  "%.*s", (int)(colon - spec - 1),
					  spec + 1), atoi(colon + 1), up_line,
					  u);
		return;
	}
	if (!strcmp(c->name, "statement") && c->arg && c->arg->kind == N_NUM) {
		struct tr_dprobe *dp;
		bool absolute = tr_tail_matches(pp, at + 1, abs_, 1);

		if (!absolute && !tr_tail_matches(pp, at + 1, ret, 0))
			return;
		dp = push_uprobe(u, arena_printf(&e->s->arena,
				 "%s.statement(0x%" PRIx64 ")%s", u->qual,
				 (uint64_t)c->arg->num,
				 absolute ? ".absolute" : ""),
				 (uint64_t)c->arg->num);
		dp->up_abs = absolute;
		dp->up_func = "";
	}
}

struct needed {
	struct tr_session *s;
	struct ptr_vec *libs;
};

static int add_needed(const char *name, void *arg)
{
	struct needed *n = arg;
	const char *lib = resolve_file(n->s, name);
	int i;

	if (!lib)
		return 0;
	for (i = 0; i < n->libs->n; i++)
		if (!strcmp(n->libs->v[i], lib))
			return 0;
	if (n->libs->n < 512)
		vec_push(&n->s->arena, n->libs, (void *)lib);
	return 0;
}

/* Into LIBS: the libraries EXE needs, and theirs, breadth first. */
static void needed_closure(struct tr_session *s, const char *exe,
			   struct ptr_vec *libs)
{
	struct needed n = { s, libs };
	int i;

	maptap_uprobe_needed(exe, add_needed, &n);
	for (i = 0; i < libs->n; i++)
		maptap_uprobe_needed(libs->v[i], add_needed, &n);
}

/* process[("PATH")|(PID)][.library("LIB")].function("NAME")[.return],
 * process[..].statement(ADDR)[.absolute], process[..][.library(..)].plt
 * [("NAME")][.return]: each function, PLT entry or statement a probe of
 * its own (docs/probes.md). */
static void match_uprobe(struct elab *e, const struct tr_probe_point *pp,
			 const char *path, int64_t pid, struct ptr_vec *out)
{
	const struct tr_component *c;
	struct up_ctx u = { e, pp, out, NULL, NULL, 0, NULL, false, false,
			    NULL, 0, 0, { 0 } };
	const char *exe, *direct;
	struct ptr_vec libs = { 0 };
	int i;

	exe = path ? resolve_file(e->s, path) : target_exe(e->s, pid);
	if (!exe)
		return;
	u.qual = arena_printf(&e->s->arena, "process(\"%s\")", exe);
	u.module = exe;
	c = pp->comps.v[1];
	if (strcmp(c->name, "library") || !c->arg || c->arg->kind != N_STR ||
	    pp->comps.n < 3) {
		match_in_module(&u, 1);
		return;
	}
	/* .library("LIB"): the libraries PATH loads (DT_NEEDED, searched
	 * as the dynamic linker's defaults), by path or base name; a name
	 * without a wildcard is also searched directly (a dlopen'ed one). */
	needed_closure(e->s, exe, &libs);
	if (!tr_has_glob(c->arg->str)) {
		const char *lib = resolve_file(e->s, c->arg->str);

		if (lib)
			vec_push(&e->s->arena, &libs, (void *)lib);
	}
	direct = tr_has_glob(c->arg->str) ? NULL : resolve_file(e->s, c->arg->str);
	for (i = 0; i < libs.n; i++) {
		const char *lib = libs.v[i], *base = strrchr(lib, '/');
		int k;

		if (fnmatch(c->arg->str, lib, 0) != 0 &&
		    fnmatch(c->arg->str, base ? base + 1 : lib, 0) != 0 &&
		    (!direct || strcmp(direct, lib)))
			continue;
		for (k = 0; k < i && strcmp(libs.v[k], lib); k++)
			;
		if (k < i)
			continue;	/* twice in the list */
		u.module = lib;
		u.proc_path = exe;
		u.qual = arena_printf(&e->s->arena,
				      "process(\"%s\").library(\"%s\")", exe,
				      lib);
		match_in_module(&u, 2);
	}
}

static void set_all_syscalls(struct tr_dprobe *dp)
{
	dp->all_syscalls = true;
	memset(dp->syscalls, 0xff, sizeof(dp->syscalls));
}

/* process[("PATH")|(PID)].begin|end|thread.begin|thread.end|
 * syscall[.return] */
void tr_match_process(struct elab *e, const struct tr_probe_point *pp,
		      struct ptr_vec *out)
{
	static const struct {
		const char *names[2];
		int n;
		enum probe_kind kind;
		int point;
	} pts[] = {
		{ { "begin" }, 1, PK_PROCESS, TR_PROC_BEGIN },
		{ { "end" }, 1, PK_PROCESS, TR_PROC_END },
		{ { "thread", "begin" }, 2, PK_PROCESS, TR_THREAD_BEGIN },
		{ { "thread", "end" }, 2, PK_PROCESS, TR_THREAD_END },
		{ { "syscall" }, 1, PK_SYSCALL, 0 },
		{ { "syscall", "return" }, 2, PK_SYSCALL, 1 },
	};
	const struct tr_component *c0 = pp->comps.v[0];
	const char *qual = "process", *path = NULL;
	int64_t pid = 0;
	size_t i;

	if (!tr_glob_match(c0->name, "process"))
		return;
	if (c0->arg && c0->arg->kind == N_NUM) {
		pid = c0->arg->num;
		if (pid < 2) {
			tr_sema_error(e->s, c0->tok, "process pid must be "
				      "greater than 1");
			return;
		}
		qual = arena_printf(&e->s->arena, "process(%" PRId64 ")", pid);
	} else if (c0->arg) {
		path = tr_resolve_exe(e->s, c0->arg->str);
		qual = arena_printf(&e->s->arena, "process(\"%s\")", path);
	}
	for (i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		struct tr_dprobe *dp;
		const char *name;

		if (!tr_tail_matches(pp, 1, pts[i].names, pts[i].n))
			continue;
		name = arena_printf(&e->s->arena, "%s.%s%s%s", qual,
				    pts[i].names[0], pts[i].n > 1 ? "." : "",
				    pts[i].n > 1 ? pts[i].names[1] : "");
		dp = tr_push_point(e, pp, pts[i].kind, name, out);
		dp->proc_path = path;
		dp->proc_pid = pid;
		if (pts[i].kind == PK_PROCESS) {
			dp->proc_point = (enum tr_proc_point)pts[i].point;
		} else {
			dp->is_return = pts[i].point;
			set_all_syscalls(dp);
		}
	}
	match_uprobe(e, pp, c0->arg && c0->arg->kind == N_STR ?
		     c0->arg->str : NULL, pid, out);
}

/* maptap.syscall("NAME-GLOB"|NR)[.return]: the calls of the native
 * table whose name matches; "*" also takes the numbers it does not
 * know. */
static void match_syscall(struct elab *e, const struct tr_probe_point *pp,
			  struct ptr_vec *out)
{
	static const char *const ret[] = { "return" };
	const struct tr_component *c = pp->comps.v[1];
	const struct maptap_syscall *tab;
	struct tr_dprobe dp0 = { 0 }, *dp;
	unsigned n, i;
	bool any = false;
	int r;

	if (!c->arg || !tr_glob_match(c->name, "syscall"))
		return;
	tab = maptap_syscall_table(maptap_syscall_native_arch(), &n);
	for (i = 0; i < n; i++) {
		bool hit = c->arg->kind == N_NUM ? tab[i].nr == c->arg->num :
			   tr_glob_match(c->arg->str, tab[i].name);

		if (hit && tab[i].nr >= 0 &&
		    tab[i].nr < MAPTAP_SYSCALL_SET_BITS) {
			dp0.syscalls[tab[i].nr / 64] |=
				1ull << (tab[i].nr % 64);
			any = true;
		}
	}
	if (c->arg->kind == N_NUM && c->arg->num >= 0 &&
	    c->arg->num < MAPTAP_SYSCALL_SET_BITS) {
		dp0.syscalls[c->arg->num / 64] |= 1ull << (c->arg->num % 64);
		any = true;
	}
	if (c->arg->kind == N_STR && !strcmp(c->arg->str, "*")) {
		set_all_syscalls(&dp0);
		any = true;
	}
	if (!any)
		return;
	for (r = 0; r < 2; r++) {
		if (!tr_tail_matches(pp, 2, ret, r))
			continue;
		dp = tr_push_point(e, pp, PK_SYSCALL, tr_pp_name(e->s, pp), out);
		dp->is_return = r;
		dp->all_syscalls = dp0.all_syscalls;
		memcpy(dp->syscalls, dp0.syscalls, sizeof(dp->syscalls));
	}
}

static void push_event(struct elab *e, const struct tr_probe_point *pp,
		       const char *name, uint32_t events, struct ptr_vec *out)
{
	struct tr_dprobe *dp = tr_push_point(e, pp, PK_EVENT, name, out);

	dp->events = events;
}

/* maptap.vma.KIND, maptap.module.load|unload, maptap.process.KIND,
 * maptap.event, maptap.syscall(..): one probe per concrete point a
 * wildcard matches, so pp() names the point that fired. */
void tr_match_maptap(struct elab *e, const struct tr_probe_point *pp,
		     struct ptr_vec *out)
{
	static const char *const mod[] = { "load", "unload" };
	const struct tr_component *c0 = pp->comps.v[0];
	const char *w[2];
	size_t i;

	if (c0->arg || !tr_glob_match(c0->name, "maptap"))
		return;
	match_syscall(e, pp, out);
	w[0] = "event";
	if (tr_tail_matches(pp, 1, w, 1))
		push_event(e, pp, "maptap.event", TR_EV_ALL, out);
	for (i = 0; i < sizeof(vma_kinds) / sizeof(vma_kinds[0]); i++) {
		w[0] = "vma";
		w[1] = vma_kinds[i];
		if (tr_tail_matches(pp, 1, w, 2))
			push_event(e, pp, arena_printf(&e->s->arena,
				   "maptap.vma.%s", w[1]), 1u << i, out);
	}
	for (i = 0; i < 2; i++) {
		w[0] = "module";
		w[1] = mod[i];
		if (tr_tail_matches(pp, 1, w, 2))
			push_event(e, pp, arena_printf(&e->s->arena,
				   "maptap.module.%s", w[1]),
				   i ? TR_EV_MODULE_UNLOAD : TR_EV_MODULE_LOAD,
				   out);
	}
	for (i = 0; i < sizeof(proc_kinds) / sizeof(proc_kinds[0]); i++) {
		w[0] = "process";
		w[1] = proc_kinds[i];
		if (tr_tail_matches(pp, 1, w, 2))
			push_event(e, pp, arena_printf(&e->s->arena,
				   "maptap.process.%s", w[1]),
				   1u << (MAPTAP_EV_ATTACH + i), out);
	}
}
