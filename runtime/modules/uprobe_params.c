/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uprobe_params.c -- the parameters of the function at an address, by
 * name and C type, from the module's DWARF (maptap_uprobe_dwarf_params()
 * in maptap/uprobe.h), for listing probe points (maptap -L).
 *
 * The DWARF is found as libdwfl finds it for an ELF file on disk: in
 * the file, or a separate debug file by build-id or debuglink
 * (dwfl_standard_find_debuginfo()).  Types are spelled as stap -L spells
 * them: "int", "char*", "struct foo*", "char const*", a typedef by its
 * name.
 */
#include <config.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/uprobe.h>

/* DIE's type (its DW_AT_type) spelled into BUF (LEN bytes). */
static void type_name(Dwarf_Die *die, char *buf, size_t len, int depth)
{
	Dwarf_Attribute at;
	Dwarf_Die t;
	const char *name, *kw = "";
	char inner[256];

	if (!dwarf_attr_integrate(die, DW_AT_type, &at) ||
	    !dwarf_formref_die(&at, &t)) {
		snprintf(buf, len, "void");
		return;
	}
	if (depth > 8) {
		snprintf(buf, len, "?");
		return;
	}
	name = dwarf_diename(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		type_name(&t, inner, sizeof(inner), depth + 1);
		snprintf(buf, len, "%.200s%s", inner,
			 dwarf_tag(&t) == DW_TAG_pointer_type ? "*" :
			 dwarf_tag(&t) == DW_TAG_reference_type ? "&" : "&&");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		type_name(&t, inner, sizeof(inner), depth + 1);
		snprintf(buf, len, "%.200s %s", inner,
			 dwarf_tag(&t) == DW_TAG_const_type ? "const" :
			 "volatile");
		return;
	case DW_TAG_array_type:
		type_name(&t, inner, sizeof(inner), depth + 1);
		snprintf(buf, len, "%.200s[]", inner);
		return;
	case DW_TAG_structure_type:
		kw = "struct ";
		break;
	case DW_TAG_union_type:
		kw = "union ";
		break;
	case DW_TAG_enumeration_type:
		kw = "enum ";
		break;
	case DW_TAG_class_type:
		kw = "class ";
		break;
	case DW_TAG_subroutine_type:
		snprintf(buf, len, "func");
		return;
	default:
		break;
	}
	snprintf(buf, len, "%s%.200s", kw, name ? name : "{...}");
}

struct params {
	int (*fn)(const char *name, const char *type, void *arg);
	void *arg;
	int calls;
};

/* The formal parameters of FUNC (a subprogram or an inlined instance,
 * whose abstract origin has the names and types). */
static int list_params(Dwarf_Die *func, struct params *p)
{
	Dwarf_Die child, origin;
	char type[256];
	int rc;

	if (dwarf_child(func, &child) != 0)
		return 0;
	do {
		Dwarf_Attribute at;
		Dwarf_Die *d = &child;
		const char *name;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		if (dwarf_attr(&child, DW_AT_abstract_origin, &at) &&
		    dwarf_formref_die(&at, &origin))
			d = &origin;
		name = dwarf_diename(d);
		if (!name)
			continue;
		type_name(d, type, sizeof(type), 0);
		p->calls++;
		rc = p->fn(name, type, p->arg);
		if (rc)
			return rc;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int maptap_uprobe_dwarf_params(const char *path, uint64_t vaddr,
			       int (*fn)(const char *name, const char *type,
					 void *arg),
			       void *arg)
{
	static const Dwfl_Callbacks cb = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	struct params p = { fn, arg, 0 };
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias = 0, mbias = 0;
	Dwfl_Module *m;
	Dwfl *dwfl;
	int n, i, rc = -ENODATA;

	dwfl = dwfl_begin(&cb);
	if (!dwfl)
		return -ENOMEM;
	m = dwfl_report_offline(dwfl, "", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!m || !dwfl_module_getdwarf(m, &mbias)) {
		dwfl_end(dwfl);
		return m ? -ENODATA : -ENOENT;
	}
	cu = dwfl_module_addrdie(m, vaddr + mbias, &bias);
	n = cu ? dwarf_getscopes(cu, vaddr + mbias - bias, &scopes) : 0;
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram ||
		    tag == DW_TAG_inlined_subroutine) {
			rc = list_params(&scopes[i], &p);
			break;
		}
	}
	free(scopes);
	dwfl_end(dwfl);
	return rc ? rc : p.calls;
}
