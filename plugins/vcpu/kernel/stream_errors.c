/* Sticky stream errors: the first failure of a launch or notify wait on a
 * stream, kept until stream_reset. A short list under a lock; `g_count`
 * lets healthy processes answer without taking it. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

typedef struct stream_error {
  C_Stream stream;
  bp_status_t status;
  char message[512];
  struct stream_error *next;
} stream_error;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static stream_error *g_errors;
static _Atomic unsigned g_count;

void vk_stream_fail(C_Stream stream, bp_status_t status, const char *format,
                    ...) {
  pthread_mutex_lock(&g_lock);
  stream_error *e = g_errors;
  while (e && e->stream != stream)
    e = e->next;
  if (!e && (e = calloc(1, sizeof *e)) != NULL) {
    e->stream = stream;
    e->status = status;
    va_list args;
    va_start(args, format);
    vsnprintf(e->message, sizeof e->message, format, args);
    va_end(args);
    e->next = g_errors;
    g_errors = e;
    atomic_fetch_add(&g_count, 1);
  }
  pthread_mutex_unlock(&g_lock);
}

C_Status vk_stream_error(const C_Device device, C_Stream stream,
                         int32_t *out_status, char *message, size_t capacity) {
  (void)device;
  if (!out_status)
    return vk_fail(C_ERROR, "stream_error: out_status is NULL");
  *out_status = BP_OK;
  if (atomic_load_explicit(&g_count, memory_order_acquire) == 0)
    return C_SUCCESS;
  pthread_mutex_lock(&g_lock);
  for (stream_error *e = g_errors; e; e = e->next) {
    if (e->stream != stream)
      continue;
    *out_status = e->status;
    if (message && capacity)
      snprintf(message, capacity, "%s", e->message);
    break;
  }
  pthread_mutex_unlock(&g_lock);
  return C_SUCCESS;
}

C_Status vk_stream_reset(const C_Device device, C_Stream stream) {
  (void)device;
  pthread_mutex_lock(&g_lock);
  for (stream_error **link = &g_errors; *link; link = &(*link)->next) {
    if ((*link)->stream != stream)
      continue;
    stream_error *e = *link;
    *link = e->next;
    free(e);
    atomic_fetch_sub(&g_count, 1);
    break;
  }
  pthread_mutex_unlock(&g_lock);
  return C_SUCCESS;
}

void vk_stream_errors_clear(void) {
  pthread_mutex_lock(&g_lock);
  while (g_errors) {
    stream_error *next = g_errors->next;
    free(g_errors);
    g_errors = next;
  }
  atomic_store(&g_count, 0);
  pthread_mutex_unlock(&g_lock);
}
