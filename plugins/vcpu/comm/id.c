#include "comm/id.h"

#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static const char VCPU_COMM_ID_MAGIC[8] = {'b', 'p', 'v', 'c',
                                           'p', 'u', 'i', '1'};

static bool random_u64(uint64_t *out) {
  uint64_t value = 0;
  while (value == 0) { /* zero is never a valid secret or token */
    if (getrandom(&value, sizeof value, 0) != (ssize_t)sizeof value)
      return false;
  }
  *out = value;
  return true;
}

bool vcpu_comm_unique_id_generate(vcpu_comm_unique_id_t *out_id) {
  vcpu_comm_unique_id_t id;
  memset(&id, 0, sizeof id);
  memcpy(id.magic, VCPU_COMM_ID_MAGIC, sizeof id.magic);
  if (!random_u64(&id.secret) || !random_u64(&id.world_token))
    return false;
  id.pid = (int32_t)getpid();
  gethostname(id.host, sizeof id.host - 1);
  *out_id = id;
  return true;
}

bool vcpu_comm_unique_id_parse(const C_CCLRootId *root,
                               vcpu_comm_unique_id_t *out_id) {
  if (root == NULL || root->data == NULL ||
      root->sz != VCPU_COMM_UNIQUE_ID_BYTES)
    return false;
  vcpu_comm_unique_id_t id;
  memcpy(&id, root->data, sizeof id);
  if (memcmp(id.magic, VCPU_COMM_ID_MAGIC, sizeof id.magic) != 0)
    return false;
  id.host[sizeof id.host - 1] = '\0';
  *out_id = id;
  return true;
}
