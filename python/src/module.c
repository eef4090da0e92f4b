/* The _backplane module: registers the types and functions of every file,
 * and drops the module's runtime reference at interpreter exit
 * (backplane/__init__.py registers _shutdown with atexit). */
#include "bpy.h"

PyObject *bpy_no_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  (void)args, (void)kwargs;
  PyObject *name = PyObject_GetAttrString((PyObject *)type, "__name__");
  if (name != NULL) {
    PyErr_Format(PyExc_TypeError, "backplane.%U cannot be created directly",
                 name);
    Py_DECREF(name);
  }
  return NULL;
}

int bpy_text(PyObject *obj, char *buf, size_t size) {
  if (!PyUnicode_Check(obj)) {
    PyErr_SetString(PyExc_TypeError, "backplane: expected a str");
    return -1;
  }
  PyObject *bytes = PyUnicode_AsUTF8String(obj);
  if (bytes == NULL)
    return -1;
  char *data;
  Py_ssize_t len;
  int rc = PyBytes_AsStringAndSize(bytes, &data, &len);
  if (rc == 0 && (size_t)len >= size) {
    PyErr_Format(PyExc_ValueError, "backplane: \"%U\" is too long", obj);
    rc = -1;
  }
  if (rc == 0)
    memcpy(buf, data, (size_t)len + 1);
  Py_DECREF(bytes);
  return rc;
}

int bpy_add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **out) {
  PyObject *type = PyType_FromSpec(spec);
  if (type == NULL)
    return -1;
  const char *dot = strrchr(spec->name, '.');
  Py_INCREF(type);
  if (PyModule_AddObject(module, dot ? dot + 1 : spec->name, type) < 0) {
    Py_DECREF(type);
    Py_DECREF(type);
    return -1;
  }
  *out = (PyTypeObject *)type;
  return 0;
}

static PyObject *module_shutdown(PyObject *module, PyObject *unused) {
  (void)module, (void)unused;
  bpy_runtime_release_module();
  Py_RETURN_NONE;
}

static PyObject *module_library_dir(PyObject *module, PyObject *unused) {
  (void)module, (void)unused;
  const char *dir = bpy_library_dir();
  if (dir == NULL)
    Py_RETURN_NONE;
  return PyUnicode_FromString(dir);
}

/* The cheapest call into the runtime: the bench's no-op. */
static PyObject *module_noop(PyObject *module, PyObject *unused) {
  (void)module, (void)unused;
  Py_RETURN_NONE;
}

/* User ranges in traces (profiler.h): backplane.range() wraps them. */
static PyObject *module_range_push(PyObject *module, PyObject *name) {
  (void)module;
  char text[256];
  if (bpy_text(name, text, sizeof text) != 0)
    return NULL;
  return PyLong_FromLong(bp_profiler_range_push(text));
}

static PyObject *module_range_pop(PyObject *module, PyObject *unused) {
  (void)module, (void)unused;
  return PyLong_FromLong(bp_profiler_range_pop());
}

static PyMethodDef module_functions[] = {
    {"range_push", module_range_push, METH_O,
     "Opens a range named NAME on this thread; returns its depth."},
    {"range_pop", module_range_pop, METH_NOARGS,
     "Closes this thread's innermost range; returns its depth, -1 if none."},
    {"_shutdown", module_shutdown, METH_NOARGS,
     "Drops the module's runtime reference (at exit)."},
    {"library_dir", module_library_dir, METH_NOARGS,
     "The directory libbackplane was loaded from."},
    {"_noop", module_noop, METH_NOARGS, "Does nothing (call-cost baseline)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_backplane",
    "Backplane's C extension; use the backplane package.",
    -1,
    module_functions,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__backplane(void) {
  PyObject *m = PyModule_Create(&module_def);
  if (m == NULL)
    return NULL;
  if (bpy_errors_init(m) < 0 || bpy_device_init(m) < 0 ||
      bpy_stream_init(m) < 0 || bpy_event_init(m) < 0 ||
      bpy_tensor_init(m) < 0 || bpy_kernel_init(m) < 0 ||
      bpy_comm_init(m) < 0 || bpy_ops_init(m) < 0 || bpy_trace_init(m) < 0 ||
      bpy_memory_init(m) < 0 ||
      PyModule_AddStringConstant(m, "__version__", BP_VERSION_STRING) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
