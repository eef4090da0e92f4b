/* One vcpu device, a stream, a DIOPI context on it and the reference op
 * library: the setup of the ops tests that call the library's functions
 * through bp_ops_library_find. cmocka setup/teardown: the state is an
 * ops_env_t. */
#ifndef BACKPLANE_TESTS_OPS_ENV_H_
#define BACKPLANE_TESTS_OPS_ENV_H_

#include "backplane/ops.h"

typedef struct ops_env {
  bp_runtime_t *runtime;
  bp_device_t *device;
  bp_stream_t *stream;
  diopiContextHandle_t ctx;
  bp_ops_library_t *library;
} ops_env_t;

int ops_env_setup(void **state);
/* Waits for the stream first: the test left no failure on it. */
int ops_env_teardown(void **state);
/* The library's function `name`; fails the test when it has none. */
void *ops_env_find(ops_env_t *e, const char *name);
/* Fails the test unless the library's last error text
 * (diopiGetLastErrorString) holds each of the `n` strings of `parts`. */
void ops_env_expect_error_names(ops_env_t *e, const char *const *parts, int n);
/* A contiguous tensor on the env's device and its (host-addressable) data
 * in *data; fails the test when it cannot be made. */
diopiTensorHandle_t ops_env_tensor(ops_env_t *e, diopiDtype_t dtype,
                                   size_t ndim, const int64_t *shape,
                                   void **data);

enum { OPS_MADE_MAX = 16 };

/* The tensors one test made, destroyed together at its end
 * (ops_made_destroy). */
typedef struct ops_made {
  ops_env_t *e;
  diopiTensorHandle_t t[OPS_MADE_MAX];
  int n;
} ops_made_t;

/* ops_env_tensor kept in `m`, holding the `size` bytes at `bytes` (NULL:
 * left unset). */
diopiTensorHandle_t ops_made_tensor(ops_made_t *m, diopiDtype_t dtype,
                                    size_t ndim, const int64_t *shape,
                                    const void *bytes, size_t size,
                                    void **data);
/* A view of `shape` and `strides` (elements) over `data`, device memory of
 * the env's device that the caller keeps alive, kept in `m`. */
diopiTensorHandle_t ops_made_view(ops_made_t *m, void *data, diopiDtype_t dtype,
                                  size_t ndim, const int64_t *shape,
                                  const int64_t *strides);
void ops_made_destroy(ops_made_t *m);

#endif /* BACKPLANE_TESTS_OPS_ENV_H_ */
