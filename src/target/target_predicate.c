/* Target predicates: which targets a kernel variant is for (the rules are in
 * core/target_hooks.h). Checked against the kinds' schemas when a manifest
 * is read, matched against a device's canonical JSON when a module loads. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/target_internal.h"

static int say(char *why, size_t capacity, const char *format, ...) {
  va_list args;
  va_start(args, format);
  if (capacity)
    vsnprintf(why, capacity, format, args);
  va_end(args);
  return 0;
}

/* "min_num_cores" -> "num_cores" (and its sign), else NULL. */
static const char *bounded_attr(const char *key, int *out_is_min) {
  if (strncmp(key, "min_", 4) && strncmp(key, "max_", 4))
    return NULL;
  *out_is_min = key[1] == 'i';
  return key + 4;
}

static int is_string_array(const json_t *value) {
  size_t i;
  const json_t *item;
  if (!json_is_array(value))
    return 0;
  json_array_foreach((json_t *)value, i, item) {
    if (!json_is_string(item))
      return 0;
  }
  return 1;
}

/* One clause `key: value` against `kind`'s schema; 0 with `why` if wrong. */
static int check_clause(const target_kind_t *kind, const char *key,
                        const json_t *value, char *why, size_t capacity) {
  int index = target_kind_attr_index(kind, key), is_min = 0;
  const char *attr = key;
  if (index < 0 && (attr = bounded_attr(key, &is_min)) != NULL)
    index = target_kind_attr_index(kind, attr);
  if (index < 0)
    return say(why, capacity, "unknown attribute '%s' for kind '%s'", key,
               kind->name);
  BP_TargetAttrType type = kind->attrs[index].type;
  if (attr != key && type != BP_TARGET_ATTR_INT)
    return say(why, capacity,
               "'%s' bounds '%s', which is not an integer attribute of kind "
               "'%s'",
               key, attr, kind->name);
  if (type == BP_TARGET_ATTR_INT && !json_is_integer(value))
    return say(why, capacity, "'%s' must be an integer", key);
  if (type == BP_TARGET_ATTR_STRING && !json_is_string(value))
    return say(why, capacity, "'%s' must be a string", key);
  if (type == BP_TARGET_ATTR_STRING_ARRAY && !is_string_array(value))
    return say(why, capacity, "'%s' must be an array of strings", key);
  return 1;
}

static json_t *load_object(const char *text) {
  json_t *object = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
  if (!json_is_object(object)) {
    json_decref(object);
    return NULL;
  }
  return object;
}

bp_status_t target_predicate_check(const char *predicate, char *why,
                                   size_t capacity) {
  json_t *object = predicate ? load_object(predicate) : NULL;
  const json_t *kind_json = json_object_get(object, "kind");
  int ok = object != NULL;
  if (!ok)
    say(why, capacity, "the target predicate is not a JSON object");
  else if (!json_is_string(kind_json))
    ok = say(why, capacity, "the target predicate has no \"kind\" string");
  const target_kind_t *kind =
      ok ? target_kind_find(json_string_value(kind_json)) : NULL;
  const char *key;
  json_t *value;
  if (kind) {
    json_object_foreach(object, key, value) {
      if (strcmp(key, "kind") &&
          !(ok = check_clause(kind, key, value, why, capacity)))
        break;
    }
  }
  json_decref(object);
  return ok ? BP_OK : BP_ERR_INVALID_ARGUMENT;
}

/* A JSON value as compact text for a message; the caller frees it. */
static char *show(const json_t *value) {
  char *text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
  return text ? text : strdup("?");
}

static int contains(const json_t *array, const char *string) {
  size_t i;
  const json_t *item;
  json_array_foreach((json_t *)array, i, item) {
    if (json_is_string(item) && !strcmp(json_string_value(item), string))
      return 1;
  }
  return 0;
}

/* `key: wanted` against the target's attributes; 0 with `why` if it fails. */
static int match_clause(const json_t *target, const char *key,
                        const json_t *wanted, char *why, size_t capacity) {
  const json_t *have = json_object_get(target, key);
  int is_min = 0, ok = 1;
  const char *attr = key;
  if (!have && (attr = bounded_attr(key, &is_min)) != NULL) {
    have = json_object_get(target, attr);
    if (!json_is_integer(have) || !json_is_integer(wanted))
      return say(why, capacity, "'%s' has no integer '%s' to bound", key, attr);
    json_int_t value = json_integer_value(have),
               bound = json_integer_value(wanted);
    if (is_min ? value < bound : value > bound)
      return say(why, capacity, "%s is %lld, %s %s %lld", attr,
                 (long long)value, is_min ? "below" : "above", key,
                 (long long)bound);
    return 1;
  }
  if (!have)
    return say(why, capacity, "%s is not set", key);
  if (json_is_array(have) && json_is_array(wanted)) {
    size_t i;
    const json_t *item;
    json_array_foreach((json_t *)wanted, i, item) {
      if (!json_is_string(item) || !contains(have, json_string_value(item))) {
        char *a = show(have), *b = show(item);
        ok = say(why, capacity, "%s %s lacks %s", key, a, b);
        free(a);
        free(b);
        return ok;
      }
    }
    return 1;
  }
  if (!json_equal((json_t *)have, (json_t *)wanted)) {
    char *a = show(have), *b = show(wanted);
    ok = say(why, capacity, "%s is %s, not %s", key, a, b);
    free(a);
    free(b);
  }
  return ok;
}

int target_predicate_match(const char *target_json, const char *predicate,
                           char *why, size_t capacity) {
  json_t *target = target_json ? load_object(target_json) : NULL;
  json_t *object = predicate ? load_object(predicate) : NULL;
  const char *kind = json_string_value(json_object_get(target, "kind"));
  const char *wanted = json_string_value(json_object_get(object, "kind"));
  int ok = 1;
  if (!target || !object || !kind || !wanted)
    ok = say(why, capacity, "unreadable target or predicate");
  else if (strcmp(kind, wanted))
    ok = say(why, capacity, "kind is '%s', not '%s'%s", kind, wanted,
             target_kind_find(wanted) ? "" : " (not a registered kind)");
  const char *key;
  json_t *value;
  if (ok) {
    json_object_foreach(object, key, value) {
      if (strcmp(key, "kind") &&
          !(ok = match_clause(target, key, value, why, capacity)))
        break;
    }
  }
  json_decref(target);
  json_decref(object);
  return ok;
}
