#include "comm/id.h"

#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static const char COMM_ID_MAGIC[8] = {'b', 'p', 'v', 'c', 'p', 'u', 'i', '1'};

static bool random_u64(uint64_t *out) {
  uint64_t value = 0;
  while (value == 0) { /* zero is never a valid secret or token */
    if (getrandom(&value, sizeof value, 0) != (ssize_t)sizeof value)
      return false;
  }
  *out = value;
  return true;
}

bool comm_unique_id_generate(comm_unique_id *out_id) {
  comm_unique_id id;
  memset(&id, 0, sizeof id);
  memcpy(id.magic, COMM_ID_MAGIC, sizeof id.magic);
  if (!random_u64(&id.secret) || !random_u64(&id.world_token))
    return false;
  id.pid = (int32_t)getpid();
  gethostname(id.host, sizeof id.host - 1);
  *out_id = id;
  return true;
}

bool comm_unique_id_parse(const C_CCLRootId *root, comm_unique_id *out_id) {
  if (root == NULL || root->data == NULL || root->sz != COMM_UNIQUE_ID_BYTES)
    return false;
  comm_unique_id id;
  memcpy(&id, root->data, sizeof id);
  if (memcmp(id.magic, COMM_ID_MAGIC, sizeof id.magic) != 0)
    return false;
  id.host[sizeof id.host - 1] = '\0';
  *out_id = id;
  return true;
}
