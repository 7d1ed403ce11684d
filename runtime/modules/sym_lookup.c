/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sym_lookup.c -- maptap_sym_lookup(): address -> module instance ->
 * that file's symbol index, and demangling on request.
 */
#include <config.h>

#include "module_priv.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Itanium C++ ABI demangler (libstdc++'s libsupc++, cxxabi.h
 * abi::__cxa_demangle) has C linkage; loading it on first use keeps
 * libmaptap free of a C++ runtime for C-only users. */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static void demangler_load(struct maptap_modules *m)
{
	m->cxx_tried = true;
	m->cxx_handle = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (!m->cxx_handle)
		return;
	*(void **)&m->cxa_demangle = dlsym(m->cxx_handle, "__cxa_demangle");
}

void mt_demangler_free(struct maptap_modules *m)
{
	free(m->demangled[0]);
	free(m->demangled[1]);
	free(m->src_path);
	m->demangled[0] = m->demangled[1] = m->src_path = NULL;
	if (m->cxx_handle)
		dlclose(m->cxx_handle);
	m->cxx_handle = NULL;
	m->cxa_demangle = NULL;
}

/* NAME demangled into slot SLOT (valid until the next demangle into
 * it), or NAME itself when it is not a mangled C++ name. */
static const char *demangle(struct maptap_modules *m, const char *name,
			    int slot)
{
	int status = -1;
	char *d;

	if (name[0] != '_' || name[1] != 'Z')
		return name;
	if (!m->cxx_tried)
		demangler_load(m);
	if (!m->cxa_demangle)
		return name;
	d = m->cxa_demangle(name, NULL, NULL, &status);
	if (status != 0 || !d) {
		free(d);
		return name;
	}
	free(m->demangled[slot]);
	m->demangled[slot] = d;
	return d;
}

/* Where ADDR is: as the tracker sees it now, or from the instance's own
 * program headers for a lookup in the past. */
static void fill_where(struct maptap_modules *m, pid_t pid, uint64_t addr,
		       uint64_t time_ns, const struct mt_inst *in,
		       const struct mt_seg *seg, struct maptap_module_desc *d)
{
	uint64_t v = addr - in->bias;
	uint32_t perms = 0;

	if (!time_ns && maptap_modules_find(m, pid, addr, d) == 0)
		return;
	memset(d, 0, sizeof(*d));
	d->has_module = true;
	d->module = in->info;
	if (!seg)
		return;
	if (seg->flags & PF_W)
		perms |= MAPTAP_PERM_W;
	d->has_segment = true;
	mt_elf_seg_describe(seg, mt_elf_seg_kind(&in->file->info, seg, v,
						 v + 1, perms),
			    &d->segment);
}

/* FILE as eu-addr2line prints it: a name the line table gives relative
 * is joined to its CU's DW_AT_comp_dir (DWARF 5, 6.2.4: relative names
 * are relative to the compilation directory).  The joined name is kept
 * until the next lookup. */
static const char *src_path(struct maptap_modules *m, const char *file,
			    const char *comp_dir)
{
	char *p;

	if (file[0] == '/' || !comp_dir || !*comp_dir)
		return file;
	if (asprintf(&p, "%s/%s", comp_dir, file) < 0)
		return file;
	free(m->src_path);
	m->src_path = p;
	return p;
}

static void lookup_syms(struct maptap_modules *m, struct mt_inst *in,
			uint64_t v, unsigned flags, struct maptap_sym_info *out)
{
	struct mt_symtab *t = mt_symtab_get(m, in->file);
	const char *dir;

	if (!t)
		return;
	if ((flags & MAPTAP_SYM_FUNC) &&
	    mt_symtab_lookup(t, true, v, &out->func) == 0) {
		out->func.addr += in->bias;
		if (flags & MAPTAP_SYM_DEMANGLE)
			out->func.name = demangle(m, out->func.name, 0);
	}
	if ((flags & MAPTAP_SYM_DATA) &&
	    mt_symtab_lookup(t, false, v, &out->data) == 0) {
		out->data.addr += in->bias;
		if (flags & MAPTAP_SYM_DEMANGLE)
			out->data.name = demangle(m, out->data.name, 1);
	}
	if ((flags & MAPTAP_SYM_LINE) &&
	    mt_symtab_srcline(t, v, &out->src_file, &dir,
			      &out->src_line) == 0)
		out->src_file = src_path(m, out->src_file, dir);
	else if (flags & MAPTAP_SYM_LINE) {
		out->src_file = NULL;
		out->src_line = 0;
	}
}

/* No module maps ADDR: JIT code the process describes in a perf map. */
static int lookup_jit(struct maptap_modules *m, pid_t pid, uint64_t addr,
		      uint64_t time_ns, unsigned flags,
		      struct maptap_sym_info *out)
{
	struct mt_space *sp = mt_space_find(m, pid);
	struct maptap_sym sym;
	int rc;

	if (!sp)
		return time_ns ? -ENOENT : -ESRCH;
	rc = mt_perfmap_lookup(sp, addr, &out->where.module, &sym);
	if (rc)
		return rc;
	out->where.has_module = true;
	out->module_addr = addr;
	if (!(flags & MAPTAP_SYM_FUNC))
		return 0;
	out->func = sym;
	if (flags & MAPTAP_SYM_DEMANGLE)
		out->func.name = demangle(m, sym.name, 0);
	return 0;
}

int maptap_sym_lookup(struct maptap_modules *m, pid_t pid, uint64_t addr,
		      uint64_t time_ns, unsigned flags,
		      struct maptap_sym_info *out)
{
	const struct mt_seg *seg;
	struct mt_inst *in;

	memset(out, 0, sizeof(*out));
	m->sym_stats.lookups++;
	in = mt_inst_at(m, pid, addr, time_ns, &seg);
	if (!in)
		return lookup_jit(m, pid, addr, time_ns, flags, out);
	fill_where(m, pid, addr, time_ns, in, seg, &out->where);
	out->module_addr = addr - in->bias;
	lookup_syms(m, in, out->module_addr, flags, out);
	return 0;
}

void maptap_sym_get_stats(const struct maptap_modules *m,
			  struct maptap_sym_stats *out)
{
	*out = m->sym_stats;
}
