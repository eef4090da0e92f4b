/* backplane.Comm: one rank of a communicator, bound to one device.
 * Collectives take Tensors (contiguous, one dtype) and are enqueued on the
 * active stream of the communicator's device; they return at once, the
 * GIL released while they enqueue. Counts come from the tensors: NCCL's
 * rules (docs/collectives.md) for all_gather (recv = size * send) and
 * reduce_scatter (send = size * recv). */
#include <string.h>

#include "bpy.h"

typedef struct {
  PyObject_HEAD bp_comm_t *comm;
  PyObject *device; /* Device */
} bpy_comm_t;

static PyTypeObject *comm_type;

static PyObject *wrap(bp_comm_t *comm) {
  PyObject *device = bpy_device_new(bp_comm_device(comm));
  if (device == NULL)
    return NULL;
  bpy_comm_t *self = NULL;
  if (bpy_runtime_acquire() != NULL &&
      (self = PyObject_New(bpy_comm_t, comm_type)) == NULL)
    bpy_runtime_release();
  if (self == NULL) {
    Py_DECREF(device);
    return NULL;
  }
  self->comm = comm;
  self->device = device;
  return (PyObject *)self;
}

static void comm_dealloc(PyObject *obj) {
  bpy_comm_t *self = (bpy_comm_t *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  bp_comm_t *comm = self->comm;
  BPY_NOGIL(bp_comm_destroy(comm));
  Py_DECREF(self->device);
  PyObject_Free(obj);
  Py_DECREF(type);
  bpy_runtime_release();
}

/* Comm(device, nranks, unique_id, rank): rank RANK from the id's bytes. */
static PyObject *comm_new(PyTypeObject *type, PyObject *args,
                          PyObject *kwargs) {
  (void)type;
  static char *keywords[] = {"device", "nranks", "unique_id", "rank", NULL};
  PyObject *device_obj;
  Py_ssize_t nranks, rank;
  PyObject *id;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OnSn:Comm", keywords,
                                   &device_obj, &nranks, &id, &rank))
    return NULL;
  bp_device_t *device;
  if (bpy_device_parse(device_obj, &device) < 0)
    return NULL;
  if (device == NULL || nranks <= 0 || rank < 0 || rank >= nranks) {
    PyErr_SetString(PyExc_ValueError,
                    "backplane.Comm: needs a device and 0 <= rank < nranks");
    return NULL;
  }
  char *bytes;
  Py_ssize_t size;
  if (PyBytes_AsStringAndSize(id, &bytes, &size) < 0)
    return NULL;
  bp_comm_t *comm = NULL;
  bp_status_t s;
  /* The bytes object is immutable and referenced by args: safe unlocked. */
  BPY_NOGIL(s = bp_comm_init_rank(device, (size_t)nranks, bytes, (size_t)size,
                                  (size_t)rank, &comm));
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  PyObject *self = wrap(comm);
  if (self == NULL)
    BPY_NOGIL(bp_comm_destroy(comm));
  return self;
}

static PyObject *module_unique_id(PyObject *module, PyObject *device_obj) {
  (void)module;
  bp_device_t *device;
  if (bpy_device_parse(device_obj, &device) < 0)
    return NULL;
  if (device == NULL) {
    PyErr_SetString(PyExc_ValueError, "comm.unique_id: needs a device");
    return NULL;
  }
  size_t size = 0;
  bp_status_t s = bp_comm_unique_id_size(device, &size);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
  if (bytes == NULL)
    return NULL;
  s = bp_comm_get_unique_id(device, PyBytes_AsString(bytes), size);
  if (s != BP_OK) {
    Py_DECREF(bytes);
    return bpy_raise(s, NULL);
  }
  return bytes;
}

static PyObject *module_init_all(PyObject *module, PyObject *devices_obj) {
  (void)module;
  PyObject *seq = PySequence_Tuple(devices_obj);
  if (seq == NULL)
    return NULL;
  Py_ssize_t n = PyTuple_Size(seq);
  bp_device_t **devices = PyMem_Calloc(n ? (size_t)n : 1, sizeof *devices);
  bp_comm_t **comms = PyMem_Calloc(n ? (size_t)n : 1, sizeof *comms);
  PyObject *list = NULL;
  int ok = devices != NULL && comms != NULL;
  if (!ok)
    PyErr_NoMemory();
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    ok = bpy_device_parse(PyTuple_GetItem(seq, i), &devices[i]) == 0;
    if (ok && devices[i] == NULL) {
      PyErr_SetString(PyExc_ValueError, "comm.init_all: None is not a device");
      ok = 0;
    }
  }
  bp_status_t s = BP_OK;
  if (ok) {
    BPY_NOGIL(s = bp_comm_init_all(devices, (size_t)n, comms));
    if (s != BP_OK) {
      bpy_raise(s, NULL);
      ok = 0;
    }
  }
  if (ok && (list = PyList_New(n)) == NULL)
    ok = 0;
  Py_ssize_t wrapped = 0;
  for (; ok && wrapped < n; ++wrapped) {
    PyObject *c = wrap(comms[wrapped]);
    if (c == NULL) {
      Py_CLEAR(list);
      ok = 0;
      break;
    }
    PyList_SetItem(list, wrapped, c);
  }
  /* Communicators not handed to a Python object are destroyed here. */
  if (!ok && s == BP_OK && comms != NULL && devices != NULL)
    for (Py_ssize_t i = wrapped; i < n; ++i)
      if (comms[i] != NULL)
        BPY_NOGIL(bp_comm_destroy(comms[i]));
  PyMem_Free(devices);
  PyMem_Free(comms);
  Py_DECREF(seq);
  return list;
}

static PyObject *group_call(bp_status_t (*fn)(bp_runtime_t *)) {
  bp_runtime_t *rt = bpy_runtime();
  if (rt == NULL)
    return NULL;
  bp_status_t s;
  BPY_NOGIL(s = fn(rt));
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  Py_RETURN_NONE;
}

static PyObject *module_group_start(PyObject *m, PyObject *unused) {
  (void)m, (void)unused;
  return group_call(bp_comm_group_start);
}

static PyObject *module_group_end(PyObject *m, PyObject *unused) {
  (void)m, (void)unused;
  return group_call(bp_comm_group_end);
}

/* ---- Collectives -------------------------------------------------------- */

static int parse_op(PyObject *obj, bp_reduce_op_t *out) {
  static const char *const names[] = {"sum", "avg", "max", "min", "product"};
  if (obj == NULL) {
    *out = BP_REDUCE_SUM;
    return 0;
  }
  char text[16];
  if (bpy_text(obj, text, sizeof text) < 0)
    PyErr_Clear();
  else
    for (int i = 0; i < BP_REDUCE_OP_COUNT; ++i) {
      if (strcmp(text, names[i]) == 0) {
        *out = (bp_reduce_op_t)i;
        return 0;
      }
    }
  PyErr_SetString(PyExc_ValueError, "backplane.comm: op must be one of "
                                    "'sum', 'avg', 'max', 'min', 'product'");
  return -1;
}

typedef struct call {
  bpy_comm_t *comm;
  bp_stream_t *stream;
  PyObject *owner;
} call_t;

/* Checks the tensors (contiguous, on the communicator's device, one dtype)
 * and marks them used on the active stream. */
static int prepare(call_t *c, PyObject *self, const char *what,
                   bpy_tensor_t **tensors, int n) {
  c->comm = (bpy_comm_t *)self;
  bp_device_t *device = bp_comm_device(c->comm->comm);
  for (int i = 0; i < n; ++i) {
    if (tensors[i] == NULL)
      continue;
    if (!bpy_tensor_is_contiguous(tensors[i]) ||
        tensors[i]->dtype != tensors[0]->dtype) {
      PyErr_Format(PyExc_ValueError,
                   "Comm.%s: tensors must be contiguous and of one dtype",
                   what);
      return -1;
    }
  }
  c->stream = bpy_active_stream(device, &c->owner);
  if (c->stream == NULL)
    return -1;
  for (int i = 0; i < n; ++i)
    if (tensors[i] != NULL &&
        bpy_tensor_use_on(tensors[i], c->stream, c->owner) < 0) {
      Py_CLEAR(c->owner);
      return -1;
    }
  return 0;
}

static PyObject *finish(call_t *c, bp_status_t s, const char *what) {
  Py_CLEAR(c->owner);
  if (s != BP_OK)
    return bpy_raise(s, what);
  Py_RETURN_NONE;
}

static int numel_is(bpy_tensor_t *t, int64_t expected, const char *what) {
  if (bpy_tensor_numel(t) == expected)
    return 0;
  PyErr_Format(PyExc_ValueError,
               "Comm.%s: the tensor has %lld elements, %lld expected", what,
               (long long)bpy_tensor_numel(t), (long long)expected);
  return -1;
}

static PyObject *comm_all_reduce(PyObject *self, PyObject *args,
                                 PyObject *kwargs) {
  static char *keywords[] = {"send", "recv", "op", NULL};
  PyObject *send_obj, *recv_obj = Py_None, *op_obj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:all_reduce", keywords,
                                   &send_obj, &recv_obj, &op_obj))
    return NULL;
  bp_reduce_op_t op;
  bpy_tensor_t *t[2] = {bpy_tensor_check(send_obj, "Comm.all_reduce"), NULL};
  if (t[0] == NULL || parse_op(op_obj, &op) < 0)
    return NULL;
  t[1] = recv_obj == Py_None ? t[0]
                             : bpy_tensor_check(recv_obj, "Comm.all_reduce");
  call_t c;
  if (t[1] == NULL || numel_is(t[1], bpy_tensor_numel(t[0]), "all_reduce") ||
      prepare(&c, self, "all_reduce", t, 2) < 0)
    return NULL;
  bp_status_t s;
  BPY_NOGIL(s = bp_comm_all_reduce(t[0]->data, t[1]->data,
                                   (size_t)bpy_tensor_numel(t[0]), t[0]->dtype,
                                   op, c.comm->comm, c.stream));
  return finish(&c, s, NULL);
}

static PyObject *comm_broadcast(PyObject *self, PyObject *args,
                                PyObject *kwargs) {
  static char *keywords[] = {"tensor", "root", NULL};
  PyObject *obj;
  Py_ssize_t root = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|n:broadcast", keywords,
                                   &obj, &root))
    return NULL;
  bpy_tensor_t *t[1] = {bpy_tensor_check(obj, "Comm.broadcast")};
  call_t c;
  if (t[0] == NULL || prepare(&c, self, "broadcast", t, 1) < 0)
    return NULL;
  bp_status_t s;
  BPY_NOGIL(s = bp_comm_broadcast(t[0]->data, (size_t)bpy_tensor_numel(t[0]),
                                  t[0]->dtype, (size_t)root, c.comm->comm,
                                  c.stream));
  return finish(&c, s, NULL);
}

static PyObject *comm_reduce(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"send", "recv", "root", "op", NULL};
  PyObject *send_obj, *recv_obj = Py_None, *op_obj = NULL;
  Py_ssize_t root = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OnO:reduce", keywords,
                                   &send_obj, &recv_obj, &root, &op_obj))
    return NULL;
  bp_reduce_op_t op;
  bpy_tensor_t *t[2] = {bpy_tensor_check(send_obj, "Comm.reduce"), NULL};
  if (t[0] == NULL || parse_op(op_obj, &op) < 0)
    return NULL;
  if (recv_obj != Py_None &&
      ((t[1] = bpy_tensor_check(recv_obj, "Comm.reduce")) == NULL ||
       numel_is(t[1], bpy_tensor_numel(t[0]), "reduce") < 0))
    return NULL;
  call_t c;
  if (prepare(&c, self, "reduce", t, 2) < 0)
    return NULL;
  bp_status_t s;
  BPY_NOGIL(s = bp_comm_reduce(t[0]->data, t[1] ? t[1]->data : NULL,
                               (size_t)bpy_tensor_numel(t[0]), t[0]->dtype, op,
                               (size_t)root, c.comm->comm, c.stream));
  return finish(&c, s, NULL);
}

/* all_gather(send, recv): recv holds size * send elements.
 * reduce_scatter(send, recv, op): send holds size * recv elements. */
static PyObject *gather_or_scatter(PyObject *self, PyObject *args,
                                   PyObject *kwargs, int gather) {
  static char *keywords[] = {"send", "recv", "op", NULL};
  const char *what = gather ? "all_gather" : "reduce_scatter";
  PyObject *send_obj, *recv_obj, *op_obj = NULL;
  if (!PyArg_ParseTupleAndKeywords(
          args, kwargs, gather ? "OO|O:all_gather" : "OO|O:reduce_scatter",
          keywords, &send_obj, &recv_obj, &op_obj))
    return NULL;
  if (gather && op_obj != NULL) {
    PyErr_SetString(PyExc_TypeError, "Comm.all_gather: takes no op");
    return NULL;
  }
  bp_reduce_op_t op;
  bpy_tensor_t *t[2] = {bpy_tensor_check(send_obj, what),
                        bpy_tensor_check(recv_obj, what)};
  if (t[0] == NULL || t[1] == NULL || parse_op(op_obj, &op) < 0)
    return NULL;
  int64_t size = (int64_t)bp_comm_size(((bpy_comm_t *)self)->comm);
  int64_t count = bpy_tensor_numel(gather ? t[0] : t[1]);
  call_t c;
  if (numel_is(gather ? t[1] : t[0], count * size, what) < 0 ||
      prepare(&c, self, what, t, 2) < 0)
    return NULL;
  bp_status_t s;
  if (gather)
    BPY_NOGIL(s = bp_comm_all_gather(t[0]->data, t[1]->data, (size_t)count,
                                     t[0]->dtype, c.comm->comm, c.stream));
  else
    BPY_NOGIL(s = bp_comm_reduce_scatter(t[0]->data, t[1]->data, (size_t)count,
                                         t[0]->dtype, op, c.comm->comm,
                                         c.stream));
  return finish(&c, s, NULL);
}

static PyObject *comm_all_gather(PyObject *self, PyObject *args,
                                 PyObject *kwargs) {
  return gather_or_scatter(self, args, kwargs, 1);
}

static PyObject *comm_reduce_scatter(PyObject *self, PyObject *args,
                                     PyObject *kwargs) {
  return gather_or_scatter(self, args, kwargs, 0);
}

static PyObject *send_or_recv(PyObject *self, PyObject *args, int send) {
  PyObject *obj;
  Py_ssize_t peer;
  if (!PyArg_ParseTuple(args, send ? "On:send" : "On:recv", &obj, &peer))
    return NULL;
  const char *what = send ? "send" : "recv";
  bpy_tensor_t *t[1] = {bpy_tensor_check(obj, what)};
  call_t c;
  if (t[0] == NULL || prepare(&c, self, what, t, 1) < 0)
    return NULL;
  bp_status_t s;
  size_t count = (size_t)bpy_tensor_numel(t[0]);
  if (send)
    BPY_NOGIL(s = bp_comm_send(t[0]->data, count, t[0]->dtype, (size_t)peer,
                               c.comm->comm, c.stream));
  else
    BPY_NOGIL(s = bp_comm_recv(t[0]->data, count, t[0]->dtype, (size_t)peer,
                               c.comm->comm, c.stream));
  return finish(&c, s, NULL);
}

static PyObject *comm_send(PyObject *self, PyObject *args) {
  return send_or_recv(self, args, 1);
}

static PyObject *comm_recv(PyObject *self, PyObject *args) {
  return send_or_recv(self, args, 0);
}

static PyObject *comm_async_error(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_status_t s = bp_comm_async_error(((bpy_comm_t *)self)->comm);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  Py_RETURN_NONE;
}

static PyObject *comm_abort(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_status_t s = bp_comm_abort(((bpy_comm_t *)self)->comm);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  Py_RETURN_NONE;
}

static PyObject *get_rank(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromSize_t(bp_comm_rank(((bpy_comm_t *)self)->comm));
}
static PyObject *get_size(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromSize_t(bp_comm_size(((bpy_comm_t *)self)->comm));
}
static PyObject *get_device(PyObject *self, void *c) {
  (void)c;
  PyObject *device = ((bpy_comm_t *)self)->device;
  Py_INCREF(device);
  return device;
}

#define KW(fn) (PyCFunction)(void (*)(void))(fn), METH_VARARGS | METH_KEYWORDS

static PyMethodDef comm_methods[] = {
    {"all_reduce", KW(comm_all_reduce),
     "all_reduce(send, recv=None, op='sum'): in place when recv is None."},
    {"broadcast", KW(comm_broadcast), "broadcast(tensor, root=0), in place."},
    {"reduce", KW(comm_reduce),
     "reduce(send, recv=None, root=0, op='sum'): recv on the root."},
    {"all_gather", KW(comm_all_gather),
     "all_gather(send, recv): recv holds size * send.numel elements."},
    {"reduce_scatter", KW(comm_reduce_scatter),
     "reduce_scatter(send, recv, op='sum'): send holds size * recv.numel."},
    {"send", comm_send, METH_VARARGS, "send(tensor, peer)"},
    {"recv", comm_recv, METH_VARARGS, "recv(tensor, peer)"},
    {"async_error", comm_async_error, METH_NOARGS,
     "Raises the communicator's first failure, if any."},
    {"abort", comm_abort, METH_NOARGS,
     "Ends pending and later collectives with AbortedError."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef comm_getset[] = {
    {"rank", get_rank, NULL, NULL, NULL},
    {"size", get_size, NULL, "number of ranks", NULL},
    {"device", get_device, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot comm_slots[] = {
    {Py_tp_new, comm_new},
    {Py_tp_dealloc, comm_dealloc},
    {Py_tp_methods, comm_methods},
    {Py_tp_getset, comm_getset},
    {Py_tp_doc, "Comm(device, nranks, unique_id, rank): one rank of a "
                "communicator; see backplane.comm."},
    {0, NULL},
};

static PyType_Spec comm_spec = {"backplane.Comm", sizeof(bpy_comm_t), 0,
                                Py_TPFLAGS_DEFAULT, comm_slots};

static PyMethodDef module_functions[] = {
    {"comm_unique_id", module_unique_id, METH_O,
     "A fresh unique id (bytes) from DEVICE's plugin."},
    {"comm_init_all", module_init_all, METH_O,
     "One communicator per device, rank i on devices[i]."},
    {"comm_group_start", module_group_start, METH_NOARGS, NULL},
    {"comm_group_end", module_group_end, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int bpy_comm_init(PyObject *module) {
  if (bpy_add_type(module, &comm_spec, &comm_type) < 0)
    return -1;
  return PyModule_AddFunctions(module, module_functions);
}
