/* fuzz_memfile(): the input as a path, without touching the disk. */
#include "fuzz/fuzz.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
	int fd = memfd_create("fuzz-input", 0);
	if (fd < 0)
		return -1;
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}
