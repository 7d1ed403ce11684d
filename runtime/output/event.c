/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* event.c -- names of events and their two printed forms: the text log
 * (one event a line) and JSON Lines (schema: docs/json-schema.md).
 */
#include <config.h>

#include <maptap/event.h>
#include <maptap/module.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "../common/json.h"

static const char *const kind_names[MAPTAP_EV_KIND_COUNT] = {
	[MAPTAP_EV_MAP] = "map",
	[MAPTAP_EV_UNMAP] = "unmap",
	[MAPTAP_EV_PROTECT] = "protect",
	[MAPTAP_EV_REPLACE] = "replace",
	[MAPTAP_EV_MOVE] = "move",
	[MAPTAP_EV_RENAME] = "rename",
	[MAPTAP_EV_GROW] = "grow",
	[MAPTAP_EV_SHRINK] = "shrink",
	[MAPTAP_EV_ATTACH] = "attach",
	[MAPTAP_EV_EXEC] = "exec",
	[MAPTAP_EV_FORK] = "fork",
	[MAPTAP_EV_CLONE] = "clone",
	[MAPTAP_EV_EXIT] = "exit",
	[MAPTAP_EV_DETACH] = "detach",
};

const char *maptap_event_kind_name(enum maptap_event_kind kind)
{
	if ((unsigned)kind >= MAPTAP_EV_KIND_COUNT)
		return NULL;
	return kind_names[kind];
}

static int stream_status(FILE *fp)
{
	return ferror(fp) ? -EIO : 0;
}

/* ---- text ---- */

int maptap_event_print_text_header(FILE *fp)
{
	fprintf(fp, "%12s %-13s %-7s %-33s %-4s %-8s %s\n", "TIME",
		"PID/TID", "EVENT", "RANGE", "PERM", "OFFSET",
		"PATH/NAME [SYSCALL]");
	return stream_status(fp);
}

static const char *name_or_anon(const struct maptap_vma *v)
{
	return v->name_len ? v->name : "[anon]";
}

/* " {dyn text}": the module's type and the segment's kind; an anonymous
 * copy of the segment (maptap_module_desc.anon) is "text(anon)", so a
 * reader sees the bytes are not the file's. */
static void text_where(FILE *fp, const struct maptap_module_desc *d)
{
	fprintf(fp, " {%s", maptap_module_type_name(d->module.type));
	if (d->has_segment)
		fprintf(fp, " %s%s", maptap_segment_kind_name(d->segment.kind),
			d->anon ? "(anon)" : "");
	fputc('}', fp);
}

static void text_range(FILE *fp, const struct maptap_event *ev)
{
	const struct maptap_vma *v = &ev->vma, *o = &ev->old;
	char perms[5], old_perms[5];

	maptap_perms_str(v->perms, perms);
	maptap_perms_str(o->perms, old_perms);
	fprintf(fp, "%016" PRIx64 "-%016" PRIx64 " %s %08" PRIx64 " %s",
		v->start, v->end, perms, v->offset, name_or_anon(v));
	switch (ev->kind) {
	case MAPTAP_EV_PROTECT:
		fprintf(fp, " (was %s)", old_perms);
		break;
	case MAPTAP_EV_REPLACE:
		fprintf(fp, " (was %s %08" PRIx64 " %s)", old_perms, o->offset,
			name_or_anon(o));
		break;
	case MAPTAP_EV_RENAME:
		fprintf(fp, " (was %s)", name_or_anon(o));
		break;
	case MAPTAP_EV_MOVE:
	case MAPTAP_EV_GROW:
	case MAPTAP_EV_SHRINK:
		fprintf(fp, " (was %016" PRIx64 "-%016" PRIx64 ")", o->start,
			o->end);
		break;
	default:
		break;
	}
	if (ev->where && ev->where->has_module)
		text_where(fp, ev->where);
}

int maptap_module_event_print_text(FILE *fp,
				   const struct maptap_module_event *me,
				   uint64_t base_ns)
{
	uint64_t t = me->time_ns >= base_ns ? me->time_ns - base_ns : 0;
	const struct maptap_module_info *mi = me->module;
	char who[32];

	snprintf(who, sizeof(who), "%d/%d", (int)me->pid, (int)me->tid);
	/* The event names are JSON's, so text and JSON logs list the same
	 * events under the same names. */
	fprintf(fp, "%5" PRIu64 ".%06" PRIu64 " %-13s %-7s %s bias 0x%" PRIx64
		" %s build-id %s", t / 1000000000, t / 1000 % 1000000,
		who, me->kind == MAPTAP_MODULE_LOAD ? "module_load" :
		"module_unload", mi->path, mi->bias,
		maptap_module_type_name(mi->type),
		mi->build_id ? mi->build_id : "-");
	if (me->syscall)
		fprintf(fp, " [%s]", me->syscall);
	fputc('\n', fp);
	return stream_status(fp);
}

static void text_status(FILE *fp, int status)
{
	if (WIFEXITED(status))
		fprintf(fp, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(fp, "killed by SIG%s%s", sigabbrev_np(WTERMSIG(status)) ?
			sigabbrev_np(WTERMSIG(status)) : "?",
			WCOREDUMP(status) ? " (core dumped)" : "");
	else
		fprintf(fp, "status 0x%x", status);
}

int maptap_event_print_text(FILE *fp, const struct maptap_event *ev,
			    uint64_t base_ns)
{
	uint64_t t = ev->time_ns >= base_ns ? ev->time_ns - base_ns : 0;
	char who[32];

	snprintf(who, sizeof(who), "%d/%d", (int)ev->pid, (int)ev->tid);
	fprintf(fp, "%5" PRIu64 ".%06" PRIu64 " %-13s %-7s ", t / 1000000000,
		t / 1000 % 1000000, who, maptap_event_kind_name(ev->kind));
	switch (ev->kind) {
	case MAPTAP_EV_ATTACH:
		fprintf(fp, "%s", ev->path ? ev->path : "");
		break;
	case MAPTAP_EV_EXEC:
		fprintf(fp, "%s (was %s", ev->path ? ev->path : "",
			ev->old_path ? ev->old_path : "");
		if (ev->former_tid && ev->former_tid != ev->tid)
			fprintf(fp, ", by thread %d", (int)ev->former_tid);
		fputc(')', fp);
		break;
	case MAPTAP_EV_FORK:
		fprintf(fp, "child %d", (int)ev->child);
		break;
	case MAPTAP_EV_CLONE:
		fprintf(fp, ev->thread ? "thread %d" : "process %d (same mm)",
			(int)ev->child);
		break;
	case MAPTAP_EV_EXIT:
		text_status(fp, ev->status);
		break;
	case MAPTAP_EV_DETACH:
		fprintf(fp, "%s", ev->reason ? ev->reason : "");
		break;
	default:
		text_range(fp, ev);
		break;
	}
	if (ev->syscall)
		fprintf(fp, " [%s]", ev->syscall);
	else if (ev->snapshot)
		fputs(" [snapshot]", fp);
	else if (maptap_event_is_range(ev->kind))
		fputs(" [resync]", fp);
	fputc('\n', fp);
	return stream_status(fp);
}

/* ---- JSON ---- */

static void json_cstr(FILE *fp, const char *s)
{
	if (s)
		mt_json_str(fp, s, strlen(s));
	else
		fputs("null", fp);
}

static void json_vma(FILE *fp, const struct maptap_vma *v)
{
	char perms[5], dev[MAPTAP_DEV_STR_MAX];
	bool file = maptap_vma_has_file(v);

	maptap_perms_str(v->perms, perms);
	maptap_dev_str(v->dev_major, v->dev_minor, dev);
	fprintf(fp, "\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64
		"\",\"offset\":\"0x%" PRIx64 "\",\"perms\":\"%s\","
		"\"dev\":\"%s\",\"inode\":%" PRIu64 ",\"path\":",
		v->start, v->end, v->offset, perms, dev, v->inode);
	if (file)
		mt_json_str(fp, v->name, v->name_len);
	else
		fputs("null", fp);
	fputs(",\"name\":", fp);
	if (!file && v->name_len)
		mt_json_str(fp, v->name, v->name_len);
	else
		fputs("null", fp);
}

static void json_where(FILE *fp, const struct maptap_module_desc *d)
{
	const struct maptap_module_info *mi = &d->module;
	const struct maptap_segment_info *si = &d->segment;

	if (!d->has_module)
		return;
	fputs(",\"module\":{\"path\":", fp);
	json_cstr(fp, mi->path);
	fputs(",\"build_id\":", fp);
	json_cstr(fp, mi->build_id);
	fprintf(fp, ",\"bias\":\"0x%" PRIx64 "\",\"type\":\"%s\"}", mi->bias,
		maptap_module_type_name(mi->type));
	if (!d->has_segment)
		return;
	fprintf(fp, ",\"segment\":{\"index\":%d,\"kind\":\"%s\",\"p_vaddr\":"
		"\"0x%" PRIx64 "\",\"p_offset\":\"0x%" PRIx64 "\"%s}", si->index,
		maptap_segment_kind_name(si->kind), si->p_vaddr, si->p_offset,
		d->anon ? ",\"anon\":true" : "");
}

int maptap_module_event_print_json(FILE *fp,
				   const struct maptap_module_event *me)
{
	const struct maptap_module_info *mi = me->module;

	fprintf(fp, "{\"event\":\"%s\",\"pid\":%d,\"tid\":%d,\"time_ns\":%"
		PRIu64 ",\"syscall\":", me->kind == MAPTAP_MODULE_LOAD ?
		"module_load" : "module_unload", (int)me->pid, (int)me->tid,
		me->time_ns);
	json_cstr(fp, me->syscall);
	fputs(",\"path\":", fp);
	json_cstr(fp, mi->path);
	fputs(",\"build_id\":", fp);
	json_cstr(fp, mi->build_id);
	fprintf(fp, ",\"bias\":\"0x%" PRIx64 "\",\"type\":\"%s\"}\n",
		mi->bias, maptap_module_type_name(mi->type));
	return stream_status(fp);
}

int maptap_event_print_json(FILE *fp, const struct maptap_event *ev)
{
	fprintf(fp, "{\"event\":\"%s\",\"pid\":%d,\"tid\":%d,\"time_ns\":%"
		PRIu64 ",\"syscall\":", maptap_event_kind_name(ev->kind),
		(int)ev->pid, (int)ev->tid, ev->time_ns);
	json_cstr(fp, ev->syscall);
	switch (ev->kind) {
	case MAPTAP_EV_ATTACH:
		fputs(",\"exe\":", fp);
		json_cstr(fp, ev->path);
		break;
	case MAPTAP_EV_EXEC:
		fputs(",\"exe\":", fp);
		json_cstr(fp, ev->path);
		fputs(",\"old_exe\":", fp);
		json_cstr(fp, ev->old_path);
		fprintf(fp, ",\"former_tid\":%d", (int)ev->former_tid);
		break;
	case MAPTAP_EV_FORK:
		fprintf(fp, ",\"child\":%d", (int)ev->child);
		break;
	case MAPTAP_EV_CLONE:
		fprintf(fp, ",\"child\":%d,\"thread\":%s", (int)ev->child,
			ev->thread ? "true" : "false");
		break;
	case MAPTAP_EV_EXIT:
		if (WIFEXITED(ev->status))
			fprintf(fp, ",\"exit_code\":%d,\"signal\":null",
				WEXITSTATUS(ev->status));
		else if (WIFSIGNALED(ev->status))
			fprintf(fp, ",\"exit_code\":null,\"signal\":%d",
				WTERMSIG(ev->status));
		fprintf(fp, ",\"group_exit\":%s",
			ev->group_exit ? "true" : "false");
		break;
	case MAPTAP_EV_DETACH:
		fputs(",\"reason\":", fp);
		json_cstr(fp, ev->reason);
		break;
	default:
		fputc(',', fp);
		json_vma(fp, &ev->vma);
		fprintf(fp, ",\"snapshot\":%s", ev->snapshot ? "true" : "false");
		if (ev->kind != MAPTAP_EV_MAP && ev->kind != MAPTAP_EV_UNMAP) {
			fputs(",\"old\":{", fp);
			json_vma(fp, &ev->old);
			fputc('}', fp);
		}
		if (ev->where)
			json_where(fp, ev->where);
		break;
	}
	fputs("}\n", fp);
	return stream_status(fp);
}
