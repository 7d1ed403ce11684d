/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* error.c -- a script runtime error: class plus stap's message text. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <maptap/script_error.h>

void maptap_script_error_clear(struct maptap_script_error *err)
{
	err->code = MAPTAP_SCRIPT_E_NONE;
	err->msg[0] = '\0';
}

int maptap_script_errcode_errno(enum maptap_script_errcode code)
{
	switch (code) {
	case MAPTAP_SCRIPT_E_NONE:
		return 0;
	case MAPTAP_SCRIPT_E_DIVZERO:
		return -EDOM;
	case MAPTAP_SCRIPT_E_OVERFLOW:
		return -E2BIG;
	case MAPTAP_SCRIPT_E_EMPTY_AGG:
		return -ENODATA;
	case MAPTAP_SCRIPT_E_MEMORY:
		return -EFAULT;
	case MAPTAP_SCRIPT_E_NOMEM:
		return -ENOMEM;
	case MAPTAP_SCRIPT_E_FORMAT:
	case MAPTAP_SCRIPT_E_ARG:
	case MAPTAP_SCRIPT_E_REGEX:
		break;
	}
	return -EINVAL;
}

int maptap_script_error_set(struct maptap_script_error *err,
			    enum maptap_script_errcode code,
			    const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return maptap_script_errcode_errno(code);
}
