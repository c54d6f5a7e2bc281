/*
 * dl.c - find libc's dlsym although this library defines its own, and
 * the CUDA driver library.
 *
 * dlvsym is not interposed, so ask it for dlsym by version: GLIBC_2.34
 * (where libdl moved into libc) first, then the first version of each
 * architecture (x86-64, aarch64, i386/ppc, arm, riscv64).  RTLD_NEXT from
 * here finds libc's (or libdl's) definition after ours.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "sink.h"

typedef void *(*dlsym_fn)(void *, const char *);

static dlsym_fn real;

BWCUDA_NO_SANITIZE static dlsym_fn
resolve(void)
{
	static const char *const versions[] = {
		"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0",
		"GLIBC_2.4", "GLIBC_2.27",
	};
	size_t i;
	void *p;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		if ((p = dlvsym(RTLD_NEXT, "dlsym", versions[i])) != NULL)
			return (dlsym_fn)p;
	}
	/* Loaded by dlopen after libc: the default search still works. */
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		if ((p = dlvsym(RTLD_DEFAULT, "dlsym", versions[i])) != NULL)
			return (dlsym_fn)p;
	}
	fputs("bwsched: cannot find libc's dlsym\n", stderr);
	abort();
}

BWCUDA_NO_SANITIZE void *
bwcuda_real_dlsym_fn(void)
{
	dlsym_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);

	if (f == NULL) {
		f = resolve();
		__atomic_store_n(&real, f, __ATOMIC_RELEASE);
	}
	return (void *)f;
}

BWCUDA_NO_SANITIZE void *
bwcuda_real_dlsym(void *handle, const char *name)
{
	return ((dlsym_fn)bwcuda_real_dlsym_fn())(handle, name);
}

void *
bwcuda_driver_handle(void)
{
	static void *h;

	if (h == NULL)
		h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_GLOBAL);
	return h;
}
