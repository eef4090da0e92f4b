/* The caching device-memory allocator (internal). One instance per device.
 *
 * It knows nothing of plugins: the core hands it a backend (raw device
 * allocate/free, memory info, size hints, and events for stream-ordered
 * reuse). Streams are opaque keys (the core passes bp_stream_t*, NULL for
 * "no stream": memory freed with no stream is reusable by anyone at once).
 *
 * Sizing (the plugin's size hints; defaults and reasons in docs/allocator.md
 * and alloc_sizing.h): a request takes size + extra_padding_size rounded up to
 * min_chunk_size; above max_chunk_size it goes straight to the backend.
 * Requests up to 1 MiB come from 2 MiB small-pool chunks, larger ones from
 * large-pool chunks: the first large growth is init_alloc_size, later ones
 * realloc_size, each at least the request, and reserved memory never exceeds
 * max_alloc_size.
 *
 * Thread-safety: every function may be called from any thread concurrently,
 * except destroy. Errors: bp_status_t with bp_last_error() set.
 */
#ifndef BACKPLANE_ALLOC_CACHING_ALLOCATOR_H_
#define BACKPLANE_ALLOC_CACHING_ALLOCATOR_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/allocator.h"
#include "backplane/status.h"

typedef struct bp_alloc_backend {
  void *self;
  /* A label for messages, e.g. "vcpu:0". */
  const char *name;
  /* Raw device memory. Must return BP_ERR_OUT_OF_MEMORY when the device is
   * full (the core maps C_FAILED and success-with-NULL to that). */
  bp_status_t (*raw_allocate)(void *self, size_t size, void **out_ptr);
  void (*raw_free)(void *self, void *ptr, size_t size);
  bp_status_t (*memory_info)(void *self, size_t *out_total, size_t *out_free);
  /* Events for cross-stream reuse. `stream` is the opaque stream key. */
  bp_status_t (*event_create)(void *self, void **out_event);
  bp_status_t (*event_record)(void *self, void *event, void *stream);
  bp_status_t (*event_query)(void *self, void *event); /* BP_OK / NOT_READY */
  void (*event_destroy)(void *self, void *event);
} bp_alloc_backend_t;

/* The plugin's size hints (Paddle's custom-device interface). A hint the plugin
 * did not give is 0 here; the allocator then applies the documented default and
 * reports it in `defaulted`. */
typedef struct bp_alloc_hints {
  size_t min_chunk_size;
  size_t max_chunk_size;
  size_t max_alloc_size;
  size_t extra_padding_size;
  size_t init_alloc_size;
  size_t realloc_size;
} bp_alloc_hints_t;

typedef struct bp_caching_allocator bp_caching_allocator_t;

/* `backend` is copied; `backend->self` and `backend->name` must outlive the
 * allocator. `hints` may be NULL (all defaulted). */
bp_status_t bp_caching_allocator_create(const bp_alloc_backend_t *backend,
                                        const bp_alloc_hints_t *hints,
                                        bp_caching_allocator_t **out);
/* Returns all memory to the backend. Blocks still allocated are reported on
 * stderr (count and bytes) and released. */
void bp_caching_allocator_destroy(bp_caching_allocator_t *allocator);

/* `stream` may be NULL. size 0 returns a unique pointer. A size that
 * overflows once padded and aligned is BP_ERR_INVALID_ARGUMENT. */
bp_status_t bp_caching_allocator_malloc(bp_caching_allocator_t *allocator,
                                        size_t size, void *stream,
                                        void **out_ptr);
/* Unknown pointer or double free: BP_ERR_INVALID_ARGUMENT, nothing changes. */
bp_status_t bp_caching_allocator_free(bp_caching_allocator_t *allocator,
                                      void *ptr);
/* bp_caching_allocator_free of a non-NULL `ptr` that the calling thread's
 * cache did not take: the framework face inlines that hit
 * (bp_thread_cache_free_hit, alloc/thread_cache.h) and calls this when it
 * misses, so that the hit is not tried twice. */
bp_status_t bp_caching_allocator_free_missed(bp_caching_allocator_t *allocator,
                                             void *ptr);
/* Like PyTorch's record_stream: `ptr` is also in use on `stream`; its reuse
 * on other streams waits for that stream's work at free time. */
bp_status_t
bp_caching_allocator_record_stream(bp_caching_allocator_t *allocator, void *ptr,
                                   void *stream);
/* Size the block at `ptr` was requested with; BP_ERR_INVALID_ARGUMENT if
 * `ptr` is not a live block of this allocator. */
bp_status_t bp_caching_allocator_block_size(bp_caching_allocator_t *allocator,
                                            const void *ptr, size_t *out_size);
/* Called when `stream` is destroyed (its work drained): its pending frees
 * become plain frees, its workspaces are released and its cached memory
 * becomes reusable by every stream. */
void bp_caching_allocator_forget_stream(bp_caching_allocator_t *allocator,
                                        void *stream);

/* Extensions beyond the core's contract. */

/* record_stream(ptr, stream) then free(ptr), with one lookup: the stream-
 * ordered free of bp_device_free_async. `stream` NULL or the allocation's
 * own stream is a plain free. */
bp_status_t
bp_caching_allocator_free_on_stream(bp_caching_allocator_t *allocator,
                                    void *ptr, void *stream);

/* Workspaces: stream-ordered LIFO scratch (see backplane/allocator.h). */
bp_status_t
bp_caching_allocator_workspace_alloc(bp_caching_allocator_t *allocator,
                                     size_t size, void *stream, void **out_ptr);
bp_status_t
bp_caching_allocator_workspace_free(bp_caching_allocator_t *allocator,
                                    void *stream, void *ptr);

/* Releases every idle chunk to the backend, waiting (by polling events, never
 * a device-wide synchronize) for the streams that last used them and for
 * pending frees. Returns the number of bytes released in *out_released (may
 * be NULL). */
bp_status_t bp_caching_allocator_empty_cache(bp_caching_allocator_t *allocator,
                                             size_t *out_released);
/* Host callbacks. The core brackets every host callback it runs on a
 * stream's behalf with enter (returning the previous value, for nesting) and
 * leave. Inside, the calling thread never waits for stream work: the
 * callback's stream cannot progress past it, and work on other streams may
 * wait for it. Allocation then reclaims only what has completed and fails
 * with BP_ERR_OUT_OF_MEMORY (saying why) rather than hang; empty_cache
 * releases only what needs no wait. Thread-local. */
void *bp_caching_allocator_enter_callback(void *stream);
void bp_caching_allocator_leave_callback(void *previous);
/* The stream whose host callback the calling thread runs, or NULL. */
void *bp_caching_allocator_callback_stream(void);

/* Reuses pending frees whose events have completed, without waiting.
 * Allocation does this itself on a cache miss. */
void bp_caching_allocator_process_events(bp_caching_allocator_t *allocator);

void bp_caching_allocator_stats(bp_caching_allocator_t *allocator,
                                bp_memory_stats_t *out_stats);
void bp_caching_allocator_reset_peaks(bp_caching_allocator_t *allocator);
void bp_caching_allocator_config(const bp_caching_allocator_t *allocator,
                                 bp_allocator_config_t *out_config);
const char *bp_caching_allocator_name(const bp_caching_allocator_t *allocator);

/* The snapshot as a JSON string (caller frees), format in
 * docs/allocator.md. */
bp_status_t
bp_caching_allocator_snapshot_json(bp_caching_allocator_t *allocator,
                                   char **out_json);

#endif /* BACKPLANE_ALLOC_CACHING_ALLOCATOR_H_ */
