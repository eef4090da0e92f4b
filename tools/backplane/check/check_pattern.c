/* xorshift64* byte patterns and buffer comparison. */
#include "check_pattern.h"

#include <string.h>

static uint64_t next_word(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

void check_pattern_fill(void *buffer, size_t size, uint64_t seed) {
  uint64_t state = seed ? seed : 0x9E3779B97F4A7C15ULL;
  unsigned char *bytes = buffer;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word = next_word(&state);
    memcpy(bytes + i, &word, 8);
  }
  if (i < size) {
    uint64_t word = next_word(&state);
    memcpy(bytes + i, &word, size - i);
  }
}

void check_pattern_invert(void *destination, const void *source, size_t size) {
  unsigned char *out = destination;
  const unsigned char *in = source;
  for (size_t i = 0; i < size; i++)
    out[i] = (unsigned char)~in[i];
}

size_t check_pattern_mismatch(const void *actual, const void *expected,
                              size_t size) {
  if (memcmp(actual, expected, size) == 0)
    return SIZE_MAX;
  const unsigned char *a = actual, *e = expected;
  size_t i = 0;
  while (a[i] == e[i])
    i++;
  return i;
}

uint64_t check_pattern_seed(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t h = 0xCBF29CE484222325ULL;
  uint64_t parts[3] = {a, b, c};
  for (int i = 0; i < 3; i++) {
    h ^= parts[i];
    h *= 0x100000001B3ULL;
    h ^= h >> 29;
  }
  return h;
}
