/*
 * Targets: a description of a device (kind plus typed attributes) that code
 * generators and optimizers read instead of querying the device, as TVM's
 * Target. Built-in kinds: `vcpu` (the vcpu plugin's devices) and `c` (the
 * host, through its C compiler); vendors add kinds (target_ext.h, the vendor
 * face).
 *
 * Text forms, both accepted by bp_target_parse():
 *   JSON   {"kind": "vcpu", "num_cores": 2, "keys": ["cpu"], "host": "c"}
 *   short  vcpu -num_cores=2 -keys=cpu,simd -mcpu=native
 * Unknown kinds and attributes and wrongly typed values are errors naming
 * them; attributes not given take the kind's defaults. The canonical JSON
 * (bp_target_to_json) lists every present attribute, keys sorted; parsing it
 * gives an equal target.
 *
 * Kernel manifests choose among an op's kernel variants with target
 * predicates matched against a device's canonical target (kernel.h).
 *
 * A bp_target_t is immutable after creation and may be shared between
 * threads; destroy it once.
 */
#ifndef BACKPLANE_TARGET_H_
#define BACKPLANE_TARGET_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/device.h"
#include "backplane/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bp_target bp_target_t;

/* Parses JSON (text starting with '{') or the short form. Writes *out_target
 * only on success; BP_ERR_INVALID_ARGUMENT or BP_ERR_NOT_FOUND (unknown
 * kind) with a message naming the offending kind, attribute or value. */
BP_API bp_status_t bp_target_parse(const char *text, bp_target_t **out_target);

/* The canonical target of a live device: its plugin's kind (by device
 * type), defaults, then what the device reports (num_cores from the
 * multiprocessor count, max_num_threads, warp_size,
 * max_shared_memory_per_block, device from the device name), then the
 * kind's own from_device hook. BP_ERR_NOT_FOUND when no kind describes the
 * device's type. */
BP_API bp_status_t bp_target_from_device(bp_device_t *device,
                                         bp_target_t **out_target);

/* NULL is a no-op. */
BP_API void bp_target_destroy(bp_target_t *target);

/* Canonical JSON, compact, keys sorted, defaults filled. The string is the
 * caller's: release it with free(). */
BP_API bp_status_t bp_target_to_json(const bp_target_t *target,
                                     char **out_json);

/* The kind's name ("vcpu"). Valid as long as the target. */
BP_API const char *bp_target_kind(const bp_target_t *target);

/* The nested host target, or NULL if none. Owned by `target`. */
BP_API const bp_target_t *bp_target_host(const bp_target_t *target);

/* Typed attribute reads. BP_ERR_NOT_FOUND if the kind has no such attribute
 * or it is absent, BP_ERR_INVALID_ARGUMENT if it has another type. Strings
 * live as long as the target. */
BP_API bp_status_t bp_target_get_int(const bp_target_t *target,
                                     const char *name, int64_t *out_value);
BP_API bp_status_t bp_target_get_string(const bp_target_t *target,
                                        const char *name,
                                        const char **out_value);
/* A NULL-terminated array of strings (`keys`, `libs`, ...). */
BP_API bp_status_t bp_target_get_strings(const bp_target_t *target,
                                         const char *name,
                                         const char *const **out_values);

/* Nonzero when both targets have the same kind, attributes and host. */
BP_API int bp_target_equal(const bp_target_t *a, const bp_target_t *b);

/* A 64-bit hash of the canonical JSON: equal targets hash equally. */
BP_API uint64_t bp_target_hash(const bp_target_t *target);

/* The registered kind names, NULL-terminated, in registration order with the
 * built-ins first. The array is the caller's (free()); the strings are valid
 * until the kind is unregistered. */
BP_API bp_status_t bp_target_kind_list(const char ***out_names);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_TARGET_H_ */
