/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump.c -- print parse trees back as SystemTap source (-p1, -p2).
 *
 * Like stap's printer, operands of binary operators are parenthesized so
 * the printed form shows how the parser grouped them.
 */
#include <config.h>

#include <inttypes.h>
#include <string.h>

#include "elaborate.h"

const char *tr_type_name(enum tr_type t)
{
	switch (t) {
	case TY_LONG: return "long";
	case TY_STRING: return "string";
	case TY_STATS: return "stats";
	case TY_UNKNOWN: break;
	}
	return "unknown";
}

static const char *const op_names[OP_COUNT] = {
	[OP_NONE] = "",
	[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
	[OP_MOD] = "%", [OP_SHL] = "<<", [OP_SHR] = ">>", [OP_BAND] = "&",
	[OP_BOR] = "|", [OP_BXOR] = "^", [OP_CAT] = ".",
	[OP_LAND] = "&&", [OP_LOR] = "||",
	[OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=",
	[OP_GT] = ">", [OP_GE] = ">=",
	[OP_MATCH] = "=~", [OP_NOMATCH] = "!~",
	[OP_NEG] = "-", [OP_PLUS] = "+", [OP_NOT] = "!", [OP_BNOT] = "~",
	[OP_ADDR] = "&",
	[OP_INC] = "++", [OP_DEC] = "--",
	[OP_ASSIGN] = "=", [OP_ADD_ASSIGN] = "+=", [OP_SUB_ASSIGN] = "-=",
	[OP_MUL_ASSIGN] = "*=", [OP_DIV_ASSIGN] = "/=",
	[OP_MOD_ASSIGN] = "%=", [OP_SHL_ASSIGN] = "<<=",
	[OP_SHR_ASSIGN] = ">>=", [OP_BAND_ASSIGN] = "&=",
	[OP_BOR_ASSIGN] = "|=", [OP_BXOR_ASSIGN] = "^=",
	[OP_CAT_ASSIGN] = ".=",
	[OP_STATS_ADD] = "<<<",
	[OP_MEMBER] = "->", [OP_TARGET_ADDR] = "&",
	[OP_ENTRY_SAVED] = "@entry",
};

const char *tr_op_name(enum tr_op op)
{
	return (unsigned)op < OP_COUNT && op_names[op] ? op_names[op] : "?";
}

static void dump_string(FILE *out, const char *s, size_t n)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		default:
			if (c < 32 || c >= 127)
				fprintf(out, "\\%03o", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

static void dump_list(FILE *out, const struct ptr_vec *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		if (i)
			fputs(", ", out);
		if (v->v[i])
			tr_dump_node(out, v->v[i], 0);
		else
			fputc('*', out);
	}
}

static void indent_to(FILE *out, int indent)
{
	int i;

	for (i = 0; i < indent; i++)
		fputs("  ", out);
}

static void dump_paren(FILE *out, const struct node *n)
{
	fputc('(', out);
	tr_dump_node(out, n, 0);
	fputc(')', out);
}

static void dump_expr(FILE *out, const struct node *n)
{
	switch (n->kind) {
	case N_NUM:
		fprintf(out, "%" PRId64, n->num);
		break;
	case N_STR:
		dump_string(out, n->str, n->slen);
		break;
	case N_VAR:
		fputs(n->str, out);
		break;
	case N_TARGET:
		fputs(n->str, out);
		break;
	case N_INDEX:
		fprintf(out, "%s[", n->str);
		dump_list(out, &n->list);
		fputc(']', out);
		break;
	case N_CALL:
	case N_PRINT:
		fprintf(out, "%s(", n->str);
		dump_list(out, &n->list);
		fputc(')', out);
		break;
	case N_BINARY:
	case N_LOGIC:
	case N_CMP:
	case N_REGEX:
	case N_ASSIGN:
	case N_STATS_ADD:
		dump_paren(out, n->a);
		fprintf(out, " %s ", tr_op_name(n->op));
		dump_paren(out, n->b);
		break;
	case N_UNARY:
	case N_PRE:
		fputs(tr_op_name(n->op), out);
		dump_paren(out, n->a);
		break;
	case N_POST:
		dump_paren(out, n->a);
		fputs(tr_op_name(n->op), out);
		break;
	case N_TERNARY:
		dump_paren(out, n->a);
		fputs(" ? ", out);
		dump_paren(out, n->b);
		fputs(" : ", out);
		dump_paren(out, n->c);
		break;
	case N_IN:
		fputc('[', out);
		dump_list(out, &n->list);
		fprintf(out, "] in %s", n->a->str);
		break;
	case N_STATOP:
	case N_HIST:
		fprintf(out, "%s(", n->str);
		tr_dump_node(out, n->a, 0);
		if (n->b) {
			fputs(", ", out);
			tr_dump_node(out, n->b, 0);
		}
		if (n->list.n) {
			fputs(", ", out);
			dump_list(out, &n->list);
		}
		fputc(')', out);
		break;
	case N_HIST_BUCKET:
		tr_dump_node(out, n->a, 0);
		fputc('[', out);
		tr_dump_node(out, n->b, 0);
		fputc(']', out);
		break;
	case N_DEFINED:
	case N_ENTRY:
		fputs(n->kind == N_DEFINED ? "@defined(" : "@entry(", out);
		tr_dump_node(out, n->a, 0);
		fputc(')', out);
		break;
	case N_EMBEDDED_EXPR:
		fprintf(out, "%%{%s%%}", n->str);
		break;
	default:
		fputs("<?>", out);
	}
}

static void dump_foreach(FILE *out, const struct node *n, int indent)
{
	const struct foreach_info *fe = n->fe;
	int i;

	fputs("foreach (", out);
	if (fe->value) {
		fputs(fe->value->str, out);
		if (fe->sort_col == -1 && fe->value)
			fputc(fe->sort_dir > 0 ? '+' : '-', out);
		fputs(" = ", out);
	}
	fputc('[', out);
	for (i = 0; i < fe->keys.n; i++) {
		const struct node *k = fe->keys.v[i];

		fprintf(out, "%s%s", i ? ", " : "", k->str);
		if (fe->sort_col == i + 1)
			fputc(fe->sort_dir > 0 ? '+' : '-', out);
	}
	fputs("] in ", out);
	tr_dump_node(out, fe->array, 0);
	if (fe->sort_aggr)
		fprintf(out, " %s", fe->sort_aggr_tok->text);
	if (fe->sort_col == -1 && !fe->value)
		fputc(fe->sort_dir > 0 ? '+' : '-', out);
	if (fe->slice.n) {
		fputc('[', out);
		dump_list(out, &fe->slice);
		fputc(']', out);
	}
	if (fe->limit) {
		fputs(" limit ", out);
		tr_dump_node(out, fe->limit, 0);
	}
	fputs(") ", out);
	tr_dump_node(out, fe->body, indent);
}

static void dump_block(FILE *out, const struct node *n, int indent)
{
	int i;

	fputs("{\n", out);
	for (i = 0; i < n->list.n; i++) {
		indent_to(out, indent + 1);
		tr_dump_node(out, n->list.v[i], indent + 1);
		fputc('\n', out);
	}
	indent_to(out, indent);
	fputc('}', out);
}

static void dump_stmt(FILE *out, const struct node *n, int indent)
{
	switch (n->kind) {
	case N_BLOCK:
		dump_block(out, n, indent);
		break;
	case N_EXPR_STMT:
		tr_dump_node(out, n->a, indent);
		break;
	case N_IF:
		fputs("if (", out);
		tr_dump_node(out, n->a, 0);
		fputs(") ", out);
		tr_dump_node(out, n->b, indent);
		if (n->c) {
			fputs(" else ", out);
			tr_dump_node(out, n->c, indent);
		}
		break;
	case N_WHILE:
		fputs("while (", out);
		tr_dump_node(out, n->a, 0);
		fputs(") ", out);
		tr_dump_node(out, n->b, indent);
		break;
	case N_FOR:
		fputs("for (", out);
		if (n->a)
			tr_dump_node(out, n->a, 0);
		fputs("; ", out);
		if (n->b)
			tr_dump_node(out, n->b, 0);
		fputs("; ", out);
		if (n->c)
			tr_dump_node(out, n->c, 0);
		fputs(") ", out);
		tr_dump_node(out, n->d, indent);
		break;
	case N_FOREACH:
		dump_foreach(out, n, indent);
		break;
	case N_BREAK: fputs("break", out); break;
	case N_CONTINUE: fputs("continue", out); break;
	case N_NEXT: fputs("next", out); break;
	case N_NULL: fputc(';', out); break;
	case N_RETURN:
		fputs("return", out);
		if (n->a) {
			fputc(' ', out);
			tr_dump_node(out, n->a, 0);
		}
		break;
	case N_DELETE:
		fputs("delete ", out);
		tr_dump_node(out, n->a, 0);
		break;
	case N_TRY:
		fputs("try ", out);
		tr_dump_node(out, n->a, indent);
		fputs(" catch", out);
		if (n->c)
			fprintf(out, "(%s)", n->c->str);
		fputc(' ', out);
		tr_dump_node(out, n->b, indent);
		break;
	case N_EMBEDDED:
		fprintf(out, "%%{%s%%}", n->str);
		break;
	default:
		dump_expr(out, n);
	}
}

void tr_dump_node(FILE *out, const struct node *n, int indent)
{
	if (n->kind >= N_BLOCK)
		dump_stmt(out, n, indent);
	else
		dump_expr(out, n);
}

void tr_dump_probe_point(FILE *out, const struct tr_probe_point *pp)
{
	int i;

	for (i = 0; i < pp->comps.n; i++) {
		const struct tr_component *c = pp->comps.v[i];

		fprintf(out, "%s%s", i ? "." : "", c->name);
		if (c->arg) {
			fputc('(', out);
			tr_dump_node(out, c->arg, 0);
			fputc(')', out);
		}
	}
	if (pp->sufficient)
		fputc('!', out);
	else if (pp->optional)
		fputc('?', out);
	if (pp->cond) {
		fputs(" if (", out);
		tr_dump_node(out, pp->cond, 0);
		fputc(')', out);
	}
}

static void dump_points(FILE *out, const struct ptr_vec *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		if (i)
			fputs(", ", out);
		tr_dump_probe_point(out, v->v[i]);
	}
}

static void dump_global(FILE *out, const struct tr_sym *g)
{
	fprintf(out, "%sglobal %s", g->is_private ? "private " : "", g->name);
	if (g->maxsize)
		fprintf(out, "[%" PRId64 "]", g->maxsize);
	if (g->wrap)
		fputc('%', out);
	if (g->init) {
		fputs(" = ", out);
		tr_dump_node(out, g->init, 0);
	}
	fputc('\n', out);
}

static void dump_function(FILE *out, const struct tr_func *f)
{
	int i;

	fprintf(out, "%sfunction %s", f->is_private ? "private " : "",
		f->name);
	if (f->ret != TY_UNKNOWN)
		fprintf(out, ":%s", tr_type_name(f->ret));
	fputs(" (", out);
	for (i = 0; i < f->params.n; i++) {
		const struct tr_sym *p = f->params.v[i];

		fprintf(out, "%s%s", i ? ", " : "", p->name);
		if (p->type != TY_UNKNOWN)
			fprintf(out, ":%s", tr_type_name(p->type));
	}
	fputs(") ", out);
	tr_dump_node(out, f->body, 0);
	fputc('\n', out);
}

void tr_dump_file(struct tr_session *s, FILE *out, const struct tr_file *f)
{
	int i;

	(void)s;
	fprintf(out, "# file %s\n", f->src->name);
	for (i = 0; i < f->embedded.n; i++) {
		tr_dump_node(out, f->embedded.v[i], 0);
		fputc('\n', out);
	}
	for (i = 0; i < f->globals.n; i++)
		dump_global(out, f->globals.v[i]);
	for (i = 0; i < f->functions.n; i++)
		dump_function(out, f->functions.v[i]);
	for (i = 0; i < f->aliases.n; i++) {
		const struct tr_probe *a = f->aliases.v[i];

		fputs("probe ", out);
		dump_points(out, &a->alias_names);
		fputs(a->epilogue ? " += " : " = ", out);
		dump_points(out, &a->points);
		fputc(' ', out);
		tr_dump_node(out, a->body, 0);
		if (a->body2) {
			fputs(", ", out);
			tr_dump_node(out, a->body2, 0);
		}
		fputc('\n', out);
	}
	for (i = 0; i < f->probes.n; i++) {
		const struct tr_probe *p = f->probes.v[i];

		fputs("probe ", out);
		dump_points(out, &p->points);
		fputc(' ', out);
		tr_dump_node(out, p->body, 0);
		fputc('\n', out);
	}
}

static void dump_sym_type(FILE *out, const struct tr_sym *sym)
{
	int k;

	fprintf(out, "%s:%s", sym->name, tr_type_name(sym->type));
	if (sym->arity <= 0)
		return;
	fputs(" [", out);
	for (k = 0; k < sym->arity; k++)
		fprintf(out, "%s%s", k ? ", " : "",
			tr_type_name(sym->key_types[k]));
	fputc(']', out);
}

static void dump_locals(FILE *out, const struct ptr_vec *v, int first)
{
	int i;

	if (v->n <= first)
		return;
	fputs("# locals\n", out);
	for (i = first; i < v->n; i++) {
		dump_sym_type(out, v->v[i]);
		fputc('\n', out);
	}
}

void tr_dump_elab(struct tr_session *s, FILE *out)
{
	const struct tr_elab *el = s->elab;
	int i, k;

	fputs("# globals\n", out);
	for (i = 0; i < el->globals.n; i++) {
		const struct tr_sym *g = el->globals.v[i];

		dump_sym_type(out, g);
		if (g->init) {
			fputs(" = ", out);
			tr_dump_node(out, g->init, 0);
		}
		fputc('\n', out);
	}
	fputs("# functions\n", out);
	for (i = 0; i < el->functions.n; i++) {
		const struct tr_func *f = el->functions.v[i];

		fprintf(out, "%s:%s (", f->name, tr_type_name(f->ret));
		for (k = 0; k < f->params.n; k++) {
			if (k)
				fputs(", ", out);
			dump_sym_type(out, f->params.v[k]);
		}
		fputs(")\n", out);
		dump_locals(out, &f->locals, f->params.n);
		tr_dump_node(out, f->body, 0);
		fputc('\n', out);
	}
	fputs("# probes\n", out);
	for (i = 0; i < el->probes.n; i++) {
		const struct tr_dprobe *dp = el->probes.v[i];

		fprintf(out, "%s /* <- %s at %s */\n", dp->name, dp->origin,
			tr_loc_str(s, &dp->tok->loc));
		if (dp->cond) {
			fputs("# condition\n", out);
			tr_dump_node(out, dp->cond, 0);
			fputc('\n', out);
		}
		dump_locals(out, &dp->locals, 0);
		tr_dump_node(out, dp->body, 0);
		fputc('\n', out);
	}
}

static void dump_slot_list(FILE *out, const struct ptr_vec *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		const struct tr_sym *sym = v->v[i];

		fprintf(out, "  slot %d: ", sym->slot);
		dump_sym_type(out, sym);
		fputc('\n', out);
	}
}

void tr_dump_slots(struct tr_session *s, FILE *out)
{
	const struct tr_elab *el = s->elab;
	int i;

	fprintf(out, "# pass 3: %d global slot(s), frames of at most %d "
		"local slot(s)\n", el->globals.n, el->max_locals);
	fputs("globals\n", out);
	for (i = 0; i < el->globals.n; i++) {
		const struct tr_sym *g = el->globals.v[i];

		fprintf(out, "  slot %d: ", g->slot);
		dump_sym_type(out, g);
		if (g->hist_kind == 1)
			fputs(" hist_log", out);
		else if (g->hist_kind == 2)
			fprintf(out, " hist_linear(%" PRId64 ", %" PRId64 ", %"
				PRId64 ")", g->hist_start, g->hist_stop,
				g->hist_interval);
		if (g->maxsize)
			fprintf(out, " max %" PRId64, g->maxsize);
		if (g->wrap)
			fputs(" wrap", out);
		fputc('\n', out);
	}
	for (i = 0; i < el->functions.n; i++) {
		const struct tr_func *f = el->functions.v[i];

		fprintf(out, "function %s\n", f->name);
		dump_slot_list(out, &f->locals);
	}
	for (i = 0; i < el->probes.n; i++) {
		const struct tr_dprobe *dp = el->probes.v[i];

		fprintf(out, "probe %s\n", dp->name);
		dump_slot_list(out, &dp->locals);
	}
}
