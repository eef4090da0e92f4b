/* The plugin's environment, read once per first `initialize`:
 *   BACKPLANE_VCPU_DEVICES    number of virtual devices, 1..64 (default 2)
 *   BACKPLANE_VCPU_MEMORY     bytes per device, optional K/M/G suffix (powers
 *                             of 1024), 1 MiB..1 TiB, rounded up to a page
 *                             (default 1 GiB)
 *   BACKPLANE_VCPU_JITTER_US  stream workers sleep a random 0..N µs before
 *                             each command, 0..1000000 (default 0 = off)
 * An invalid value falls back to its default with a one-line warning on
 * stderr. Thread-safe (reads the environment only).
 */
#ifndef BACKPLANE_VCPU_CONFIG_H_
#define BACKPLANE_VCPU_CONFIG_H_

#include <stddef.h>

#define VCPU_DEFAULT_DEVICES 2
#define VCPU_MAX_DEVICES 64
#define VCPU_DEFAULT_MEMORY ((size_t)1 << 30)
#define VCPU_MIN_MEMORY ((size_t)1 << 20)
#define VCPU_MAX_MEMORY ((size_t)1 << 40)
#define VCPU_MAX_JITTER_US 1000000u
#define VCPU_MAX_CORES 4096

typedef struct vcpu_config {
  int device_count;
  size_t memory_per_device;
  unsigned jitter_us;
  unsigned cores; /* 0: the host's online CPUs */
} vcpu_config;

vcpu_config vcpu_config_from_environment(void);

#endif /* BACKPLANE_VCPU_CONFIG_H_ */
