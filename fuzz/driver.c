/*
 * driver.c - main() for fuzz targets built without libFuzzer: replay the
 * seed files given as arguments (or every file in the directories given;
 * with no argument, $top_srcdir/fuzz/corpus/PROGRAM),
 * then FUZZ_DRIVER_RUNS mutations of each (bit flips, truncation, byte
 * insertion) from a fixed seed, so a run is repeatable.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"
#include "fileio.h"

#define FUZZ_DRIVER_RUNS	2000
#define FUZZ_DRIVER_MAX		(1u << 20)

static unsigned long long fuzz_state = 0x9e3779b97f4a7c15ull;

static unsigned int
fuzz_rand(void)
{
	fuzz_state ^= fuzz_state << 13;
	fuzz_state ^= fuzz_state >> 7;
	fuzz_state ^= fuzz_state << 17;
	return (unsigned int)(fuzz_state >> 11);
}

static void
fuzz_mutate(uint8_t *buf, size_t *len, size_t cap)
{
	size_t	i;

	switch (fuzz_rand() % 4) {
	case 0:
		if (*len > 0)
			buf[fuzz_rand() % *len] ^= 1u << (fuzz_rand() % 8);
		break;
	case 1:
		if (*len > 0)
			*len = fuzz_rand() % *len;
		break;
	case 2:
		if (*len < cap) {
			i = *len ? fuzz_rand() % *len : 0;
			memmove(buf + i + 1, buf + i, *len - i);
			buf[i] = (uint8_t)fuzz_rand();
			(*len)++;
		}
		break;
	default:
		if (*len > 0)
			buf[fuzz_rand() % *len] = (uint8_t)fuzz_rand();
		break;
	}
}

static void
fuzz_one_file(const char *path)
{
	char	*data;
	uint8_t	*buf;
	size_t	 len, n;
	int	 i;

	if (fileio_read(path, FUZZ_DRIVER_MAX, &data, &len) != 0) {
		fprintf(stderr, "fuzz: cannot read %s\n", path);
		exit(1);
	}
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	if ((buf = malloc(len + 64)) == NULL)
		exit(1);
	for (i = 0; i < FUZZ_DRIVER_RUNS; i++) {
		memcpy(buf, data, len);
		n = len;
		fuzz_mutate(buf, &n, len + 64);
		fuzz_mutate(buf, &n, len + 64);
		LLVMFuzzerTestOneInput(buf, n);
	}
	free(buf);
	free(data);
}

static void
fuzz_path(const char *path)
{
	struct stat	 st;
	struct dirent	**ents;
	char		 sub[4096];
	int		 n, i;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "fuzz: no such file %s\n", path);
		exit(1);
	}
	if (!S_ISDIR(st.st_mode)) {
		fuzz_one_file(path);
		return;
	}
	/* scandir sorts, so the order (and the mutations) are repeatable */
	if ((n = scandir(path, &ents, NULL, alphasort)) < 0)
		exit(1);
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
			fuzz_one_file(sub);
		}
		free(ents[i]);
	}
	free(ents);
}

int
main(int argc, char **argv)
{
	const char	*top, *base;
	char		 dir[4096];
	int		 i;

	if (argc < 2) {
		/* as a check program: the target's corpus in the source tree */
		top = getenv("top_srcdir");
		base = strrchr(argv[0], '/');
		base = base ? base + 1 : argv[0];
		if (strncmp(base, "lt-", 3) == 0)
			base += 3;
		snprintf(dir, sizeof(dir), "%s/fuzz/corpus/%s",
		    top ? top : ".", base);
		fuzz_path(dir);
	}
	for (i = 1; i < argc; i++)
		fuzz_path(argv[i]);
	printf("fuzz: corpus replayed with %d mutations per input\n",
	    FUZZ_DRIVER_RUNS);
	return 0;
}
