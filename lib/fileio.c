/*
 * fileio.c - read a whole file with a limit; write a file atomically.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fileio.h"

static int
fileio_read_fd(int fd, size_t max, char **bufp, size_t *lenp)
{
	size_t	 cap = 4096, len = 0;
	char	*buf, *nbuf;
	ssize_t	 n;

	if ((buf = malloc(cap + 1)) == NULL)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			if ((nbuf = realloc(buf, cap + 1)) == NULL) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return n;
		}
		if (n == 0)
			break;
		len += n;
		if (len > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

int
fileio_read(const char *path, size_t max, char **bufp, size_t *lenp)
{
	int	fd, r;

	if (strcmp(path, "-") == 0)
		return fileio_read_fd(STDIN_FILENO, max, bufp, lenp);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	r = fileio_read_fd(fd, max, bufp, lenp);
	close(fd);
	return r;
}

int
fileio_write_atomic(const char *path, const char *buf, size_t len)
{
	char	 tmp[4096];
	size_t	 off = 0;
	ssize_t	 n;
	int	 fd, r = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if ((fd = mkstemp(tmp)) < 0)
		return -errno;
	/* mkstemp makes 0600; profiles and traces are meant to be shared */
	(void)fchmod(fd, 0644);
	while (off < len) {
		n = write(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		off += n;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r != 0)
		unlink(tmp);
	return r;
}
