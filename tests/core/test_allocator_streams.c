/* The caching allocator against the asynchronous vcpu plugin, through the
 * public API: what it may and may not wait for (host callbacks), blocks used
 * by a stream of another device, and workspaces across empty_cache. Each
 * vcpu device has 2 GiB (main), allocated lazily: nothing here touches the
 * large blocks. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "support/runtime_fixture.h"

#define MiB ((size_t)1 << 20)
#define KiB ((size_t)1 << 10)
/* Longest a test waits for a host callback before declaring a hang. */
#define HANG_SECONDS 20

/* A host callback held until the test opens its gate, which then runs an
 * action and reports that it finished. */
typedef struct held_callback {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int open, done;
  void (*action)(struct held_callback *);
  bp_device_t *device;
  bp_status_t status;
  void *ptr;
  char message[1024];
} held_callback_t;

static void held_init(held_callback_t *h, bp_device_t *device,
                      void (*action)(held_callback_t *)) {
  pthread_mutex_init(&h->lock, NULL);
  pthread_cond_init(&h->changed, NULL);
  h->open = h->done = 0;
  h->action = action;
  h->device = device;
  h->status = BP_OK;
  h->ptr = NULL;
  h->message[0] = '\0';
}

static void held_run(void *user_data) {
  held_callback_t *h = user_data;
  pthread_mutex_lock(&h->lock);
  while (!h->open)
    pthread_cond_wait(&h->changed, &h->lock);
  pthread_mutex_unlock(&h->lock);
  if (h->action)
    h->action(h);
  pthread_mutex_lock(&h->lock);
  h->done = 1;
  pthread_cond_broadcast(&h->changed);
  pthread_mutex_unlock(&h->lock);
}

static void held_open(held_callback_t *h) {
  pthread_mutex_lock(&h->lock);
  h->open = 1;
  pthread_cond_broadcast(&h->changed);
  pthread_mutex_unlock(&h->lock);
}

/* Waits for the callback to finish; a hang ends the test program (the
 * stream worker cannot be stopped, so teardown would hang too). */
static void held_wait_done(held_callback_t *h, const char *what) {
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += HANG_SECONDS;
  pthread_mutex_lock(&h->lock);
  int rc = 0;
  while (!h->done && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&h->changed, &h->lock, &deadline);
  int done = h->done;
  pthread_mutex_unlock(&h->lock);
  if (!done) {
    fprintf(stderr, "FAIL: %s did not return within %d s (hang)\n", what,
            HANG_SECONDS);
    fflush(stderr);
    _exit(1);
  }
}

static void held_destroy(held_callback_t *h) {
  pthread_mutex_destroy(&h->lock);
  pthread_cond_destroy(&h->changed);
}

static int setup(void **state) {
  return fixture_open_two_devices(state, BP_VCPU_PLUGIN);
}

static int teardown(void **state) {
  return fixture_close(state);
}

static bp_memory_stats_t stats_of(bp_device_t *device) {
  bp_memory_stats_t stats;
  assert_int_equal(bp_device_memory_stats(device, &stats), BP_OK);
  return stats;
}

/* Fills `device` with 64 MiB blocks (no stream) until it is full; returns
 * how many. */
#define FILL_MAX 64
static size_t fill_device(bp_device_t *device, void *blocks[FILL_MAX]) {
  size_t n = 0;
  while (n < FILL_MAX &&
         bp_device_malloc(device, 64 * MiB, &blocks[n]) == BP_OK)
    n++;
  assert_true(n > 0 && n < FILL_MAX);
  return n;
}

static void malloc_64m(held_callback_t *h) {
  h->status = bp_device_malloc(h->device, 64 * MiB, &h->ptr);
  snprintf(h->message, sizeof h->message, "%s", bp_last_error());
}

/* Issue 12 item 2: inside a host callback of stream s, the device full of
 * blocks freed on s after the callback was enqueued, malloc must not wait
 * for s (itself): it fails with out-of-memory and says why. */
static void malloc_in_callback_does_not_wait_for_its_stream(void **state) {
  fixture_t *f = *state;
  bp_stream_t *s;
  assert_int_equal(bp_stream_create(f->dev0, &s), BP_OK);
  void *blocks[FILL_MAX];
  size_t n = fill_device(f->dev0, blocks);
  held_callback_t h;
  held_init(&h, f->dev0, malloc_64m);
  assert_int_equal(bp_stream_add_callback(s, held_run, &h), BP_OK);
  for (size_t i = 0; i < n; i++) /* reusable once s passes the frees */
    assert_int_equal(bp_device_free_async(f->dev0, blocks[i], s), BP_OK);
  held_open(&h);
  held_wait_done(&h, "bp_device_malloc in a host callback");
  assert_int_equal(h.status, BP_ERR_OUT_OF_MEMORY);
  assert_null(h.ptr);
  if (!strstr(h.message, "host callback"))
    fail_msg("message \"%s\" does not say it ran in a host callback",
             h.message);
  /* Once s has passed the frees, the memory is everyone's again. */
  assert_int_equal(bp_stream_synchronize(s), BP_OK);
  void *p = NULL;
  assert_int_equal(bp_device_malloc(f->dev0, 64 * MiB, &p), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, p), BP_OK);
  held_destroy(&h);
  assert_int_equal(bp_stream_destroy(s), BP_OK);
}

/* The same with empty_cache and a stream-ordered malloc on s itself: every
 * call returns. */
static void empty_cache(held_callback_t *h) {
  h->status = bp_device_empty_cache(h->device);
}

static void empty_cache_in_callback_returns(void **state) {
  fixture_t *f = *state;
  bp_stream_t *s;
  assert_int_equal(bp_stream_create(f->dev0, &s), BP_OK);
  void *a = NULL, *b = NULL;
  assert_int_equal(bp_device_malloc_async(f->dev0, 4 * MiB, s, &a), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, 4 * MiB, &b), BP_OK);
  held_callback_t h;
  held_init(&h, f->dev0, empty_cache);
  assert_int_equal(bp_stream_add_callback(s, held_run, &h), BP_OK);
  assert_int_equal(bp_device_free_async(f->dev0, a, s), BP_OK);
  assert_int_equal(bp_device_free_async(f->dev0, b, s), BP_OK);
  held_open(&h);
  held_wait_done(&h, "bp_device_empty_cache in a host callback");
  assert_int_equal(h.status, BP_OK);
  assert_int_equal(bp_stream_synchronize(s), BP_OK);
  assert_int_equal(bp_device_empty_cache(f->dev0), BP_OK);
  assert_int_equal(stats_of(f->dev0).reserved_bytes.current, 0);
  held_destroy(&h);
  assert_int_equal(bp_stream_destroy(s), BP_OK);
}

/* Issue 12 item 6: a block of device 0 read by a P2P copy on a stream of
 * device 1 (held back by a callback), freed with that stream
 * (free_async) or after record_stream: accepted, and not handed out again
 * until the copy is done. */
static void block_read_by_peer_stream_waits_for_it(void **state) {
  fixture_t *f = *state;
  enum { N = 64 * 1024 };
  unsigned char *host = malloc(N), *back = malloc(N);
  assert_non_null(host);
  assert_non_null(back);
  for (size_t i = 0; i < N; i++)
    host[i] = (unsigned char)(i * 7u + 3u);
  bp_stream_t *peer;
  assert_int_equal(bp_stream_create(f->dev1, &peer), BP_OK);
  void *src[2], *dst[2];
  for (int i = 0; i < 2; i++) {
    assert_int_equal(bp_device_malloc(f->dev0, N, &src[i]), BP_OK);
    assert_int_equal(bp_device_malloc(f->dev1, N, &dst[i]), BP_OK);
    assert_int_equal(bp_copy(f->dev0, src[i], NULL, host, N, NULL), BP_OK);
  }
  held_callback_t h;
  held_init(&h, f->dev1, NULL);
  assert_int_equal(bp_stream_add_callback(peer, held_run, &h), BP_OK);
  for (int i = 0; i < 2; i++)
    assert_int_equal(bp_copy(f->dev1, dst[i], f->dev0, src[i], N, peer), BP_OK);
  bp_status_t freed = bp_device_free_async(f->dev0, src[0], peer);
  bp_status_t recorded = bp_device_record_stream(f->dev0, src[1], peer);
  if (freed != BP_OK || recorded != BP_OK) {
    held_open(&h); /* or teardown would wait for the held stream */
    fail_msg("free_async gave %d and record_stream %d with a stream of "
             "another device: %s",
             freed, recorded, bp_last_error());
  }
  assert_int_equal(bp_device_free(f->dev0, src[1]), BP_OK);
  /* The copies have not run: the blocks must not come back, whatever is
   * asked for meanwhile (the same size, and a flush of the caches). */
  void *again[4];
  for (int i = 0; i < 4; i++) {
    assert_int_equal(bp_device_malloc(f->dev0, N, &again[i]), BP_OK);
    assert_ptr_not_equal(again[i], src[0]);
    assert_ptr_not_equal(again[i], src[1]);
    assert_int_equal(bp_memset(f->dev0, again[i], 0xee, N, NULL), BP_OK);
  }
  assert_int_equal(stats_of(f->dev0).active_bytes.current,
                   stats_of(f->dev0).allocated_bytes.current + 2 * N);
  held_open(&h);
  assert_int_equal(bp_stream_synchronize(peer), BP_OK);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(bp_copy(NULL, back, f->dev1, dst[i], N, NULL), BP_OK);
    assert_memory_equal(back, host, N);
  }
  /* Done: the pending frees are reclaimed. */
  for (int i = 0; i < 4; i++)
    assert_int_equal(bp_device_free(f->dev0, again[i]), BP_OK);
  assert_int_equal(bp_device_empty_cache(f->dev0), BP_OK);
  bp_memory_stats_t stats = stats_of(f->dev0);
  assert_int_equal(stats.active_bytes.current, 0);
  assert_int_equal(stats.reserved_bytes.current, 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(bp_device_free(f->dev1, dst[i]), BP_OK);
  held_destroy(&h);
  assert_int_equal(bp_stream_destroy(peer), BP_OK);
  free(host);
  free(back);
}

/* Issue 12 item 3: one 300 KiB workspace per step with empty_cache between
 * steps, on a 2 GiB device. The slab once doubled on every step (out of
 * memory after about 11 steps); what is held for the frame must stay within
 * a small multiple of it. */
static void workspace_bounded_across_empty_cache(void **state) {
  fixture_t *f = *state;
  const size_t frame = 300 * KiB;
  bp_stream_t *s;
  assert_int_equal(bp_stream_create(f->dev0, &s), BP_OK);
  for (int step = 0; step < 40; step++) {
    void *w = NULL;
    assert_int_equal(bp_device_workspace_alloc(f->dev0, frame, s, &w), BP_OK);
    bp_memory_stats_t stats = stats_of(f->dev0);
    if (stats.allocated_bytes.current > 4 * frame ||
        stats.reserved_bytes.current > 8 * frame)
      fail_msg("step %d: %llu bytes allocated and %llu reserved for one %zu "
               "byte frame",
               step, (unsigned long long)stats.allocated_bytes.current,
               (unsigned long long)stats.reserved_bytes.current, frame);
    assert_int_equal(bp_device_workspace_free(f->dev0, s, w), BP_OK);
    assert_int_equal(bp_device_empty_cache(f->dev0), BP_OK);
  }
  assert_int_equal(stats_of(f->dev0).reserved_bytes.current, 0);
  assert_int_equal(bp_stream_destroy(s), BP_OK);
}

int main(void) {
  setenv("BACKPLANE_VCPU_MEMORY", "2G", 1);
  setenv("BACKPLANE_VCPU_DEVICES", "2", 1);
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(empty_cache_in_callback_returns),
      T(malloc_in_callback_does_not_wait_for_its_stream),
      T(workspace_bounded_across_empty_cache),
      T(block_read_by_peer_stream_waits_for_it),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
