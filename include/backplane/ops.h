/* Standard operators: the framework side of DIOPI on Backplane.
 *
 * Backplane supplies DIOPI's runtime half (backplane/diopi/diopirt.h): a
 * context binds one device and one stream, tensors describe device (or host)
 * memory, scratch comes from the device's caching allocator. An operator
 * library (Backplane's reference library, or a vendor's) supplies the diopi*
 * op functions; it is opened by path and each op is found by its DIOPI name.
 * An op the library leaves out is BP_ERR_UNSUPPORTED with a message saying
 * diopiNoImplement, never a crash.
 *
 * A DIOPI-IMPL library that brings its own device runtime (old style:
 * initLibrary() registering functions through backplane/diopi/
 * diopi_register.h; new style: device_malloc, device_make_stream, ... of
 * backplane/diopi/conform_test.h) loads unchanged: the DIOPI-IMPL adapter
 * turns those functions into a Backplane device (type
 * BP_OPS_IMPL_DEVICE_TYPE) that a runtime loads in process
 * (bp_ops_library_adapter).
 *
 * diopiGetStream hands a library the stream it understands: on an adapter
 * device, the library's own native stream (the plugin stream, C_Stream,
 * behind the context's bp_stream_t); on every other device, the context's
 * bp_stream_t itself.
 *
 * Ops enqueue their work on the context's stream and return before it runs:
 * tensor data must stay valid until the stream reaches the op (synchronize
 * the stream, or free with bp_device_free_async on it). Tensor handles, by
 * contrast, may be destroyed as soon as the op call returns. */
#ifndef BACKPLANE_OPS_H_
#define BACKPLANE_OPS_H_

#include <dlpack/dlpack.h>

#include "backplane/diopi/diopirt.h"
#include "backplane/runtime.h"
#include "backplane/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Operator libraries -------------------------------------------------- */

typedef struct bp_ops_library bp_ops_library_t;

/* Opens the shared object at `path` (dlopen, local symbols). Fails with
 * BP_ERR_NOT_FOUND (message: the path and dlerror) if it cannot be opened.
 * A library need not implement any particular op. A DIOPI-IMPL library
 * (bp_ops_impl_style_t) is initialized here (initLibrary) and refused with
 * BP_ERR_PLUGIN naming what its device runtime lacks; only one is open at a
 * time per process (BP_ERR_UNSUPPORTED for a second). Writes *out_library
 * only on success. */
BP_API bp_status_t bp_ops_library_open(const char *path,
                                       bp_ops_library_t **out_library);
/* Closes the library (a DIOPI-IMPL one: finalizeLibrary() first); NULL is a
 * no-op. Work it enqueued must have finished, and a runtime holding its
 * adapter device must have been destroyed. */
BP_API void bp_ops_library_close(bp_ops_library_t *library);
/* The op called `name` (e.g. "diopiAdd"), to be cast to its type from
 * backplane/diopi/functions.h. BP_ERR_UNSUPPORTED with "<path>: diopiX:
 * diopiNoImplement" when the library does not define it. Thread-safe. */
BP_API bp_status_t bp_ops_library_find(const bp_ops_library_t *library,
                                       const char *name, void **out_function);
/* The library's diopiGetVendorName(), or its file name if it has none. */
BP_API const char *bp_ops_library_vendor(const bp_ops_library_t *library);
/* The library's diopiGetLastErrorString() for this thread, or "" if it has
 * none. */
BP_API const char *bp_ops_library_last_error(const bp_ops_library_t *library);
BP_API const char *bp_ops_library_path(const bp_ops_library_t *library);

/* The op library the plugin of `device` names for its devices
 * (BP_OpsLibraryExtension in backplane/device_ext.h), as an absolute path,
 * or NULL when it names none (the reference library serves devices whose
 * memory the host can address). Lives as long as the device's runtime. */
BP_API const char *bp_ops_library_for_device(const bp_device_t *device);
/* For an op library that enqueues on the vendor's runtime directly: the
 * vendor's own stream behind `stream` (a cudaStream_t on cuda), as the
 * plugin's op-library extension hands it out; work enqueued on it is
 * ordered with the stream's other work. Binds the device to the calling
 * thread as any call on it would. BP_ERR_UNSUPPORTED when the plugin names
 * no op library. Valid while the stream lives. Thread-safe. */
BP_API bp_status_t bp_ops_native_stream(bp_stream_t *stream, void **out_native);

/* How a library supplies its device runtime, decided at open. */
typedef enum bp_ops_impl_style {
  BP_OPS_IMPL_NONE = 0, /* Backplane-native: runs on Backplane's devices */
  BP_OPS_IMPL_OLD = 1,  /* exports initLibrary, which calls diopiRegister* */
  BP_OPS_IMPL_NEW = 2,  /* defines device_malloc, device_make_stream, ... */
} bp_ops_impl_style_t;

/* The device type of the adapter device ("diopi-impl:0"). */
#define BP_OPS_IMPL_DEVICE_TYPE "diopi-impl"

BP_API bp_ops_impl_style_t
bp_ops_library_impl_style(const bp_ops_library_t *library);
/* "old style", "new style" or "Backplane-native". */
BP_API const char *bp_ops_impl_style_name(bp_ops_impl_style_t style);
/* The adapter device of a DIOPI-IMPL library, as an in-process plugin to
 * put in bp_runtime_options_t.in_process_plugins: one device of type
 * BP_OPS_IMPL_DEVICE_TYPE on the library's malloc/free, streams and copies.
 * Destroy that runtime before closing the library. BP_ERR_UNSUPPORTED for a
 * Backplane-native library. */
BP_API bp_status_t bp_ops_library_adapter(const bp_ops_library_t *library,
                                          bp_in_process_plugin_t *out_plugin);

/* The status an op's diopiError_t maps to: diopiSuccess is BP_OK,
 * diopiNoImplement BP_ERR_UNSUPPORTED, the rest BP_ERR_PLUGIN. */
BP_API bp_status_t bp_ops_status(diopiError_t error);
/* "diopiNoImplement" for diopiNoImplement; "diopiError(<n>)" if unknown. */
BP_API const char *bp_ops_error_name(diopiError_t error);

/* ---- Contexts ------------------------------------------------------------ */

/* A context binds `device` and `stream` (which must belong to `device`).
 * Not thread-safe: use one context per thread (they are cheap). */
BP_API bp_status_t bp_ops_context_create(bp_device_t *device,
                                         bp_stream_t *stream,
                                         diopiContextHandle_t *out_context);
/* Clears it, then frees it. NULL is a no-op. */
BP_API void bp_ops_context_destroy(diopiContextHandle_t context);
/* Releases every tensor the library required through this context
 * (diopiRequireTensor/Buffer): device memory goes back to the caching
 * allocator in the order of the context's stream, so enqueued ops that still
 * use it are safe. Call it after each op, or each step. */
BP_API void bp_ops_context_clear(diopiContextHandle_t context);
BP_API bp_device_t *bp_ops_context_device(diopiContextHandle_t context);
BP_API bp_stream_t *bp_ops_context_stream(diopiContextHandle_t context);
/* Tensors required through the context and not yet cleared. */
BP_API size_t bp_ops_context_scratch_count(diopiContextHandle_t context);
/* Hands the caller a tensor the library required through the context and
 * the context still holds: an op's own output (diopiMaskedSelect's *out).
 * It leaves the context's scratch, so clearing the context no longer frees
 * it; *out_storage receives its memory, which the caller now owns: device
 * memory from the caching allocator for the context's stream (free it with
 * bp_device_free_async on that stream), or host memory from malloc (free).
 * The handle stays valid and no longer frees the memory when destroyed
 * (bp_ops_tensor_destroy). BP_ERR_INVALID_ARGUMENT when the tensor is not
 * one of the context's. */
BP_API bp_status_t bp_ops_context_take(diopiContextHandle_t context,
                                       diopiTensorHandle_t tensor,
                                       void **out_storage);

/* ---- Tensors ------------------------------------------------------------- */

enum { BP_OPS_MAX_DIMS = 8 };

/* Element size in bytes of a DIOPI dtype; 0 for an unknown one. */
BP_API size_t bp_ops_dtype_size(diopiDtype_t dtype);
/* "float32" for diopi_dtype_float32; "unknown" otherwise. */
BP_API const char *bp_ops_dtype_name(diopiDtype_t dtype);

/* A tensor over memory the caller owns: `data` of `device` (NULL: host
 * memory), `ndim` <= BP_OPS_MAX_DIMS dims, `strides` in elements (NULL:
 * contiguous). The handle must be destroyed; the data is not touched. */
BP_API bp_status_t bp_ops_tensor_wrap(bp_device_t *device, void *data,
                                      diopiDtype_t dtype, size_t ndim,
                                      const int64_t *shape,
                                      const int64_t *strides,
                                      diopiTensorHandle_t *out_tensor);
/* A contiguous tensor whose memory comes from `device`'s caching allocator
 * for use on `stream` (NULL device: host malloc). Destroying it frees the
 * memory in the order of that stream. */
BP_API bp_status_t bp_ops_tensor_create(bp_device_t *device,
                                        bp_stream_t *stream, diopiDtype_t dtype,
                                        size_t ndim, const int64_t *shape,
                                        diopiTensorHandle_t *out_tensor);
/* NULL is a no-op. */
BP_API void bp_ops_tensor_destroy(diopiTensorHandle_t tensor);
/* The device the tensor's memory belongs to (NULL: host). */
BP_API bp_device_t *bp_ops_tensor_bp_device(diopiConstTensorHandle_t tensor);

/* DLPack at the edge. Import wraps `dl` (which must outlive the handle;
 * byte_offset honoured, NULL strides contiguous); its device is kDLCPU (host)
 * or a device of `runtime` (bp_device_to_dl). Export fills `*out_dl` as a
 * view whose shape and strides point into the tensor (valid while it lives).
 * Dtypes without a DLPack match are BP_ERR_UNSUPPORTED. */
BP_API bp_status_t bp_ops_tensor_from_dlpack(bp_runtime_t *runtime,
                                             const DLTensor *dl,
                                             diopiTensorHandle_t *out_tensor);
BP_API bp_status_t bp_ops_tensor_to_dlpack(diopiConstTensorHandle_t tensor,
                                           DLTensor *out_dl);

/* ---- Generators ---------------------------------------------------------- */

/* A Philox-style counter generator: (seed, offset). Ops that draw n random
 * numbers advance the offset by n. Not thread-safe. */
BP_API bp_status_t bp_ops_generator_create(uint64_t seed,
                                           diopiGeneratorHandle_t *out);
BP_API void bp_ops_generator_destroy(diopiGeneratorHandle_t generator);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_OPS_H_ */
