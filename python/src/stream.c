/* backplane.Stream and the per-thread active stream. `with stream:` makes
 * `stream` its device's active stream on this thread through
 * bp_stream_set_active, so C code the block calls (kernel launches, ops, a
 * library passing BP_STREAM_ACTIVE) uses it too; the exit restores the
 * stream active before, exception or not. Other devices are unaffected;
 * with no `with`, work goes to the device's default stream. The thread-local
 * stack holds one entry per `with`: its Stream (kept alive by the with
 * statement) and the stream to restore. */
#include <stddef.h>
#include <stdlib.h>

#include "bpy.h"

#include <structmember.h>

PyTypeObject *bpy_stream_type;

typedef struct active_entry {
  bpy_stream_t *stream;
  bp_stream_t *previous; /* its device's active stream before the `with` */
  struct active_entry *prev;
} active_entry_t;

static _Thread_local active_entry_t *active_top;

bp_stream_t *bpy_active_stream(bp_device_t *device, PyObject **out_owner) {
  *out_owner = NULL;
  if (bpy_runtime() == NULL)
    return NULL;
  bp_stream_t *stream = NULL;
  bp_status_t s = bp_stream_get_active(device, &stream);
  if (s != BP_OK) {
    bpy_raise(s, NULL);
    return NULL;
  }
  for (active_entry_t *e = active_top; e != NULL; e = e->prev) {
    if (e->stream->stream == stream) {
      Py_INCREF(e->stream);
      *out_owner = (PyObject *)e->stream;
      break;
    }
  }
  return stream;
}

static bpy_stream_t *wrap(bp_stream_t *stream, PyObject *device, int owned) {
  if (bpy_runtime_acquire() == NULL)
    return NULL;
  bpy_stream_t *self = PyObject_New(bpy_stream_t, bpy_stream_type);
  if (self == NULL) {
    bpy_runtime_release();
    return NULL;
  }
  self->stream = stream;
  self->device = device;
  self->owned = owned;
  Py_INCREF(device);
  return self;
}

static PyObject *stream_new(PyTypeObject *type, PyObject *args,
                            PyObject *kwargs) {
  (void)type;
  static char *keywords[] = {"device", NULL};
  PyObject *device_arg;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:Stream", keywords,
                                   &device_arg))
    return NULL;
  PyObject *device_obj = bpy_device_required(device_arg, "Stream");
  if (device_obj == NULL)
    return NULL;
  bp_device_t *device = bpy_device_of(device_obj);
  bp_stream_t *stream = NULL;
  bp_status_t s;
  BPY_NOGIL(s = bp_stream_create(device, &stream));
  bpy_stream_t *self = NULL;
  if (s != BP_OK)
    bpy_raise(s, NULL);
  else if ((self = wrap(stream, device_obj, 1)) == NULL)
    BPY_NOGIL(bp_stream_destroy(stream));
  Py_DECREF(device_obj);
  return (PyObject *)self;
}

static void stream_dealloc(PyObject *obj) {
  bpy_stream_t *self = (bpy_stream_t *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  if (self->owned)
    BPY_NOGIL(bp_stream_destroy(self->stream)); /* drains it first */
  Py_DECREF(self->device);
  PyObject_Free(obj);
  Py_DECREF(type);
  bpy_runtime_release();
}

static bp_stream_t *st(PyObject *self) {
  return ((bpy_stream_t *)self)->stream;
}

static PyObject *stream_synchronize(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_status_t s;
  BPY_NOGIL(s = bp_stream_synchronize(st(self)));
  return bpy_none_or_raise(s);
}

static PyObject *stream_query(PyObject *self, PyObject *unused) {
  (void)unused;
  return bpy_query_result(bp_stream_query(st(self)));
}

static PyObject *stream_reset(PyObject *self, PyObject *unused) {
  (void)unused;
  return bpy_none_or_raise(bp_stream_reset(st(self)));
}

static PyObject *stream_wait(PyObject *self, PyObject *other) {
  bp_status_t s;
  if (PyObject_TypeCheck(other, bpy_event_type)) {
    bp_event_t *event = ((bpy_event_t *)other)->event;
    BPY_NOGIL(s = bp_stream_wait_event(st(self), event));
  } else if (PyObject_TypeCheck(other, bpy_stream_type)) {
    BPY_NOGIL(s = bp_stream_sync_from_to(st(other), st(self)));
  } else {
    PyErr_SetString(PyExc_TypeError,
                    "Stream.wait: expected an Event or a Stream");
    return NULL;
  }
  return bpy_none_or_raise(s);
}

static PyObject *stream_enter(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_device_t *device = bp_stream_device(st(self));
  active_entry_t *e = malloc(sizeof *e);
  if (e == NULL)
    return PyErr_NoMemory();
  bp_status_t s = bp_stream_get_active(device, &e->previous);
  if (s == BP_OK)
    s = bp_stream_set_active(device, st(self));
  if (s != BP_OK) {
    free(e);
    return bpy_raise(s, "Stream.__enter__");
  }
  e->stream = (bpy_stream_t *)self;
  e->prev = active_top;
  active_top = e;
  Py_INCREF(self);
  return self;
}

static PyObject *stream_exit(PyObject *self, PyObject *args) {
  (void)args;
  /* `with` blocks nest, so this thread's innermost entry is ours. */
  active_entry_t *e = active_top;
  if (e == NULL || (PyObject *)e->stream != self) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Stream.__exit__: this stream is not the innermost "
                    "active stream of this thread");
    return NULL;
  }
  active_top = e->prev;
  bp_status_t s = bp_stream_set_active(bp_stream_device(st(self)), e->previous);
  free(e);
  if (s != BP_OK)
    return bpy_raise(s, "Stream.__exit__");
  Py_RETURN_FALSE;
}

static PyObject *get_handle(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromVoidPtr(st(self));
}

static PyObject *stream_repr(PyObject *self) {
  bp_device_t *device = bp_stream_device(st(self));
  bp_stream_t *default_stream = NULL;
  bp_stream_get_default(device, &default_stream);
  return PyUnicode_FromFormat("<backplane.Stream%s on %s>",
                              st(self) == default_stream ? " (default)" : "",
                              bp_device_name(device));
}

static PyObject *stream_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, bpy_stream_type) || (op != Py_EQ && op != Py_NE))
    Py_RETURN_NOTIMPLEMENTED;
  int same = st(a) == st(b);
  return PyBool_FromLong(op == Py_EQ ? same : !same);
}

static Py_hash_t stream_hash(PyObject *self) {
  return (Py_hash_t)((uintptr_t)st(self) >> 4);
}

/* backplane.current_stream(device): the stream work for `device` goes to on
 * this thread. */
static PyObject *module_current_stream(PyObject *module, PyObject *arg) {
  (void)module;
  PyObject *device_obj = bpy_device_required(arg, "current_stream");
  if (device_obj == NULL)
    return NULL;
  PyObject *owner;
  bp_stream_t *stream = bpy_active_stream(bpy_device_of(device_obj), &owner);
  PyObject *result = owner;
  if (stream != NULL && owner == NULL)
    result = (PyObject *)wrap(stream, device_obj, 0);
  Py_DECREF(device_obj);
  return result;
}

static PyMethodDef stream_methods[] = {
    {"synchronize", stream_synchronize, METH_NOARGS,
     "Waits until all work enqueued on the stream has finished."},
    {"query", stream_query, METH_NOARGS,
     "True when all enqueued work has finished; raises the failure a kernel "
     "left on the stream."},
    {"reset", stream_reset, METH_NOARGS,
     "Clears the failure a kernel left on the stream (synchronize and query "
     "raise it until then)."},
    {"wait", stream_wait, METH_O,
     "Later work on this stream waits for an Event, or for everything "
     "enqueued so far on another Stream; the host does not wait."},
    {"__enter__", stream_enter, METH_NOARGS,
     "Makes this the active stream of its device on this thread "
     "(bp_stream_set_active) until __exit__ restores the previous one."},
    {"__exit__", stream_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef stream_getset[] = {
    {"handle", get_handle, NULL, "the bp_stream_t* as an integer", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef stream_members[] = {
    {"device", T_OBJECT_EX, offsetof(bpy_stream_t, device), READONLY,
     "the stream's Device"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot stream_slots[] = {
    {Py_tp_new, stream_new},
    {Py_tp_dealloc, stream_dealloc},
    {Py_tp_repr, stream_repr},
    {Py_tp_richcompare, stream_richcompare},
    {Py_tp_hash, stream_hash},
    {Py_tp_methods, stream_methods},
    {Py_tp_getset, stream_getset},
    {Py_tp_members, stream_members},
    {Py_tp_doc, "Stream(device): an in-order queue of device work. "
                "Destroying it waits for its work."},
    {0, NULL},
};

static PyType_Spec stream_spec = {"backplane.Stream", sizeof(bpy_stream_t), 0,
                                  Py_TPFLAGS_DEFAULT, stream_slots};

static PyMethodDef module_functions[] = {
    {"current_stream", module_current_stream, METH_O,
     "The stream this thread's work for DEVICE goes to."},
    {NULL, NULL, 0, NULL},
};

int bpy_stream_init(PyObject *module) {
  if (bpy_add_type(module, &stream_spec, &bpy_stream_type) < 0)
    return -1;
  return PyModule_AddFunctions(module, module_functions);
}
