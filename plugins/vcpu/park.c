/* Futex wrappers (Linux). */
#include "park.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void vcpu_futex_wait(atomic_uint *word, unsigned expected) {
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL,
          0);
}

void vcpu_futex_wake(atomic_uint *word, int count) {
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL,
          0);
}
