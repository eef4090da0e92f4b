/* The cuda plugin's exported face where no GPU is needed: it loads, fills
 * the host's table, exports its extension chain (with the cuda target kind
 * and NCCL's collectives), refuses bad arguments with a message naming the
 * function, and on a machine without a GPU is rejected by the runtime with
 * "no CUDA device: <CUDA's reason>". On a machine with one, the rejection
 * checks are skipped (the GPU tests cover that case). */
#include <dlfcn.h>
#include <stdio.h>

#include "backplane/comm_ext.h"
#include "backplane/device_layouts.h"
#include "backplane/kernel_ext.h"
#include "backplane/status.h"
#include "backplane/target_ext.h"
#include "support/runtime_fixture.h"

typedef struct plugin {
  void *library;
  C_DeviceInterface table;
  CustomRuntimeParams params;
  BP_PluginLastErrorFn last_error;
  const BP_ExtensionBase *extensions;
} plugin_t;

static int setup(void **state) {
  plugin_t *p = calloc(1, sizeof *p);
  assert_non_null(p);
  p->library = dlopen(CUDA_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!p->library)
    fail_msg("dlopen %s: %s", CUDA_PLUGIN_PATH, dlerror());
  void (*init)(CustomRuntimeParams *) =
      (void (*)(CustomRuntimeParams *))dlsym(p->library, "InitPlugin");
  BP_PluginExtensionsFn extensions =
      (BP_PluginExtensionsFn)dlsym(p->library, BP_PLUGIN_EXTENSIONS_SYMBOL);
  p->last_error =
      (BP_PluginLastErrorFn)dlsym(p->library, BP_PLUGIN_LAST_ERROR_SYMBOL);
  assert_non_null(init);
  assert_non_null(extensions);
  assert_non_null(p->last_error);
  p->table.size = sizeof p->table;
  p->params.size = sizeof p->params;
  p->params.interface = &p->table;
  init(&p->params);
  p->extensions = extensions();
  *state = p;
  return 0;
}

static int teardown(void **state) {
  plugin_t *p = *state;
  dlclose(p->library);
  free(p);
  return 0;
}

static const BP_ExtensionBase *find_extension(const plugin_t *p, int32_t type) {
  for (const BP_ExtensionBase *e = p->extensions; e; e = e->next)
    if (e->type == type)
      return e;
  return NULL;
}

static void init_plugin_fills_the_table(void **state) {
  plugin_t *p = *state;
  assert_string_equal(p->params.device_type, "cuda");
  assert_int_equal(p->params.version.major, 0);
  assert_int_equal(p->params.version.minor, 1);
  assert_int_equal(p->params.version.patch, 1);
  assert_non_null(p->table.initialize);
  assert_non_null(p->table.device_memory_allocate);
  assert_non_null(p->table.host_memory_allocate);
  assert_non_null(p->table.memory_copy_p2p);
  assert_non_null(p->table.async_memory_copy_p2p);
  assert_non_null(p->table.stream_add_callback);
  assert_non_null(p->table.xccl_all_reduce);
  assert_non_null(p->table.xccl_broadcast);
  assert_non_null(p->table.xccl_reduce);
  assert_non_null(p->table.xccl_all_gather);
  assert_non_null(p->table.xccl_reduce_scatter);
  assert_non_null(p->table.xccl_send);
  assert_non_null(p->table.xccl_recv);
  assert_non_null(p->table.xccl_group_start);
  assert_non_null(p->table.xccl_group_end);
}

static void extension_chain_has_every_extension(void **state) {
  plugin_t *p = *state;
  assert_non_null(find_extension(p, BP_EXTENSION_DEVICE_ATTRIBUTES));
  assert_non_null(find_extension(p, BP_EXTENSION_EVENT_TIMING));
  const BP_KernelExtension *kernels =
      (const BP_KernelExtension *)find_extension(p, BP_EXTENSION_KERNELS);
  assert_non_null(kernels);
  assert_int_equal(kernels->base.struct_size, sizeof *kernels);
  const BP_TargetKindExtension *kind =
      (const BP_TargetKindExtension *)find_extension(p,
                                                     BP_EXTENSION_TARGET_KIND);
  assert_non_null(kind);
  assert_string_equal(kind->name, "cuda");
  assert_string_equal(kind->device_type, "cuda");
  const BP_CommExtension *comm =
      (const BP_CommExtension *)find_extension(p, BP_EXTENSION_COMM);
  assert_non_null(comm);
  assert_non_null(strstr(comm->description, "NCCL"));
}

/* Before initialize there is no device: calls name the function and what
 * was wrong instead of touching CUDA. */
static void bad_arguments_are_refused_with_a_reason(void **state) {
  plugin_t *p = *state;
  assert_int_equal(p->table.get_device_count(NULL), C_ERROR);
  assert_non_null(strstr(p->last_error(), "get_device_count: count is NULL"));

  struct C_Device_st device = {0};
  void *ptr = NULL;
  assert_int_equal(p->table.device_memory_allocate(&device, NULL, 16), C_ERROR);
  assert_non_null(strstr(p->last_error(), "ptr is NULL"));
  assert_int_equal(p->table.device_memory_allocate(&device, &ptr, 0), C_ERROR);
  assert_non_null(strstr(p->last_error(), "size is 0"));
  assert_null(ptr);

  struct C_Device_st missing = {7};
  C_Stream stream = NULL;
  assert_int_equal(p->table.create_stream(&missing, &stream), C_ERROR);
  assert_non_null(strstr(p->last_error(), "device 7 is not one of the"));
  assert_null(stream);
  assert_int_equal(p->table.memory_copy_h2d(&missing, NULL, &ptr, 8), C_ERROR);
  assert_non_null(strstr(p->last_error(), "memory_copy_h2d: dst is NULL"));

  char small[16];
  C_CCLRootId id = {sizeof small, small};
  assert_int_equal(p->table.xccl_get_unique_id(&id), C_ERROR);
  assert_non_null(strstr(p->last_error(), "expected a buffer of 128 bytes"));
  size_t id_size = 0;
  assert_int_equal(p->table.xccl_get_unique_id_size(&id_size), C_SUCCESS);
  assert_int_equal(id_size, 128);
  C_CCLComm comm = NULL;
  char big[128] = {0};
  C_CCLRootId root = {sizeof big, big};
  assert_int_equal(p->table.xccl_comm_init_rank(2, &root, 2, &comm), C_ERROR);
  assert_non_null(strstr(p->last_error(), "rank 2 of 2"));
  assert_null(comm);
}

/* The kernels extension checks what it can before touching a device: a
 * host shared object is not a GPU module (BP_ERR_UNSUPPORTED), empty data is
 * an argument error, notifies are not supported yet. */
static void kernel_extension_refuses_what_it_cannot_run(void **state) {
  plugin_t *p = *state;
  const BP_KernelExtension *kernels =
      (const BP_KernelExtension *)find_extension(p, BP_EXTENSION_KERNELS);
  assert_non_null(kernels);
  struct C_Device_st device = {0};
  BP_KernelModule module = NULL;
  unsigned char host_elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  host_elf[18] = 62; /* EM_X86_64 */
  assert_int_equal(kernels->module_load_data(&device, host_elf, sizeof host_elf,
                                             BP_MODULE_KIND_SHARED_OBJECT,
                                             &module),
                   C_ERROR);
  assert_int_equal(kernels->last_status(), BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(kernels->last_error(),
                         "must be CUDA C, PTX, a cubin or a fatbin"));
  assert_null(module);

  assert_int_equal(kernels->module_load_data(&device, host_elf, 0,
                                             BP_MODULE_KIND_SHARED_OBJECT,
                                             &module),
                   C_ERROR);
  assert_int_equal(kernels->last_status(), 0);
  assert_non_null(strstr(kernels->last_error(), "data is NULL or empty"));
  assert_int_equal(kernels->module_load_file(&device, NULL, 0, &module),
                   C_ERROR);
  assert_non_null(strstr(kernels->last_error(), "path is NULL"));

  BP_Notify notify = NULL;
  assert_int_equal(kernels->notify_create(&device, &notify), C_ERROR);
  assert_int_equal(kernels->last_status(), BP_ERR_UNSUPPORTED);
  assert_null(notify);
}

/* Without a GPU, initialize says why in CUDA's words. */
static void initialize_without_a_gpu_names_the_reason(void **state) {
  plugin_t *p = *state;
  C_Status status = p->table.initialize();
  if (status == C_SUCCESS) {
    p->table.finalize();
    skip(); /* a GPU is here: test_cuda_device covers it */
  }
  assert_int_equal(status, C_FAILED);
  const char *reason = p->last_error();
  assert_int_equal(strncmp(reason, "no CUDA device: ", 16), 0);
  assert_true(strlen(reason) > 16); /* CUDA's own error string follows */
}

static void runtime_lists_the_plugin_as_rejected(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(CUDA_PLUGIN_PATH);
  const char *reason = fixture_rejection(runtime, CUDA_PLUGIN_PATH);
  if (!reason) {
    bp_runtime_destroy(runtime);
    skip(); /* a GPU is here */
  }
  assert_non_null(strstr(reason, "no CUDA device: "));
  assert_int_equal(bp_runtime_plugin_count(runtime), 0);
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(init_plugin_fills_the_table),
      cmocka_unit_test(extension_chain_has_every_extension),
      cmocka_unit_test(bad_arguments_are_refused_with_a_reason),
      cmocka_unit_test(kernel_extension_refuses_what_it_cannot_run),
      cmocka_unit_test(initialize_without_a_gpu_names_the_reason),
      cmocka_unit_test(runtime_lists_the_plugin_as_rejected),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
