/* backplane.Device: a device of the runtime, found by name ("vcpu:0"), by
 * backplane.devices(), or from a tensor. Attributes are read-only properties
 * named as bp_device_attribute_name() names them; an attribute the device
 * cannot answer reads as None (never 0). */
#include <stdlib.h>
#include <string.h>

#include "bpy.h"

PyTypeObject *bpy_device_type;

PyObject *bpy_device_new(bp_device_t *device) {
  if (bpy_runtime_acquire() == NULL)
    return NULL;
  bpy_device_t *self = PyObject_New(bpy_device_t, bpy_device_type);
  if (self == NULL) {
    bpy_runtime_release();
    return NULL;
  }
  self->device = device;
  return (PyObject *)self;
}

static void device_dealloc(PyObject *self) {
  PyTypeObject *type = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(type);
  bpy_runtime_release();
}

/* "vcpu:1" or "vcpu" (index 0). */
static int parse_name(const char *name, bp_device_t **out) {
  bp_runtime_t *rt = bpy_runtime();
  if (rt == NULL)
    return -1;
  char type[64];
  const char *colon = strchr(name, ':');
  size_t len = colon ? (size_t)(colon - name) : strlen(name);
  size_t index = 0;
  if (len == 0 || len >= sizeof type) {
    PyErr_Format(PyExc_ValueError,
                 "backplane: bad device name \"%s\" (expected \"type:index\")",
                 name);
    return -1;
  }
  memcpy(type, name, len);
  type[len] = '\0';
  if (colon != NULL) {
    char *end;
    unsigned long long v = strtoull(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end != '\0' || colon[1] == '-') {
      PyErr_Format(PyExc_ValueError, "backplane: bad device index in \"%s\"",
                   name);
      return -1;
    }
    index = (size_t)v;
  }
  bp_status_t s = bp_device_get(rt, type, index, out);
  if (s != BP_OK) {
    bpy_raise(s, NULL);
    return -1;
  }
  return 0;
}

int bpy_device_parse(PyObject *obj, bp_device_t **out) {
  if (obj == NULL || obj == Py_None) {
    *out = NULL;
    return 0;
  }
  if (PyObject_TypeCheck(obj, bpy_device_type)) {
    *out = ((bpy_device_t *)obj)->device;
    return 0;
  }
  if (PyUnicode_Check(obj)) {
    char name[256];
    if (bpy_text(obj, name, sizeof name) < 0)
      return -1;
    if (strcmp(name, "cpu") == 0 || strcmp(name, "host") == 0) {
      *out = NULL;
      return 0;
    }
    return parse_name(name, out);
  }
  PyErr_Format(PyExc_TypeError,
               "backplane: expected a Device, a device name or None, not %s",
               Py_TYPE(obj) == NULL ? "?" : "this type");
  return -1;
}

PyObject *bpy_device_required(PyObject *obj, const char *what) {
  bp_device_t *device;
  if (bpy_device_parse(obj, &device) < 0)
    return NULL;
  if (device == NULL) {
    PyErr_Format(PyExc_ValueError, "backplane.%s needs a device, not the host",
                 what);
    return NULL;
  }
  return bpy_device_new(device);
}

bp_device_t *bpy_device_of(PyObject *device_obj) {
  return ((bpy_device_t *)device_obj)->device;
}

static PyObject *get_name(PyObject *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(bp_device_name(bpy_device_of(self)));
}
static PyObject *get_type(PyObject *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(bp_device_type(bpy_device_of(self)));
}
static PyObject *get_index(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(bp_device_index(bpy_device_of(self)));
}
static PyObject *get_ordinal(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(bp_device_ordinal(bpy_device_of(self)));
}

/* closure: the bp_device_attr_t, offset by one so it is never NULL. */
static PyObject *get_attribute(PyObject *self, void *closure) {
  bp_device_attr_t attr = (bp_device_attr_t)((intptr_t)closure - 1);
  bp_device_attr_value_t value;
  bp_status_t s = bp_device_attribute(bpy_device_of(self), attr, &value);
  if (s == BP_ERR_UNSUPPORTED)
    Py_RETURN_NONE;
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  if (value.kind == BP_DEVICE_ATTR_VALUE_STRING)
    return PyUnicode_FromString(value.str);
  return PyLong_FromLongLong(value.i64);
}

static PyObject *device_attributes(PyObject *self, PyObject *unused) {
  (void)unused;
  PyObject *dict = PyDict_New();
  for (int a = 0; dict != NULL && a < BP_DEVICE_ATTR_COUNT; ++a) {
    PyObject *v = get_attribute(self, (void *)(intptr_t)(a + 1));
    if (v == NULL ||
        PyDict_SetItemString(dict, bp_device_attribute_name(a), v) < 0)
      Py_CLEAR(dict);
    Py_XDECREF(v);
  }
  return dict;
}

static PyObject *device_memory_info(PyObject *self, PyObject *unused) {
  (void)unused;
  size_t total = 0, free_bytes = 0;
  bp_status_t s =
      bp_device_memory_info(bpy_device_of(self), &total, &free_bytes);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  return Py_BuildValue("(nn)", (Py_ssize_t)total, (Py_ssize_t)free_bytes);
}

static PyObject *stat_dict(const bp_memory_stat_t *s) {
  return Py_BuildValue("{sKsKsKsK}", "current", (unsigned long long)s->current,
                       "peak", (unsigned long long)s->peak, "allocated",
                       (unsigned long long)s->allocated, "freed",
                       (unsigned long long)s->freed);
}

static PyObject *device_memory_stats(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_memory_stats_t st;
  bp_status_t s = bp_device_memory_stats(bpy_device_of(self), &st);
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  return Py_BuildValue(
      "{sNsNsNsNsNsKsKsKsK}", "allocated_bytes", stat_dict(&st.allocated_bytes),
      "reserved_bytes", stat_dict(&st.reserved_bytes), "active_bytes",
      stat_dict(&st.active_bytes), "inactive_split_bytes",
      stat_dict(&st.inactive_split_bytes), "requested_bytes",
      stat_dict(&st.requested_bytes), "num_alloc_retries",
      (unsigned long long)st.num_alloc_retries, "num_ooms",
      (unsigned long long)st.num_ooms, "num_device_alloc",
      (unsigned long long)st.num_device_alloc, "num_device_free",
      (unsigned long long)st.num_device_free);
}

static PyObject *device_empty_cache(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_status_t s;
  BPY_NOGIL(s = bp_device_empty_cache(bpy_device_of(self)));
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  Py_RETURN_NONE;
}

static PyObject *device_synchronize(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_status_t s;
  BPY_NOGIL(s = bp_device_synchronize(bpy_device_of(self)));
  if (s != BP_OK)
    return bpy_raise(s, NULL);
  Py_RETURN_NONE;
}

static PyObject *device_dlpack_device(PyObject *self, PyObject *unused) {
  (void)unused;
  DLDevice d = bp_device_to_dl(bpy_device_of(self));
  return Py_BuildValue("(ii)", (int)d.device_type, (int)d.device_id);
}

static PyObject *device_repr(PyObject *self) {
  return PyUnicode_FromFormat("backplane.device('%s')",
                              bp_device_name(bpy_device_of(self)));
}

static Py_hash_t device_hash(PyObject *self) {
  return (Py_hash_t)bp_device_ordinal(bpy_device_of(self)) + 1;
}

static PyObject *device_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, bpy_device_type) || (op != Py_EQ && op != Py_NE))
    Py_RETURN_NOTIMPLEMENTED;
  int same = bpy_device_of(a) == bpy_device_of(b);
  return PyBool_FromLong(op == Py_EQ ? same : !same);
}

static PyObject *module_devices(PyObject *module, PyObject *unused) {
  (void)module, (void)unused;
  bp_runtime_t *rt = bpy_runtime();
  if (rt == NULL)
    return NULL;
  size_t n = bp_device_count(rt);
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (size_t i = 0; list != NULL && i < n; ++i) {
    bp_device_t *d;
    bp_status_t s = bp_device_at(rt, i, &d);
    PyObject *obj = s == BP_OK ? bpy_device_new(d) : bpy_raise(s, NULL);
    if (obj == NULL) {
      Py_CLEAR(list);
      break;
    }
    PyList_SetItem(list, (Py_ssize_t)i, obj);
  }
  return list;
}

static PyObject *module_device(PyObject *module, PyObject *name) {
  (void)module;
  if (!PyUnicode_Check(name)) {
    PyErr_SetString(PyExc_TypeError,
                    "backplane.device: expected a name such as \"vcpu:0\"");
    return NULL;
  }
  bp_device_t *d;
  if (bpy_device_parse(name, &d) < 0)
    return NULL;
  if (d == NULL) /* "cpu", "host": memory, not a device */
    return bpy_raise_text(BP_ERR_NOT_FOUND,
                          "backplane.device: \"cpu\" and \"host\" name host "
                          "memory, not a device (pass device=None for host "
                          "memory)");
  return bpy_device_new(d);
}

static PyMethodDef module_functions[] = {
    {"devices", module_devices, METH_NOARGS,
     "Every device of every loaded plugin, in ordinal order."},
    {"device", module_device, METH_O,
     "The device called NAME (\"vcpu:0\"; \"vcpu\" is index 0); "
     "NotFoundError (a LookupError) for any other name, \"cpu\" included."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef device_methods[] = {
    {"attributes", device_attributes, METH_NOARGS,
     "Every attribute as a dict; None where the device cannot answer."},
    {"memory_info", device_memory_info, METH_NOARGS,
     "(total, free) bytes as the plugin reports them."},
    {"memory_stats", device_memory_stats, METH_NOARGS,
     "The caching allocator's counters (PyTorch's memory_stats() names)."},
    {"empty_cache", device_empty_cache, METH_NOARGS,
     "Returns idle cached memory to the device."},
    {"synchronize", device_synchronize, METH_NOARGS,
     "Waits for all work on every stream of the device."},
    {"__dlpack_device__", device_dlpack_device, METH_NOARGS,
     "(kDLExtDev, ordinal)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef device_getset[BP_DEVICE_ATTR_COUNT + 5] = {
    {"name", get_name, NULL, "\"vcpu:0\"", NULL},
    {"type", get_type, NULL, "the plugin's device type, \"vcpu\"", NULL},
    {"index", get_index, NULL, "index within its plugin", NULL},
    {"ordinal", get_ordinal, NULL, "position among all devices", NULL},
};

static PyType_Slot device_slots[] = {
    {Py_tp_new, bpy_no_new},
    {Py_tp_dealloc, device_dealloc},
    {Py_tp_repr, device_repr},
    {Py_tp_hash, device_hash},
    {Py_tp_richcompare, device_richcompare},
    {Py_tp_methods, device_methods},
    {Py_tp_getset, device_getset},
    {Py_tp_doc, "A Backplane device; see backplane.device()."},
    {0, NULL},
};

static PyType_Spec device_spec = {"backplane.Device", sizeof(bpy_device_t), 0,
                                  Py_TPFLAGS_DEFAULT, device_slots};

int bpy_device_init(PyObject *module) {
  for (int a = 0; a < BP_DEVICE_ATTR_COUNT; ++a)
    device_getset[4 + a] =
        (PyGetSetDef){(char *)bp_device_attribute_name(a), get_attribute, NULL,
                      NULL, (void *)(intptr_t)(a + 1)};
  if (bpy_add_type(module, &device_spec, &bpy_device_type) < 0)
    return -1;
  return PyModule_AddFunctions(module, module_functions);
}
