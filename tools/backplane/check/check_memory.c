/* Out-of-memory behaviour: an allocation larger than the device is
 * BP_ERR_OUT_OF_MEMORY with a message; filling the device chunk by chunk
 * ends in BP_ERR_OUT_OF_MEMORY (not in more memory than the device has), and
 * freed memory can be allocated again. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "check_report.h"
#include "cli/cli_format.h"

enum { MIB = 1 << 20 };

static void check_beyond_capacity(check_ctx_t *ctx, bp_device_t *device,
                                  size_t total) {
  const char *name = "memory.beyond_capacity";
  size_t beyond = total + (total / 4 > MIB ? total / 4 : MIB);
  char total_text[32], beyond_text[32];
  cli_format_bytes(total, total_text, sizeof(total_text));
  cli_format_bytes(beyond, beyond_text, sizeof(beyond_text));
  void *ptr = NULL;
  bp_status_t status = bp_device_malloc(device, beyond, &ptr);
  if (status == BP_OK) {
    bp_device_free(device, ptr);
    check_fail(ctx, name, "allocating %s on a device of %s succeeded",
               beyond_text, total_text);
  } else if (status != BP_ERR_OUT_OF_MEMORY) {
    check_fail(ctx, name,
               "allocating %s on a device of %s gives %s (%s); "
               "expected BP_ERR_OUT_OF_MEMORY",
               beyond_text, total_text, bp_status_name(status),
               bp_last_error());
  } else if (bp_last_error()[0] == '\0') {
    check_fail(ctx, name, "BP_ERR_OUT_OF_MEMORY came without a message");
  } else {
    check_pass(ctx, name, "%s on a device of %s: BP_ERR_OUT_OF_MEMORY (%s)",
               beyond_text, total_text, bp_last_error());
  }
}

/* Allocates chunks until the device is full, frees one, allocates it again,
 * frees everything and allocates once more. */
static void check_fill_and_reuse(check_ctx_t *ctx, bp_device_t *device,
                                 size_t total) {
  const char *name = "memory.fill_and_reuse";
  size_t chunk = total / 8 / MIB * MIB;
  if (chunk < MIB)
    chunk = MIB;
  size_t limit = total / chunk + 2, count = 0;
  void **chunks = calloc(limit, sizeof(void *));
  if (!chunks) {
    check_fail(ctx, name, "out of host memory");
    return;
  }
  bp_status_t status = BP_OK;
  while (count < limit &&
         (status = bp_device_malloc(device, chunk, &chunks[count])) == BP_OK)
    count++;
  char chunk_text[32], total_text[32];
  cli_format_bytes(chunk, chunk_text, sizeof(chunk_text));
  cli_format_bytes(total, total_text, sizeof(total_text));
  bp_status_t again = BP_ERR_INTERNAL, after_all = BP_ERR_INTERNAL;
  if (status == BP_ERR_OUT_OF_MEMORY && count > 0) {
    bp_device_free(device, chunks[--count]);
    again = bp_device_malloc(device, chunk, &chunks[count]);
    if (again == BP_OK)
      count++;
  }
  for (size_t i = 0; i < count; i++)
    bp_device_free(device, chunks[i]);
  void *ptr = NULL;
  if (again == BP_OK &&
      (after_all = bp_device_malloc(device, chunk, &ptr)) == BP_OK)
    bp_device_free(device, ptr);
  if (status == BP_OK)
    check_fail(ctx, name,
               "allocated %zu x %s on a device of %s without "
               "running out",
               count, chunk_text, total_text);
  else if (status != BP_ERR_OUT_OF_MEMORY)
    check_fail(ctx, name,
               "allocation %zu of %s gives %s (%s); expected "
               "BP_ERR_OUT_OF_MEMORY",
               count + 1, chunk_text, bp_status_name(status), bp_last_error());
  else if (count == 0)
    check_fail(ctx, name, "not even one %s chunk fits on a device of %s",
               chunk_text, total_text);
  else if (again != BP_OK)
    check_fail(ctx, name,
               "after freeing one chunk of a full device, "
               "allocating it again gives %s",
               bp_status_name(again));
  else if (after_all != BP_OK)
    check_fail(ctx, name, "after freeing everything, allocating %s gives %s",
               chunk_text, bp_status_name(after_all));
  else
    check_pass(ctx, name,
               "full after %zu x %s of %s; freed memory is usable "
               "again",
               count, chunk_text, total_text);
  free(chunks);
}

void check_out_of_memory(check_ctx_t *ctx) {
  bp_device_t *device = ctx->devices[0];
  size_t total = 0, free_bytes = 0;
  bp_status_t status = bp_device_memory_info(device, &total, &free_bytes);
  if (status != BP_OK || total == 0 || total > SIZE_MAX / 2) {
    const char *why =
        status == BP_OK ? "an unusable total" : bp_status_name(status);
    check_skip(ctx, "memory.beyond_capacity",
               "the device does not report its capacity (%s)", why);
    check_skip(ctx, "memory.fill_and_reuse",
               "the device does not report its capacity (%s)", why);
    return;
  }
  check_beyond_capacity(ctx, device, total);
  check_fill_and_reuse(ctx, device, total);
}
