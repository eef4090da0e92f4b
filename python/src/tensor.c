/* backplane.Tensor: a strided view of host, device, unified or borrowed
 * memory, with the allocator's stream semantics. Device memory comes from
 * the device's caching allocator for the active stream at creation and is
 * freed in that stream's order; a tensor used on another stream is recorded
 * there (record_stream), so its memory is not reused before that stream's
 * work is done. Host-visible memory remembers the stream that may still
 * touch it and waits for it before the host reads it (DLPack export, NumPy
 * conversion, release). */
#include <stdlib.h>
#include <string.h>

#include "bpy.h"

PyTypeObject *bpy_tensor_type;

enum { HOST_ALIGNMENT = 64 };

int64_t bpy_tensor_numel(const bpy_tensor_t *t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i)
    n *= t->shape[i];
  return n;
}

size_t bpy_tensor_nbytes(const bpy_tensor_t *t) {
  return (size_t)bpy_tensor_numel(t) * bp_dtype_size(t->dtype);
}

int bpy_tensor_is_contiguous(const bpy_tensor_t *t) {
  int64_t expected = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] != 1 && t->strides[i] != expected)
      return 0;
    expected *= t->shape[i];
  }
  return 1;
}

bpy_tensor_t *bpy_tensor_check(PyObject *obj, const char *what) {
  if (!PyObject_TypeCheck(obj, bpy_tensor_type)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a backplane.Tensor", what);
    return NULL;
  }
  return (bpy_tensor_t *)obj;
}

/* ---- Creation ----------------------------------------------------------- */

/* A tensor with no memory yet; takes a runtime reference. */
static bpy_tensor_t *tensor_alloc(bp_device_t *device) {
  if (bpy_runtime_acquire() == NULL)
    return NULL;
  bpy_tensor_t *t = PyObject_New(bpy_tensor_t, bpy_tensor_type);
  if (t == NULL) {
    bpy_runtime_release();
    return NULL;
  }
  memset((char *)t + sizeof(PyObject), 0, sizeof *t - sizeof(PyObject));
  t->device = device;
  t->device_obj =
      device ? bpy_device_new(device) : (Py_INCREF(Py_None), Py_None);
  if (t->device_obj == NULL) {
    Py_DECREF(t);
    return NULL;
  }
  return t;
}

static int parse_dtype(PyObject *obj, bp_dtype_t *out) {
  char text[32];
  if (bpy_text(obj, text, sizeof text) < 0)
    return -1;
  for (int d = 1; d < BP_DTYPE_COUNT; ++d) {
    if (strcmp(text, bp_dtype_name(d)) == 0) {
      *out = d;
      return 0;
    }
  }
  PyErr_Format(PyExc_TypeError, "backplane: unknown dtype \"%s\"", text);
  return -1;
}

static int parse_shape(PyObject *obj, bpy_tensor_t *t) {
  PyObject *seq = PySequence_Tuple(obj);
  if (seq == NULL)
    return -1;
  Py_ssize_t n = PyTuple_Size(seq);
  if (n > BP_OPS_MAX_DIMS) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "backplane: at most %d dimensions",
                 (int)BP_OPS_MAX_DIMS);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    long long v = PyLong_AsLongLong(PyTuple_GetItem(seq, i));
    if (v == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
    if (v < 0) {
      Py_DECREF(seq);
      PyErr_SetString(PyExc_ValueError, "backplane: negative dimension");
      return -1;
    }
    t->shape[i] = v;
  }
  Py_DECREF(seq);
  t->ndim = (int)n;
  int64_t stride = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    t->strides[i] = stride;
    if (t->shape[i] != 0 && stride > INT64_MAX / t->shape[i]) {
      PyErr_SetString(PyExc_OverflowError, "backplane: shape too large");
      return -1;
    }
    stride *= t->shape[i];
  }
  if (stride > 0 && (uint64_t)stride > SIZE_MAX / bp_dtype_size(t->dtype)) {
    PyErr_SetString(PyExc_OverflowError, "backplane: shape too large");
    return -1;
  }
  return 0;
}

/* Allocates the memory of `t` (shape, dtype and device set). */
static int allocate(bpy_tensor_t *t, int unified) {
  size_t bytes = bpy_tensor_nbytes(t);
  bp_status_t s = BP_OK;
  if (t->device == NULL) {
    t->memory = BPY_MEMORY_HOST;
    t->host_visible = 1;
    size_t rounded =
        (bytes + HOST_ALIGNMENT - 1) / HOST_ALIGNMENT * HOST_ALIGNMENT;
    t->data = aligned_alloc(HOST_ALIGNMENT, rounded ? rounded : HOST_ALIGNMENT);
    if (t->data == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    return 0;
  }
  if (unified) {
    BPY_NOGIL(s = bp_unified_malloc(t->device, bytes, &t->data));
    if (s != BP_OK) {
      bpy_raise(s, NULL);
      return -1;
    }
    t->memory = BPY_MEMORY_UNIFIED;
    t->host_visible = 1;
    return 0;
  }
  bp_stream_t *stream = bpy_active_stream(t->device, &t->alloc_owner);
  if (stream == NULL)
    return -1;
  int labelled = bpy_memory_label_begin();
  BPY_NOGIL(s = bp_device_malloc_async(t->device, bytes, stream, &t->data));
  bpy_memory_label_end(labelled);
  if (s != BP_OK) {
    Py_CLEAR(t->alloc_owner);
    bpy_raise(s, NULL);
    return -1;
  }
  t->memory = BPY_MEMORY_DEVICE;
  t->alloc_stream = stream;
  return 0;
}

static PyObject *new_tensor(PyObject *args, PyObject *kwargs, int zero) {
  static char *keywords[] = {"shape", "dtype", "device", "unified", NULL};
  PyObject *shape, *dtype_obj = NULL, *device_obj = Py_None;
  int unified = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOp", keywords, &shape,
                                   &dtype_obj, &device_obj, &unified))
    return NULL;
  bp_device_t *device;
  bp_dtype_t dtype = BP_DTYPE_FLOAT32;
  if (bpy_device_parse(device_obj, &device) < 0 ||
      (dtype_obj != NULL && dtype_obj != Py_None &&
       parse_dtype(dtype_obj, &dtype) < 0))
    return NULL;
  if (unified && device == NULL) {
    PyErr_SetString(PyExc_ValueError,
                    "backplane: unified memory needs a device");
    return NULL;
  }
  bpy_tensor_t *t = tensor_alloc(device);
  if (t == NULL)
    return NULL;
  t->dtype = dtype;
  if (parse_shape(shape, t) < 0 || allocate(t, unified) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  if (!zero)
    return (PyObject *)t;
  size_t bytes = bpy_tensor_nbytes(t);
  if (t->memory != BPY_MEMORY_DEVICE) {
    memset(t->data, 0, bytes);
    return (PyObject *)t;
  }
  bp_status_t s;
  BPY_NOGIL(s = bp_memset(t->device, t->data, 0, bytes, t->alloc_stream));
  if (s != BP_OK) {
    Py_DECREF(t);
    return bpy_raise(s, NULL);
  }
  return (PyObject *)t;
}

static PyObject *module_empty(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  return new_tensor(args, kwargs, 0);
}

static PyObject *module_zeros(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  return new_tensor(args, kwargs, 1);
}

/* ---- Streams and release ------------------------------------------------ */

/* A view's memory, and so its stream uses, are its base's. */
static bpy_tensor_t *owner_of_memory(bpy_tensor_t *t) {
  return t->base != NULL ? (bpy_tensor_t *)t->base : t;
}

int bpy_tensor_wait_pending(bpy_tensor_t *t) {
  t = owner_of_memory(t);
  if (t->pending == NULL)
    return 0;
  bp_status_t s;
  bp_stream_t *stream = t->pending;
  BPY_NOGIL(s = bp_stream_synchronize(stream));
  if (s != BP_OK) {
    bpy_raise(s, NULL);
    return -1;
  }
  t->pending = NULL;
  Py_CLEAR(t->pending_owner);
  return 0;
}

int bpy_tensor_use_on(bpy_tensor_t *t, bp_stream_t *stream, PyObject *owner) {
  t = owner_of_memory(t);
  if (t->memory == BPY_MEMORY_DEVICE) {
    if (stream == t->alloc_stream || stream == t->last_used)
      return 0;
    bp_status_t s = bp_device_record_stream(t->device, t->data, stream);
    if (s != BP_OK) {
      bpy_raise(s, NULL);
      return -1;
    }
    if (owner != NULL) {
      if (t->used_owners == NULL && (t->used_owners = PyList_New(0)) == NULL)
        return -1;
      if (PyList_Append(t->used_owners, owner) < 0)
        return -1;
    }
    t->last_used = stream;
    return 0;
  }
  if (!t->host_visible)
    return 0; /* borrowed device memory: its owner orders its reuse */
  if (t->pending != stream && bpy_tensor_wait_pending(t) < 0)
    return -1;
  if (t->pending == NULL) {
    t->pending = stream;
    Py_XINCREF(owner);
    t->pending_owner = owner;
  }
  return 0;
}

static void tensor_dealloc(PyObject *obj) {
  bpy_tensor_t *t = (bpy_tensor_t *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  if (t->pending != NULL) {
    bp_stream_t *stream = t->pending;
    BPY_NOGIL(bp_stream_synchronize(stream));
  }
  if (t->diopi != NULL)
    bp_ops_tensor_destroy(t->diopi);
  if (t->base != NULL) /* a view: the base frees the memory */
    Py_CLEAR(t->base);
  else
    switch (t->memory) {
    case BPY_MEMORY_HOST:
      free(t->data);
      break;
    case BPY_MEMORY_DEVICE: {
      /* Stream-ordered: no host wait; streams it was recorded on are kept
       * alive by used_owners until here. */
      int labelled = bpy_memory_label_begin();
      bp_device_free_async(t->device, t->data, t->alloc_stream);
      bpy_memory_label_end(labelled);
      break;
    }
    case BPY_MEMORY_UNIFIED:
      BPY_NOGIL(bp_unified_free(t->device, t->data));
      break;
    case BPY_MEMORY_BORROWED:
      if (t->borrowed != NULL && t->borrowed->deleter != NULL)
        t->borrowed->deleter(t->borrowed);
      break;
    }
  Py_XDECREF(t->pending_owner);
  Py_XDECREF(t->used_owners);
  Py_XDECREF(t->alloc_owner);
  Py_XDECREF(t->device_obj);
  PyObject_Free(obj);
  Py_DECREF(type);
  bpy_runtime_release();
}

/* ---- Copies ------------------------------------------------------------- */

/* dst <- src, both contiguous with equal byte sizes, on the active stream of
 * the destination device (else the source's). Host memory involved: waits
 * for the copy unless non_blocking, which leaves the stream pending on it. */
static int copy_tensor(bpy_tensor_t *dst, bpy_tensor_t *src, int non_blocking) {
  if (!bpy_tensor_is_contiguous(dst) || !bpy_tensor_is_contiguous(src)) {
    PyErr_SetString(PyExc_ValueError,
                    "Tensor.copy_: both tensors must be contiguous");
    return -1;
  }
  size_t bytes = bpy_tensor_nbytes(dst);
  if (bytes != bpy_tensor_nbytes(src)) {
    PyErr_Format(PyExc_ValueError,
                 "Tensor.copy_: sizes differ (%zu bytes into %zu bytes)",
                 bpy_tensor_nbytes(src), bytes);
    return -1;
  }
  bp_device_t *dst_dev = dst->host_visible ? NULL : dst->device;
  bp_device_t *src_dev = src->host_visible ? NULL : src->device;
  bp_device_t *device = dst_dev ? dst_dev : src_dev;
  bp_status_t s;
  if (device == NULL) { /* host to host */
    if (bpy_tensor_wait_pending(dst) < 0 || bpy_tensor_wait_pending(src) < 0)
      return -1;
    memmove(dst->data, src->data, bytes);
    return 0;
  }
  PyObject *owner;
  bp_stream_t *stream = bpy_active_stream(device, &owner);
  if (stream == NULL)
    return -1;
  int ok = bpy_tensor_use_on(dst, stream, owner) == 0 &&
           bpy_tensor_use_on(src, stream, owner) == 0;
  if (ok) {
    BPY_NOGIL(
        s = bp_copy(dst_dev, dst->data, src_dev, src->data, bytes, stream));
    if (s != BP_OK) {
      bpy_raise(s, NULL);
      ok = 0;
    }
  }
  Py_XDECREF(owner);
  if (ok && !non_blocking && (dst_dev == NULL || src_dev == NULL))
    ok = bpy_tensor_wait_pending(dst_dev == NULL ? dst : src) == 0;
  return ok ? 0 : -1;
}

static PyObject *tensor_copy_(PyObject *self, PyObject *args,
                              PyObject *kwargs) {
  static char *keywords[] = {"src", "non_blocking", NULL};
  PyObject *src;
  int non_blocking = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:copy_", keywords, &src,
                                   &non_blocking))
    return NULL;
  bpy_tensor_t *s = bpy_tensor_check(src, "Tensor.copy_");
  if (s == NULL || copy_tensor((bpy_tensor_t *)self, s, non_blocking) < 0)
    return NULL;
  Py_INCREF(self);
  return self;
}

static PyObject *tensor_copy_to(PyObject *self, PyObject *args,
                                PyObject *kwargs) {
  static char *keywords[] = {"device", "non_blocking", NULL};
  PyObject *device_obj = Py_None;
  int non_blocking = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|Op:copy_to", keywords,
                                   &device_obj, &non_blocking))
    return NULL;
  bpy_tensor_t *src = (bpy_tensor_t *)self;
  bp_device_t *device;
  if (bpy_device_parse(device_obj, &device) < 0)
    return NULL;
  bpy_tensor_t *t = tensor_alloc(device);
  if (t == NULL)
    return NULL;
  t->dtype = src->dtype;
  t->ndim = src->ndim;
  memcpy(t->shape, src->shape, sizeof t->shape);
  int64_t stride = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    t->strides[i] = stride;
    stride *= t->shape[i];
  }
  if (allocate(t, 0) < 0 || copy_tensor(t, src, non_blocking) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return (PyObject *)t;
}

static PyObject *tensor_synchronize(PyObject *self, PyObject *unused) {
  (void)unused;
  bpy_tensor_t *t = (bpy_tensor_t *)self;
  if (bpy_tensor_wait_pending(t) < 0)
    return NULL;
  if (t->memory == BPY_MEMORY_DEVICE) {
    bp_status_t s;
    bp_stream_t *stream = t->alloc_stream;
    BPY_NOGIL(s = bp_stream_synchronize(stream));
    if (s != BP_OK)
      return bpy_raise(s, NULL);
  }
  Py_RETURN_NONE;
}

/* ---- Views -------------------------------------------------------------- */

/* 1 + the largest element offset of t from its data (0 when empty). */
static int64_t element_extent(const bpy_tensor_t *t) {
  int64_t extent = 1;
  for (int i = 0; i < t->ndim; ++i) {
    if (t->shape[i] == 0)
      return 0;
    extent += (t->shape[i] - 1) * t->strides[i];
  }
  return extent;
}

/* _view(offset, shape, strides): a tensor over this one's memory, starting
 * `offset` elements after its first, with non-negative strides (elements)
 * that stay inside it. backplane.Tensor.__getitem__ computes the three. */
static PyObject *tensor_view(PyObject *self, PyObject *args) {
  bpy_tensor_t *t = (bpy_tensor_t *)self;
  long long offset;
  PyObject *shape_obj, *strides_obj;
  if (!PyArg_ParseTuple(args, "LOO:_view", &offset, &shape_obj, &strides_obj))
    return NULL;
  bpy_tensor_t *v = tensor_alloc(t->device);
  if (v == NULL)
    return NULL;
  v->dtype = t->dtype;
  if (parse_shape(shape_obj, v) < 0) {
    Py_DECREF(v);
    return NULL;
  }
  PyObject *strides = PySequence_Tuple(strides_obj);
  if (strides != NULL && PyTuple_Size(strides) != v->ndim)
    PyErr_SetString(PyExc_ValueError,
                    "Tensor._view: strides and shape differ in length");
  for (int i = 0; strides != NULL && !PyErr_Occurred() && i < v->ndim; ++i) {
    v->strides[i] = PyLong_AsLongLong(PyTuple_GetItem(strides, i));
    if (v->strides[i] < 0 && !PyErr_Occurred())
      PyErr_SetString(PyExc_ValueError,
                      "Tensor._view: strides must not be negative");
  }
  Py_XDECREF(strides);
  int64_t extent = element_extent(v);
  if (!PyErr_Occurred() &&
      (offset < 0 || (extent > 0 && offset + extent > element_extent(t))))
    PyErr_Format(PyExc_IndexError,
                 "Tensor._view: offset %lld and extent %lld leave the "
                 "tensor's %lld elements",
                 offset, (long long)extent, (long long)element_extent(t));
  if (PyErr_Occurred()) {
    Py_DECREF(v);
    return NULL;
  }
  bpy_tensor_t *base = owner_of_memory(t);
  v->base = (Py_INCREF(base), (PyObject *)base);
  v->memory = t->memory;
  v->host_visible = t->host_visible;
  v->alloc_stream = t->alloc_stream;
  v->data = (char *)t->data + offset * (int64_t)bp_dtype_size(t->dtype);
  return (PyObject *)v;
}

/* ---- Properties --------------------------------------------------------- */

static PyObject *int_tuple(const int64_t *v, int n) {
  PyObject *tuple = PyTuple_New(n);
  for (int i = 0; tuple != NULL && i < n; ++i) {
    PyObject *item = PyLong_FromLongLong(v[i]);
    if (item == NULL) {
      Py_CLEAR(tuple);
      break;
    }
    PyTuple_SetItem(tuple, i, item);
  }
  return tuple;
}

#define T(self) ((bpy_tensor_t *)(self))

static PyObject *get_shape(PyObject *self, void *c) {
  (void)c;
  return int_tuple(T(self)->shape, T(self)->ndim);
}
static PyObject *get_strides(PyObject *self, void *c) {
  (void)c;
  return int_tuple(T(self)->strides, T(self)->ndim);
}
static PyObject *get_dtype(PyObject *self, void *c) {
  (void)c;
  return PyUnicode_FromString(bp_dtype_name(T(self)->dtype));
}
static PyObject *get_device(PyObject *self, void *c) {
  (void)c;
  Py_INCREF(T(self)->device_obj);
  return T(self)->device_obj;
}
static PyObject *get_ndim(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(T(self)->ndim);
}
static PyObject *get_numel(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong(bpy_tensor_numel(T(self)));
}
static PyObject *get_nbytes(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromSize_t(bpy_tensor_nbytes(T(self)));
}
static PyObject *get_itemsize(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromSize_t(bp_dtype_size(T(self)->dtype));
}
static PyObject *get_data_ptr(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromVoidPtr(T(self)->data);
}
static PyObject *get_is_contiguous(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(bpy_tensor_is_contiguous(T(self)));
}
static PyObject *get_host_visible(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(T(self)->host_visible);
}
static PyObject *get_is_borrowed(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(T(self)->memory == BPY_MEMORY_BORROWED);
}
static PyObject *get_base(PyObject *self, void *c) {
  (void)c;
  PyObject *base = T(self)->base ? T(self)->base : Py_None;
  Py_INCREF(base);
  return base;
}
static PyObject *get_memory(PyObject *self, void *c) {
  (void)c;
  static const char *const names[] = {"host", "device", "unified", "borrowed"};
  return PyUnicode_FromString(names[T(self)->memory]);
}

static PyObject *tensor_repr(PyObject *self) {
  PyObject *shape = get_shape(self, NULL);
  if (shape == NULL)
    return NULL;
  PyObject *r = PyUnicode_FromFormat(
      "<backplane.Tensor shape=%S dtype=%s device=%s memory=%s>", shape,
      bp_dtype_name(T(self)->dtype),
      T(self)->device ? bp_device_name(T(self)->device) : "cpu",
      (const char *[]){"host", "device", "unified",
                       "borrowed"}[T(self)->memory]);
  Py_DECREF(shape);
  return r;
}

static PyMethodDef tensor_methods[] = {
    {"copy_", (PyCFunction)(void (*)(void))tensor_copy_,
     METH_VARARGS | METH_KEYWORDS,
     "copy_(src, non_blocking=False): copies SRC (same byte size, both "
     "contiguous) into this tensor on the active stream; returns self."},
    {"copy_to", (PyCFunction)(void (*)(void))tensor_copy_to,
     METH_VARARGS | METH_KEYWORDS,
     "copy_to(device=None, non_blocking=False): a contiguous copy on DEVICE "
     "(None: host memory)."},
    {"_view", tensor_view, METH_VARARGS,
     "_view(offset, shape, strides): a view of this tensor's memory (used by "
     "indexing)."},
    {"synchronize", tensor_synchronize, METH_NOARGS,
     "Waits for the streams this tensor's memory is pending on."},
    {"__dlpack__", (PyCFunction)(void (*)(void))bpy_tensor_dlpack,
     METH_VARARGS | METH_KEYWORDS,
     "A DLPack capsule (host-visible memory only), no copy."},
    {"__dlpack_device__", bpy_tensor_dlpack_device, METH_NOARGS,
     "(device_type, device_id) as DLPack numbers them."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, NULL, "dimensions (tuple)", NULL},
    {"strides", get_strides, NULL, "strides in elements (tuple)", NULL},
    {"dtype", get_dtype, NULL, "element type name (\"float32\")", NULL},
    {"device", get_device, NULL, "Device, or None for host memory", NULL},
    {"ndim", get_ndim, NULL, NULL, NULL},
    {"numel", get_numel, NULL, "number of elements", NULL},
    {"nbytes", get_nbytes, NULL, NULL, NULL},
    {"itemsize", get_itemsize, NULL, NULL, NULL},
    {"data_ptr", get_data_ptr, NULL, "address of the first element", NULL},
    {"is_contiguous", get_is_contiguous, NULL, NULL, NULL},
    {"host_visible", get_host_visible, NULL,
     "the host may read the memory (DLPack export to NumPy/PyTorch)", NULL},
    {"is_borrowed", get_is_borrowed, NULL,
     "a view of another library's memory (from_dlpack without a copy)", NULL},
    {"_base", get_base, NULL,
     "the tensor whose memory this view reads; None when not a view", NULL},
    {"memory", get_memory, NULL,
     "\"host\", \"device\", \"unified\" or "
     "\"borrowed\"",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot tensor_slots[] = {
    {Py_tp_new, bpy_no_new},
    {Py_tp_dealloc, tensor_dealloc},
    {Py_tp_repr, tensor_repr},
    {Py_tp_methods, tensor_methods},
    {Py_tp_getset, tensor_getset},
    {Py_tp_doc, "A tensor in host, device, unified or borrowed memory; "
                "made by backplane.empty/zeros/from_numpy/from_dlpack."},
    {0, NULL},
};

static PyType_Spec tensor_spec = {"backplane.Tensor", sizeof(bpy_tensor_t), 0,
                                  Py_TPFLAGS_DEFAULT, tensor_slots};

static PyMethodDef module_functions[] = {
    {"empty", (PyCFunction)(void (*)(void))module_empty,
     METH_VARARGS | METH_KEYWORDS,
     "empty(shape, dtype='float32', device=None, unified=False)"},
    {"zeros", (PyCFunction)(void (*)(void))module_zeros,
     METH_VARARGS | METH_KEYWORDS,
     "zeros(shape, dtype='float32', device=None, unified=False)"},
    {"from_dlpack", bpy_from_dlpack, METH_O,
     "A tensor over OBJ's memory through its __dlpack__, without a copy."},
    {NULL, NULL, 0, NULL},
};

int bpy_tensor_init(PyObject *module) {
  if (bpy_add_type(module, &tensor_spec, &bpy_tensor_type) < 0)
    return -1;
  return PyModule_AddFunctions(module, module_functions);
}

bpy_tensor_t *bpy_tensor_borrow(bp_device_t *device, DLManagedTensor *managed,
                                bp_dtype_t dtype) {
  bpy_tensor_t *t = tensor_alloc(device);
  if (t == NULL)
    return NULL;
  const DLTensor *dl = &managed->dl_tensor;
  t->memory = BPY_MEMORY_BORROWED;
  t->borrowed = managed;
  t->host_visible =
      dl->device.device_type == kDLCPU || dl->device.device_type == kDLCUDAHost;
  t->dtype = dtype;
  t->ndim = dl->ndim;
  t->data = (char *)dl->data + dl->byte_offset;
  int64_t stride = 1;
  for (int i = dl->ndim - 1; i >= 0; --i) {
    t->shape[i] = dl->shape[i];
    t->strides[i] = dl->strides ? dl->strides[i] : stride;
    stride *= dl->shape[i];
  }
  return t;
}

bpy_tensor_t *bpy_tensor_adopt(bp_device_t *device, bp_stream_t *stream,
                               PyObject *owner, bp_dtype_t dtype, int ndim,
                               const int64_t *shape, const int64_t *strides,
                               void *data, diopiTensorHandle_t handle) {
  bpy_tensor_t *t = tensor_alloc(device);
  if (t == NULL)
    return NULL;
  t->dtype = dtype;
  t->ndim = ndim;
  memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
  memcpy(t->strides, strides, (size_t)ndim * sizeof *strides);
  t->data = data;
  t->diopi = handle;
  Py_XINCREF(owner);
  if (device == NULL) {
    t->memory = BPY_MEMORY_HOST;
    t->host_visible = 1;
    t->pending = stream; /* the op may still be writing it */
    t->pending_owner = owner;
  } else {
    t->memory = BPY_MEMORY_DEVICE;
    t->alloc_stream = stream;
    t->alloc_owner = owner;
  }
  return t;
}
