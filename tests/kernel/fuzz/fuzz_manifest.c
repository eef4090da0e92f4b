/* libFuzzer target: the op-info manifest parser on arbitrary bytes. Every
 * input must either parse into ops with non-empty fields that stay inside
 * the manifest's folder, or fail with a message naming the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/status.h"
#include "kernel/manifest.h"

#define PATH "/fuzz/folder/ops.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bp_manifest_t *manifest = NULL;
  bp_status_t status =
      bp_manifest_parse((const char *)data, size, PATH, false, &manifest);
  if (status != BP_OK) {
    if (manifest || !strstr(bp_last_error(), PATH))
      abort();
    return 0;
  }
  if (!manifest || manifest->count == 0)
    abort();
  for (size_t i = 0; i < manifest->count; ++i) {
    const bp_manifest_op_t *op = &manifest->ops[i];
    if (!op->op[0] || !op->function[0] ||
        strncmp(op->kernel_so, "/fuzz/folder/", 13) != 0 ||
        strstr(op->kernel_so, "/../"))
      abort();
  }
  bp_manifest_free(manifest);
  return 0;
}
