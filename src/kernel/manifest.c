#include "kernel/manifest.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backplane/kernel.h"
#include "base/status.h"
#include "core/plugin_security.h"
#include "core/target_hooks.h"
#include "kernel/json_scan.h"

static const char *const known_libraries[] = {"AICPUKernel", "CUSTAICPUKernel"};

static void free_variant(bp_manifest_variant_t *variant) {
  free(variant->library);
  free(variant->kernel_so);
  free(variant->function);
  free(variant->target);
}

static void free_op(bp_manifest_op_t *op) {
  free(op->op);
  for (size_t i = 0; i < op->variant_count; ++i)
    free_variant(&op->variants[i]);
  free(op->variants);
}

void bp_manifest_free(bp_manifest_t *manifest) {
  if (!manifest)
    return;
  for (size_t i = 0; i < manifest->count; ++i)
    free_op(&manifest->ops[i]);
  free(manifest->ops);
  free(manifest);
}

/* Where in an op an entry is, for messages: "opInfo" or "variant <i>". */
static const char *where(int index, char *buffer, size_t capacity) {
  if (index < 0)
    return "opInfo";
  snprintf(buffer, capacity, "variant %d", index);
  return buffer;
}

/* "not JSON" with where and what the scanner found. */
static bp_status_t not_json(const char *path, const bp_json_scan_t *scan) {
  return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: not JSON (%s)", path,
                  scan->error);
}

/* A string field of opInfo or of a variant, as read. */
typedef struct raw_field {
  bool present;
  char *value; /* owned; NULL when present but not a string */
} raw_field_t;

/* opInfo or an entry of "variants", as read: its strings, and where its
 * "target" (variants only) lies in the text. */
typedef struct raw_entry {
  raw_field_t library, kernel_so, function;
  const char *target; /* NULL when absent */
  size_t target_size;
} raw_entry_t;

static void free_raw(raw_entry_t *raw) {
  free(raw->library.value);
  free(raw->kernel_so.value);
  free(raw->function.value);
}

static bool read_field(bp_json_scan_t *scan, raw_field_t *field) {
  if (field->present)
    return bp_json_scan_fail(scan, "duplicate object key");
  field->present = true;
  if (bp_json_scan_peek(scan) != '"')
    return bp_json_scan_skip(scan);
  const char *text;
  size_t length;
  if (!bp_json_scan_string(scan, &text, &length))
    return false;
  field->value = strdup(text);
  return field->value || bp_json_scan_fail(scan, "out of memory");
}

/* The object at the cursor into *raw; "target" is kept only when
 * `with_target`. False on a scan error. */
static bool read_entry(bp_json_scan_t *scan, bool with_target,
                       raw_entry_t *raw) {
  if (!bp_json_scan_expect(scan, '{'))
    return false;
  bool first = true, target_seen = false;
  int more;
  while ((more = bp_json_scan_next(scan, '}', &first)) == 1) {
    const char *key;
    size_t length;
    if (!bp_json_scan_string(scan, &key, &length) ||
        !bp_json_scan_expect(scan, ':'))
      return false;
    bool ok;
    if (strcmp(key, "opKernelLib") == 0) {
      ok = read_field(scan, &raw->library);
    } else if (strcmp(key, "kernelSo") == 0) {
      ok = read_field(scan, &raw->kernel_so);
    } else if (strcmp(key, "functionName") == 0) {
      ok = read_field(scan, &raw->function);
    } else if (with_target && strcmp(key, "target") == 0) {
      if (target_seen)
        return bp_json_scan_fail(scan, "duplicate object key");
      target_seen = true;
      raw->target = bp_json_scan_position(scan);
      ok = bp_json_scan_skip(scan);
      raw->target_size = (size_t)(scan->at - raw->target);
    } else {
      ok = bp_json_scan_skip(scan);
    }
    if (!ok)
      return false;
  }
  return more == 0;
}

/* A required or optional string field: non-empty. */
static bp_status_t check_field(const char *path, const char *op, int index,
                               const raw_field_t *field, const char *key,
                               bool optional) {
  char buffer[32];
  if (!field->present && optional)
    return BP_OK;
  if (!field->present)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: op \"%s\": %s has no \"%s\"",
                    path, op, where(index, buffer, sizeof buffer), key);
  if (!field->value || field->value[0] == '\0')
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %s: \"%s\" must be a non-empty string",
                    path, op, where(index, buffer, sizeof buffer), key);
  return BP_OK;
}

static bool climbs_out(const char *relative) {
  for (const char *p = relative; *p;) {
    const char *end = strchr(p, '/');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return true;
    p += n + (end ? 1 : 0);
  }
  return false;
}

/* folder of `path` (with its trailing '/') + `relative`, or `relative` when
 * absolute. */
static char *resolve(const char *path, const char *relative) {
  if (relative[0] == '/')
    return strdup(relative);
  const char *slash = strrchr(path, '/');
  size_t folder = slash ? (size_t)(slash - path) + 1 : 0;
  size_t n = strlen(relative);
  char *out = malloc(folder + n + 1);
  if (out) {
    memcpy(out, path, folder);
    memcpy(out + folder, relative, n + 1);
  }
  return out;
}

/* The predicate of a variant (the text of its "target" value): canonical
 * text and its number of clauses. */
static bp_status_t parse_target(const char *path, const char *op, int index,
                                const raw_entry_t *raw,
                                bp_manifest_variant_t *out) {
  char buffer[32], why[256] = "";
  json_error_t error;
  json_t *target =
      json_loadb(raw->target, raw->target_size, JSON_REJECT_DUPLICATES, &error);
  if (!target)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %s: \"target\": not JSON (%s)", path, op,
                    where(index, buffer, sizeof buffer), error.text);
  bp_status_t status = BP_OK;
  if (!json_is_object(target)) {
    status = bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: op \"%s\": %s: \"target\" must be an object", path,
                      op, where(index, buffer, sizeof buffer));
  } else {
    out->target = json_dumps(target, JSON_COMPACT | JSON_SORT_KEYS);
    out->clauses = json_object_size(target);
    if (!out->target)
      status = bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory",
                        path, op);
    else if (bp_target_hooks.check_predicate(out->target, why, sizeof why) !=
             BP_OK)
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "%s: op \"%s\": %s: target %s: %s", path, op,
                        where(index, buffer, sizeof buffer), out->target, why);
  }
  json_decref(target);
  return status;
}

/* Checks opInfo (index -1) or an entry of "variants" and moves it into
 * `out`; on error the caller frees what was filled. */
static bp_status_t check_variant(const char *path, const char *op, int index,
                                 raw_entry_t *raw, const char *default_library,
                                 bool allow_outside,
                                 bp_manifest_variant_t *out) {
  char buffer[32];
  out->index = index;
  bp_status_t status =
      check_field(path, op, index, &raw->library, "opKernelLib", index >= 0);
  if (status == BP_OK)
    status = check_field(path, op, index, &raw->kernel_so, "kernelSo", false);
  if (status == BP_OK)
    status =
        check_field(path, op, index, &raw->function, "functionName", false);
  if (status != BP_OK)
    return status;
  const char *library =
      raw->library.present ? raw->library.value : default_library;
  bool known = false;
  for (size_t i = 0; i < sizeof known_libraries / sizeof *known_libraries; ++i)
    known = known || strcmp(library, known_libraries[i]) == 0;
  if (!known)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %s: unknown opKernelLib \"%s\" (expected "
                    "AICPUKernel or CUSTAICPUKernel)",
                    path, op, where(index, buffer, sizeof buffer), library);
  const char *kernel_so = raw->kernel_so.value;
  if (!allow_outside && (kernel_so[0] == '/' || climbs_out(kernel_so)))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %s: kernelSo \"%s\" leaves the manifest's "
                    "folder (absolute or \"..\"); not allowed by the options",
                    path, op, where(index, buffer, sizeof buffer), kernel_so);
  if (raw->target &&
      (status = parse_target(path, op, index, raw, out)) != BP_OK)
    return status;
  out->library = strdup(library);
  out->kernel_so = resolve(path, kernel_so);
  out->function = raw->function.value;
  raw->function.value = NULL;
  if (!out->library || !out->kernel_so)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory", path,
                    op);
  return BP_OK;
}

/* Where an op's "opInfo" and "variants" values lie in the text. */
typedef struct op_spans {
  const char *info, *variants; /* NULL: absent */
} op_spans_t;

/* The op's value at the cursor: an object's "opInfo" and "variants" spans;
 * anything else is skipped (the caller then finds neither). */
static bool read_op(bp_json_scan_t *scan, op_spans_t *spans) {
  if (bp_json_scan_peek(scan) != '{')
    return bp_json_scan_skip(scan);
  scan->at++;
  bool first = true;
  int more;
  while ((more = bp_json_scan_next(scan, '}', &first)) == 1) {
    const char *key;
    size_t length;
    if (!bp_json_scan_string(scan, &key, &length) ||
        !bp_json_scan_expect(scan, ':'))
      return false;
    const char **span = strcmp(key, "opInfo") == 0     ? &spans->info
                        : strcmp(key, "variants") == 0 ? &spans->variants
                                                       : NULL;
    if (span && *span)
      return bp_json_scan_fail(scan, "duplicate object key");
    if (span)
      *span = bp_json_scan_position(scan);
    if (!bp_json_scan_skip(scan))
      return false;
  }
  return more == 0;
}

/* The elements of the (already checked) array at `text`: their positions
 * into at[] (up to `capacity`), their number into *count. */
static void array_elements(const char *text, const char *end, const char **at,
                           size_t capacity, size_t *count) {
  bp_json_scan_t scan;
  bp_json_scan_init(&scan, text, (size_t)(end - text));
  bp_json_scan_expect(&scan, '[');
  bool first = true;
  *count = 0;
  while (bp_json_scan_next(&scan, ']', &first) == 1) {
    if (*count < capacity)
      at[*count] = bp_json_scan_position(&scan);
    ++*count;
    bp_json_scan_skip(&scan);
  }
  bp_json_scan_free(&scan);
}

/* The entry at `text` (already checked) into *raw. */
static bp_status_t read_entry_at(const char *path, const char *text,
                                 const char *end, bool with_target,
                                 raw_entry_t *raw) {
  bp_json_scan_t scan;
  bp_json_scan_init(&scan, text, (size_t)(end - text));
  bool ok = read_entry(&scan, with_target, raw);
  bp_status_t status = ok ? BP_OK : not_json(path, &scan);
  bp_json_scan_free(&scan);
  return status;
}

/* The entries of "variants" (if any) then opInfo (if any) into out. */
static bp_status_t parse_variants(const char *path, const char *end,
                                  const op_spans_t *spans, bool allow_outside,
                                  bp_manifest_op_t *out) {
  const char *name = out->op;
  const char *entries[BP_MANIFEST_MAX_VARIANTS];
  size_t count = 0;
  if (spans->variants)
    array_elements(spans->variants, end, entries, BP_MANIFEST_MAX_VARIANTS,
                   &count);
  out->variants = calloc(count + 1, sizeof *out->variants);
  if (!out->variants)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory", path,
                    name);
  raw_entry_t info = {0};
  bp_status_t status =
      spans->info ? read_entry_at(path, spans->info, end, false, &info) : BP_OK;
  const char *library = info.library.value ? info.library.value : "AICPUKernel";
  int defaults = 0;
  for (size_t i = 0; status == BP_OK && i < count; ++i) {
    if (*entries[i] != '{') {
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "%s: op \"%s\": variant %zu is not an object", path,
                        name, i);
      break;
    }
    raw_entry_t raw = {0};
    status = read_entry_at(path, entries[i], end, true, &raw);
    if (status == BP_OK)
      status = check_variant(path, name, (int)i, &raw, library, allow_outside,
                             &out->variants[out->variant_count++]);
    defaults += !raw.target;
    free_raw(&raw);
  }
  if (status == BP_OK && spans->info) {
    status = check_variant(path, name, -1, &info, NULL, allow_outside,
                           &out->variants[out->variant_count++]);
    defaults++;
  }
  free_raw(&info);
  if (status == BP_OK && defaults > 1)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %d defaults (opInfo and variants without "
                    "\"target\"); at most one",
                    path, name, defaults);
  return status;
}

/* The op `name` whose value is at the scan's cursor. */
static bp_status_t parse_op(const char *path, bp_json_scan_t *scan,
                            const char *name, bool allow_outside,
                            bp_manifest_op_t *out) {
  op_spans_t spans = {0};
  if (!read_op(scan, &spans))
    return not_json(path, scan);
  if (name[0] == '\0')
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: an op has an empty name",
                    path);
  if (spans.info && *spans.info != '{')
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": \"opInfo\" is not an object", path, name);
  size_t variants = 0;
  if (spans.variants && *spans.variants == '[')
    array_elements(spans.variants, scan->end, NULL, 0, &variants);
  if (spans.variants && (variants == 0 || variants > BP_MANIFEST_MAX_VARIANTS))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": \"variants\" must be an array of 1 to %d "
                    "objects",
                    path, name, BP_MANIFEST_MAX_VARIANTS);
  if (!spans.info && !spans.variants)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": no \"opInfo\" object (or \"variants\")",
                    path, name);
  out->op = strdup(name);
  if (!out->op)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory", path,
                    name);
  bp_status_t status =
      parse_variants(path, scan->end, &spans, allow_outside, out);
  if (status != BP_OK) {
    free_op(out);
    memset(out, 0, sizeof *out);
  }
  return status;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* BP_ERR_INVALID_ARGUMENT naming an op listed twice, if one is. */
static bp_status_t check_unique(const char *path,
                                const bp_manifest_t *manifest) {
  char **names = malloc(manifest->count * sizeof *names);
  if (!names)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  for (size_t i = 0; i < manifest->count; ++i)
    names[i] = manifest->ops[i].op;
  qsort(names, manifest->count, sizeof *names, compare_names);
  bp_status_t status = BP_OK;
  for (size_t i = 1; i < manifest->count && status == BP_OK; ++i)
    if (strcmp(names[i - 1], names[i]) == 0)
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "%s: not JSON (op \"%s\" is listed twice: duplicate "
                        "object key)",
                        path, names[i]);
  free(names);
  return status;
}

/* Room for one more op. */
static bool grow(bp_manifest_t *manifest, size_t *capacity) {
  if (manifest->count < *capacity)
    return true;
  size_t more = *capacity ? 2 * *capacity : 16;
  bp_manifest_op_t *ops = realloc(manifest->ops, more * sizeof *ops);
  if (!ops)
    return false;
  memset(ops + *capacity, 0, (more - *capacity) * sizeof *ops);
  manifest->ops = ops;
  *capacity = more;
  return true;
}

/* The ops of the top-level object at the cursor into `manifest`. */
static bp_status_t parse_ops(const char *path, bp_json_scan_t *scan,
                             bool allow_outside, bp_manifest_t *manifest) {
  if (bp_json_scan_peek(scan) != '{')
    return bp_json_scan_skip(scan) && bp_json_scan_finish(scan)
               ? bp_error(BP_ERR_INVALID_ARGUMENT,
                          "%s: the top level must be an object of ops", path)
               : not_json(path, scan);
  scan->at++;
  size_t capacity = 0;
  bool first = true;
  int more;
  while ((more = bp_json_scan_next(scan, '}', &first)) == 1) {
    const char *key;
    size_t length;
    if (!bp_json_scan_string(scan, &key, &length) ||
        !bp_json_scan_expect(scan, ':'))
      return not_json(path, scan);
    char *name = strdup(key);
    if (!name || !grow(manifest, &capacity)) {
      free(name);
      return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    bp_status_t status = parse_op(path, scan, name, allow_outside,
                                  &manifest->ops[manifest->count]);
    free(name);
    if (status != BP_OK)
      return status;
    manifest->count++;
  }
  if (more != 0 || !bp_json_scan_finish(scan))
    return not_json(path, scan);
  if (manifest->count == 0)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: names no op", path);
  return check_unique(path, manifest);
}

bp_status_t bp_manifest_parse(const char *text, size_t size, const char *path,
                              bool allow_outside_folder,
                              bp_manifest_t **out_manifest) {
  bp_manifest_t *manifest = calloc(1, sizeof *manifest);
  if (!manifest)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  bp_json_scan_t scan;
  bp_json_scan_init(&scan, text, size);
  bp_status_t status = parse_ops(path, &scan, allow_outside_folder, manifest);
  bp_json_scan_free(&scan);
  if (status != BP_OK) {
    bp_manifest_free(manifest);
    return status;
  }
  *out_manifest = manifest;
  return BP_OK;
}

bp_status_t bp_manifest_read(const char *path, bool allow_outside_folder,
                             size_t max_bytes, bp_manifest_t **out_manifest) {
  char reason[512];
  if (!bp_file_permissions_ok(path, "manifest", reason, sizeof reason))
    return bp_error(bp_plugin_refusal_status(path), "%s: %s", path, reason);
  FILE *file = fopen(path, "rb");
  if (!file)
    return bp_error(BP_ERR_NOT_FOUND, "%s: cannot open: %s", path,
                    strerror(errno));
  struct stat st;
  bp_status_t status = BP_OK;
  if (fstat(fileno(file), &st) != 0 || !S_ISREG(st.st_mode))
    status = bp_error(BP_ERR_INVALID_ARGUMENT, "%s: not a regular file", path);
  else if (st.st_size == 0)
    status = bp_error(BP_ERR_INVALID_ARGUMENT, "%s: empty file", path);
  else if ((unsigned long long)st.st_size > max_bytes)
    status = bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: %lld bytes, larger than the %zu-byte cap on a "
                      "manifest (raise it with "
                      "bp_module_options_t.max_manifest_bytes)",
                      path, (long long)st.st_size, max_bytes);
  char *text = status == BP_OK ? malloc((size_t)st.st_size) : NULL;
  if (status == BP_OK && !text)
    status = bp_error(BP_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  if (status == BP_OK &&
      fread(text, 1, (size_t)st.st_size, file) != (size_t)st.st_size)
    status = bp_error(BP_ERR_INVALID_ARGUMENT, "%s: short read", path);
  fclose(file);
  if (status == BP_OK)
    status = bp_manifest_parse(text, (size_t)st.st_size, path,
                               allow_outside_folder, out_manifest);
  free(text);
  return status;
}
