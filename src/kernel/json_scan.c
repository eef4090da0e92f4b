/* The JSON pull scanner (kernel/json_scan.h). */
#include "kernel/json_scan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bp_json_scan_init(bp_json_scan_t *scan, const char *text, size_t size) {
  *scan = (bp_json_scan_t){.begin = text, .at = text, .end = text + size};
}

void bp_json_scan_free(bp_json_scan_t *scan) {
  free(scan->scratch);
  scan->scratch = NULL;
  scan->scratch_capacity = 0;
}

bool bp_json_scan_fail(bp_json_scan_t *scan, const char *what) {
  if (scan->failed)
    return false;
  scan->failed = true;
  int line = 1, column = 1;
  for (const char *p = scan->begin; p < scan->at && p < scan->end; ++p) {
    if (*p == '\n')
      line++, column = 1;
    else
      column++;
  }
  snprintf(scan->error, sizeof scan->error, "line %d, column %d: %s", line,
           column, what);
  return false;
}

static void skip_space(bp_json_scan_t *scan) {
  while (scan->at < scan->end && (*scan->at == ' ' || *scan->at == '\t' ||
                                  *scan->at == '\n' || *scan->at == '\r'))
    scan->at++;
}

char bp_json_scan_peek(bp_json_scan_t *scan) {
  if (scan->failed)
    return '\0';
  skip_space(scan);
  return scan->at < scan->end ? *scan->at : '\0';
}

const char *bp_json_scan_position(bp_json_scan_t *scan) {
  skip_space(scan);
  return scan->at;
}

bool bp_json_scan_expect(bp_json_scan_t *scan, char c) {
  if (bp_json_scan_peek(scan) != c) {
    char what[32];
    snprintf(what, sizeof what, "'%c' expected", c);
    return bp_json_scan_fail(scan,
                             scan->at < scan->end ? what : "unexpected end");
  }
  scan->at++;
  return true;
}

int bp_json_scan_next(bp_json_scan_t *scan, char close, bool *first) {
  char c = bp_json_scan_peek(scan);
  if (c == close) {
    scan->at++;
    return 0;
  }
  if (!*first && !bp_json_scan_expect(scan, ','))
    return -1;
  *first = false;
  c = bp_json_scan_peek(scan);
  if (c == close) /* a trailing comma */
    bp_json_scan_fail(scan, "value expected");
  else if (c == '\0')
    bp_json_scan_fail(scan, "unexpected end");
  return scan->failed ? -1 : 1;
}

/* Appends `count` bytes to the scratch buffer at *n (keeping room for a
 * NUL). */
static bool append(bp_json_scan_t *scan, size_t *n, const char *bytes,
                   size_t count) {
  if (*n + count >= scan->scratch_capacity) {
    size_t capacity = scan->scratch_capacity ? scan->scratch_capacity : 64;
    while (*n + count >= capacity)
      capacity *= 2;
    char *grown = realloc(scan->scratch, capacity);
    if (!grown)
      return bp_json_scan_fail(scan, "out of memory");
    scan->scratch = grown;
    scan->scratch_capacity = capacity;
  }
  memcpy(scan->scratch + *n, bytes, count);
  *n += count;
  return true;
}

static bool put(bp_json_scan_t *scan, size_t *n, char b) {
  return append(scan, n, &b, 1);
}

static bool put_code_point(bp_json_scan_t *scan, size_t *n, uint32_t cp) {
  if (cp < 0x80)
    return put(scan, n, (char)cp);
  if (cp < 0x800)
    return put(scan, n, (char)(0xc0 | (cp >> 6))) &&
           put(scan, n, (char)(0x80 | (cp & 0x3f)));
  if (cp < 0x10000)
    return put(scan, n, (char)(0xe0 | (cp >> 12))) &&
           put(scan, n, (char)(0x80 | ((cp >> 6) & 0x3f))) &&
           put(scan, n, (char)(0x80 | (cp & 0x3f)));
  return put(scan, n, (char)(0xf0 | (cp >> 18))) &&
         put(scan, n, (char)(0x80 | ((cp >> 12) & 0x3f))) &&
         put(scan, n, (char)(0x80 | ((cp >> 6) & 0x3f))) &&
         put(scan, n, (char)(0x80 | (cp & 0x3f)));
}

/* Four hex digits after "\u". */
static bool hex4(bp_json_scan_t *scan, uint32_t *out) {
  if (scan->end - scan->at < 4)
    return bp_json_scan_fail(scan, "invalid \\u escape");
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = *scan->at++;
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (uint32_t)(c - 'A' + 10);
    else
      return bp_json_scan_fail(scan, "invalid \\u escape");
  }
  *out = v;
  return true;
}

/* The escape after a backslash. */
static bool escape(bp_json_scan_t *scan, size_t *n) {
  if (scan->at >= scan->end)
    return bp_json_scan_fail(scan, "unexpected end");
  char c = *scan->at++;
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  const char *known = c ? strchr(from, c) : NULL;
  if (known)
    return put(scan, n, to[known - from]);
  uint32_t cp, low;
  if (c != 'u' || !hex4(scan, &cp))
    return bp_json_scan_fail(scan, "invalid escape");
  if (cp >= 0xdc00 && cp <= 0xdfff)
    return bp_json_scan_fail(scan, "invalid \\u escape (lone surrogate)");
  if (cp >= 0xd800 && cp <= 0xdbff) {
    if (scan->end - scan->at < 2 || scan->at[0] != '\\' || scan->at[1] != 'u')
      return bp_json_scan_fail(scan, "invalid \\u escape (lone surrogate)");
    scan->at += 2;
    if (!hex4(scan, &low) || low < 0xdc00 || low > 0xdfff)
      return bp_json_scan_fail(scan, "invalid \\u escape (lone surrogate)");
    cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
  }
  if (cp == 0)
    return bp_json_scan_fail(scan, "\\u0000 is not allowed");
  return put_code_point(scan, n, cp);
}

/* One UTF-8 sequence starting with byte `lead` (>= 0x80), copied. */
static bool utf8(bp_json_scan_t *scan, size_t *n, unsigned char lead) {
  int extra;
  uint32_t cp, min;
  if (lead >= 0xc2 && lead <= 0xdf)
    extra = 1, cp = lead & 0x1fu, min = 0x80;
  else if (lead >= 0xe0 && lead <= 0xef)
    extra = 2, cp = lead & 0x0fu, min = 0x800;
  else if (lead >= 0xf0 && lead <= 0xf4)
    extra = 3, cp = lead & 0x07u, min = 0x10000;
  else
    return bp_json_scan_fail(scan, "invalid UTF-8");
  if (scan->end - scan->at < extra)
    return bp_json_scan_fail(scan, "invalid UTF-8");
  for (int i = 0; i < extra; ++i) {
    unsigned char c = (unsigned char)scan->at[i];
    if ((c & 0xc0) != 0x80)
      return bp_json_scan_fail(scan, "invalid UTF-8");
    cp = (cp << 6) | (c & 0x3fu);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return bp_json_scan_fail(scan, "invalid UTF-8");
  if (!put(scan, n, (char)lead))
    return false;
  for (int i = 0; i < extra; ++i)
    if (!put(scan, n, *scan->at++))
      return false;
  return true;
}

bool bp_json_scan_string(bp_json_scan_t *scan, const char **out,
                         size_t *length) {
  if (!bp_json_scan_expect(scan, '"'))
    return false;
  size_t n = 0;
  for (;;) {
    /* A run of plain ASCII goes in at once. */
    const char *run = scan->at;
    while (scan->at < scan->end && (unsigned char)*scan->at >= 0x20 &&
           (unsigned char)*scan->at < 0x80 && *scan->at != '"' &&
           *scan->at != '\\')
      scan->at++;
    if (scan->at > run && !append(scan, &n, run, (size_t)(scan->at - run)))
      return false;
    if (scan->at >= scan->end)
      return bp_json_scan_fail(scan, "unterminated string");
    unsigned char c = (unsigned char)*scan->at;
    if (c == '"')
      break;
    scan->at++;
    bool ok = c == '\\'  ? escape(scan, &n)
              : c < 0x20 ? bp_json_scan_fail(scan, "control character in a "
                                                   "string")
              : c < 0x80 ? put(scan, &n, (char)c)
                         : utf8(scan, &n, c);
    if (!ok)
      return false;
  }
  scan->at++;
  if (!put(scan, &n, '\0'))
    return false;
  *out = scan->scratch;
  *length = n - 1;
  return true;
}

static bool digits(bp_json_scan_t *scan) {
  const char *start = scan->at;
  while (scan->at < scan->end && *scan->at >= '0' && *scan->at <= '9')
    scan->at++;
  return scan->at > start || bp_json_scan_fail(scan, "invalid number");
}

static bool number(bp_json_scan_t *scan) {
  if (*scan->at == '-')
    scan->at++;
  if (scan->at < scan->end && *scan->at == '0')
    scan->at++;
  else if (!digits(scan))
    return false;
  if (scan->at < scan->end && *scan->at == '.') {
    scan->at++;
    if (!digits(scan))
      return false;
  }
  if (scan->at < scan->end && (*scan->at == 'e' || *scan->at == 'E')) {
    scan->at++;
    if (scan->at < scan->end && (*scan->at == '+' || *scan->at == '-'))
      scan->at++;
    if (!digits(scan))
      return false;
  }
  return true;
}

static bool literal(bp_json_scan_t *scan, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(scan->end - scan->at) < n || memcmp(scan->at, word, n) != 0)
    return bp_json_scan_fail(scan, "invalid token");
  scan->at += n;
  return true;
}

static bool container(bp_json_scan_t *scan, char close) {
  scan->at++;
  if (scan->depth++ == BP_JSON_SCAN_MAX_DEPTH)
    return bp_json_scan_fail(scan, "nested too deep");
  bool first = true;
  int more;
  while ((more = bp_json_scan_next(scan, close, &first)) == 1) {
    const char *key;
    size_t length;
    if (close == '}' && (!bp_json_scan_string(scan, &key, &length) ||
                         !bp_json_scan_expect(scan, ':')))
      return false;
    if (!bp_json_scan_skip(scan))
      return false;
  }
  scan->depth--;
  return more == 0;
}

bool bp_json_scan_skip(bp_json_scan_t *scan) {
  const char *key;
  size_t length;
  switch (bp_json_scan_peek(scan)) {
  case '{':
    return container(scan, '}');
  case '[':
    return container(scan, ']');
  case '"':
    return bp_json_scan_string(scan, &key, &length);
  case 't':
    return literal(scan, "true");
  case 'f':
    return literal(scan, "false");
  case 'n':
    return literal(scan, "null");
  case '\0':
    return bp_json_scan_fail(scan, scan->failed ? "" : "unexpected end");
  default:
    if (*scan->at == '-' || (*scan->at >= '0' && *scan->at <= '9'))
      return number(scan);
    return bp_json_scan_fail(scan, "invalid token");
  }
}

bool bp_json_scan_finish(bp_json_scan_t *scan) {
  return bp_json_scan_peek(scan) == '\0' && !scan->failed &&
                 scan->at == scan->end
             ? true
             : bp_json_scan_fail(scan, "end of file expected");
}
