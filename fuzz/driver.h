/*
 * driver.h - the libFuzzer entry point every fuzz target defines.  Without
 * --enable-fuzzing, fuzz/driver.c supplies main(): it replays the files
 * named on the command line and a bounded number of deterministic random
 * mutations of them, so the targets run as ordinary check programs.
 */
#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#endif /* FUZZ_DRIVER_H */
