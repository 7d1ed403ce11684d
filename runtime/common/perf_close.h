/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* perf_close.h -- private: closing many perf_event_open(2) descriptors
 * without waiting for the kernel's tracepoint teardown.
 *
 * Closing the last perf event of a tracepoint unregisters the kernel's
 * probe and waits for RCU grace periods, under the kernel's event_mutex,
 * before close(2) returns (kernel/trace/trace_event_perf.c,
 * perf_trace_destroy() -> perf_trace_event_unreg() ->
 * tracepoint_synchronize_unregister()): about 28 ms per tracepoint on the
 * VMs we run on, one after the other even when several threads close at
 * once.  The tracer's perf source holds some 30 tracepoints, so closing
 * them in the caller made every `maptap --events=perf` run end 0.8 s
 * after its command, and every detach take as long.
 */
#ifndef MAPTAP_RUNTIME_PERF_CLOSE_H
#define MAPTAP_RUNTIME_PERF_CLOSE_H

#include <stddef.h>

/* Close the N perf event descriptors FDS[0..N) (each >= 0) and return
 * at once.  Every event is disabled first (PERF_EVENT_IOC_DISABLE, which
 * reaches the events inherited by the target's threads), so nothing is
 * recorded after this call.  The last references are then dropped by a
 * grandchild process, reparented to init, that holds no other descriptor
 * of the caller (no pipe stays open behind it) and exits once the kernel
 * has let the tracepoints go; the caller's copies are closed here.  When
 * no process can be created (or with N == 0) the descriptors are closed
 * in the caller, waiting as above.  The caller owns FDS (not freed);
 * the descriptors must not be used after the call.  Not async-signal-safe
 * (allocates); call it from one thread.  Errors of close(2) and ioctl(2)
 * are ignored: close(2) leaves the descriptor closed either way. */
void mt_perf_close_all(const int *fds, size_t n);

/* Append FD to the list *FDS of *N descriptors (room for *CAP, grown
 * by doubling, from FIRST).  0, or -ENOMEM with the list unchanged
 * (FD not closed).  The caller owns the list (free()); not thread-safe. */
int mt_fds_push(int **fds, size_t *n, size_t *cap, size_t first, int fd);

#endif
