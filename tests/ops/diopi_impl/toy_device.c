/* The toy accelerator (toy_device.h). */
#include "toy_device.h"

#include <diopi/functions.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define TOY_STREAM_MAGIC 0x70791234u
#define MAX_DIMS 8

/* ---- Streams: a worker thread per stream --------------------------------- */

typedef struct task {
  void (*run)(void *arg); /* frees arg */
  void *arg;
  struct task *next;
} task_t;

typedef struct toy_stream {
  unsigned magic;
  pthread_t worker;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  task_t *head, *tail;
  int busy; /* a task is running */
  int stopping;
} toy_stream_t;

static _Thread_local char last_error[256];

static void set_error(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(last_error, sizeof last_error, format, args);
  va_end(args);
}

const char *toy_last_error(void) {
  return last_error;
}

static void *work(void *arg) {
  toy_stream_t *s = arg;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (!s->head && !s->stopping)
      pthread_cond_wait(&s->changed, &s->lock);
    if (!s->head)
      break;
    task_t *t = s->head;
    s->head = t->next;
    if (!s->head)
      s->tail = NULL;
    s->busy = 1;
    pthread_mutex_unlock(&s->lock);
    t->run(t->arg);
    free(t);
    pthread_mutex_lock(&s->lock);
    s->busy = 0;
    pthread_cond_broadcast(&s->changed);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

static toy_stream_t *as_stream(diopiStreamHandle_t handle) {
  toy_stream_t *s = handle;
  return s && s->magic == TOY_STREAM_MAGIC ? s : NULL;
}

int32_t toy_stream_create(diopiStreamHandle_t *stream) {
  toy_stream_t *s = calloc(1, sizeof *s);
  if (!s)
    return diopiErrorOccurred;
  s->magic = TOY_STREAM_MAGIC;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->changed, NULL);
  if (pthread_create(&s->worker, NULL, work, s)) {
    free(s);
    return diopiErrorOccurred;
  }
  *stream = s;
  return diopiSuccess;
}

int32_t toy_stream_synchronize(diopiStreamHandle_t stream) {
  toy_stream_t *s = as_stream(stream);
  if (!s)
    return diopiErrorOccurred;
  pthread_mutex_lock(&s->lock);
  while (s->head || s->busy)
    pthread_cond_wait(&s->changed, &s->lock);
  pthread_mutex_unlock(&s->lock);
  return diopiSuccess;
}

int32_t toy_stream_destroy(diopiStreamHandle_t stream) {
  toy_stream_t *s = as_stream(stream);
  if (!s)
    return diopiErrorOccurred;
  pthread_mutex_lock(&s->lock);
  s->stopping = 1;
  pthread_cond_broadcast(&s->changed);
  pthread_mutex_unlock(&s->lock);
  pthread_join(s->worker, NULL);
  s->magic = 0;
  free(s);
  return diopiSuccess;
}

/* Takes ownership of `arg` (freed by `run`). */
static int32_t enqueue(toy_stream_t *s, void (*run)(void *), void *arg) {
  task_t *t = malloc(sizeof *t);
  if (!t) {
    free(arg);
    return diopiErrorOccurred;
  }
  *t = (task_t){run, arg, NULL};
  pthread_mutex_lock(&s->lock);
  if (s->tail)
    s->tail->next = t;
  else
    s->head = t;
  s->tail = t;
  pthread_cond_broadcast(&s->changed);
  pthread_mutex_unlock(&s->lock);
  return diopiSuccess;
}

/* ---- Memory and copies --------------------------------------------------- */

void *toy_malloc(uint64_t bytes) {
  return malloc(bytes ? bytes : 1);
}
void toy_free(void *ptr) {
  free(ptr);
}

typedef struct copy_args {
  void *dst;
  const void *src;
  uint64_t bytes;
} copy_args_t;

static void run_copy(void *arg) {
  copy_args_t *a = arg;
  memcpy(a->dst, a->src, a->bytes);
  free(a);
}

int32_t toy_memcpy_async(diopiStreamHandle_t stream, void *dst, const void *src,
                         uint64_t bytes) {
  toy_stream_t *s = as_stream(stream);
  copy_args_t *a = malloc(sizeof *a);
  if (!s || !a) {
    free(a);
    return diopiErrorOccurred;
  }
  *a = (copy_args_t){dst, src, bytes};
  return enqueue(s, run_copy, a);
}

/* ---- Ops ----------------------------------------------------------------- */

/* A strided view captured at enqueue time (the handles may be gone when the
 * op runs). */
typedef struct view {
  char *data;
  int64_t ndim, shape[MAX_DIMS], stride[MAX_DIMS];
} view_t;

static int capture(diopiConstTensorHandle_t t, view_t *v) {
  diopiSize_t shape, stride;
  const void *data;
  if (diopiGetTensorShape(t, &shape) || diopiGetTensorStride(t, &stride) ||
      diopiGetTensorDataConst(t, &data) || shape.len > MAX_DIMS)
    return -1;
  v->data = (char *)data;
  v->ndim = shape.len;
  for (int64_t i = 0; i < shape.len; i++) {
    v->shape[i] = shape.data[i];
    v->stride[i] = stride.data[i];
  }
  return 0;
}

static int is_float32(diopiConstTensorHandle_t t) {
  diopiDtype_t dtype;
  return !diopiGetTensorDtype(t, &dtype) && dtype == diopi_dtype_float32;
}

/* The context's stream, which must be a toy stream. */
static toy_stream_t *context_stream(diopiContextHandle_t ctx, const char *op) {
  diopiStreamHandle_t handle = NULL;
  toy_stream_t *s = diopiGetStream(ctx, &handle) ? NULL : as_stream(handle);
  if (!s)
    set_error("%s: the context's stream %p is not a toy stream", op, handle);
  return s;
}

static int64_t numel(const view_t *v) {
  int64_t n = 1;
  for (int64_t i = 0; i < v->ndim; i++)
    n *= v->shape[i];
  return n;
}

/* Element offset of linear index `i` of `shape` in `v` (right-aligned,
 * broadcast over dims of size 1 or missing). */
static int64_t offset_of(int64_t i, const view_t *out, const view_t *v) {
  int64_t offset = 0;
  for (int64_t d = out->ndim - 1; d >= 0; d--) {
    int64_t index = i % out->shape[d];
    i /= out->shape[d];
    int64_t vd = d - (out->ndim - v->ndim);
    if (vd >= 0 && v->shape[vd] != 1)
      offset += index * v->stride[vd];
  }
  return offset;
}

typedef struct add_args {
  view_t out, input, other;
  float alpha;
} add_args_t;

static void run_add(void *arg) {
  add_args_t *a = arg;
  int64_t n = numel(&a->out);
  for (int64_t i = 0; i < n; i++) {
    float x = ((const float *)a->input.data)[offset_of(i, &a->out, &a->input)];
    float y = ((const float *)a->other.data)[offset_of(i, &a->out, &a->other)];
    ((float *)a->out.data)[offset_of(i, &a->out, &a->out)] = x + a->alpha * y;
  }
  free(a);
}

EXPORT diopiError_t diopiAdd(diopiContextHandle_t ctx, diopiTensorHandle_t out,
                             diopiConstTensorHandle_t input,
                             diopiConstTensorHandle_t other,
                             const diopiScalar_t *alpha) {
  toy_stream_t *s = context_stream(ctx, "diopiAdd");
  if (!s)
    return diopiErrorOccurred;
  if (!is_float32(out) || !is_float32(input) || !is_float32(other)) {
    set_error("diopiAdd: float32 only");
    return diopiDtypeNotSupported;
  }
  add_args_t *a = malloc(sizeof *a);
  if (!a || capture(out, &a->out) || capture(input, &a->input) ||
      capture(other, &a->other)) {
    free(a);
    set_error("diopiAdd: bad tensor");
    return diopiErrorOccurred;
  }
  a->alpha =
      alpha ? (float)(alpha->stype == diopi_dtype_int64 ? (double)alpha->ival
                                                        : alpha->fval)
            : 1.0f;
  return (diopiError_t)enqueue(s, run_add, a);
}

typedef struct fill_args {
  view_t t;
  diopiDtype_t dtype;
  double value;
  int64_t ivalue; /* int64 fills: exact beyond 2^53 */
} fill_args_t;

static void run_fill(void *arg) {
  fill_args_t *a = arg;
  int64_t n = numel(&a->t);
  for (int64_t i = 0; i < n; i++) {
    int64_t at = offset_of(i, &a->t, &a->t);
    if (a->dtype == diopi_dtype_float32)
      ((float *)a->t.data)[at] = (float)a->value;
    else
      ((int64_t *)a->t.data)[at] = a->ivalue;
  }
  free(a);
}

EXPORT diopiError_t diopiFill(diopiContextHandle_t ctx,
                              diopiTensorHandle_t input,
                              const diopiScalar_t *value) {
  toy_stream_t *s = context_stream(ctx, "diopiFill");
  if (!s)
    return diopiErrorOccurred;
  fill_args_t *a = malloc(sizeof *a);
  if (!a || capture(input, &a->t) || diopiGetTensorDtype(input, &a->dtype)) {
    free(a);
    set_error("diopiFill: bad tensor");
    return diopiErrorOccurred;
  }
  if (a->dtype != diopi_dtype_float32 && a->dtype != diopi_dtype_int64) {
    free(a);
    set_error("diopiFill: float32 and int64 only");
    return diopiDtypeNotSupported;
  }
  bool integral = value->stype == diopi_dtype_int64;
  a->value = integral ? (double)value->ival : value->fval;
  a->ivalue = integral ? value->ival : (int64_t)value->fval;
  return (diopiError_t)enqueue(s, run_fill, a);
}

typedef struct mm_args {
  view_t out, a, b;
} mm_args_t;

static void run_mm(void *arg) {
  mm_args_t *m = arg;
  int64_t rows = m->a.shape[0], inner = m->a.shape[1], cols = m->b.shape[1];
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      float sum = 0;
      for (int64_t k = 0; k < inner; k++)
        sum +=
            ((const float *)
                 m->a.data)[i * m->a.stride[0] + k * m->a.stride[1]] *
            ((const float *)m->b.data)[k * m->b.stride[0] + j * m->b.stride[1]];
      ((float *)m->out.data)[i * m->out.stride[0] + j * m->out.stride[1]] = sum;
    }
  free(m);
}

EXPORT diopiError_t diopiMm(diopiContextHandle_t ctx, diopiTensorHandle_t out,
                            diopiConstTensorHandle_t input,
                            diopiConstTensorHandle_t mat2) {
  toy_stream_t *s = context_stream(ctx, "diopiMm");
  if (!s)
    return diopiErrorOccurred;
  if (!is_float32(out) || !is_float32(input) || !is_float32(mat2)) {
    set_error("diopiMm: float32 only");
    return diopiDtypeNotSupported;
  }
  mm_args_t *m = malloc(sizeof *m);
  if (!m || capture(out, &m->out) || capture(input, &m->a) ||
      capture(mat2, &m->b) || m->a.ndim != 2 || m->b.ndim != 2 ||
      m->out.ndim != 2 || m->a.shape[1] != m->b.shape[0]) {
    free(m);
    set_error("diopiMm: expected 2-d tensors with matching inner dims");
    return diopiErrorOccurred;
  }
  return (diopiError_t)enqueue(s, run_mm, m);
}

EXPORT const char *diopiGetLastErrorString(void) {
  return last_error;
}
