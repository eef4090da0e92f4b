/* Objects kept readable after their destruction (internal).
 *
 * A handle of a destroyed object that is passed again must be refused with
 * a message, not read back from freed memory. An object whose memory the
 * handle pools (core/handle_pool.h) cannot hold, a kernel module with its
 * functions, is retired instead: its owner marks it destroyed and hands it
 * to the runtime's list, a FIFO of the last BP_RETIRED_KEEP objects; the
 * oldest beyond that, and every one at bp_runtime_destroy, is freed with
 * its own `release`. A stale handle older than that is read from freed
 * memory, as with any pointer.
 *
 * Thread-safe: `lock` guards the list. */
#ifndef BACKPLANE_CORE_RETIRED_H_
#define BACKPLANE_CORE_RETIRED_H_

#include <pthread.h>
#include <stddef.h>

#define BP_RETIRED_KEEP 256

typedef struct bp_retired_node {
  struct bp_retired_node *next;
  /* Frees the object holding the node; called without the list's lock. */
  void (*release)(struct bp_retired_node *node);
} bp_retired_node_t;

typedef struct bp_retired_list {
  pthread_mutex_t lock;
  bp_retired_node_t *oldest, *newest;
  size_t count;
} bp_retired_list_t;

void bp_retired_init(bp_retired_list_t *list);
/* Appends `node` (its `release` set); frees the oldest beyond the limit. */
void bp_retired_add(bp_retired_list_t *list, bp_retired_node_t *node);
/* Frees every retired object (bp_runtime_destroy). */
void bp_retired_release(bp_retired_list_t *list);

#endif /* BACKPLANE_CORE_RETIRED_H_ */
