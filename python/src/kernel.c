/* backplane.Module and backplane.Function: kernels (kernel.h) from Python.
 * A Module is a loaded shared object or op-info manifest on one device; a
 * Function, found by function or op name, keeps its Module alive and
 * launches with a parameter block copied from any bytes-like object (bytes,
 * a ctypes.Structure, a NumPy array...). Pointers inside the block are the
 * caller's: the kernel sees exactly the bytes given.
 *
 * Errors of the run itself are the stream's (a kernel's non-zero code is
 * BP_ERR_PLUGIN naming the kernel, a passed timeout BP_ERR_TIMEOUT): they
 * raise from Stream.synchronize() and query() until Stream.reset().
 *
 * Thread-safety: bp_launch runs with the GIL released, so the Module counts
 * the launches in flight and unload() refuses while any is (the C API does
 * not allow unloading a module another thread uses). */
#include <limits.h>
#include <stddef.h>

#include "bpy.h"

#include <structmember.h>

typedef struct {
  PyObject_HEAD bp_module_t *module; /* NULL once unloaded */
  PyObject *device;                  /* Device */
  PyObject *path;                    /* str */
  Py_ssize_t launching; /* launches in bp_launch with the GIL released */
} bpy_module_t;

typedef struct {
  PyObject_HEAD bp_function_t *function; /* valid while module->module */
  bpy_module_t *module;
  PyObject *name, *op; /* str */
  uint32_t blocks;     /* launch defaults (settable attributes) */
  uint32_t timeout_ms; /* 0: BP_KERNEL_DEFAULT_TIMEOUT_MS */
} bpy_function_t;

static PyTypeObject *module_type;
static PyTypeObject *function_type;

/* The loaded bp_module_t, or NULL with ValueError (as for a closed file)
 * naming `what`. */
static bp_module_t *loaded(bpy_module_t *m, const char *what) {
  if (m->module == NULL)
    PyErr_Format(PyExc_ValueError, "%s: module %U was unloaded", what, m->path);
  return m->module;
}

/* ---- Module ------------------------------------------------------------ */

static PyObject *module_new(PyTypeObject *type, PyObject *args,
                            PyObject *kwargs) {
  (void)type;
  static char *keywords[] = {"device", "path", "allow_outside_manifest_folder",
                             NULL};
  PyObject *device_arg, *path_arg;
  int allow_outside = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|p:Module", keywords,
                                   &device_arg, &path_arg, &allow_outside))
    return NULL;
  PyObject *path = PyOS_FSPath(path_arg);
  if (path == NULL)
    return NULL;
  char text[PATH_MAX];
  PyObject *device_obj = NULL;
  bpy_module_t *self = NULL;
  if (bpy_text(path, text, sizeof text) < 0 ||
      (device_obj = bpy_device_required(device_arg, "Module")) == NULL)
    goto done;
  bp_module_options_t options = {.allow_outside_manifest_folder =
                                     allow_outside};
  bp_module_t *module = NULL;
  bp_status_t s;
  BPY_NOGIL(s = bp_module_load_with_options(bpy_device_of(device_obj), text,
                                            &options, &module));
  if (s != BP_OK) {
    bpy_raise(s, NULL);
    goto done;
  }
  if (bpy_runtime_acquire() != NULL &&
      (self = PyObject_New(bpy_module_t, module_type)) == NULL)
    bpy_runtime_release();
  if (self == NULL) {
    BPY_NOGIL(bp_module_unload(module));
    goto done;
  }
  self->module = module;
  self->device = device_obj;
  self->path = path;
  self->launching = 0;
  return (PyObject *)self;
done:
  Py_XDECREF(device_obj);
  Py_DECREF(path);
  return NULL;
}

static void module_dealloc(PyObject *obj) {
  bpy_module_t *self = (bpy_module_t *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  bp_module_t *module = self->module;
  if (module != NULL)
    BPY_NOGIL(bp_module_unload(module)); /* drains the device first */
  Py_DECREF(self->device);
  Py_DECREF(self->path);
  PyObject_Free(obj);
  Py_DECREF(type);
  bpy_runtime_release();
}

static PyObject *module_unload(PyObject *obj, PyObject *unused) {
  (void)unused;
  bpy_module_t *self = (bpy_module_t *)obj;
  bp_module_t *module = self->module;
  if (module == NULL)
    Py_RETURN_NONE;
  if (self->launching > 0) {
    PyErr_Format(PyExc_RuntimeError,
                 "Module.unload: %zd launch(es) of module %U are in progress "
                 "on other threads",
                 self->launching, self->path);
    return NULL;
  }
  self->module = NULL; /* other threads see it unloaded from now on */
  bp_status_t s;
  BPY_NOGIL(s = bp_module_unload(module));
  return bpy_none_or_raise(s);
}

static PyObject *module_enter(PyObject *self, PyObject *unused) {
  (void)unused;
  Py_INCREF(self);
  return self;
}

static PyObject *module_exit(PyObject *self, PyObject *args) {
  (void)args;
  PyObject *result = module_unload(self, NULL);
  if (result == NULL)
    return NULL;
  Py_DECREF(result);
  Py_RETURN_FALSE;
}

static PyObject *function_new_for(bpy_module_t *m, bp_function_t *function) {
  bpy_function_t *self = PyObject_New(bpy_function_t, function_type);
  if (self == NULL)
    return NULL;
  self->function = function;
  self->module = m;
  Py_INCREF(m);
  self->name = PyUnicode_FromString(bp_function_name(function));
  self->op = PyUnicode_FromString(bp_function_op(function));
  self->blocks = 1;
  self->timeout_ms = 0;
  if (self->name == NULL || self->op == NULL) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject *)self;
}

static PyObject *module_function(PyObject *obj, PyObject *name) {
  bpy_module_t *self = (bpy_module_t *)obj;
  bp_module_t *module = loaded(self, "Module.function");
  char text[512];
  if (module == NULL || bpy_text(name, text, sizeof text) < 0)
    return NULL;
  bp_function_t *function = NULL;
  bp_status_t s = bp_module_function(module, text, &function);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  return function_new_for(self, function);
}

static PyObject *module_get_functions(PyObject *obj, void *closure) {
  (void)closure;
  bp_module_t *module = loaded((bpy_module_t *)obj, "Module.functions");
  if (module == NULL)
    return NULL;
  size_t count = bp_module_function_count(module);
  PyObject *names = PyTuple_New((Py_ssize_t)count);
  for (size_t i = 0; names != NULL && i < count; ++i) {
    PyObject *name =
        PyUnicode_FromString(bp_function_op(bp_module_function_at(module, i)));
    if (name == NULL)
      Py_CLEAR(names);
    else
      PyTuple_SetItem(names, (Py_ssize_t)i, name);
  }
  return names;
}

static PyObject *module_get_loaded(PyObject *obj, void *closure) {
  (void)closure;
  return PyBool_FromLong(((bpy_module_t *)obj)->module != NULL);
}

static PyObject *module_repr(PyObject *obj) {
  bpy_module_t *self = (bpy_module_t *)obj;
  return PyUnicode_FromFormat("<backplane.Module %R on %s%s>", self->path,
                              bp_device_name(bpy_device_of(self->device)),
                              self->module == NULL ? " (unloaded)" : "");
}

static PyMethodDef module_methods[] = {
    {"function", module_function, METH_O,
     "function(name): the Function of an op (manifest) or a function name; "
     "NotFoundError lists what the module has. Same as module[name]."},
    {"unload", module_unload, METH_NOARGS,
     "Waits for the work of every stream of the device, then unloads; its "
     "Functions raise ValueError afterwards. Unloading twice is a no-op; "
     "while another thread is inside launch() it raises RuntimeError."},
    {"__enter__", module_enter, METH_NOARGS, NULL},
    {"__exit__", module_exit, METH_VARARGS, "Unloads the module."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef module_getset[] = {
    {"functions", module_get_functions, NULL,
     "names module[...] takes, as the module lists them (a manifest's ops "
     "in file order, a shared object's exported functions)",
     NULL},
    {"loaded", module_get_loaded, NULL, "False once unloaded", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef module_members[] = {
    {"device", T_OBJECT_EX, offsetof(bpy_module_t, device), READONLY,
     "the Device it was loaded for"},
    {"path", T_OBJECT_EX, offsetof(bpy_module_t, path), READONLY,
     "the file it was loaded from"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot module_slots[] = {
    {Py_tp_new, module_new},
    {Py_tp_dealloc, module_dealloc},
    {Py_tp_repr, module_repr},
    {Py_tp_methods, module_methods},
    {Py_tp_getset, module_getset},
    {Py_tp_members, module_members},
    {Py_mp_subscript, module_function},
    {Py_tp_doc,
     "Module(device, path, allow_outside_manifest_folder=False): a kernel "
     "module (a shared object, an op-info manifest *.json, or a format the "
     "device's plugin builds) loaded for DEVICE; a context manager that "
     "unloads it on exit."},
    {0, NULL},
};

static PyType_Spec module_spec = {"backplane.Module", sizeof(bpy_module_t), 0,
                                  Py_TPFLAGS_DEFAULT, module_slots};

/* ---- Function ---------------------------------------------------------- */

static void function_dealloc(PyObject *obj) {
  bpy_function_t *self = (bpy_function_t *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  Py_XDECREF(self->name);
  Py_XDECREF(self->op);
  Py_DECREF(self->module);
  PyObject_Free(obj);
  Py_DECREF(type);
}

/* Reads a block count (>= 1) from `obj`; -1 with an exception set. */
static int parse_blocks(PyObject *obj, uint32_t *out) {
  unsigned long long blocks = PyLong_AsUnsignedLongLong(obj);
  if (PyErr_Occurred() || blocks < 1 || blocks > UINT32_MAX) {
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError,
                    "Function: blocks must be an int from 1 to 2**32-1");
    return -1;
  }
  *out = (uint32_t)blocks;
  return 0;
}

/* Reads a timeout in seconds (> 0; None: the default) into milliseconds,
 * rounded up; -1 with an exception set. */
static int parse_timeout(PyObject *obj, uint32_t *out_ms) {
  if (obj == Py_None) {
    *out_ms = 0;
    return 0;
  }
  double seconds = PyFloat_AsDouble(obj);
  if (PyErr_Occurred() || !(seconds > 0) || seconds * 1e3 > UINT32_MAX) {
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError,
                    "Function: timeout must be seconds > 0 (at most about "
                    "49 days), or None for the default");
    return -1;
  }
  double ms = seconds * 1e3;
  *out_ms = (uint32_t)ms + ((double)(uint32_t)ms < ms);
  return 0;
}

/* The parameter block as bytes (new reference): bytes as they are, else
 * bytes(obj) of a bytes-like object; None is an empty block. */
static PyObject *parameter_block(PyObject *args) {
  if (args == Py_None)
    return PyBytes_FromStringAndSize(NULL, 0);
  if (PyBytes_Check(args)) {
    Py_INCREF(args);
    return args;
  }
  if (PyLong_Check(args) || PyUnicode_Check(args)) {
    PyErr_SetString(PyExc_TypeError,
                    "Function.launch: args must be bytes-like (bytes, a "
                    "ctypes.Structure, a buffer), not an int or str");
    return NULL;
  }
  return PyObject_Bytes(args);
}

/* Marks each Tensor of the sequence `tensors` used on `stream`; -1 with an
 * exception set. */
static int use_tensors(PyObject *tensors, bp_stream_t *stream,
                       PyObject *owner) {
  if (tensors == Py_None)
    return 0;
  PyObject *items = PySequence_Fast(
      tensors, "Function.launch: tensors must be a sequence of Tensors");
  if (items == NULL)
    return -1;
  int rc = 0;
  for (Py_ssize_t i = 0; rc == 0 && i < PySequence_Size(items); ++i) {
    PyObject *item = PySequence_GetItem(items, i);
    bpy_tensor_t *t =
        item ? bpy_tensor_check(item, "Function.launch tensors") : NULL;
    rc = t != NULL && bpy_tensor_use_on(t, stream, owner) == 0 ? 0 : -1;
    Py_XDECREF(item);
  }
  Py_DECREF(items);
  return rc;
}

static PyObject *function_launch(PyObject *obj, PyObject *args,
                                 PyObject *kwargs) {
  bpy_function_t *self = (bpy_function_t *)obj;
  static char *keywords[] = {"args",   "blocks",  "timeout",
                             "stream", "tensors", NULL};
  PyObject *args_arg = Py_None, *blocks_arg = Py_None, *timeout_arg = Py_None,
           *stream_arg = Py_None, *tensors_arg = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOOOO:launch", keywords,
                                   &args_arg, &blocks_arg, &timeout_arg,
                                   &stream_arg, &tensors_arg))
    return NULL;
  bp_launch_config_t config = {self->timeout_ms, 0};
  uint32_t blocks = self->blocks;
  if (loaded(self->module, "Function.launch") == NULL ||
      (blocks_arg != Py_None && parse_blocks(blocks_arg, &blocks) < 0) ||
      (timeout_arg != Py_None &&
       parse_timeout(timeout_arg, &config.timeout_ms) < 0))
    return NULL;
  bp_stream_t *stream;
  PyObject *owner = NULL;
  if (stream_arg == Py_None) {
    stream = bpy_active_stream(bpy_device_of(self->module->device), &owner);
    if (stream == NULL)
      return NULL;
  } else if (PyObject_TypeCheck(stream_arg, bpy_stream_type)) {
    stream = ((bpy_stream_t *)stream_arg)->stream;
    owner = stream_arg;
    Py_INCREF(owner);
  } else {
    PyErr_SetString(PyExc_TypeError, "Function.launch: expected a Stream");
    return NULL;
  }
  PyObject *block = NULL;
  if (use_tensors(tensors_arg, stream, owner) == 0)
    block = parameter_block(args_arg);
  Py_XDECREF(owner);
  if (block == NULL)
    return NULL;
  char *data;
  Py_ssize_t size;
  if (PyBytes_AsStringAndSize(block, &data, &size) < 0) {
    Py_DECREF(block);
    return NULL;
  }
  bp_status_t s;
  ++self->module->launching;
  BPY_NOGIL(s = bp_launch(self->function, blocks, size ? data : NULL,
                          (size_t)size, &config, stream));
  --self->module->launching;
  Py_DECREF(block);
  return bpy_none_or_raise(s);
}

static PyObject *function_get_blocks(PyObject *obj, void *closure) {
  (void)closure;
  return PyLong_FromUnsignedLong(((bpy_function_t *)obj)->blocks);
}

static int function_set_blocks(PyObject *obj, PyObject *value, void *closure) {
  (void)closure;
  if (value == NULL) {
    PyErr_SetString(PyExc_AttributeError, "Function.blocks cannot be deleted");
    return -1;
  }
  return parse_blocks(value, &((bpy_function_t *)obj)->blocks);
}

static PyObject *function_get_timeout(PyObject *obj, void *closure) {
  (void)closure;
  uint32_t ms = ((bpy_function_t *)obj)->timeout_ms;
  if (ms == 0)
    Py_RETURN_NONE;
  return PyFloat_FromDouble(ms / 1e3);
}

static int function_set_timeout(PyObject *obj, PyObject *value, void *closure) {
  (void)closure;
  return parse_timeout(value ? value : Py_None,
                       &((bpy_function_t *)obj)->timeout_ms);
}

static PyObject *function_repr(PyObject *obj) {
  bpy_function_t *self = (bpy_function_t *)obj;
  return PyUnicode_FromFormat("<backplane.Function %U (op %U) of %R>",
                              self->name, self->op, self->module->path);
}

static PyMethodDef function_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))function_launch,
     METH_VARARGS | METH_KEYWORDS,
     "launch(args=None, blocks=None, timeout=None, stream=None, "
     "tensors=None): enqueues BLOCKS runs (default: self.blocks) on STREAM "
     "(default: the active stream of the module's device), each given a "
     "pointer to a copy of ARGS (bytes, a ctypes.Structure or any bytes-like "
     "object, at most 4096 bytes; pointers inside are the caller's). "
     "TIMEOUT in seconds (None: self.timeout). TENSORS the kernel uses "
     "are marked used on the stream. Returns at once; the run's errors "
     "raise from the stream's synchronize()."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef function_members[] = {
    {"name", T_OBJECT_EX, offsetof(bpy_function_t, name), READONLY,
     "the function's symbol name"},
    {"op", T_OBJECT_EX, offsetof(bpy_function_t, op), READONLY,
     "the manifest's op name (the function name for a shared object)"},
    {"module", T_OBJECT_EX, offsetof(bpy_function_t, module), READONLY,
     "the Module it belongs to"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef function_getset[] = {
    {"blocks", function_get_blocks, function_set_blocks,
     "blocks launch() runs when it names none (1)", NULL},
    {"timeout", function_get_timeout, function_set_timeout,
     "seconds launch() allows when it names none; None: the runtime's "
     "default (BP_KERNEL_DEFAULT_TIMEOUT_MS)",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot function_slots[] = {
    {Py_tp_new, bpy_no_new},
    {Py_tp_dealloc, function_dealloc},
    {Py_tp_repr, function_repr},
    {Py_tp_methods, function_methods},
    {Py_tp_getset, function_getset},
    {Py_tp_members, function_members},
    {Py_tp_doc, "A kernel of a Module (module[name]); launch() runs it."},
    {0, NULL},
};

static PyType_Spec function_spec = {"backplane.Function",
                                    sizeof(bpy_function_t), 0,
                                    Py_TPFLAGS_DEFAULT, function_slots};

int bpy_kernel_init(PyObject *module) {
  if (bpy_add_type(module, &module_spec, &module_type) < 0)
    return -1;
  return bpy_add_type(module, &function_spec, &function_type);
}
