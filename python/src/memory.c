/* The allocator history from Python (backplane.memory): recording, the
 * snapshot, its summary, and the label naming the Python line behind each
 * device allocation and free of a Tensor while the runtime records. */
#include <stdlib.h>

#include "bpy.h"

enum { BPY_MEMORY_LABEL_BYTES = 64 }; /* kept by the runtime, NUL included */

static PyObject *history_record(PyObject *module, PyObject *arg) {
  (void)module;
  Py_ssize_t max_events = PyLong_AsSsize_t(arg);
  if (max_events == -1 && PyErr_Occurred())
    return NULL;
  if (max_events < 0) {
    PyErr_Format(PyExc_ValueError,
                 "backplane.memory.record_history: max_events must be 0 or "
                 "more, got %zd",
                 max_events);
    return NULL;
  }
  bp_runtime_t *runtime = bpy_runtime();
  if (runtime == NULL)
    return NULL;
  return bpy_none_or_raise(
      bp_memory_history_record(runtime, (size_t)max_events));
}

static PyObject *history_recording(PyObject *module, PyObject *unused) {
  (void)module, (void)unused;
  bp_runtime_t *runtime = bpy_runtime();
  if (runtime == NULL)
    return NULL;
  return PyBool_FromLong(bp_memory_history_recording(runtime));
}

/* A JSON string the caller frees, as a str. */
static PyObject *text_result(bp_status_t status, char *text) {
  if (status != BP_OK)
    return bpy_raise(status, NULL);
  PyObject *result = PyUnicode_FromString(text);
  free(text);
  return result;
}

static PyObject *history_snapshot(PyObject *module, PyObject *unused) {
  (void)module, (void)unused;
  bp_runtime_t *runtime = bpy_runtime();
  if (runtime == NULL)
    return NULL;
  char *text = NULL;
  bp_status_t s;
  BPY_NOGIL(s = bp_memory_history_snapshot(runtime, &text));
  return text_result(s, text);
}

/* `convert` (a summary or a picture) of the snapshot `arg` (a str). */
static PyObject *
convert_snapshot(PyObject *arg, bp_status_t (*convert)(const char *, char **)) {
  PyObject *bytes = PyUnicode_AsUTF8String(arg);
  if (bytes == NULL)
    return NULL;
  char *text = NULL;
  bp_status_t s = convert(PyBytes_AsString(bytes), &text);
  Py_DECREF(bytes);
  return text_result(s, text);
}

static PyObject *history_summary(PyObject *module, PyObject *arg) {
  (void)module;
  return convert_snapshot(arg, bp_memory_history_summary);
}

static PyObject *snapshot_svg(PyObject *module, PyObject *arg) {
  (void)module;
  return convert_snapshot(arg, bp_memory_snapshot_to_svg);
}

static PyMethodDef memory_functions[] = {
    {"_memory_history_record", history_record, METH_O,
     "Records the next MAX_EVENTS allocator events (0: stops)."},
    {"_memory_history_recording", history_recording, METH_NOARGS,
     "Whether the runtime records its allocator history."},
    {"_memory_history_snapshot", history_snapshot, METH_NOARGS,
     "The recorded allocator history as a JSON string."},
    {"_memory_history_summary", history_summary, METH_O,
     "The summary of a history snapshot (JSON string) as a JSON string."},
    {"_memory_snapshot_svg", snapshot_svg, METH_O,
     "A snapshot (JSON string) drawn as an SVG string."},
    {NULL, NULL, 0, NULL},
};

int bpy_memory_init(PyObject *module) {
  return PyModule_AddFunctions(module, memory_functions);
}

/* backplane.memory._caller_label, imported on first use. */
static PyObject *label_function(void) {
  static PyObject *function;
  if (function == NULL) {
    PyObject *memory = PyImport_ImportModule("backplane.memory");
    if (memory != NULL) {
      function = PyObject_GetAttrString(memory, "_caller_label");
      Py_DECREF(memory);
    }
  }
  return function;
}

int bpy_memory_label_begin(void) {
  if (!bp_memory_history_recording(bpy_runtime_if_created()))
    return 0;
  /* Called from deallocators too: the exception being raised survives. */
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyObject *function = label_function();
  PyObject *label = function ? PyObject_CallObject(function, NULL) : NULL;
  char text[BPY_MEMORY_LABEL_BYTES];
  int labelled = label != NULL && bpy_text(label, text, sizeof text) == 0;
  if (labelled)
    bp_memory_history_set_label(text);
  Py_XDECREF(label);
  PyErr_Clear(); /* a label that cannot be had is no error */
  PyErr_Restore(type, value, traceback);
  return labelled;
}

void bpy_memory_label_end(int labelled) {
  if (labelled)
    bp_memory_history_set_label(NULL);
}
