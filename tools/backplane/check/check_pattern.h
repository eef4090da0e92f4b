/* Random byte patterns for copy checks, and comparing results. */
#ifndef BACKPLANE_CLI_CHECK_PATTERN_H_
#define BACKPLANE_CLI_CHECK_PATTERN_H_

#include <stddef.h>
#include <stdint.h>

/* Fills `size` bytes with a pseudo-random pattern determined by `seed`;
 * filling a longer buffer with the same seed extends the shorter one. */
void check_pattern_fill(void *buffer, size_t size, uint64_t seed);

/* Writes the bitwise complement of `source` into `destination`: a poison that
 * differs from the source at every byte. The two may be the same buffer. */
void check_pattern_invert(void *destination, const void *source, size_t size);

/* The offset of the first byte where `actual` differs from `expected`, or
 * SIZE_MAX if the buffers are equal. */
size_t check_pattern_mismatch(const void *actual, const void *expected,
                              size_t size);

/* A seed mixing a few small numbers (check, direction, size, ...). */
uint64_t check_pattern_seed(uint64_t a, uint64_t b, uint64_t c);

#endif /* BACKPLANE_CLI_CHECK_PATTERN_H_ */
