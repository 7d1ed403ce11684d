/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_cpu_list.c -- which CPUs are online (runtime/tracer/procfs.c):
 * the perf event source leaves out an offline CPU, where
 * perf_event_open(2) says ENODEV, and retries an online one that said it
 * (a group leader moved with a swapped context).  Before, a CPU whose
 * tries all said ENODEV was taken for offline and its records lost
 * (seen with maptap and a forking target pinned to one CPU).
 */
#include <config.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	FILE *f;
	char buf[256] = "";

	tap_ok(mt_cpu_list_has("0", 0) && !mt_cpu_list_has("0", 1),
	       "one CPU");
	tap_ok(mt_cpu_list_has("0-1", 1) && !mt_cpu_list_has("0-1", 2),
	       "a range");
	tap_ok(mt_cpu_list_has("0-3,8,10-11\n", 8) &&
	       mt_cpu_list_has("0-3,8,10-11\n", 11) &&
	       !mt_cpu_list_has("0-3,8,10-11\n", 9) &&
	       !mt_cpu_list_has("0-3,8,10-11\n", 4),
	       "ranges and single CPUs, as sysfs prints them");
	tap_ok(!mt_cpu_list_has("", 0) && !mt_cpu_list_has("x", 0) &&
	       !mt_cpu_list_has("1-", 1), "a malformed list names none");
	/* this machine: CPU 0 is online whenever the list can be read */
	f = fopen("/sys/devices/system/cpu/online", "r");
	if (f && fgets(buf, sizeof(buf), f))
		tap_ok(mt_cpu_online(0) == mt_cpu_list_has(buf, 0) &&
		       mt_cpu_online(0), "CPU 0 online, as sysfs says");
	else
		tap_skip("no /sys/devices/system/cpu/online");
	if (f)
		fclose(f);
	tap_ok(!mt_cpu_online(1 << 20), "a CPU far beyond any is not online");
	return tap_done();
}
