/* The 128-byte unique id of a vcpu communicator world (NCCL's size): a random
 * 64-bit secret that every joining rank must present, plus the rendezvous
 * description (a random world token, the creating process and host). Pure
 * data; functions are thread-safe. */
#ifndef BACKPLANE_VCPU_COMM_ID_H_
#define BACKPLANE_VCPU_COMM_ID_H_

#include <stdbool.h>
#include <stdint.h>

#include "backplane/device_ext.h"

#define VCPU_COMM_UNIQUE_ID_BYTES 128

typedef struct vcpu_comm_unique_id {
  char magic[8];        /* VCPU_COMM_ID_MAGIC: rejects foreign bytes */
  uint64_t secret;      /* random; a rank presenting another one is refused */
  uint64_t world_token; /* random; names the rendezvous */
  int32_t pid;          /* the process that created the id */
  uint32_t reserved;    /* zero */
  char host[96];        /* NUL-terminated host name of that process */
} vcpu_comm_unique_id_t;

_Static_assert(sizeof(vcpu_comm_unique_id_t) == VCPU_COMM_UNIQUE_ID_BYTES,
               "the unique id is 128 bytes");

/* Fills a fresh id from the kernel's random source. false (errno set) if no
 * randomness could be read. */
bool vcpu_comm_unique_id_generate(vcpu_comm_unique_id_t *out_id);

/* Copies the id carried by `root` into *out_id. false if root is NULL, its
 * size is not VCPU_COMM_UNIQUE_ID_BYTES, its data is NULL or the magic is
 * wrong. */
bool vcpu_comm_unique_id_parse(const C_CCLRootId *root,
                               vcpu_comm_unique_id_t *out_id);

#endif /* BACKPLANE_VCPU_COMM_ID_H_ */
