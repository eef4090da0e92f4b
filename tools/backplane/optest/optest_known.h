/* A case set's known failures: the file KNOWN_FAILURES.txt beside its case
 * files, one case a line, its exact name, white space, then why it fails
 * (the defect, and where it is tracked); '#' starts a comment line. optest
 * reports a listed case that fails as XFAIL and one that passes as XPASS
 * (an unexpected pass: the entry is stale and the run fails), so a known
 * defect is never silently skipped. */
#ifndef BACKPLANE_TOOLS_OPTEST_KNOWN_H_
#define BACKPLANE_TOOLS_OPTEST_KNOWN_H_

#include <stddef.h>

#define OPTEST_KNOWN_FAILURES_FILE "KNOWN_FAILURES.txt"

typedef struct optest_known_entry {
  char *name, *reason; /* owned */
} optest_known_entry_t;

typedef struct optest_known {
  size_t count;
  optest_known_entry_t *entries; /* sorted by name */
} optest_known_t;

/* Reads dir/KNOWN_FAILURES.txt into *out (empty when the file does not
 * exist). Returns 0, or -1 with a message naming the file and line on
 * stderr (a line with a name but no reason, a name listed twice). */
int optest_known_load(const char *dir, optest_known_t *out);
void optest_known_release(optest_known_t *known);

/* Why case `name` is known to fail, or NULL when it is not listed. */
const char *optest_known_reason(const optest_known_t *known, const char *name);

#endif /* BACKPLANE_TOOLS_OPTEST_KNOWN_H_ */
