#include "core/retired.h"

void bp_retired_init(bp_retired_list_t *list) {
  *list = (bp_retired_list_t){.count = 0};
  pthread_mutex_init(&list->lock, NULL);
}

void bp_retired_add(bp_retired_list_t *list, bp_retired_node_t *node) {
  node->next = NULL;
  bp_retired_node_t *expired = NULL;
  pthread_mutex_lock(&list->lock);
  if (list->newest)
    list->newest->next = node;
  else
    list->oldest = node;
  list->newest = node;
  if (++list->count > BP_RETIRED_KEEP) {
    expired = list->oldest;
    list->oldest = expired->next;
    list->count--;
  }
  pthread_mutex_unlock(&list->lock);
  if (expired)
    expired->release(expired);
}

void bp_retired_release(bp_retired_list_t *list) {
  bp_retired_node_t *node = list->oldest;
  while (node) {
    bp_retired_node_t *next = node->next;
    node->release(node);
    node = next;
  }
  list->oldest = list->newest = NULL;
  list->count = 0;
  pthread_mutex_destroy(&list->lock);
}
