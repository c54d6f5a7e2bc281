/*
 * fileio.h - small file helpers shared by the programs: read a whole file
 * with a size limit, write a file atomically.
 */
#ifndef FILEIO_H
#define FILEIO_H

#include <stddef.h>

/*
 * Read path (or stdin for "-") into a NUL-terminated malloc'ed buffer of
 * at most max bytes.  Returns 0, or a negative errno (-EFBIG when larger
 * than max).
 */
int	fileio_read(const char *path, size_t max, char **buf, size_t *len);

/* Write len bytes to path through a temporary file and rename(2). */
int	fileio_write_atomic(const char *path, const char *buf, size_t len);

#endif /* FILEIO_H */
