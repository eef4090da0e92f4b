/* backplane.Event: a point in a stream, with timing. */
#include <stddef.h>

#include "bpy.h"

#include <structmember.h>

PyTypeObject *bpy_event_type;

static PyObject *event_new(PyTypeObject *type, PyObject *args,
                           PyObject *kwargs) {
  (void)type;
  static char *keywords[] = {"device", NULL};
  PyObject *device_arg;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:Event", keywords,
                                   &device_arg))
    return NULL;
  PyObject *device_obj = bpy_device_required(device_arg, "Event");
  if (device_obj == NULL)
    return NULL;
  bp_device_t *device = bpy_device_of(device_obj);
  bp_event_t *event = NULL;
  bp_status_t s;
  BPY_NOGIL(s = bp_event_create(device, &event));
  if (s != BP_OK) {
    Py_DECREF(device_obj);
    return bpy_raise(s, NULL);
  }
  bpy_event_t *self = NULL;
  if (bpy_runtime_acquire() != NULL &&
      (self = PyObject_New(bpy_event_t, bpy_event_type)) == NULL)
    bpy_runtime_release();
  if (self == NULL) {
    BPY_NOGIL(bp_event_destroy(event));
    Py_DECREF(device_obj);
    return NULL;
  }
  self->event = event;
  self->device = device_obj;
  return (PyObject *)self;
}

static void event_dealloc(PyObject *obj) {
  bpy_event_t *self = (bpy_event_t *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  BPY_NOGIL(bp_event_destroy(self->event)); /* waits if pending */
  Py_DECREF(self->device);
  PyObject_Free(obj);
  Py_DECREF(type);
  bpy_runtime_release();
}

static bp_event_t *ev(PyObject *self) {
  return ((bpy_event_t *)self)->event;
}

static PyObject *event_record(PyObject *self, PyObject *args,
                              PyObject *kwargs) {
  static char *keywords[] = {"stream", NULL};
  PyObject *stream_arg = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:record", keywords,
                                   &stream_arg))
    return NULL;
  bp_stream_t *stream;
  PyObject *owner = NULL;
  if (stream_arg == Py_None) {
    bp_device_t *device = bpy_device_of(((bpy_event_t *)self)->device);
    if ((stream = bpy_active_stream(device, &owner)) == NULL)
      return NULL;
  } else if (PyObject_TypeCheck(stream_arg, bpy_stream_type)) {
    stream = ((bpy_stream_t *)stream_arg)->stream;
  } else {
    PyErr_SetString(PyExc_TypeError, "Event.record: expected a Stream");
    return NULL;
  }
  bp_status_t s;
  BPY_NOGIL(s = bp_event_record(ev(self), stream));
  Py_XDECREF(owner);
  return bpy_none_or_raise(s);
}

static PyObject *event_synchronize(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_status_t s;
  BPY_NOGIL(s = bp_event_synchronize(ev(self)));
  return bpy_none_or_raise(s);
}

static PyObject *event_query(PyObject *self, PyObject *unused) {
  (void)unused;
  return bpy_query_result(bp_event_query(ev(self)));
}

static PyObject *event_elapsed_time(PyObject *self, PyObject *end) {
  if (!PyObject_TypeCheck(end, bpy_event_type)) {
    PyErr_SetString(PyExc_TypeError, "Event.elapsed_time: expected an Event");
    return NULL;
  }
  float ms = 0;
  bp_status_t s = bp_event_elapsed_time(ev(self), ev(end), &ms);
  if (s == BP_ERR_NOT_READY)
    return bpy_raise_text(s, "Event.elapsed_time: an event is still pending");
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  return PyFloat_FromDouble(ms);
}

static PyMethodDef event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))event_record,
     METH_VARARGS | METH_KEYWORDS,
     "record(stream=None): captures the work enqueued so far on STREAM "
     "(default: the active stream of the event's device)."},
    {"synchronize", event_synchronize, METH_NOARGS,
     "Waits until the captured work has finished."},
    {"query", event_query, METH_NOARGS,
     "True once the captured work has finished (or if never recorded)."},
    {"elapsed_time", event_elapsed_time, METH_O,
     "Milliseconds from this event to END (both complete, one device)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef event_members[] = {
    {"device", T_OBJECT_EX, offsetof(bpy_event_t, device), READONLY,
     "the event's Device"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot event_slots[] = {
    {Py_tp_new, event_new},
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_methods, event_methods},
    {Py_tp_members, event_members},
    {Py_tp_doc, "Event(device): a point in a stream, with timing."},
    {0, NULL},
};

static PyType_Spec event_spec = {"backplane.Event", sizeof(bpy_event_t), 0,
                                 Py_TPFLAGS_DEFAULT, event_slots};

int bpy_event_init(PyObject *module) {
  return bpy_add_type(module, &event_spec, &bpy_event_type);
}
