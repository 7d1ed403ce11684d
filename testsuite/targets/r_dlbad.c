/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_dlbad.c -- a library that cannot link (report.py): it calls a
 * function nothing defines, so dlopen(RTLD_NOW) maps it, fails to bind
 * it and unmaps it again, with no dlclose. */
int r_dlbad_missing(void);

int r_dlbad(void)
{
	return r_dlbad_missing();
}
