/* Standard ops, the C half: operator libraries (OpsLibrary), contexts
 * (OpsContext: the active stream of a device, scratch released in that
 * stream's order when the context goes) and generators, plus each Tensor's
 * DIOPI handle. backplane/ops.py does the calling: it looks ops up by DIOPI
 * name and calls them through ctypes (which releases the GIL) with the
 * signatures generated from backplane/diopi/functions.h. */
#include <stdlib.h>
#include <string.h>

#include "bpy.h"

static diopiDtype_t diopi_dtype(bp_dtype_t dtype) {
  switch (dtype) {
  case BP_DTYPE_BOOL:
    return diopi_dtype_bool;
  case BP_DTYPE_UINT8:
    return diopi_dtype_uint8;
  case BP_DTYPE_UINT16:
    return diopi_dtype_uint16;
  case BP_DTYPE_UINT32:
    return diopi_dtype_uint32;
  case BP_DTYPE_UINT64:
    return diopi_dtype_uint64;
  case BP_DTYPE_INT8:
    return diopi_dtype_int8;
  case BP_DTYPE_INT16:
    return diopi_dtype_int16;
  case BP_DTYPE_INT32:
    return diopi_dtype_int32;
  case BP_DTYPE_INT64:
    return diopi_dtype_int64;
  case BP_DTYPE_FLOAT16:
    return diopi_dtype_float16;
  case BP_DTYPE_FLOAT32:
    return diopi_dtype_float32;
  case BP_DTYPE_FLOAT64:
    return diopi_dtype_float64;
  case BP_DTYPE_BFLOAT16:
    return diopi_dtype_bfloat16;
  case BP_DTYPE_COMPLEX64:
    return diopi_dtype_complex64;
  case BP_DTYPE_COMPLEX128:
    return diopi_dtype_complex128;
  default:
    return diopi_dtype_unsupported;
  }
}

/* The bp_dtype_t of a DIOPI dtype; BP_DTYPE_UNDEFINED when it has none. */
static bp_dtype_t bp_dtype_of(diopiDtype_t dtype) {
  for (int d = 1; d < BP_DTYPE_COUNT; ++d)
    if (diopi_dtype((bp_dtype_t)d) == dtype)
      return (bp_dtype_t)d;
  return BP_DTYPE_UNDEFINED;
}

diopiTensorHandle_t bpy_tensor_diopi(bpy_tensor_t *t) {
  if (t->diopi != NULL)
    return t->diopi;
  /* Host and borrowed host memory are DIOPI host tensors; unified and
   * device memory belong to their device. */
  bp_device_t *device =
      t->memory == BPY_MEMORY_HOST ||
              (t->memory == BPY_MEMORY_BORROWED && t->host_visible)
          ? NULL
          : t->device;
  bp_status_t s =
      bp_ops_tensor_wrap(device, t->data, diopi_dtype(t->dtype),
                         (size_t)t->ndim, t->shape, t->strides, &t->diopi);
  if (s != BP_OK) {
    bpy_raise(s, NULL);
    return NULL;
  }
  return t->diopi;
}

/* ---- OpsLibrary --------------------------------------------------------- */

typedef struct {
  PyObject_HEAD bp_ops_library_t *library;
} bpy_library_t;

static PyTypeObject *library_type, *context_type, *generator_type;

static PyObject *library_new(PyTypeObject *type, PyObject *args,
                             PyObject *kwargs) {
  (void)type;
  static char *keywords[] = {"path", NULL};
  const char *path;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s:OpsLibrary", keywords,
                                   &path))
    return NULL;
  bp_ops_library_t *library = NULL;
  bp_status_t s;
  BPY_NOGIL(s = bp_ops_library_open(path, &library));
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  bpy_library_t *self = PyObject_New(bpy_library_t, library_type);
  if (self == NULL) {
    bp_ops_library_close(library);
    return NULL;
  }
  self->library = library;
  return (PyObject *)self;
}

static void library_dealloc(PyObject *obj) {
  PyTypeObject *type = Py_TYPE(obj);
  bp_ops_library_close(((bpy_library_t *)obj)->library);
  PyObject_Free(obj);
  Py_DECREF(type);
}

static bp_ops_library_t *lib(PyObject *self) {
  return ((bpy_library_t *)self)->library;
}

static PyObject *library_find(PyObject *self, PyObject *name) {
  char text[256];
  if (bpy_text(name, text, sizeof text) < 0)
    return NULL;
  void *fn = NULL;
  bp_status_t s = bp_ops_library_find(lib(self), text, &fn);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  return PyLong_FromVoidPtr(fn);
}

/* Whether a library's message blames an argument of op: DIOPI libraries
 * (the reference one among them) report rejected arguments as
 * diopiErrorOccurred with "<op>: <argument>: <what is wrong>", or with the
 * argument's shape first ("<op>: input [3, 4] and other [3, 4]: ..."). The
 * argument must be one of `names` (the op's parameters), followed by ':',
 * ',', '[', " [", " (" or " and ". */
static int names_an_argument(const char *op, const char *detail,
                             PyObject *names) {
  size_t n = strlen(op);
  if (strncmp(detail, op, n) != 0 || strncmp(detail + n, ": ", 2) != 0)
    return 0;
  const char *arg = detail + n + 2;
  size_t length = strspn(arg, "abcdefghijklmnopqrstuvwxyz"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
  const char *after = arg + length;
  if (!length || !(*after == ':' || *after == ',' || *after == '[' ||
                   !strncmp(after, " [", 2) || !strncmp(after, " (", 2) ||
                   !strncmp(after, " and ", 5)))
    return 0;
  Py_ssize_t count = PySequence_Size(names);
  for (Py_ssize_t i = 0; i < count; i++) {
    char name[64];
    PyObject *item = PySequence_GetItem(names, i);
    int same = item != NULL && bpy_text(item, name, sizeof name) == 0 &&
               strlen(name) == length && !strncmp(name, arg, length);
    Py_XDECREF(item);
    PyErr_Clear();
    if (same)
      return 1;
  }
  return 0;
}

/* raise_error(op, diopiError_t, names): raises the Error subclass of the
 * op's status, with the library's last-error text; InvalidArgumentError (a
 * ValueError) when that text names one of the op's parameters `names`. */
static PyObject *library_raise_error(PyObject *self, PyObject *args) {
  const char *op;
  int error;
  PyObject *names;
  if (!PyArg_ParseTuple(args, "siO:raise_error", &op, &error, &names))
    return NULL;
  const char *detail = bp_ops_library_last_error(lib(self));
  char text[1536];
  snprintf(text, sizeof text, "%s: %s (%s)%s%s", op,
           bp_ops_error_name((diopiError_t)error),
           bp_ops_library_vendor(lib(self)), detail[0] ? ": " : "", detail);
  bp_status_t status = bp_ops_status((diopiError_t)error);
  if (error == diopiErrorOccurred && names_an_argument(op, detail, names))
    status = BP_ERR_INVALID_ARGUMENT;
  return bpy_raise_text(status, text);
}

static PyObject *get_path(PyObject *self, void *c) {
  (void)c;
  return PyUnicode_FromString(bp_ops_library_path(lib(self)));
}
static PyObject *get_vendor(PyObject *self, void *c) {
  (void)c;
  return PyUnicode_FromString(bp_ops_library_vendor(lib(self)));
}

static PyMethodDef library_methods[] = {
    {"find", library_find, METH_O,
     "The address of the op called NAME (\"diopiAdd\"); UnsupportedError "
     "when the library leaves it out."},
    {"raise_error", library_raise_error, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef library_getset[] = {
    {"path", get_path, NULL, NULL, NULL},
    {"vendor", get_vendor, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot library_slots[] = {
    {Py_tp_new, library_new},
    {Py_tp_dealloc, library_dealloc},
    {Py_tp_methods, library_methods},
    {Py_tp_getset, library_getset},
    {Py_tp_doc, "OpsLibrary(path): a DIOPI operator library."},
    {0, NULL},
};

static PyType_Spec library_spec = {"backplane.OpsLibrary",
                                   sizeof(bpy_library_t), 0, Py_TPFLAGS_DEFAULT,
                                   library_slots};

/* ---- OpsContext --------------------------------------------------------- */

typedef struct {
  PyObject_HEAD diopiContextHandle_t context;
  bp_stream_t *stream;
  PyObject *owner; /* Stream or NULL (default stream) */
} bpy_context_t;

static PyObject *context_new(PyTypeObject *type, PyObject *args,
                             PyObject *kwargs) {
  (void)type;
  static char *keywords[] = {"device", NULL};
  PyObject *device_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:OpsContext", keywords,
                                   &device_obj))
    return NULL;
  bp_device_t *device;
  if (bpy_device_parse(device_obj, &device) < 0)
    return NULL;
  if (device == NULL) {
    PyErr_SetString(PyExc_ValueError,
                    "backplane.ops: ops run on a device; no tensor is on one");
    return NULL;
  }
  if (bpy_runtime_acquire() == NULL)
    return NULL;
  bpy_context_t *self = PyObject_New(bpy_context_t, context_type);
  if (self == NULL) {
    bpy_runtime_release();
    return NULL;
  }
  self->context = NULL;
  self->stream = bpy_active_stream(device, &self->owner);
  bp_status_t s = BP_ERR_INTERNAL;
  if (self->stream != NULL &&
      (s = bp_ops_context_create(device, self->stream, &self->context)) !=
          BP_OK)
    bpy_raise(s, NULL);
  if (self->context == NULL) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject *)self;
}

static void context_dealloc(PyObject *obj) {
  bpy_context_t *self = (bpy_context_t *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  bp_ops_context_destroy(self->context); /* scratch freed stream-ordered */
  Py_XDECREF(self->owner);
  PyObject_Free(obj);
  Py_DECREF(type);
  bpy_runtime_release();
}

/* use(tensor) -> the tensor's DIOPI handle, marked used on the context's
 * stream. */
static PyObject *context_use(PyObject *self, PyObject *obj) {
  bpy_context_t *c = (bpy_context_t *)self;
  bpy_tensor_t *t = bpy_tensor_check(obj, "backplane.ops");
  if (t == NULL || bpy_tensor_use_on(t, c->stream, c->owner) < 0)
    return NULL;
  diopiTensorHandle_t handle = bpy_tensor_diopi(t);
  return handle ? PyLong_FromVoidPtr(handle) : NULL;
}

/* take(handle) -> Tensor: a tensor the op library created through this
 * context (an op's `diopiTensorHandle_t *out`), taken from the context so
 * the returned Tensor owns its memory. ValueError for a handle the context
 * does not hold. */
static PyObject *context_take(PyObject *self, PyObject *obj) {
  bpy_context_t *c = (bpy_context_t *)self;
  diopiTensorHandle_t handle = PyLong_AsVoidPtr(obj);
  if (handle == NULL && PyErr_Occurred())
    return NULL;
  void *storage = NULL, *data = NULL;
  bp_status_t s = bp_ops_context_take(c->context, handle, &storage);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  diopiSize_t shape = {0}, strides = {0};
  diopiDtype_t dtype = diopi_dtype_unsupported;
  diopiDevice_t where = diopi_host;
  bp_device_t *device = NULL;
  bpy_tensor_t *t = NULL;
  if (diopiGetTensorShape(handle, &shape) == diopiSuccess &&
      diopiGetTensorStride(handle, &strides) == diopiSuccess &&
      diopiGetTensorDtype(handle, &dtype) == diopiSuccess &&
      diopiGetTensorDevice(handle, &where) == diopiSuccess &&
      diopiGetTensorData(handle, &data) == diopiSuccess) {
    device = where == diopi_device ? bp_ops_context_device(c->context) : NULL;
    if (bp_dtype_of(dtype) == BP_DTYPE_UNDEFINED || data != storage)
      PyErr_Format(PyExc_TypeError,
                   "OpsContext.take: a %s tensor%s cannot be a "
                   "backplane.Tensor",
                   bp_ops_dtype_name(dtype),
                   data != storage ? " starting inside its memory" : "");
    else
      t = bpy_tensor_adopt(device, c->stream, c->owner, bp_dtype_of(dtype),
                           (int)shape.len, shape.data, strides.data, data,
                           handle);
  } else {
    PyErr_SetString(PyExc_RuntimeError,
                    "OpsContext.take: cannot read the tensor's layout");
  }
  if (t == NULL) { /* ours now: freed as the context would have */
    if (device != NULL)
      bp_device_free_async(device, storage, c->stream);
    else
      free(storage);
    bp_ops_tensor_destroy(handle);
  }
  return (PyObject *)t;
}

static PyObject *get_context_handle(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromVoidPtr(((bpy_context_t *)self)->context);
}

static PyMethodDef context_methods[] = {
    {"use", context_use, METH_O,
     "The DIOPI handle of a Tensor, marked used on the context's stream."},
    {"take", context_take, METH_O,
     "take(handle): the Tensor an op created through this context (its "
     "`diopiTensorHandle_t *out`), owning that memory from now on."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef context_getset[] = {
    {"handle", get_context_handle, NULL, "diopiContextHandle_t", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot context_slots[] = {
    {Py_tp_new, context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, context_methods},
    {Py_tp_getset, context_getset},
    {Py_tp_doc, "OpsContext(device): a DIOPI context on the device's active "
                "stream."},
    {0, NULL},
};

static PyType_Spec context_spec = {"backplane.OpsContext",
                                   sizeof(bpy_context_t), 0, Py_TPFLAGS_DEFAULT,
                                   context_slots};

/* ---- OpsGenerator ------------------------------------------------------- */

typedef struct {
  PyObject_HEAD diopiGeneratorHandle_t generator;
} bpy_generator_t;

static PyObject *generator_new(PyTypeObject *type, PyObject *args,
                               PyObject *kwargs) {
  (void)type;
  static char *keywords[] = {"seed", NULL};
  unsigned long long seed = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|K:Generator", keywords,
                                   &seed))
    return NULL;
  diopiGeneratorHandle_t g = NULL;
  bp_status_t s = bp_ops_generator_create(seed, &g);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  bpy_generator_t *self = PyObject_New(bpy_generator_t, generator_type);
  if (self == NULL) {
    bp_ops_generator_destroy(g);
    return NULL;
  }
  self->generator = g;
  return (PyObject *)self;
}

static void generator_dealloc(PyObject *obj) {
  PyTypeObject *type = Py_TYPE(obj);
  bp_ops_generator_destroy(((bpy_generator_t *)obj)->generator);
  PyObject_Free(obj);
  Py_DECREF(type);
}

static PyObject *get_generator_handle(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromVoidPtr(((bpy_generator_t *)self)->generator);
}

static PyGetSetDef generator_getset[] = {
    {"handle", get_generator_handle, NULL, "diopiGeneratorHandle_t", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot generator_slots[] = {
    {Py_tp_new, generator_new},
    {Py_tp_dealloc, generator_dealloc},
    {Py_tp_getset, generator_getset},
    {Py_tp_doc, "Generator(seed=0): a counter-based generator for random "
                "ops (not thread-safe)."},
    {0, NULL},
};

static PyType_Spec generator_spec = {"backplane.Generator",
                                     sizeof(bpy_generator_t), 0,
                                     Py_TPFLAGS_DEFAULT, generator_slots};

int bpy_ops_init(PyObject *module) {
  if (bpy_add_type(module, &library_spec, &library_type) < 0 ||
      bpy_add_type(module, &context_spec, &context_type) < 0 ||
      bpy_add_type(module, &generator_spec, &generator_type) < 0)
    return -1;
  return 0;
}
