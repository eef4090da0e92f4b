/* The allocator's state as JSON (format in docs/allocator.md). Each pool is
 * locked while its chunks are read. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc/thread_cache.h"
#include "base/status.h"

static json_t *stream_json(const void *stream) {
  if (!stream)
    return json_null();
  char text[32];
  snprintf(text, sizeof text, "%p", stream);
  return json_string(text);
}

/* A lent block is "cached" while free in its thread's cache. */
static const char *state_name(const bp_block_t *b, bool lent_out) {
  if (b->state == BP_BLOCK_LENT)
    return lent_out ? "allocated" : "cached";
  if (b->state == BP_BLOCK_FREE)
    return "free";
  if (b->state == BP_BLOCK_PENDING_FREE)
    return "pending_free";
  if (b->state == BP_BLOCK_CACHED)
    return "cached";
  return b->workspace ? "workspace" : "allocated";
}

static const char *kind_name(bp_chunk_kind_t kind) {
  return kind == BP_CHUNK_SMALL   ? "small"
         : kind == BP_CHUNK_LARGE ? "large"
                                  : "direct";
}

static json_t *block_json(const bp_block_t *b, const bp_chunk_t *c,
                          const void *stream) {
  json_t *streams = json_array();
  for (uint32_t i = 0; i < b->other_stream_count; i++)
    json_array_append_new(streams, stream_json(b->other_streams[i]));
  /* A lent block's requested size is its thread cache's to read. */
  size_t requested = b->state == BP_BLOCK_LENT ? 0 : b->requested;
  bool lent_out =
      b->state == BP_BLOCK_LENT && bp_thread_cache_peek(b, &requested);
  bool live = b->state != BP_BLOCK_FREE && b->state != BP_BLOCK_CACHED &&
              (b->state != BP_BLOCK_LENT || lent_out);
  return json_pack("{s:I, s:I, s:s, s:o, s:I, s:o}", "offset",
                   (json_int_t)(b->addr - c->base), "size", (json_int_t)b->size,
                   "state", state_name(b, lent_out), "stream",
                   live ? stream_json(stream) : json_null(), "requested_size",
                   (json_int_t)(live ? requested : 0), "recorded_streams",
                   streams);
}

static json_t *chunk_json(const bp_chunk_t *c, const void *stream) {
  json_t *blocks = json_array();
  for (const bp_block_t *b = c->first; b; b = b->next)
    json_array_append_new(blocks, block_json(b, c, stream));
  char address[32];
  snprintf(address, sizeof address, "0x%llx", (unsigned long long)c->base);
  return json_pack("{s:s, s:I, s:s, s:o, s:o}", "address", address, "size",
                   (json_int_t)c->size, "pool", kind_name(c->kind), "stream",
                   stream_json(stream), "blocks", blocks);
}

static json_t *stat_json(const bp_memory_stat_t *s) {
  return json_pack("{s:I, s:I, s:I, s:I}", "current", (json_int_t)s->current,
                   "peak", (json_int_t)s->peak, "allocated",
                   (json_int_t)s->allocated, "freed", (json_int_t)s->freed);
}

static json_t *stats_json(bp_caching_allocator_t *a) {
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  return json_pack(
      "{s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I}", "allocated_bytes",
      stat_json(&s.allocated_bytes), "reserved_bytes",
      stat_json(&s.reserved_bytes), "active_bytes", stat_json(&s.active_bytes),
      "inactive_split_bytes", stat_json(&s.inactive_split_bytes),
      "requested_bytes", stat_json(&s.requested_bytes), "num_alloc_retries",
      (json_int_t)s.num_alloc_retries, "num_ooms", (json_int_t)s.num_ooms,
      "num_device_alloc", (json_int_t)s.num_device_alloc, "num_device_free",
      (json_int_t)s.num_device_free);
}

static json_t *config_json(const bp_allocator_config_t *c) {
  static const char *const names[] = {"min_chunk_size",  "max_chunk_size",
                                      "max_alloc_size",  "extra_padding_size",
                                      "init_alloc_size", "realloc_size"};
  const size_t values[] = {c->min_chunk_size,  c->max_chunk_size,
                           c->max_alloc_size,  c->extra_padding_size,
                           c->init_alloc_size, c->realloc_size};
  json_t *config = json_object();
  json_t *defaulted = json_array();
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    /* Unlimited (SIZE_MAX) is null: JSON integers are signed 64-bit. */
    json_object_set_new(config, names[i],
                        values[i] == SIZE_MAX
                            ? json_null()
                            : json_integer((json_int_t)values[i]));
    if (c->defaulted & 1u << i)
      json_array_append_new(defaulted, json_string(names[i]));
  }
  json_object_set_new(config, "defaulted", defaulted);
  return config;
}

bp_status_t bp_caching_allocator_snapshot_json(bp_caching_allocator_t *a,
                                               char **out_json) {
  if (!a || !out_json)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "snapshot: allocator or out_json is NULL");
  json_t *chunks = json_array();
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p)) {
    bp_pool_lock(&p->mu);
    for (const bp_chunk_t *c = p->chunks; c; c = c->next)
      json_array_append_new(chunks, chunk_json(c, p->stream));
    bp_pool_unlock(&p->mu);
  }
  json_t *root = json_pack("{s:s, s:o, s:o, s:o}", "device", a->backend.name,
                           "config", config_json(&a->config), "stats",
                           stats_json(a), "chunks", chunks);
  char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
  json_decref(root);
  if (!text)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: no host memory for the snapshot",
                    a->backend.name);
  *out_json = text;
  return BP_OK;
}
