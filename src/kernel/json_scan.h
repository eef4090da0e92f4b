/* A pull scanner over JSON text (internal), for reading large manifests
 * without building a document: the reader walks objects and arrays itself,
 * decodes the strings it wants and skips the values it does not, each
 * checked as strictly as a full parser would (RFC 8259: UTF-8, escapes,
 * numbers, literals, nesting at most BP_JSON_SCAN_MAX_DEPTH deep; "\u0000"
 * is refused). Duplicate keys are the reader's to notice.
 *
 * The first error stops the scan: every later call fails, and `error` says
 * what was wrong, with its line and column. Not thread-safe (one reader). */
#ifndef BACKPLANE_KERNEL_JSON_SCAN_H_
#define BACKPLANE_KERNEL_JSON_SCAN_H_

#include <stdbool.h>
#include <stddef.h>

#define BP_JSON_SCAN_MAX_DEPTH 2048

typedef struct bp_json_scan {
  const char *begin, *at, *end;
  char *scratch; /* the last decoded string, NUL-terminated */
  size_t scratch_capacity;
  size_t depth;
  bool failed;
  char error[160]; /* "line L, column C: what" once failed */
} bp_json_scan_t;

/* Scans `size` bytes at `text` (need not be NUL-terminated; must outlive
 * the scan). */
void bp_json_scan_init(bp_json_scan_t *scan, const char *text, size_t size);

/* Frees the scratch buffer. */
void bp_json_scan_free(bp_json_scan_t *scan);

/* The next byte after white space, not consumed; '\0' at the end or after
 * an error. Its kind tells a value's type: '{', '[', '"', a digit or '-',
 * 't', 'f', 'n'. */
char bp_json_scan_peek(bp_json_scan_t *scan);

/* Consumes `c` after white space; false (an error) if something else is
 * there. */
bool bp_json_scan_expect(bp_json_scan_t *scan, char c);

/* Where the next value begins (after white space), to scan it again later
 * with bp_json_scan_init on [*out, end). */
const char *bp_json_scan_position(bp_json_scan_t *scan);

/* In an object or array whose opening byte was consumed: consumes the comma
 * before every element but the first (*first tracks that) and returns 1
 * when an element follows, 0 after consuming `close`, -1 on an error. */
int bp_json_scan_next(bp_json_scan_t *scan, char close, bool *first);

/* Decodes the string value at the cursor into the scratch buffer: *out is
 * valid until the next string is decoded, *length its bytes. */
bool bp_json_scan_string(bp_json_scan_t *scan, const char **out,
                         size_t *length);

/* Skips any one value, checking it. */
bool bp_json_scan_skip(bp_json_scan_t *scan);

/* Whether only white space is left. Sets an error otherwise. */
bool bp_json_scan_finish(bp_json_scan_t *scan);

/* Records `what` as the error at the cursor (unless one is recorded) and
 * returns false. */
bool bp_json_scan_fail(bp_json_scan_t *scan, const char *what);

#endif /* BACKPLANE_KERNEL_JSON_SCAN_H_ */
