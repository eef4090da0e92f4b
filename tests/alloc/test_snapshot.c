/* The JSON snapshot, parsed back with jansson, and its SVG picture. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alloc/fake_backend.h"
#include "backplane/status.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

typedef struct fixture {
  fake_device_t device;
  fake_stream_t stream, other;
  void *kept;
  bp_caching_allocator_t *allocator;
  char *json;
} fixture_t;

/* NULL-stream blocks (allocated, cached and free), a stream's block pending
 * on another stream, and a workspace. */
static int setup(void **state) {
  fixture_t *f = calloc(1, sizeof *f);
  fake_device_init(&f->device, 1024 * MiB);
  bp_alloc_backend_t backend = fake_backend(&f->device, true);
  bp_alloc_hints_t hints = {.min_chunk_size = 256};
  if (bp_caching_allocator_create(&backend, &hints, &f->allocator) != BP_OK)
    return -1;
  bp_caching_allocator_t *a = f->allocator;
  void *q, *r, *w;
  if (bp_caching_allocator_malloc(a, 1000, NULL, &f->kept) ||
      bp_caching_allocator_malloc(a, 3 * MiB, NULL, &q) ||
      bp_caching_allocator_malloc(a, 5000, &f->stream, &r) ||
      bp_caching_allocator_record_stream(a, r, &f->other) ||
      bp_caching_allocator_free(a, r) ||
      bp_caching_allocator_workspace_alloc(a, 100, &f->stream, &w) ||
      bp_caching_allocator_free(a, q) ||
      bp_caching_allocator_snapshot_json(a, &f->json))
    return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture_t *f = *state;
  free(f->json);
  bp_caching_allocator_free(f->allocator, f->kept);
  bp_caching_allocator_destroy(f->allocator);
  free(f);
  return 0;
}

static json_int_t int_at(json_t *object, const char *key) {
  json_t *value = json_object_get(object, key);
  assert_true(json_is_integer(value));
  return json_integer_value(value);
}

static void test_json_structure(void **state) {
  fixture_t *f = *state;
  json_error_t error;
  json_t *root = json_loads(f->json, 0, &error);
  assert_non_null(root);
  assert_string_equal(json_string_value(json_object_get(root, "device")),
                      "fake:0");

  json_t *config = json_object_get(root, "config");
  assert_int_equal(int_at(config, "min_chunk_size"), 256);
  json_t *defaulted = json_object_get(config, "defaulted");
  assert_int_equal(json_array_size(defaulted), 5);
  assert_string_equal(json_string_value(json_array_get(defaulted, 0)),
                      "max_chunk_size");

  json_t *stats = json_object_get(root, "stats");
  const char *keys[] = {"allocated_bytes", "reserved_bytes", "active_bytes",
                        "inactive_split_bytes", "requested_bytes"};
  for (size_t i = 0; i < 5; i++) {
    json_t *stat = json_object_get(stats, keys[i]);
    assert_int_equal(int_at(stat, "current"),
                     int_at(stat, "allocated") - int_at(stat, "freed"));
    assert_true(int_at(stat, "peak") >= int_at(stat, "current"));
  }
  assert_int_equal(int_at(json_object_get(stats, "requested_bytes"), "current"),
                   1000 + 1 * MiB); /* p and the workspace slab */
  assert_int_equal(int_at(stats, "num_device_alloc"), 3);

  json_t *chunks = json_object_get(root, "chunks");
  assert_int_equal(json_array_size(chunks), 3);
  size_t seen_allocated = 0, seen_free = 0, seen_pending = 0, seen_ws = 0,
         seen_cached = 0;
  size_t index;
  json_t *chunk;
  json_array_foreach(chunks, index, chunk) {
    json_int_t size = int_at(chunk, "size");
    const char *pool = json_string_value(json_object_get(chunk, "pool"));
    assert_true(!strcmp(pool, "small") || !strcmp(pool, "large"));
    assert_non_null(json_string_value(json_object_get(chunk, "address")));
    bool on_stream = !json_is_null(json_object_get(chunk, "stream"));
    json_int_t offset = 0;
    size_t b;
    json_t *block;
    json_array_foreach(json_object_get(chunk, "blocks"), b, block) {
      assert_int_equal(int_at(block, "offset"), offset); /* tiles the chunk */
      offset += int_at(block, "size");
      const char *st = json_string_value(json_object_get(block, "state"));
      if (!strcmp(st, "allocated")) {
        seen_allocated++;
        assert_int_equal(int_at(block, "requested_size"), 1000);
        assert_int_equal(int_at(block, "size"), 1024);
      } else if (!strcmp(st, "pending_free")) {
        seen_pending++;
        assert_true(on_stream);
        assert_int_equal(int_at(block, "requested_size"), 5000);
        assert_int_equal(
            json_array_size(json_object_get(block, "recorded_streams")), 1);
      } else if (!strcmp(st, "workspace")) {
        seen_ws++;
        assert_true(on_stream);
      } else if (!strcmp(st, "cached")) { /* q, freed into the hot cache */
        seen_cached++;
        assert_false(on_stream);
        assert_int_equal(int_at(block, "size"), 3 * MiB);
        assert_int_equal(int_at(block, "requested_size"), 0);
        assert_true(json_is_null(json_object_get(block, "stream")));
      } else {
        assert_string_equal(st, "free");
        seen_free++;
      }
    }
    assert_int_equal(offset, size);
  }
  assert_int_equal(seen_allocated, 1);
  assert_int_equal(seen_pending, 1);
  assert_int_equal(seen_ws, 1);
  assert_int_equal(seen_cached, 1);
  assert_true(seen_free >= 3);
  json_decref(root);
}

static size_t count(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

static void test_svg_rendering(void **state) {
  fixture_t *f = *state;
  char *svg = NULL;
  assert_int_equal(bp_memory_snapshot_to_svg(f->json, &svg), BP_OK);
  assert_true(strncmp(svg, "<svg ", 5) == 0);
  assert_non_null(strstr(svg, "</svg>"));
  assert_non_null(strstr(svg, "fake:0: 3 chunk(s)"));
  const char *legend[] = {">allocated<", ">workspace<", ">pending_free<",
                          ">cached<", ">free<"};
  for (size_t i = 0; i < 5; i++)
    assert_non_null(strstr(svg, legend[i]));
  /* 5 legend squares + per chunk an outline and its blocks. */
  json_t *root = json_loads(f->json, 0, NULL);
  size_t blocks = 0, i;
  json_t *chunk;
  json_array_foreach(json_object_get(root, "chunks"), i, chunk) blocks +=
      json_array_size(json_object_get(chunk, "blocks"));
  assert_int_equal(count(svg, "<rect "), 5 + 3 + blocks);
  assert_int_equal(count(svg, "<title>"), blocks);
  json_decref(root);
  free(svg);
}

static void test_svg_rejects_other_input(void **state) {
  (void)state;
  char *svg = (char *)"unchanged";
  assert_int_equal(bp_memory_snapshot_to_svg("{not json", &svg),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "not JSON"));
  assert_int_equal(bp_memory_snapshot_to_svg("{\"chunks\": 3}", &svg),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(
      bp_memory_snapshot_to_svg(
          "{\"device\":\"d\",\"chunks\":[{\"address\":\"0x1\",\"size\":10,"
          "\"pool\":\"small\",\"blocks\":[{\"offset\":5,\"size\":10,"
          "\"state\":\"free\"}]}]}",
          &svg),
      BP_ERR_INVALID_ARGUMENT); /* a block past the chunk's end */
  assert_string_equal(svg, "unchanged");
  assert_int_equal(bp_memory_snapshot_to_svg(NULL, &svg),
                   BP_ERR_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_structure),
      cmocka_unit_test(test_svg_rendering),
      cmocka_unit_test(test_svg_rejects_other_input),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
