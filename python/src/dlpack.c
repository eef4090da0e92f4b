/* DLPack both ways. Export (__dlpack__) is for host-visible memory only, so
 * NumPy and PyTorch take it without a copy; a device tensor refuses with
 * BufferError naming copy_to(None). Import (from_dlpack) wraps the
 * producer's memory without a copy: host memory (kDLCPU) and this runtime's
 * devices (kDLExtDev, ordinal); other devices and dtypes refuse with
 * BufferError, so backplane.from_dlpack (Python) falls back to a copy. */
#include <stdlib.h>
#include <string.h>

#include "bpy.h"

typedef struct exported {
  DLManagedTensor managed;
  int64_t shape[BP_OPS_MAX_DIMS];
  int64_t strides[BP_OPS_MAX_DIMS];
  PyObject *owner; /* the Tensor, alive while the consumer holds this */
} exported_t;

static void exported_deleter(DLManagedTensor *managed) {
  exported_t *e = (exported_t *)managed->manager_ctx;
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_XDECREF(e->owner);
  PyGILState_Release(gil);
  free(e);
}

static void capsule_destructor(PyObject *capsule) {
  /* Consumed capsules are renamed "used_dltensor": the consumer deletes. */
  if (!PyCapsule_IsValid(capsule, "dltensor"))
    return;
  DLManagedTensor *managed = PyCapsule_GetPointer(capsule, "dltensor");
  if (managed != NULL && managed->deleter != NULL)
    managed->deleter(managed);
}

PyObject *bpy_tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"stream", NULL};
  PyObject *stream = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O:__dlpack__", keywords,
                                   &stream))
    return NULL;
  bpy_tensor_t *t = (bpy_tensor_t *)self;
  if (!t->host_visible) {
    PyErr_Format(PyExc_BufferError,
                 "backplane: a tensor in %s memory is not host-visible; "
                 "copy it with copy_to(None) (or to_numpy()) first",
                 bp_device_name(t->device));
    return NULL;
  }
  DLDataType dtype;
  if (bp_dtype_to_dl(t->dtype, &dtype) != BP_OK) {
    PyErr_Format(PyExc_BufferError, "backplane: dtype %s has no DLPack form",
                 bp_dtype_name(t->dtype));
    return NULL;
  }
  /* The host is about to read: pending device work must be done. */
  if (bpy_tensor_wait_pending(t) < 0)
    return NULL;
  exported_t *e = calloc(1, sizeof *e);
  if (e == NULL)
    return PyErr_NoMemory();
  memcpy(e->shape, t->shape, sizeof e->shape);
  memcpy(e->strides, t->strides, sizeof e->strides);
  e->owner = self;
  Py_INCREF(self);
  e->managed.manager_ctx = e;
  e->managed.deleter = exported_deleter;
  e->managed.dl_tensor = (DLTensor){.data = t->data,
                                    .device = {kDLCPU, 0},
                                    .ndim = t->ndim,
                                    .dtype = dtype,
                                    .shape = e->shape,
                                    .strides = e->strides,
                                    .byte_offset = 0};
  PyObject *capsule =
      PyCapsule_New(&e->managed, "dltensor", capsule_destructor);
  if (capsule == NULL) {
    Py_DECREF(self);
    free(e);
  }
  return capsule;
}

PyObject *bpy_tensor_dlpack_device(PyObject *self, PyObject *unused) {
  (void)unused;
  bpy_tensor_t *t = (bpy_tensor_t *)self;
  if (t->host_visible || t->device == NULL)
    return Py_BuildValue("(ii)", (int)kDLCPU, 0);
  DLDevice d = bp_device_to_dl(t->device);
  return Py_BuildValue("(ii)", (int)d.device_type, (int)d.device_id);
}

/* The capsule of `obj`: obj itself if it is one, else obj.__dlpack__(). */
static PyObject *capsule_of(PyObject *obj) {
  if (PyCapsule_IsValid(obj, "dltensor")) {
    Py_INCREF(obj);
    return obj;
  }
  PyObject *method = PyObject_GetAttrString(obj, "__dlpack__");
  if (method == NULL) {
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError,
                    "backplane.from_dlpack: the object has no __dlpack__");
    return NULL;
  }
  PyObject *capsule = PyObject_CallObject(method, NULL);
  Py_DECREF(method);
  return capsule;
}

PyObject *bpy_from_dlpack(PyObject *module, PyObject *obj) {
  (void)module;
  if (PyObject_TypeCheck(obj, bpy_tensor_type)) {
    Py_INCREF(obj);
    return obj;
  }
  bp_runtime_t *rt = bpy_runtime();
  if (rt == NULL)
    return NULL;
  PyObject *capsule = capsule_of(obj);
  if (capsule == NULL)
    return NULL;
  DLManagedTensor *managed = PyCapsule_GetPointer(capsule, "dltensor");
  if (managed == NULL) {
    Py_DECREF(capsule);
    return NULL;
  }
  const DLTensor *dl = &managed->dl_tensor;
  bp_dtype_t dtype;
  bp_device_t *device = NULL;
  const char *refusal = NULL;
  if (dl->ndim < 0 || dl->ndim > BP_OPS_MAX_DIMS)
    refusal = "too many dimensions";
  else if (bp_dtype_from_dl(dl->dtype, &dtype) != BP_OK)
    refusal = "a dtype Backplane does not have";
  else if (dl->device.device_type == kDLExtDev) {
    if (bp_device_from_dl(rt, dl->device, &device) != BP_OK)
      refusal = "a kDLExtDev device this runtime does not have";
  } else if (dl->device.device_type != kDLCPU &&
             dl->device.device_type != kDLCUDAHost) {
    refusal = "memory on a device this runtime does not drive";
  }
  if (refusal != NULL) {
    /* The capsule keeps ownership: its destructor releases it. */
    Py_DECREF(capsule);
    PyErr_Format(PyExc_BufferError, "backplane.from_dlpack: %s", refusal);
    return NULL;
  }
  if (PyCapsule_SetName(capsule, "used_dltensor") < 0) {
    Py_DECREF(capsule);
    return NULL;
  }
  Py_DECREF(capsule);
  bpy_tensor_t *t = bpy_tensor_borrow(device, managed, dtype);
  if (t == NULL && managed->deleter != NULL)
    managed->deleter(managed);
  return (PyObject *)t;
}
