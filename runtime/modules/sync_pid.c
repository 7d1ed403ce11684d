/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sync_pid.c -- maptap_modules_sync_pid(): the module tracker from one
 * read of /proc/PID/maps (maptap/module.h).
 *
 * Apart from module*.c because it joins two layers: the module layer
 * itself needs no maps reader, and testsuite/fuzz/fuzz-elf.sh builds it
 * (module*.c, elf_*.c, sym_*.c) without one.
 */
#include <config.h>

#include <errno.h>

#include <maptap/maps.h>
#include <maptap/module.h>

int maptap_modules_sync_pid(struct maptap_modules *m, pid_t pid,
			    enum maptap_maps_source source)
{
	struct maptap_maps_reader *r;
	struct maptap_vma_buf buf = { 0 };
	int rc;

	if (!m || pid <= 0)
		return -EINVAL;
	rc = maptap_maps_open(pid, source, &r);
	if (rc)
		return rc;
	rc = maptap_maps_read_all(r, &buf);
	if (!rc)
		rc = maptap_modules_sync(m, pid, buf.v, buf.n, NULL, NULL);
	maptap_vma_buf_free(&buf);
	maptap_maps_close(r);
	return rc;
}
