/* Per-thread event buffers (contract in trace_thread_buffer.h). The owner
 * fills a chunk's events, then publishes each with a release store of the
 * chunk's count; readers load the count with acquire and read only the
 * events below it. */
#include "layers/trace/trace_thread_buffer.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A thread's first chunk is small (most threads record little); the next
 * ones are 2 MiB each, mapped with their pages populated (map_chunk). */
struct bp_trace_chunk {
  bp_trace_chunk_t *_Atomic next;
  atomic_size_t count;
  size_t capacity; /* events */
  bool mapped;     /* by map_chunk (else malloc) */
  bp_trace_event_t events[];
};
enum { FIRST_CHUNK_EVENTS = 256 };
#define BIG_CHUNK_BYTES ((size_t)2 << 20)

/* Copies of %s arguments, in blocks; a copy is cut at TEXT_MAX bytes. */
enum { TEXT_BLOCK = 4096, TEXT_MAX = 255 };
struct bp_trace_text {
  bp_trace_text_t *next;
  size_t used;
  char bytes[TEXT_BLOCK];
};

/* The calling thread's buffers, by their layer's serial: a thread records
 * into few layers at once (one per traced plugin of each runtime). A
 * layer gone is never matched again (serials are not reused); a buffer
 * evicted here is still the layer's, and a second one may be made. */
enum { THREAD_CACHE = 4 };
/* initial-exec: no __tls_get_addr call per event (68 bytes of static TLS). */
static _Thread_local __attribute__((tls_model("initial-exec"))) struct {
  uint64_t serial;
  bp_trace_thread_buffer_t *buffer;
} thread_cache[THREAD_CACHE];
static _Thread_local
    __attribute__((tls_model("initial-exec"))) unsigned thread_cache_next;
static atomic_uint_fast64_t next_serial = 1;

void bp_trace_thread_buffers_init(bp_trace_thread_buffers_t *buffers) {
  buffers->serial = atomic_fetch_add(&next_serial, 1);
  atomic_init(&buffers->list, NULL);
  atomic_init(&buffers->dropped, 0);
}

void bp_trace_thread_buffers_release(bp_trace_thread_buffers_t *buffers) {
  bp_trace_thread_buffer_t *buffer = atomic_load(&buffers->list);
  while (buffer) {
    bp_trace_thread_buffer_t *next_buffer = buffer->next;
    for (bp_trace_chunk_t *c = atomic_load(&buffer->first), *next; c;
         c = next) {
      next = atomic_load(&c->next);
      if (c->mapped)
        munmap(c, BIG_CHUNK_BYTES);
      else
        free(c);
    }
    for (bp_trace_text_t *t = buffer->text, *next; t; t = next) {
      next = t->next;
      free(t);
    }
    free(buffer);
    buffer = next_buffer;
  }
  atomic_store(&buffers->list, NULL);
}

/* Makes the calling thread's buffer and pushes it on the layer's list. */
static bp_trace_thread_buffer_t *
new_buffer(bp_trace_thread_buffers_t *buffers) {
  bp_trace_thread_buffer_t *buffer = calloc(1, sizeof *buffer);
  if (!buffer)
    return NULL;
  buffer->thread_id = (uint64_t)syscall(SYS_gettid);
  bp_trace_thread_buffer_t *head = atomic_load(&buffers->list);
  do
    buffer->next = head;
  while (!atomic_compare_exchange_weak(&buffers->list, &head, buffer));
  unsigned slot = thread_cache_next++ % THREAD_CACHE;
  thread_cache[slot].serial = buffers->serial;
  thread_cache[slot].buffer = buffer;
  return buffer;
}

static inline bp_trace_thread_buffer_t *
thread_buffer(bp_trace_thread_buffers_t *buffers) {
  for (unsigned i = 0; i < THREAD_CACHE; ++i)
    if (thread_cache[i].serial == buffers->serial)
      return thread_cache[i].buffer;
  return new_buffer(buffers);
}

/* BIG_CHUNK_BYTES mapped with their pages in place: one system call
 * instead of a page fault every ~40 events. NULL when out of memory. */
static bp_trace_chunk_t *map_chunk(void) {
  void *region = mmap(NULL, BIG_CHUNK_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (region == MAP_FAILED)
    return NULL;
  bp_trace_chunk_t *chunk = region;
  chunk->capacity = (BIG_CHUNK_BYTES - sizeof *chunk) / sizeof chunk->events[0];
  chunk->mapped = true;
  return chunk;
}

static bp_trace_chunk_t *new_chunk(bool first) {
  bp_trace_chunk_t *chunk = NULL;
  if (first) {
    chunk =
        malloc(sizeof *chunk + FIRST_CHUNK_EVENTS * sizeof chunk->events[0]);
    if (chunk)
      *chunk = (bp_trace_chunk_t){.capacity = FIRST_CHUNK_EVENTS};
  } else {
    chunk = map_chunk();
  }
  if (chunk) {
    atomic_init(&chunk->next, NULL);
    atomic_init(&chunk->count, 0);
  }
  return chunk;
}

/* The slot of the next event of `buffer`, with a fresh chunk when the
 * current one is full; NULL when out of memory. */
static bp_trace_event_t *next_slot(bp_trace_thread_buffer_t *buffer,
                                   size_t *out_index) {
  bp_trace_chunk_t *chunk = buffer->current;
  size_t index =
      chunk ? atomic_load_explicit(&chunk->count, memory_order_relaxed) : 0;
  if (!chunk || index == chunk->capacity) {
    bp_trace_chunk_t *fresh = new_chunk(chunk == NULL);
    if (!fresh)
      return NULL;
    if (chunk)
      atomic_store_explicit(&chunk->next, fresh, memory_order_release);
    else
      atomic_store_explicit(&buffer->first, fresh, memory_order_release);
    buffer->current = chunk = fresh;
    index = 0;
  }
  *out_index = index;
  return &chunk->events[index];
}

/* A copy of `s` in the buffer's text, cut at TEXT_MAX bytes; "" when out
 * of memory. */
static const char *copy_text(bp_trace_thread_buffer_t *buffer, const char *s) {
  if (!s)
    return "(null)";
  size_t length = strnlen(s, TEXT_MAX);
  bp_trace_text_t *text = buffer->text;
  if (!text || TEXT_BLOCK - text->used < length + 1) {
    text = malloc(sizeof *text);
    if (!text)
      return "";
    text->next = buffer->text;
    text->used = 0;
    buffer->text = text;
  }
  char *copy = text->bytes + text->used;
  memcpy(copy, s, length);
  copy[length] = '\0';
  text->used += length + 1;
  return copy;
}

/* Keeps the raw arguments `plan` names. */
static void capture_args(bp_trace_thread_buffer_t *buffer,
                         bp_trace_event_t *event,
                         const bp_trace_format_plan_t *plan, va_list args) {
  for (size_t n = 0; n < plan->count; ++n) {
    uint64_t *arg = &event->detail_args[n];
    switch ((bp_trace_conversion_t)plan->conversions[n]) {
    case BP_TRACE_CONV_POINTER:
      *arg = (uintptr_t)va_arg(args, void *);
      break;
    case BP_TRACE_CONV_STRING:
      *arg = (uintptr_t)copy_text(buffer, va_arg(args, const char *));
      break;
    case BP_TRACE_CONV_INT:
      *arg = (uint64_t)(int64_t)va_arg(args, int);
      break;
    case BP_TRACE_CONV_UNSIGNED:
      *arg = va_arg(args, unsigned);
      break;
    case BP_TRACE_CONV_SIZE:
      *arg = va_arg(args, size_t);
      break;
    case BP_TRACE_CONV_LONG:
      *arg = (uint64_t)(int64_t)va_arg(args, long);
      break;
    case BP_TRACE_CONV_ULONG:
      *arg = va_arg(args, unsigned long);
      break;
    case BP_TRACE_CONV_LLONG:
      *arg = (uint64_t)(int64_t)va_arg(args, long long);
      break;
    case BP_TRACE_CONV_ULLONG:
      *arg = va_arg(args, unsigned long long);
      break;
    default:
      return;
    }
  }
}

void bp_trace_thread_record(bp_trace_thread_buffers_t *buffers,
                            bp_trace_event_t *event, va_list detail_args) {
  bp_trace_thread_buffer_t *buffer = thread_buffer(buffers);
  size_t index = 0;
  bp_trace_event_t *slot = buffer ? next_slot(buffer, &index) : NULL;
  if (!slot) {
    atomic_fetch_add_explicit(&buffers->dropped, 1, memory_order_relaxed);
    return;
  }
  *slot = *event;
  bp_trace_format_plan_t scratch;
  const bp_trace_format_plan_t *plan =
      slot->detail_format && slot->detail_format[0]
          ? bp_trace_format_plan(slot->detail_format, &scratch)
          : NULL;
  if (!plan) {
    slot->detail_format = NULL;
  } else if (plan->raw) {
    capture_args(buffer, slot, plan, detail_args);
  } else {
    char text[TEXT_MAX + 1];
    vsnprintf(text, sizeof text, slot->detail_format, detail_args);
    slot->detail_format = "%s";
    slot->detail_args[0] = (uintptr_t)copy_text(buffer, text);
  }
  atomic_store_explicit(&buffer->current->count, index + 1,
                        memory_order_release);
}

void bp_trace_thread_counts(bp_trace_thread_buffers_t *buffers,
                            uint64_t *out_recorded, uint64_t *out_dropped) {
  uint64_t recorded = 0;
  bp_trace_thread_buffer_t *buffer = atomic_load(&buffers->list);
  for (; buffer; buffer = buffer->next) {
    bp_trace_chunk_t *chunk =
        atomic_load_explicit(&buffer->first, memory_order_acquire);
    for (; chunk;
         chunk = atomic_load_explicit(&chunk->next, memory_order_acquire))
      recorded += atomic_load_explicit(&chunk->count, memory_order_acquire);
  }
  *out_recorded = recorded;
  *out_dropped = atomic_load(&buffers->dropped);
}

void bp_trace_thread_buffers_visit(bp_trace_thread_buffers_t *buffers,
                                   bp_trace_event_visit_fn visit,
                                   void *context) {
  bp_trace_thread_buffer_t *buffer = atomic_load(&buffers->list);
  for (; buffer; buffer = buffer->next) {
    bp_trace_chunk_t *chunk =
        atomic_load_explicit(&buffer->first, memory_order_acquire);
    for (; chunk;
         chunk = atomic_load_explicit(&chunk->next, memory_order_acquire)) {
      size_t count = atomic_load_explicit(&chunk->count, memory_order_acquire);
      for (size_t i = 0; i < count; ++i)
        visit(context, buffer->thread_id, &chunk->events[i]);
    }
  }
}

/* Appends to out[*used, capacity), always terminated, cut when full. */
static void append(char *out, size_t capacity, size_t *used, const char *format,
                   ...) __attribute__((format(printf, 4, 5)));
static void append(char *out, size_t capacity, size_t *used, const char *format,
                   ...) {
  if (*used + 1 >= capacity)
    return;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(out + *used, capacity - *used, format, args);
  va_end(args);
  if (n > 0)
    *used = *used + (size_t)n < capacity ? *used + (size_t)n : capacity - 1;
}

void bp_trace_event_detail(const bp_trace_event_t *event, char *out,
                           size_t capacity) {
  size_t used = 0;
  out[0] = '\0';
  const char *at = event->detail_format, *spec = NULL;
  if (!at)
    return;
  for (size_t n = 0;; ++n) {
    const char *text = at;
    bp_trace_conversion_t c = bp_trace_next_conversion(&at, &spec);
    const char *text_end = c == BP_TRACE_CONV_NONE ? text + strlen(text) : spec;
    /* The text before the conversion, with "%%" as "%". */
    for (const char *p = text; p < text_end; ++p) {
      append(out, capacity, &used, "%c", *p);
      if (p[0] == '%' && p + 1 < text_end && p[1] == '%')
        ++p;
    }
    if (c == BP_TRACE_CONV_NONE || n == BP_TRACE_DETAIL_ARGS)
      return;
    uint64_t arg = event->detail_args[n];
    switch (c) {
    case BP_TRACE_CONV_POINTER:
      append(out, capacity, &used, "%p", (void *)(uintptr_t)arg);
      break;
    case BP_TRACE_CONV_STRING:
      append(out, capacity, &used, "%s", (const char *)(uintptr_t)arg);
      break;
    case BP_TRACE_CONV_INT:
    case BP_TRACE_CONV_LONG:
    case BP_TRACE_CONV_LLONG:
      append(out, capacity, &used, "%lld", (long long)(int64_t)arg);
      break;
    default:
      append(out, capacity, &used, "%llu", (unsigned long long)arg);
      break;
    }
  }
}
