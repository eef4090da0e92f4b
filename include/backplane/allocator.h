/* The caching allocator's framework face: stream-ordered device memory,
 * workspaces (stream-ordered scratch), cache control, statistics and
 * snapshots. One caching allocator per device; all calls are thread-safe.
 *
 * Stream order: memory allocated on stream S is reusable on S as soon as it
 * is freed (work on S runs in order); another stream reuses it only after an
 * event recorded at free time on every stream that used it has completed. A
 * NULL stream means "no stream": the caller promises the memory is idle when
 * it frees it, so it is reusable by anyone at once. */
#ifndef BACKPLANE_ALLOCATOR_H_
#define BACKPLANE_ALLOCATOR_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device memory of at least `size` bytes for use on `stream` (NULL: no
 * stream). Size 0 gives a unique pointer that may be freed.
 * BP_ERR_OUT_OF_MEMORY (message: device, requested, allocated, reserved,
 * device free, largest free block) after idle cached memory was released and
 * the allocation retried once. */
BP_API bp_status_t bp_device_malloc_async(bp_device_t *device, size_t size,
                                          bp_stream_t *stream, void **out_ptr);
/* Frees `ptr` in the order of `stream`: when `stream` is not the stream the
 * memory was allocated on, this is bp_device_record_stream(ptr, stream)
 * followed by the free. NULL ptr is a no-op; an unknown pointer or a second
 * free is BP_ERR_INVALID_ARGUMENT. */
BP_API bp_status_t bp_device_free_async(bp_device_t *device, void *ptr,
                                        bp_stream_t *stream);
/* Marks `ptr` (from this device's allocator) as also used on `stream`: when
 * freed, it is reused only after the work enqueued on `stream` up to the free
 * has completed (PyTorch's record_stream). For bp_device_free_async too,
 * `stream` may belong to another device (a peer reading the block). */
BP_API bp_status_t bp_device_record_stream(bp_device_t *device, void *ptr,
                                           bp_stream_t *stream);

/* Workspace: scratch memory for one stream (TVM AllocWorkspace), allocated
 * and freed in LIFO order on that stream (an out-of-order free is accepted
 * and reclaimed when the frames above it are freed). Much cheaper than
 * bp_device_malloc_async; released when the stream is destroyed.
 * Freeing a pointer that is not a live workspace of `stream` is
 * BP_ERR_INVALID_ARGUMENT. */
BP_API bp_status_t bp_device_workspace_alloc(bp_device_t *device, size_t size,
                                             bp_stream_t *stream,
                                             void **out_ptr);
BP_API bp_status_t bp_device_workspace_free(bp_device_t *device,
                                            bp_stream_t *stream, void *ptr);

/* Returns every idle cached chunk (a chunk that is one whole free block) to
 * the device, waiting for the streams that last used those chunks. */
BP_API bp_status_t bp_device_empty_cache(bp_device_t *device);

/* One statistic, named as in PyTorch's memory_stats(): the value now, its
 * peak since creation or the last reset, and the cumulative amounts added
 * and removed (current == allocated - freed). */
typedef struct bp_memory_stat {
  uint64_t current;
  uint64_t peak;
  uint64_t allocated;
  uint64_t freed;
} bp_memory_stat_t;

typedef struct bp_memory_stats {
  bp_memory_stat_t allocated_bytes;      /* blocks handed out (rounded) */
  bp_memory_stat_t reserved_bytes;       /* memory held from the device */
  bp_memory_stat_t active_bytes;         /* allocated + freed, not reusable */
  bp_memory_stat_t inactive_split_bytes; /* free parts of split chunks */
  bp_memory_stat_t requested_bytes;      /* sizes as requested */
  uint64_t num_alloc_retries; /* device allocations retried after release */
  uint64_t num_ooms;          /* out-of-memory errors returned */
  uint64_t num_device_alloc;  /* calls of the plugin's allocate */
  uint64_t num_device_free;   /* calls of the plugin's deallocate */
  /* Free blocks held in per-thread caches (counted as free above). */
  uint64_t thread_cached_blocks;
  uint64_t thread_cached_bytes;
} bp_memory_stats_t;

BP_API bp_status_t bp_device_memory_stats(bp_device_t *device,
                                          bp_memory_stats_t *out_stats);
/* Sets every peak to its current value. */
BP_API bp_status_t bp_device_reset_peak_memory_stats(bp_device_t *device);

/* The allocator's effective sizing (the plugin's size hints after defaults,
 * docs/allocator.md) and
 * which hints the plugin did not give (BP_ALLOCATOR_DEFAULTED_* bits). */
enum {
  BP_ALLOCATOR_DEFAULTED_MIN_CHUNK = 1u << 0,
  BP_ALLOCATOR_DEFAULTED_MAX_CHUNK = 1u << 1,
  BP_ALLOCATOR_DEFAULTED_MAX_ALLOC = 1u << 2,
  BP_ALLOCATOR_DEFAULTED_EXTRA_PADDING = 1u << 3,
  BP_ALLOCATOR_DEFAULTED_INIT_ALLOC = 1u << 4,
  BP_ALLOCATOR_DEFAULTED_REALLOC = 1u << 5,
};
typedef struct bp_allocator_config {
  size_t min_chunk_size;
  size_t max_chunk_size;
  size_t max_alloc_size; /* SIZE_MAX: unlimited (device size unknown) */
  size_t extra_padding_size;
  size_t init_alloc_size;
  size_t realloc_size;
  unsigned defaulted;
} bp_allocator_config_t;

BP_API bp_status_t bp_device_allocator_config(bp_device_t *device,
                                              bp_allocator_config_t *out);

/* A JSON snapshot of the allocator (format in docs/allocator.md): device,
 * config, stats, and every chunk with every block (offset, size, state,
 * stream, requested size). The string is the caller's to free(). */
BP_API bp_status_t bp_device_memory_snapshot(bp_device_t *device,
                                             char **out_json);
/* Writes the snapshot to `path`. */
BP_API bp_status_t bp_device_memory_snapshot_file(bp_device_t *device,
                                                  const char *path);
/* Renders a snapshot (as produced above) as an SVG picture: one row per
 * chunk, blocks coloured by state, and a legend. A history snapshot
 * (backplane/memory_history.h) becomes per device a timeline of live bytes
 * per stream, reserved bytes and the peak. The string is the caller's to
 * free(). BP_ERR_INVALID_ARGUMENT if `snapshot_json` is neither. */
BP_API bp_status_t bp_memory_snapshot_to_svg(const char *snapshot_json,
                                             char **out_svg);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_ALLOCATOR_H_ */
