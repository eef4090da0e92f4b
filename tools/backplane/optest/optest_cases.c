/* Reading the case files. */
#include "optest_cases.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct reader {
  const unsigned char *p, *end;
  int bad;
  char why[160]; /* what was refused; empty for a cut or garbled file */
  /* The file's cases up to the current one (its tensors not yet read are
   * zeroed): what a data field stored as a reference may name. */
  const optest_case_t *earlier;
  size_t earlier_count;
} reader_t;

/* Marks the file refused for the reason given (the first one kept). */
static void refuse(reader_t *r, const char *format, ...) {
  if (!r->bad) {
    va_list args;
    va_start(args, format);
    vsnprintf(r->why, sizeof r->why, format, args);
    va_end(args);
  }
  r->bad = 1;
}

static int take(reader_t *r, void *out, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) {
    r->bad = 1;
    memset(out, 0, n);
    return -1;
  }
  memcpy(out, r->p, n);
  r->p += n;
  return 0;
}

static char *take_string(reader_t *r) {
  uint16_t len = 0;
  take(r, &len, sizeof len);
  char *s = calloc(1, (size_t)len + 1);
  if (!s || take(r, s, len))
    r->bad = 1;
  return s;
}

static unsigned char *take_bytes(reader_t *r, size_t *out_len) {
  uint64_t len = 0;
  take(r, &len, sizeof len);
  if (r->bad || len > (uint64_t)(r->end - r->p)) {
    r->bad = 1;
    *out_len = 0;
    return NULL;
  }
  unsigned char *b = malloc(len ? len : 1);
  if (!b || take(r, b, len))
    r->bad = 1;
  *out_len = len;
  return b;
}

/* The extent in elements of a strided view: 0 when it is empty. */
static size_t extent(const optest_tensor_t *t) {
  int64_t last = t->offset;
  for (int i = 0; i < t->ndim; i++) {
    if (t->shape[i] == 0)
      return 0;
    last += (t->shape[i] - 1) * t->stride[i];
  }
  return (size_t)last + 1;
}

/* A seeded tensor's storage field holds its seed: kept, and the storage
 * is made when the case is staged. */
static void take_seed(reader_t *r, optest_tensor_t *t) {
  optest_seed_t *s = &t->seed;
  const unsigned char *p = t->storage;
  if (t->storage_bytes != 28) {
    r->bad = 1;
    return;
  }
  memcpy(&s->seed, p, 8);
  memcpy(&s->gen, p + 8, 4);
  memcpy(&s->low, p + 12, 4);
  memcpy(&s->high, p + 16, 4);
  memcpy(&s->value, p + 20, 8);
  free(t->storage);
  t->storage = NULL;
  t->storage_bytes = extent(t) * bp_ops_dtype_size(t->dtype);
}

/* A sampled output's expected field begins with its sample header. */
static void take_sample(reader_t *r, optest_tensor_t *t) {
  optest_sample_t *s = &t->sample;
  size_t elem = bp_ops_dtype_size(t->dtype);
  if (t->kind == OPTEST_INPUT || t->expected_bytes < 32) {
    r->bad = 1;
    return;
  }
  memcpy(&s->seed, t->expected, 8);
  memcpy(&s->count, t->expected + 8, 8);
  memcpy(&s->sum, t->expected + 16, 8);
  memcpy(&s->abs_sum, t->expected + 24, 8);
  t->expected_bytes -= 32;
  if (t->expected_bytes != s->count * elem) {
    r->bad = 1;
    return;
  }
  memmove(t->expected, t->expected + 32, t->expected_bytes);
}

/* A data field stored as a reference (u32 case, u16 tensor, u16 field: 0
 * the storage, 1 the expected values, of a case of the file: an earlier
 * one, or a field read before in the current one): replaced by a copy of
 * the bytes it names. */
static void take_reference(reader_t *r, unsigned char **data, size_t *bytes) {
  uint32_t which_case;
  uint16_t which_tensor, field;
  if (*bytes != 8) {
    refuse(r, "a data reference of %zu bytes, expected 8", *bytes);
    return;
  }
  memcpy(&which_case, *data, 4);
  memcpy(&which_tensor, *data + 4, 2);
  memcpy(&field, *data + 6, 2);
  const optest_case_t *c =
      which_case < r->earlier_count ? &r->earlier[which_case] : NULL;
  const optest_tensor_t *t =
      c && which_tensor < c->tensor_count ? &c->tensors[which_tensor] : NULL;
  const unsigned char *from = !t           ? NULL
                              : field == 0 ? t->storage
                              : field == 1 ? t->expected
                                           : NULL;
  size_t size = !from ? 0 : field == 0 ? t->storage_bytes : t->expected_bytes;
  if (!from || from == *data || (field == 1 && t->sampled)) {
    refuse(r,
           "a data reference to case %u tensor %u field %u, which holds "
           "no stored data",
           which_case, which_tensor, field);
    return;
  }
  unsigned char *copy = malloc(size ? size : 1);
  if (!copy) {
    refuse(r, "out of memory");
    return;
  }
  memcpy(copy, from, size);
  free(*data);
  *data = copy;
  *bytes = size;
}

static void read_tensor(reader_t *r, optest_tensor_t *t) {
  uint8_t head[3] = {0};
  t->role = take_string(r);
  take(r, head, sizeof head);
  t->kind = (optest_kind_t)(head[0] & 0x0f);
  t->seeded = (head[0] & 0x10) != 0;
  t->sampled = (head[0] & 0x20) != 0;
  bool storage_shared = (head[0] & 0x40) != 0;
  bool expected_shared = (head[0] & 0x80) != 0;
  t->dtype = (diopiDtype_t)head[1];
  t->ndim = head[2];
  if (t->ndim > BP_OPS_MAX_DIMS) {
    refuse(r, "tensor '%s' has %d dims, at most %d are read", t->role, t->ndim,
           BP_OPS_MAX_DIMS);
    return;
  }
  if ((t->seeded && storage_shared) || (t->sampled && expected_shared) ||
      (t->kind == OPTEST_INPUT && expected_shared)) {
    refuse(r, "tensor '%s' has kind byte 0x%02x, a contradiction", t->role,
           head[0]);
    return;
  }
  take(r, t->shape, sizeof(int64_t) * (size_t)t->ndim);
  take(r, t->stride, sizeof(int64_t) * (size_t)t->ndim);
  take(r, &t->offset, sizeof t->offset);
  t->storage = take_bytes(r, &t->storage_bytes);
  if (t->kind != OPTEST_INPUT)
    t->expected = take_bytes(r, &t->expected_bytes);
  if (!r->bad && storage_shared)
    take_reference(r, &t->storage, &t->storage_bytes);
  if (!r->bad && expected_shared)
    take_reference(r, &t->expected, &t->expected_bytes);
  if (!r->bad && t->seeded)
    take_seed(r, t);
  if (!r->bad && t->sampled)
    take_sample(r, t);
}

static void read_attr(reader_t *r, optest_attr_t *a) {
  uint8_t type = 0;
  a->name = take_string(r);
  take(r, &type, 1);
  a->type = (optest_attr_type_t)type;
  if (type == OPTEST_INT) {
    take(r, &a->i, sizeof a->i);
  } else if (type == OPTEST_FLOAT) {
    take(r, &a->f, sizeof a->f);
  } else if (type == OPTEST_LIST) {
    uint32_t n = 0;
    take(r, &n, sizeof n);
    if (n > OPTEST_MAX_LIST) {
      refuse(r, "attribute '%s' lists %u values, at most %d are read", a->name,
             n, OPTEST_MAX_LIST);
      return;
    }
    a->list = calloc(n + 1, sizeof *a->list);
    a->list_len = n;
    if (a->list)
      take(r, a->list, sizeof(int64_t) * n);
  } else if (type == OPTEST_STRING) {
    a->s = take_string(r);
  } else {
    r->bad = 1;
  }
}

static int read_case(reader_t *r, optest_case_t *c) {
  uint32_t count = 0;
  c->name = take_string(r);
  c->op = take_string(r);
  take(r, &c->atol, sizeof c->atol);
  take(r, &c->rtol, sizeof c->rtol);
  take(r, &c->flops, sizeof c->flops);
  take(r, &c->bytes, sizeof c->bytes);
  take(r, &count, sizeof count);
  if (count > OPTEST_MAX_TENSORS) {
    refuse(r, "%u tensors, at most %d are read", count, OPTEST_MAX_TENSORS);
    return -1;
  }
  c->tensors = calloc(count + 1, sizeof *c->tensors);
  if (!c->tensors)
    return -1;
  c->tensor_count = count;
  for (uint32_t i = 0; i < count && !r->bad; i++)
    read_tensor(r, &c->tensors[i]);
  take(r, &count, sizeof count);
  if (count > OPTEST_MAX_ATTRS) {
    refuse(r, "%u attributes, at most %d are read", count, OPTEST_MAX_ATTRS);
    return -1;
  }
  c->attrs = calloc(count + 1, sizeof *c->attrs);
  if (!c->attrs)
    return -1;
  c->attr_count = count;
  for (uint32_t i = 0; i < count && !r->bad; i++)
    read_attr(r, &c->attrs[i]);
  return r->bad ? -1 : 0;
}

/* The whole file, gunzipped when it is gzip data (zlib reads plain files
 * as they are). NULL on any error. */
static unsigned char *read_file(const char *path, size_t *out_size) {
  gzFile f = gzopen(path, "rb");
  if (!f)
    return NULL;
  size_t size = 0, capacity = 1 << 16;
  unsigned char *data = malloc(capacity);
  int got;
  while (data &&
         (got = gzread(f, data + size, (unsigned)(capacity - size))) > 0) {
    size += (size_t)got;
    if (size == capacity) {
      unsigned char *grown = realloc(data, capacity *= 2);
      if (!grown)
        free(data);
      data = grown;
    }
  }
  int error = 0;
  gzerror(f, &error);
  gzclose(f);
  if (error != Z_OK && error != Z_STREAM_END) {
    free(data);
    return NULL;
  }
  *out_size = size;
  return data;
}

static int load_file(const char *path, optest_suite_t *suite) {
  size_t size;
  unsigned char *data = read_file(path, &size);
  if (!data) {
    fprintf(stderr, "backplane optest: cannot read %s\n", path);
    return -1;
  }
  reader_t r = {.p = data, .end = data + size};
  char magic[8];
  uint32_t count = 0;
  take(&r, magic, sizeof magic);
  take(&r, &count, sizeof count);
  int failed = r.bad || memcmp(magic, "BPOPS001", 8) || count > 100000;
  optest_case_t *grown =
      failed ? NULL
             : realloc(suite->cases, (suite->count + count) * sizeof *grown);
  if (!grown)
    failed = 1;
  else
    suite->cases = grown;
  r.earlier = grown ? &suite->cases[suite->count] : NULL;
  for (uint32_t i = 0; i < count && !failed; i++) {
    optest_case_t *c = &suite->cases[suite->count];
    memset(c, 0, sizeof *c);
    suite->count++;
    r.earlier_count = i + 1;
    failed = read_case(&r, c) != 0;
  }
  free(data);
  const char *name = suite->count ? suite->cases[suite->count - 1].name : NULL;
  if (failed && r.why[0])
    fprintf(stderr, "backplane optest: %s: case %s: %s\n", path,
            name ? name : "?", r.why);
  else if (failed)
    fprintf(stderr, "backplane optest: %s is not a case file (or is cut)\n",
            path);
  return failed ? -1 : 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int optest_suite_load(const char *dir, optest_suite_t *out) {
  memset(out, 0, sizeof *out);
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "backplane optest: cannot open the case directory %s\n",
            dir);
    return -1;
  }
  char **names = NULL;
  size_t n = 0, capacity = 0;
  int failed = 0;
  struct dirent *e;
  while (!failed && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (!(len > 4 && !strcmp(e->d_name + len - 4, ".bin")) &&
        !(len > 7 && !strcmp(e->d_name + len - 7, ".bin.gz")))
      continue;
    if (n == capacity) {
      capacity = capacity ? 2 * capacity : 64;
      char **grown = realloc(names, capacity * sizeof *names);
      if (!grown) {
        failed = 1;
        break;
      }
      names = grown;
    }
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (failed)
    fprintf(stderr, "backplane optest: out of memory listing %s\n", dir);
  if (n)
    qsort(names, n, sizeof *names, by_name);
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (!failed && names[i] && load_file(path, out))
      failed = 1;
    free(names[i]);
  }
  free(names);
  if (failed)
    optest_suite_release(out);
  return failed ? -1 : 0;
}

void optest_suite_release(optest_suite_t *suite) {
  for (size_t i = 0; i < suite->count; i++) {
    optest_case_t *c = &suite->cases[i];
    for (size_t k = 0; c->tensors && k < c->tensor_count; k++) {
      free(c->tensors[k].role);
      free(c->tensors[k].storage);
      free(c->tensors[k].expected);
    }
    for (size_t k = 0; c->attrs && k < c->attr_count; k++) {
      free(c->attrs[k].name);
      free(c->attrs[k].list);
      free(c->attrs[k].s);
    }
    free(c->tensors);
    free(c->attrs);
    free(c->name);
    free(c->op);
  }
  free(suite->cases);
  memset(suite, 0, sizeof *suite);
}

const optest_tensor_t *optest_tensor(const optest_case_t *c, const char *name) {
  for (size_t i = 0; i < c->tensor_count; i++)
    if (!strcmp(c->tensors[i].role, name))
      return &c->tensors[i];
  return NULL;
}

const optest_attr_t *optest_attr(const optest_case_t *c, const char *name) {
  for (size_t i = 0; i < c->attr_count; i++)
    if (!strcmp(c->attrs[i].name, name))
      return &c->attrs[i];
  return NULL;
}
