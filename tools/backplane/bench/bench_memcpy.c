#include "bench_memcpy.h"

#include <pthread.h>
#include <string.h>

typedef struct memcpy_half {
  void *dst;
  const void *src;
  size_t size;
} memcpy_half_t;

static void *copy_half(void *arg) {
  memcpy_half_t *half = arg;
  memcpy(half->dst, half->src, half->size);
  return NULL;
}

bool bench_memcpy_two_threads(void *dst, const void *src, size_t size) {
  memcpy_half_t second = {(char *)dst + size / 2, (const char *)src + size / 2,
                          size - size / 2};
  pthread_t thread;
  if (pthread_create(&thread, NULL, copy_half, &second) != 0)
    return false;
  memcpy(dst, src, size / 2);
  pthread_join(thread, NULL);
  return true;
}
