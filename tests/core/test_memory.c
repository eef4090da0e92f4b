/* Memory and copies against the stub plugin, which has only synchronous
 * copies: every stream-ordered copy, memset and peer copy here runs through a
 * fallback. */
#include <dlfcn.h>
#include <stdlib.h>

#include "backplane/vendor_access.h"
#include "plugins/corpus/stub_plugin.h"
#include "support/runtime_fixture.h"

static int setup(void **state) {
  return fixture_open_two_devices(state, STUB_PLUGIN);
}

static int teardown(void **state) {
  return fixture_close(state);
}

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    p[i] = (unsigned char)(i * 31u + seed);
}

static void device_malloc_free(void **state) {
  fixture_t *f = *state;
  void *a = NULL, *b = NULL, *zero = NULL, *zero2 = NULL;
  assert_int_equal(bp_device_malloc(f->dev0, 1000, &a), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, 1000, &b), BP_OK);
  assert_non_null(a);
  assert_ptr_not_equal(a, b);
  assert_int_equal(bp_device_malloc(f->dev0, 0, &zero), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, 0, &zero2), BP_OK);
  assert_ptr_not_equal(zero, zero2);
  assert_int_equal(bp_device_free(f->dev0, a), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, a), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_free(f->dev0, b), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, zero), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, zero2), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, NULL), BP_OK);
  int local;
  assert_int_equal(bp_device_free(f->dev0, &local), BP_ERR_INVALID_ARGUMENT);
  /* dev1 never allocated anything: still a clean error. */
  assert_int_equal(bp_device_free(f->dev1, &local), BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("stub:1");
  assert_int_equal(bp_device_malloc(NULL, 8, &a), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_malloc(f->dev0, 8, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_free(NULL, &local), BP_ERR_INVALID_ARGUMENT);
}

static void device_out_of_memory(void **state) {
  fixture_t *f = *state;
  void *p = (void *)0x1;
  assert_int_equal(bp_device_malloc(f->dev0, STUB_MEMORY_LIMIT * 16, &p),
                   BP_ERR_OUT_OF_MEMORY);
  assert_ptr_equal(p, (void *)0x1); /* untouched on failure */
}

static void host_memory(void **state) {
  fixture_t *f = *state;
  void *p = NULL, *zero = NULL;
  assert_int_equal(bp_host_malloc(f->dev0, 4096, &p), BP_OK);
  memset(p, 0xab, 4096);
  assert_int_equal(bp_host_malloc(f->dev0, 0, &zero), BP_OK);
  assert_non_null(zero);
  assert_int_equal(bp_host_free(f->dev0, p), BP_OK);
  assert_int_equal(bp_host_free(f->dev0, p), BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("not live host memory of stub:0");
  assert_int_equal(bp_host_free(f->dev0, zero), BP_OK);
  assert_int_equal(bp_host_free(f->dev0, NULL), BP_OK);
  assert_int_equal(bp_host_malloc(f->dev0, STUB_MEMORY_LIMIT * 16, &p),
                   BP_ERR_OUT_OF_MEMORY);
  assert_int_equal(bp_host_malloc(NULL, 8, &p), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_host_free(NULL, p), BP_ERR_INVALID_ARGUMENT);
}

static void host_memory_passes_size_to_free(void **state) {
  fixture_t *f = *state;
  void *handle = dlopen(STUB_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(handle);
  void *symbol = dlsym(handle, "stub_counters");
  stub_counters_fn counters_fn;
  memcpy(&counters_fn, &symbol, sizeof counters_fn);
  stub_counters_t *counters = counters_fn();
  size_t before = counters->host_free_bytes;
  void *p;
  assert_int_equal(bp_host_malloc(f->dev1, 12345, &p), BP_OK);
  assert_int_equal(bp_host_free(f->dev1, p), BP_OK);
  assert_int_equal(counters->host_free_bytes, before + 12345);
  dlclose(handle);
}

static void unified_memory_unsupported(void **state) {
  fixture_t *f = *state;
  void *p = NULL;
  assert_int_equal(bp_unified_malloc(f->dev0, 64, &p), BP_ERR_UNSUPPORTED);
  assert_error_mentions("unified_memory_allocate");
  assert_null(p);
  int local;
  assert_int_equal(bp_unified_free(f->dev0, &local), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_unified_free(f->dev0, NULL), BP_OK);
}

static void copies_every_direction(void **state) {
  fixture_t *f = *state;
  enum { N = 10000 };
  unsigned char src[N], back[N], host[N];
  fill(src, N, 7);
  void *d0a, *d0b, *d1;
  assert_int_equal(bp_device_malloc(f->dev0, N, &d0a), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, N, &d0b), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, N, &d1), BP_OK);
  /* host -> host */
  memset(host, 0, N);
  assert_int_equal(bp_copy(NULL, host, NULL, src, N, NULL), BP_OK);
  assert_memory_equal(host, src, N);
  /* h2d, d2d, p2p (bounce fallback), d2h */
  assert_int_equal(bp_copy(f->dev0, d0a, NULL, src, N, NULL), BP_OK);
  assert_int_equal(bp_copy(f->dev0, d0b, f->dev0, d0a, N, NULL), BP_OK);
  assert_int_equal(bp_copy(f->dev1, d1, f->dev0, d0b, N, NULL), BP_OK);
  memset(back, 0, N);
  assert_int_equal(bp_copy(NULL, back, f->dev1, d1, N, NULL), BP_OK);
  assert_memory_equal(back, src, N);
  assert_int_equal(bp_device_free(f->dev0, d0a), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, d0b), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, d1), BP_OK);
}

/* With a stream the stub has no async copies and no stream handle: each copy
 * drains the device and runs synchronously, so the data is there at once. */
static void copies_on_a_stream(void **state) {
  fixture_t *f = *state;
  enum { N = 5000 };
  unsigned char src[N], back[N];
  fill(src, N, 3);
  bp_stream_t *s0, *s1;
  assert_int_equal(bp_stream_create(f->dev0, &s0), BP_OK);
  assert_int_equal(bp_stream_create(f->dev1, &s1), BP_OK);
  void *d0, *d1;
  assert_int_equal(bp_device_malloc(f->dev0, N, &d0), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, N, &d1), BP_OK);
  assert_int_equal(bp_copy(f->dev0, d0, NULL, src, N, s0), BP_OK);
  assert_int_equal(bp_copy(f->dev1, d1, f->dev0, d0, N, s1), BP_OK);
  assert_int_equal(bp_copy(f->dev0, d0, f->dev0, d0, 0, s0), BP_OK);
  memset(back, 0, N);
  assert_int_equal(bp_copy(NULL, back, f->dev1, d1, N, s1), BP_OK);
  assert_memory_equal(back, src, N);
  /* A stream of neither device. */
  assert_int_equal(bp_copy(f->dev0, d0, NULL, src, N, s1),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("stub:1");
  assert_int_equal(bp_copy(NULL, back, NULL, src, N, s0),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_free(f->dev0, d0), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, d1), BP_OK);
  assert_int_equal(bp_stream_destroy(s0), BP_OK);
  assert_int_equal(bp_stream_destroy(s1), BP_OK);
}

static void large_peer_copy_in_chunks(void **state) {
  fixture_t *f = *state;
  size_t n = (9u << 20) + 123; /* more than two bounce chunks */
  unsigned char *src = malloc(n), *back = calloc(1, n);
  fill(src, n, 11);
  void *d0, *d1;
  assert_int_equal(bp_device_malloc(f->dev0, n, &d0), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, n, &d1), BP_OK);
  assert_int_equal(bp_copy(f->dev0, d0, NULL, src, n, NULL), BP_OK);
  assert_int_equal(bp_copy(f->dev1, d1, f->dev0, d0, n, NULL), BP_OK);
  assert_int_equal(bp_copy(NULL, back, f->dev1, d1, n, NULL), BP_OK);
  assert_memory_equal(back, src, n);
  assert_int_equal(bp_device_free(f->dev0, d0), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, d1), BP_OK);
  free(src);
  free(back);
}

static void copy_argument_errors(void **state) {
  fixture_t *f = *state;
  unsigned char host[16] = {0};
  void *d;
  assert_int_equal(bp_device_malloc(f->dev0, 16, &d), BP_OK);
  assert_int_equal(bp_copy(f->dev0, d, NULL, NULL, 16, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("source");
  assert_int_equal(bp_copy(f->dev0, NULL, NULL, host, 16, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("destination");
  /* Size 0 is a no-op, NULL pointers included. */
  assert_int_equal(bp_copy(f->dev0, NULL, NULL, NULL, 0, NULL), BP_OK);
  assert_int_equal(
      bp_copy(f->dev0, (void *)(UINTPTR_MAX - 8), NULL, host, 16, NULL),
      BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("overflows");
  assert_int_equal(
      bp_copy(f->dev0, d, NULL, (const void *)(UINTPTR_MAX - 4), 16, NULL),
      BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_free(f->dev0, d), BP_OK);
}

static void memset_fallback(void **state) {
  fixture_t *f = *state;
  size_t n = (5u << 20) + 17; /* spans two host chunks */
  unsigned char *back = malloc(n);
  void *d;
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(f->dev1, &stream), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, n, &d), BP_OK);
  assert_int_equal(bp_memset(f->dev1, d, 0x5a, n, NULL), BP_OK);
  assert_int_equal(bp_copy(NULL, back, f->dev1, d, n, NULL), BP_OK);
  for (size_t i = 0; i < n; i += 4099)
    assert_int_equal(back[i], 0x5a);
  assert_int_equal(back[n - 1], 0x5a);
  assert_int_equal(bp_memset(f->dev1, d, 0x11, 100, stream), BP_OK);
  assert_int_equal(bp_copy(NULL, back, f->dev1, d, 101, stream), BP_OK);
  assert_int_equal(back[0], 0x11);
  assert_int_equal(back[99], 0x11);
  assert_int_equal(back[100], 0x5a);
  assert_int_equal(bp_memset(f->dev1, d, 0, 0, NULL), BP_OK);
  assert_int_equal(bp_memset(f->dev1, NULL, 0, 4, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_memset(NULL, d, 0, 4, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_memset(f->dev0, d, 0, 4, stream),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_memset(f->dev1, (void *)(UINTPTR_MAX - 1), 0, 4, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_free(f->dev1, d), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  free(back);
}

/* The fallbacks are real entries of the dispatch table: callable directly. */
static void fallbacks_through_dispatch(void **state) {
  fixture_t *f = *state;
  const C_DeviceInterface *d = bp_runtime_plugin_dispatch(f->runtime, 0);
  C_Device c0 = bp_device_c_handle(f->dev0);
  C_Device c1 = bp_device_c_handle(f->dev1);
  unsigned char src[64], mid[64], back[64];
  fill(src, sizeof src, 5);
  /* The stub's own create_stream never writes the handle (custom_cpu). */
  C_Stream stream = NULL;
  assert_int_equal(d->create_stream(c0, &stream), C_SUCCESS);
  assert_null(stream);
  void *p0, *p1;
  assert_int_equal(bp_device_malloc(f->dev0, 64, &p0), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, 64, &p1), BP_OK);
  assert_int_equal(d->async_memory_copy_h2d(c0, NULL, p0, src, 64), C_SUCCESS);
  assert_int_equal(d->async_memory_copy_d2d(c0, NULL, mid, p0, 0), C_SUCCESS);
  assert_int_equal(d->async_memory_copy_p2p(c1, c0, NULL, p1, p0, 64),
                   C_SUCCESS);
  assert_int_equal(d->device_memory_set(c0, p0, 0x77, 64), C_SUCCESS);
  assert_int_equal(d->async_memory_copy_d2h(c1, NULL, back, p1, 64), C_SUCCESS);
  assert_memory_equal(back, src, 64);
  assert_int_equal(d->memory_copy_d2h(c0, mid, p0, 64), C_SUCCESS);
  assert_int_equal(mid[0], 0x77);
  assert_int_equal(mid[63], 0x77);
  assert_int_equal(d->query_stream(c0, NULL), C_SUCCESS);
  assert_int_equal(d->synchronize_stream(c0, NULL), C_SUCCESS);
  assert_int_equal(d->query_event(c0, NULL), C_SUCCESS);
  assert_int_equal(d->stream_wait_event(c0, NULL, NULL), C_SUCCESS);
  assert_int_equal(d->destroy_stream(c0, NULL), C_SUCCESS);
  assert_int_equal(bp_device_free(f->dev0, p0), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, p1), BP_OK);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(device_malloc_free),
      T(device_out_of_memory),
      T(host_memory),
      T(host_memory_passes_size_to_free),
      T(unified_memory_unsupported),
      T(copies_every_direction),
      T(copies_on_a_stream),
      T(large_peer_copy_in_chunks),
      T(copy_argument_errors),
      T(memset_fallback),
      T(fallbacks_through_dispatch),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
