/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/maptap.h -- the public C API of libmaptap.
 *
 * One header per concern; this one includes them all but
 * maptap/tvar.h, maptap/sdt.h and the script runtime's maptap/script_*.h,
 * which a program includes one by one.
 *
 * Error convention, everywhere in libmaptap: functions return 0 or a
 * non-negative count on success and a negative errno value on failure
 * (-ENOMEM, -ESRCH, ...), as the Linux kernel's internal APIs do; each
 * function's docstring lists the values it can return and when.  Where a
 * failure has more to say than an errno (a session error naming a pid and
 * a cause), the object that failed keeps a message, read with its
 * *_errmsg() function.  The library never prints.
 */
#ifndef MAPTAP_MAPTAP_H
#define MAPTAP_MAPTAP_H

#include <maptap/vma.h>
#include <maptap/maps.h>
#include <maptap/event.h>
#include <maptap/mm.h>
#include <maptap/syscalls.h>
#include <maptap/session.h>
#include <maptap/module.h>
#include <maptap/symbols.h>
#include <maptap/unwind.h>
#include <maptap/report.h>
#include <maptap/profile.h>
#include <maptap/uprobe.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (the package's, from
 * configure.ac), a static string.  Thread-safe. */
const char *maptap_version(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#endif
