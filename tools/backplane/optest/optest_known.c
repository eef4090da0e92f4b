/* Reading a case set's known-failures list. */
#include "optest_known.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b) {
  return strcmp(((const optest_known_entry_t *)a)->name,
                ((const optest_known_entry_t *)b)->name);
}

/* Splits `line` (its newline removed) into name and reason in place.
 * Returns 1 for an entry, 0 for a blank or comment line, -1 for a name
 * with no reason. */
static int split_line(char *line, char **name, char **reason) {
  line[strcspn(line, "\r\n")] = '\0';
  while (isspace((unsigned char)*line))
    line++;
  if (!*line || *line == '#')
    return 0;
  *name = line;
  while (*line && !isspace((unsigned char)*line))
    line++;
  if (*line)
    *line++ = '\0';
  while (isspace((unsigned char)*line))
    line++;
  *reason = line;
  return *line ? 1 : -1;
}

int optest_known_load(const char *dir, optest_known_t *out) {
  memset(out, 0, sizeof *out);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, OPTEST_KNOWN_FAILURES_FILE);
  FILE *f = fopen(path, "r");
  if (!f && errno == ENOENT)
    return 0;
  if (!f) {
    fprintf(stderr, "backplane optest: cannot read %s: %s\n", path,
            strerror(errno));
    return -1;
  }
  char line[4096];
  size_t capacity = 0, number = 0;
  int failed = 0;
  while (!failed && fgets(line, sizeof line, f)) {
    number++;
    char *name, *reason;
    int kind = split_line(line, &name, &reason);
    if (kind < 0) {
      fprintf(stderr, "backplane optest: %s:%zu: '%s' has no reason\n", path,
              number, name);
      failed = 1;
    }
    if (kind <= 0)
      continue;
    if (out->count == capacity) {
      capacity = capacity ? 2 * capacity : 32;
      optest_known_entry_t *grown =
          realloc(out->entries, capacity * sizeof *grown);
      if (!grown) {
        failed = 1;
        break;
      }
      out->entries = grown;
    }
    optest_known_entry_t *e = &out->entries[out->count++];
    e->name = strdup(name);
    e->reason = strdup(reason);
    failed = !e->name || !e->reason;
  }
  fclose(f);
  if (!failed && out->count)
    qsort(out->entries, out->count, sizeof *out->entries, by_name);
  for (size_t i = 1; !failed && i < out->count; i++)
    if (!strcmp(out->entries[i - 1].name, out->entries[i].name)) {
      fprintf(stderr, "backplane optest: %s lists %s twice\n", path,
              out->entries[i].name);
      failed = 1;
    }
  if (failed)
    optest_known_release(out);
  return failed ? -1 : 0;
}

void optest_known_release(optest_known_t *known) {
  for (size_t i = 0; i < known->count; i++) {
    free(known->entries[i].name);
    free(known->entries[i].reason);
  }
  free(known->entries);
  memset(known, 0, sizeof *known);
}

const char *optest_known_reason(const optest_known_t *known, const char *name) {
  if (!known->count)
    return NULL;
  optest_known_entry_t key = {.name = (char *)name};
  const optest_known_entry_t *e = bsearch(&key, known->entries, known->count,
                                          sizeof *known->entries, by_name);
  return e ? e->reason : NULL;
}
