/* backplane.Profile: the plugins' own trace events over a block of work,
 * exported as Chrome trace-event JSON (backplane.trace() in Python wraps it
 * as a context manager). */
#include "bpy.h"

typedef struct {
  PyObject_HEAD bp_profile_t *profile;
} bpy_profile_t;

static PyTypeObject *profile_type;

static PyObject *profile_new(PyTypeObject *type, PyObject *args,
                             PyObject *kwargs) {
  (void)type, (void)args, (void)kwargs;
  if (bpy_runtime_acquire() == NULL)
    return NULL;
  bpy_profile_t *self = PyObject_New(bpy_profile_t, profile_type);
  if (self == NULL) {
    bpy_runtime_release();
    return NULL;
  }
  self->profile = NULL;
  bp_status_t s;
  bp_runtime_t *rt = bpy_runtime();
  BPY_NOGIL(s = bp_profile_create(rt, &self->profile));
  if (s != BP_OK) {
    Py_DECREF(self);
    return bpy_raise(s, NULL);
  }
  return (PyObject *)self;
}

static void profile_dealloc(PyObject *obj) {
  PyTypeObject *type = Py_TYPE(obj);
  bp_profile_t *profile = ((bpy_profile_t *)obj)->profile;
  BPY_NOGIL(bp_profile_destroy(profile));
  PyObject_Free(obj);
  Py_DECREF(type);
  bpy_runtime_release();
}

static bp_profile_t *prof(PyObject *self) {
  return ((bpy_profile_t *)self)->profile;
}

static PyObject *profile_start(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_status_t s;
  BPY_NOGIL(s = bp_profile_start(prof(self)));
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  Py_RETURN_NONE;
}

static PyObject *profile_stop(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_status_t s;
  BPY_NOGIL(s = bp_profile_stop(prof(self)));
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  Py_RETURN_NONE;
}

static PyObject *profile_export(PyObject *self, PyObject *path_obj) {
  PyObject *bytes = PyUnicode_EncodeFSDefault(path_obj);
  if (bytes == NULL)
    return NULL;
  const char *path = PyBytes_AsString(bytes);
  bp_status_t s;
  BPY_NOGIL(s = bp_profile_export_chrome(prof(self), path));
  Py_DECREF(bytes);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  Py_RETURN_NONE;
}

static PyObject *get_event_count(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromSize_t(bp_profile_event_count(prof(self)));
}

static PyMethodDef profile_methods[] = {
    {"start", profile_start, METH_NOARGS, NULL},
    {"stop", profile_stop, METH_NOARGS,
     "Stops and collects the plugins' events."},
    {"export_chrome", profile_export, METH_O,
     "Writes the events as Chrome trace-event JSON to PATH."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef profile_getset[] = {
    {"event_count", get_event_count, NULL, "events collected so far", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot profile_slots[] = {
    {Py_tp_new, profile_new},
    {Py_tp_dealloc, profile_dealloc},
    {Py_tp_methods, profile_methods},
    {Py_tp_getset, profile_getset},
    {Py_tp_doc, "Profile(): the plugins' trace events; see backplane.trace."},
    {0, NULL},
};

static PyType_Spec profile_spec = {"backplane.Profile", sizeof(bpy_profile_t),
                                   0, Py_TPFLAGS_DEFAULT, profile_slots};

int bpy_trace_init(PyObject *module) {
  return bpy_add_type(module, &profile_spec, &profile_type);
}
