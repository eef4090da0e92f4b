/* The _backplane extension's shared declarations: one process-wide runtime
 * (reference counted by every object that holds a Backplane resource), the
 * types, the per-thread active stream, and the error mapping.
 *
 * Thread-safety: everything here runs with the GIL held unless a function
 * says it releases it; calls that can wait (synchronize, copies, allocation,
 * stream and communicator creation and destruction, collectives) release it.
 * No callback into Python is ever made from a runtime thread. */
#ifndef BPY_H_
#define BPY_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <backplane/backplane.h>
#include <backplane/ops.h>

/* ---- Runtime (runtime.c) ---------------------------------------------- */

/* The process-wide runtime, created on first use; NULL with an exception set
 * if it cannot be created (or was already torn down at exit). Each object
 * that keeps a Backplane handle takes a reference with bpy_runtime_acquire
 * and drops it in its dealloc, so the runtime is destroyed after the last
 * of them, never under one. */
bp_runtime_t *bpy_runtime(void);
bp_runtime_t *bpy_runtime_acquire(void);
/* The runtime if it exists now (NULL otherwise, no exception set). */
bp_runtime_t *bpy_runtime_if_created(void);
void bpy_runtime_release(void);
/* The module's own reference, dropped at interpreter exit. */
void bpy_runtime_release_module(void);
/* The directory holding libbackplane (build or install tree). */
const char *bpy_library_dir(void);

/* ---- Errors (errors.c) ------------------------------------------------ */

/* Registers backplane.Error and one subclass per bp_status_t in `module`. */
int bpy_errors_init(PyObject *module);
/* Raises the subclass for `status` with bp_last_error()'s text, prefixed by
 * `what` (may be NULL); returns NULL for `return bpy_raise(...)`. */
PyObject *bpy_raise(bp_status_t status, const char *what);
/* Raises the subclass for `status` with the given text. */
PyObject *bpy_raise_text(bp_status_t status, const char *text);
/* None for BP_OK, else raises as bpy_raise(status, NULL). */
PyObject *bpy_none_or_raise(bp_status_t status);
/* A query's answer: True for BP_OK, False for BP_ERR_NOT_READY, else
 * raises. */
PyObject *bpy_query_result(bp_status_t status);

/* ---- Devices (device.c) ----------------------------------------------- */

typedef struct {
  PyObject_HEAD bp_device_t *device;
} bpy_device_t;

extern PyTypeObject *bpy_device_type;
int bpy_device_init(PyObject *module);
/* A new Device object for `device`. */
PyObject *bpy_device_new(bp_device_t *device);
/* The bp_device_t of a Device object, a name ("vcpu:0") or None (host: sets
 * *out to NULL). Returns -1 with an exception set on anything else. */
int bpy_device_parse(PyObject *obj, bp_device_t **out);
/* A new Device object for `obj` (as bpy_device_parse takes it), which must
 * name a device: the host is a ValueError saying `what` needs a device. */
PyObject *bpy_device_required(PyObject *obj, const char *what);
/* The bp_device_t of a Device object. */
bp_device_t *bpy_device_of(PyObject *device_obj);

/* ---- Streams and events (stream.c, event.c) ---------------------------- */

typedef struct {
  PyObject_HEAD bp_stream_t *stream;
  PyObject *device; /* Device */
  int owned;        /* 0 for a stream Python did not create (the default) */
} bpy_stream_t;

typedef struct {
  PyObject_HEAD bp_event_t *event;
  PyObject *device;
} bpy_event_t;

extern PyTypeObject *bpy_stream_type;
extern PyTypeObject *bpy_event_type;
int bpy_stream_init(PyObject *module);
int bpy_event_init(PyObject *module);

/* Where work for `device` goes on this thread: its active stream
 * (bp_stream_get_active), which `with stream:` sets and restores; the
 * device's default stream when none is set. *out_owner receives the Stream
 * object of an active `with` to keep alive while the stream is used (new
 * reference), or NULL (the default stream, or one C code set). NULL with an
 * exception set on failure. */
bp_stream_t *bpy_active_stream(bp_device_t *device, PyObject **out_owner);

/* ---- Tensors (tensor.c, dlpack.c) -------------------------------------- */

typedef enum bpy_memory {
  BPY_MEMORY_HOST,     /* aligned host memory this tensor owns */
  BPY_MEMORY_DEVICE,   /* the device's caching allocator */
  BPY_MEMORY_UNIFIED,  /* bp_unified_malloc: host- and device-addressable */
  BPY_MEMORY_BORROWED, /* another library's memory, through DLPack */
} bpy_memory_t;

typedef struct {
  PyObject_HEAD bp_device_t *device; /* NULL: host memory */
  PyObject *device_obj;              /* Device or None */
  void *data;                        /* first element */
  bpy_memory_t memory;
  int host_visible; /* the host may dereference `data` */
  bp_dtype_t dtype;
  int ndim;
  int64_t shape[BP_OPS_MAX_DIMS];
  int64_t strides[BP_OPS_MAX_DIMS]; /* elements */
  /* Device memory: the stream it was allocated for (freed in its order). */
  bp_stream_t *alloc_stream;
  PyObject *alloc_owner; /* Stream or NULL (default stream) */
  /* Other streams the memory was used on (record_stream), kept alive until
   * the tensor is freed: a list of Stream objects, or NULL. */
  bp_stream_t *last_used;
  PyObject *used_owners;
  /* Host-visible memory: the stream that may still read or write it. */
  bp_stream_t *pending;
  PyObject *pending_owner;
  DLManagedTensor *borrowed; /* BPY_MEMORY_BORROWED: released at dealloc */
  diopiTensorHandle_t diopi; /* created on first use by an op */
  /* A view (indexing): the tensor whose memory this one reads, never itself
   * a view; it owns the memory and every stream use of the view is its. */
  PyObject *base;
} bpy_tensor_t;

extern PyTypeObject *bpy_tensor_type;
int bpy_tensor_init(PyObject *module);
int64_t bpy_tensor_numel(const bpy_tensor_t *t);
size_t bpy_tensor_nbytes(const bpy_tensor_t *t);
int bpy_tensor_is_contiguous(const bpy_tensor_t *t);
/* Makes `t` safe to use on `stream` of `device`: device memory used on a
 * stream other than its own is recorded there (kept alive with `owner`);
 * host-visible memory waits for a different pending stream and then marks
 * `stream` pending. -1 with an exception set on failure. */
int bpy_tensor_use_on(bpy_tensor_t *t, bp_stream_t *stream, PyObject *owner);
/* Waits (GIL released) for the pending stream of host-visible memory. */
int bpy_tensor_wait_pending(bpy_tensor_t *t);
/* The tensor's DIOPI handle, created on first use. */
diopiTensorHandle_t bpy_tensor_diopi(bpy_tensor_t *t);
/* Checks `obj` is a Tensor; sets TypeError naming `what` otherwise. */
bpy_tensor_t *bpy_tensor_check(PyObject *obj, const char *what);

/* A tensor over `managed`'s memory (released through its deleter when the
 * tensor goes); `device` NULL for host memory. */
bpy_tensor_t *bpy_tensor_borrow(bp_device_t *device, DLManagedTensor *managed,
                                bp_dtype_t dtype);
/* A tensor owning `data`, memory an op library allocated through an ops
 * context and the caller took from it (bp_ops_context_take): device memory
 * of `device` from its caching allocator for `stream`, freed in that
 * stream's order, or (`device` NULL) malloc'd host memory the stream may
 * still write (pending on it). `owner` is the Stream object keeping
 * `stream` alive, or NULL. `handle` becomes the tensor's DIOPI handle.
 * NULL with an exception set on failure (the memory is not touched). */
bpy_tensor_t *bpy_tensor_adopt(bp_device_t *device, bp_stream_t *stream,
                               PyObject *owner, bp_dtype_t dtype, int ndim,
                               const int64_t *shape, const int64_t *strides,
                               void *data, diopiTensorHandle_t handle);
PyObject *bpy_tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *bpy_tensor_dlpack_device(PyObject *self, PyObject *unused);
/* _backplane.from_dlpack(obj): a borrowed tensor over obj's memory. */
PyObject *bpy_from_dlpack(PyObject *module, PyObject *obj);

/* ---- Allocator history (memory.c) ------------------------------------ */

int bpy_memory_init(PyObject *module);
/* While the runtime records its allocator history, labels the calling
 * thread's next events with the Python line that called into Backplane
 * (backplane.memory._caller_label) and returns 1; otherwise 0. Keeps any
 * exception being raised. bpy_memory_label_end(result) clears the label. */
int bpy_memory_label_begin(void);
void bpy_memory_label_end(int labelled);

/* ---- Kernels, collectives, ops, tracing ----------------------------------
 * (kernel.c, comm.c, ops.c, trace.c) */

int bpy_kernel_init(PyObject *module);
int bpy_comm_init(PyObject *module);
int bpy_ops_init(PyObject *module);
int bpy_trace_init(PyObject *module);

/* ---- Helpers ----------------------------------------------------------- */

/* Runs `stmt` with the GIL released: for every call that can wait. `stmt`
 * must not touch Python objects. */
#define BPY_NOGIL(stmt)                                                        \
  do {                                                                         \
    PyThreadState *bpy_saved_ = PyEval_SaveThread();                           \
    stmt;                                                                      \
    PyEval_RestoreThread(bpy_saved_);                                          \
  } while (0)

/* Py_tp_new of types Python code cannot instantiate: raises TypeError. */
PyObject *bpy_no_new(PyTypeObject *type, PyObject *args, PyObject *kwargs);
/* Copies the UTF-8 text of str `obj` into buf (size bytes, NUL-terminated);
 * -1 with an exception set if it is not a str or does not fit. */
int bpy_text(PyObject *obj, char *buf, size_t size);
/* Adds a type to the module under its short name. */
int bpy_add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **out);

#endif /* BPY_H_ */
