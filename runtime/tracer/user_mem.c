/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* user_mem.c -- read a traced process's memory (maptap_read_user).
 *
 * process_vm_readv(2) copies straight from the target's pages, no stop
 * needed; /proc/PID/mem (proc(5)) is the fallback where a seccomp policy
 * (a container runtime's, typically) refuses process_vm_readv but not
 * open(2).  Both stop at the first page that cannot be read and return
 * what they copied before it.  process_vm_readv(2) only promises partial
 * transfers at the granularity of iovec elements, so the remote range is
 * cut into one iovec per page: a short read then ends exactly at the
 * unreadable page, whichever rule the kernel follows.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

/* Remote iovecs per process_vm_readv call: 64 pages, 256 KiB. */
#define IOVS 64

/* One process_vm_readv call for at most IOVS pages of [ADDR, ADDR+LEN)
 * into BUF.  Returns the bytes read (short at an unreadable page) and
 * their request in *ASKED, or -errno. */
static ssize_t read_chunk(pid_t pid, uint64_t addr, char *buf, size_t len,
			  size_t page, size_t *asked)
{
	struct iovec local, remote[IOVS];
	size_t n = 0, chunk = 0;
	ssize_t r;

	while (n < IOVS && chunk < len) {
		size_t room = page - (size_t)((addr + chunk) % page);

		if (room > len - chunk)
			room = len - chunk;
		remote[n].iov_base = (void *)(uintptr_t)(addr + chunk);
		remote[n].iov_len = room;
		chunk += room;
		n++;
	}
	local.iov_base = buf;
	local.iov_len = chunk;
	*asked = chunk;
	r = process_vm_readv(pid, &local, 1, remote, n, 0);
	return r < 0 ? -errno : r;
}

ssize_t mt_read_user_procmem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	char path[32];
	size_t done = 0;
	int fd, err = 0;

	/* The file offset is the address, and off_t is signed. */
	if (addr > (uint64_t)INT64_MAX)
		return -EFAULT;
	if (len > (uint64_t)INT64_MAX - addr)
		len = (size_t)((uint64_t)INT64_MAX - addr);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done,
				  (off_t)(addr + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = errno;
		if (r <= 0)
			break;
		done += (size_t)r;
	}
	close(fd);
	if (done)
		return (ssize_t)done;
	/* proc(5): EIO for an address that is not mapped; end of file once
	 * the process has no mm left. */
	if (err == EIO || err == 0)
		return err == EIO ? -EFAULT : -ESRCH;
	return -err;
}

ssize_t maptap_read_user(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0, page = (size_t)sysconf(_SC_PAGESIZE);

	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	if (len > UINT64_MAX - addr)
		len = (size_t)(UINT64_MAX - addr);
	while (done < len) {
		size_t asked;
		ssize_t r = read_chunk(pid, addr + done, (char *)buf + done,
				       len - done, page, &asked);

		/* Refused as a call, not for this process: try the file. */
		if (!done && (r == -ENOSYS || r == -EPERM))
			return mt_read_user_procmem(pid, addr, buf, len);
		if (r < 0)
			return done ? (ssize_t)done : r;
		done += (size_t)r;
		if ((size_t)r < asked)
			break;
	}
	return (ssize_t)done;
}
