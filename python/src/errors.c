/* backplane.Error and one subclass per bp_status_t, each carrying the
 * status (`.status`, `.status_name`) and bp_last_error()'s text. Two also
 * derive from the matching built-in exception, so generic handlers work:
 * OutOfMemoryError is a MemoryError, TimeoutError a builtins.TimeoutError. */
#include "bpy.h"

enum { STATUS_COUNT = BP_ERR_PEER_LOST + 1 };

static PyObject *error_base;
static PyObject *errors[STATUS_COUNT]; /* by status; [0] unused */

static const struct {
  bp_status_t status;
  const char *name;
  PyObject **builtin; /* a second base, or NULL */
} error_specs[] = {
    {BP_ERR_INVALID_ARGUMENT, "InvalidArgumentError", NULL},
    {BP_ERR_NOT_FOUND, "NotFoundError", NULL},
    {BP_ERR_OUT_OF_MEMORY, "OutOfMemoryError", &PyExc_MemoryError},
    {BP_ERR_UNSUPPORTED, "UnsupportedError", NULL},
    {BP_ERR_NOT_READY, "NotReadyError", NULL},
    {BP_ERR_PLUGIN, "PluginError", NULL},
    {BP_ERR_TIMEOUT, "TimeoutError", &PyExc_TimeoutError},
    {BP_ERR_ABORTED, "AbortedError", NULL},
    {BP_ERR_INTERNAL, "InternalError", NULL},
    {BP_ERR_PEER_LOST, "PeerLostError", NULL},
};

int bpy_errors_init(PyObject *module) {
  error_base = PyErr_NewExceptionWithDoc(
      "backplane.Error",
      "A Backplane call failed; .status is the bp_status_t, .status_name its "
      "name, str() the runtime's message.",
      NULL, NULL);
  if (error_base == NULL)
    return -1;
  Py_INCREF(error_base);
  if (PyModule_AddObject(module, "Error", error_base) < 0)
    return -1;
  for (size_t i = 0; i < sizeof error_specs / sizeof error_specs[0]; ++i) {
    char qualified[64];
    snprintf(qualified, sizeof qualified, "backplane.%s", error_specs[i].name);
    PyObject *bases = error_specs[i].builtin
                          ? PyTuple_Pack(2, error_base, *error_specs[i].builtin)
                          : PyTuple_Pack(1, error_base);
    if (bases == NULL)
      return -1;
    PyObject *cls = PyErr_NewException(qualified, bases, NULL);
    Py_DECREF(bases);
    if (cls == NULL)
      return -1;
    PyObject *code = PyLong_FromLong(error_specs[i].status);
    PyObject *name =
        PyUnicode_FromString(bp_status_name(error_specs[i].status));
    int bad = code == NULL || name == NULL ||
              PyObject_SetAttrString(cls, "status", code) < 0 ||
              PyObject_SetAttrString(cls, "status_name", name) < 0;
    Py_XDECREF(code);
    Py_XDECREF(name);
    if (bad)
      return -1;
    errors[error_specs[i].status] = cls;
    Py_INCREF(cls);
    if (PyModule_AddObject(module, error_specs[i].name, cls) < 0)
      return -1;
  }
  return 0;
}

static PyObject *error_class(bp_status_t status) {
  if (status > BP_OK && (int)status < STATUS_COUNT && errors[status] != NULL)
    return errors[status];
  return error_base;
}

PyObject *bpy_raise_text(bp_status_t status, const char *text) {
  PyErr_SetString(error_class(status), text);
  return NULL;
}

PyObject *bpy_raise(bp_status_t status, const char *what) {
  const char *message = bp_last_error();
  if (what == NULL)
    return bpy_raise_text(status, message);
  PyObject *text = PyUnicode_FromFormat("%s: %s", what, message);
  if (text == NULL)
    return NULL;
  PyErr_SetObject(error_class(status), text);
  Py_DECREF(text);
  return NULL;
}

PyObject *bpy_none_or_raise(bp_status_t status) {
  if (status != BP_OK)
    return bpy_raise(status, NULL);
  Py_RETURN_NONE;
}

PyObject *bpy_query_result(bp_status_t status) {
  if (status == BP_OK)
    Py_RETURN_TRUE;
  if (status == BP_ERR_NOT_READY)
    Py_RETURN_FALSE;
  return bpy_raise(status, NULL);
}
