/* bp_copy hands host buffers back on return (include/backplane/memory.h):
 * pageable host->device data is captured, device->host data has landed,
 * pinned memory and bp_copy_async_unsafe stay asynchronous. Runs with
 * BACKPLANE_VCPU_JITTER_US so a copy that reads the buffer late is caught,
 * from one thread and from several. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "support/runtime_fixture.h"
#include "support/stream_gate.h"

enum { THREADS = 4, ROUNDS = 6 };
#define CHUNK BP_COPY_STAGING_CHUNK

/* Below, at and above one staging chunk; the last needs more buffers than
 * one device's pool holds (8 chunks). */
static const size_t sizes[] = {1,         4099,      CHUNK - 1,      CHUNK,
                               CHUNK + 1, 3 * CHUNK, 20 * CHUNK + 17};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

static unsigned char pattern_byte(size_t i, unsigned seed) {
  return (unsigned char)((i * 131u + (i >> 8) * 7u + seed * 29u) | 1u);
}

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    p[i] = pattern_byte(i, seed);
}

/* The first byte that differs from the pattern, or n. */
static size_t first_mismatch(const unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != pattern_byte(i, seed))
      return i;
  return n;
}

static int setup(void **state) {
  return fixture_open_two_devices(state, BP_VCPU_PLUGIN);
}

static int teardown(void **state) {
  return fixture_close(state);
}

/* The device's bytes, read back synchronously into fresh memory. */
static unsigned char *read_back(bp_device_t *device, const void *d, size_t n) {
  unsigned char *out = malloc(n);
  assert_non_null(out);
  assert_int_equal(bp_copy(NULL, out, device, d, n, NULL), BP_OK);
  return out;
}

/* Host->device from malloc'd memory, overwritten and freed right after
 * bp_copy returns. Up to one pool's worth the stream is held by a gate, so
 * the copy cannot have run before the return; larger copies are always
 * staged (and wait for the pool), with the jitter delaying the stream. */
static void h2d_buffer_free_on_return(void **state) {
  fixture_t *f = *state;
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(f->dev0, &stream), BP_OK);
  for (size_t s = 0; s < SIZE_COUNT; ++s) {
    size_t n = sizes[s];
    void *d;
    assert_int_equal(bp_device_malloc(f->dev0, n, &d), BP_OK);
    stream_gate_t gate;
    stream_gate_init(&gate);
    int held = n <= 8 * CHUNK;
    if (held)
      assert_int_equal(stream_gate_hold(&gate, stream), BP_OK);
    unsigned char *src = malloc(n);
    assert_non_null(src);
    fill(src, n, (unsigned)s);
    assert_int_equal(bp_copy(f->dev0, d, NULL, src, n, stream), BP_OK);
    memset(src, 0, n); /* the caller's again: reuse ... */
    free(src);         /* ... and free */
    if (held) {
      assert_int_equal(bp_stream_query(stream), BP_ERR_NOT_READY);
      stream_gate_open(&gate);
    }
    assert_int_equal(bp_stream_synchronize(stream), BP_OK);
    unsigned char *back = read_back(f->dev0, d, n);
    size_t bad = first_mismatch(back, n, (unsigned)s);
    if (bad != n)
      fail_msg("h2d of %zu bytes: byte %zu is wrong", n, bad);
    free(back);
    stream_gate_destroy(&gate);
    assert_int_equal(bp_device_free(f->dev0, d), BP_OK);
  }
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

/* Device->host into malloc'd memory behind queued work: the data is in the
 * buffer when bp_copy returns. */
static void d2h_data_there_on_return(void **state) {
  fixture_t *f = *state;
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(f->dev0, &stream), BP_OK);
  for (size_t s = 0; s < SIZE_COUNT; ++s) {
    size_t n = sizes[s];
    void *d, *e;
    assert_int_equal(bp_device_malloc(f->dev0, n, &d), BP_OK);
    assert_int_equal(bp_device_malloc(f->dev0, n, &e), BP_OK);
    unsigned char *src = malloc(n), *dst = malloc(n);
    assert_non_null(src);
    assert_non_null(dst);
    fill(src, n, (unsigned)s + 40);
    memset(dst, 0, n);
    assert_int_equal(bp_copy(f->dev0, d, NULL, src, n, NULL), BP_OK);
    /* Queued first: the d2h must come after it. */
    assert_int_equal(bp_copy(f->dev0, e, f->dev0, d, n, stream), BP_OK);
    assert_int_equal(bp_copy(NULL, dst, f->dev0, e, n, stream), BP_OK);
    size_t bad = first_mismatch(dst, n, (unsigned)s + 40);
    if (bad != n)
      fail_msg("d2h of %zu bytes: byte %zu not there on return", n, bad);
    free(dst);
    free(src);
    assert_int_equal(bp_device_free(f->dev0, d), BP_OK);
    assert_int_equal(bp_device_free(f->dev0, e), BP_OK);
  }
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

/* Host->device then device->host through `host` (2 * N bytes) on a held
 * stream: both copies must use `host` when the stream gets there, not
 * before bp_copy (or bp_copy_async_unsafe when `unsafe`) returns. */
static void check_asynchronous(bp_device_t *device, unsigned char *host,
                               int unsafe) {
  enum { N = 3 * 4096 };
  bp_stream_t *stream;
  void *d;
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_device_malloc(device, N, &d), BP_OK);
  stream_gate_t gate;
  stream_gate_init(&gate);
  assert_int_equal(stream_gate_hold(&gate, stream), BP_OK);
  fill(host, N, 1);
  assert_int_equal(unsafe
                       ? bp_copy_async_unsafe(device, d, NULL, host, N, stream)
                       : bp_copy(device, d, NULL, host, N, stream),
                   BP_OK);
  /* Changed before the stream reaches the copy: the device must get it. */
  fill(host, N, 2);
  /* Returns at once (a wait here would hang on the gate); the zeros are
   * overwritten when the stream gets there. */
  assert_int_equal(
      unsafe ? bp_copy_async_unsafe(NULL, host + N, device, d, N, stream)
             : bp_copy(NULL, host + N, device, d, N, stream),
      BP_OK);
  memset(host + N, 0, N);
  assert_int_equal(bp_stream_query(stream), BP_ERR_NOT_READY);
  stream_gate_open(&gate);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(first_mismatch(host + N, N, 2), N);
  stream_gate_destroy(&gate);
  assert_int_equal(bp_device_free(device, d), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

/* bp_host_malloc memory keeps the asynchronous path, from either device of
 * the plugin, including an address inside the allocation. */
static void pinned_memory_stays_asynchronous(void **state) {
  fixture_t *f = *state;
  unsigned char *pinned;
  assert_int_equal(bp_host_malloc(f->dev1, 64 + 2 * 3 * 4096, (void **)&pinned),
                   BP_OK);
  check_asynchronous(f->dev0, pinned + 64, 0);
  check_asynchronous(f->dev1, pinned + 64, 0);
  assert_int_equal(bp_host_free(f->dev1, pinned), BP_OK);
}

/* bp_copy_async_unsafe reads pageable memory when the stream gets there. */
static void async_unsafe_reads_late(void **state) {
  fixture_t *f = *state;
  unsigned char *host = malloc(2 * 3 * 4096);
  assert_non_null(host);
  check_asynchronous(f->dev0, host, 1);
  free(host);
}

/* A pinned buffer freed with bp_host_free no longer counts as pinned: its
 * address range may come back from malloc. */
static void freed_pinned_memory_is_pageable_again(void **state) {
  fixture_t *f = *state;
  enum { N = 4096 };
  void *pinned, *d;
  bp_stream_t *stream;
  assert_int_equal(bp_host_malloc(f->dev0, N, &pinned), BP_OK);
  assert_int_equal(bp_host_free(f->dev0, pinned), BP_OK);
  assert_int_equal(bp_stream_create(f->dev0, &stream), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, N, &d), BP_OK);
  unsigned char src[N];
  fill(src, N, 9);
  stream_gate_t gate;
  stream_gate_init(&gate);
  assert_int_equal(stream_gate_hold(&gate, stream), BP_OK);
  assert_int_equal(bp_copy(f->dev0, d, NULL, src, N, stream), BP_OK);
  memset(src, 0, N);
  stream_gate_open(&gate);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  unsigned char *back = read_back(f->dev0, d, N);
  assert_int_equal(first_mismatch(back, N, 9), N);
  free(back);
  stream_gate_destroy(&gate);
  assert_int_equal(bp_device_free(f->dev0, d), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

typedef struct worker {
  bp_device_t *device;
  unsigned seed;
  int failures;
  char first_failure[128];
} worker_t;

/* Each thread: its own stream, one host buffer reused for every copy right
 * after bp_copy returns, h2d then d2h at every size. */
static void *copy_worker(void *arg) {
  worker_t *w = arg;
  bp_stream_t *stream;
  void *d;
  size_t most = sizes[SIZE_COUNT - 1];
  unsigned char *host = malloc(most);
  if (!host || bp_stream_create(w->device, &stream) != BP_OK ||
      bp_device_malloc(w->device, most, &d) != BP_OK) {
    w->failures++;
    snprintf(w->first_failure, sizeof w->first_failure, "setup failed");
    return NULL;
  }
  for (unsigned round = 0; round < ROUNDS; ++round)
    for (size_t s = 0; s < SIZE_COUNT; ++s) {
      size_t n = sizes[s];
      unsigned seed = w->seed * 100 + round * 10 + (unsigned)s;
      fill(host, n, seed);
      bp_status_t status = bp_copy(w->device, d, NULL, host, n, stream);
      memset(host, 0xff, n); /* reused at once */
      if (status == BP_OK)
        status = bp_copy(NULL, host, w->device, d, n, stream);
      size_t bad = status == BP_OK ? first_mismatch(host, n, seed) : 0;
      if (status != BP_OK || bad != n) {
        if (w->failures++ == 0)
          snprintf(w->first_failure, sizeof w->first_failure,
                   "round %u size %zu: %s at byte %zu", round, n,
                   bp_status_name(status), bad);
      }
    }
  bp_device_free(w->device, d);
  bp_stream_destroy(stream);
  free(host);
  return NULL;
}

static void many_threads_reuse_their_buffers(void **state) {
  fixture_t *f = *state;
  pthread_t threads[THREADS];
  worker_t workers[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    workers[t] = (worker_t){t % 2 ? f->dev1 : f->dev0, (unsigned)t + 1, 0, ""};
    assert_int_equal(
        pthread_create(&threads[t], NULL, copy_worker, &workers[t]), 0);
  }
  for (int t = 0; t < THREADS; ++t)
    assert_int_equal(pthread_join(threads[t], NULL), 0);
  for (int t = 0; t < THREADS; ++t)
    if (workers[t].failures)
      fail_msg("thread %d: %d failures, first: %s", t, workers[t].failures,
               workers[t].first_failure);
}

int main(void) {
  /* Before the plugin loads: vcpu reads it once. */
  setenv("BACKPLANE_VCPU_JITTER_US", "50", 0);
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(h2d_buffer_free_on_return),
      T(d2h_data_there_on_return),
      T(pinned_memory_stays_asynchronous),
      T(async_unsafe_reads_late),
      T(freed_pinned_memory_is_pageable_again),
      T(many_threads_reuse_their_buffers),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
