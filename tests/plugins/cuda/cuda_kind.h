/* The cuda target kind without a GPU: registered from the plugin's
 * extension chain as the runtime does when it loads the plugin (which,
 * without a GPU, it rejects). cmocka group setup and teardown. */
#ifndef BACKPLANE_TESTS_CUDA_KIND_H_
#define BACKPLANE_TESTS_CUDA_KIND_H_

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backplane/target.h"
#include "backplane/target_ext.h"

static void *g_cuda_kind_library;

static inline int cuda_kind_register(void **state) {
  (void)state;
  g_cuda_kind_library = dlopen(CUDA_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!g_cuda_kind_library)
    fail_msg("dlopen %s: %s", CUDA_PLUGIN_PATH, dlerror());
  BP_PluginExtensionsFn extensions = (BP_PluginExtensionsFn)dlsym(
      g_cuda_kind_library, BP_PLUGIN_EXTENSIONS_SYMBOL);
  assert_non_null(extensions);
  const BP_ExtensionBase *e = extensions();
  while (e && e->type != BP_EXTENSION_TARGET_KIND)
    e = e->next;
  assert_non_null(e);
  assert_int_equal(bp_target_kind_register((const BP_TargetKindExtension *)e),
                   BP_OK);
  return 0;
}

static inline int cuda_kind_unregister(void **state) {
  (void)state;
  assert_int_equal(bp_target_kind_unregister("cuda"), BP_OK);
  dlclose(g_cuda_kind_library);
  return 0;
}

#endif /* BACKPLANE_TESTS_CUDA_KIND_H_ */
