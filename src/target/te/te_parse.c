/* Parsing and validating the tensor-expression IR. Every error names the
 * function, the stage and the path of the node ("expr.args[1]"). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "target/te/te_ir.h"

enum { MAX_DEPTH = 64, MAX_TENSORS = 16, PATH_MAX_LEN = 512 };
#define MAX_ELEMENTS ((int64_t)1 << 40)

static const char *const op_names[TE_OP_COUNT] = {
    "add", "sub", "mul",  "div",  "max", "min", "lt",     "le",
    "gt",  "ge",  "eq",   "ne",   "and", "or",  "neg",    "abs",
    "exp", "log", "sqrt", "tanh", "erf", "not", "select", "cast"};

static int op_arity(te_op_t op) {
  return op <= TE_OR ? 2 : op <= TE_NOT ? 1 : op == TE_SELECT ? 3 : 1;
}

/* Where parsing is: for messages and axis scope. */
typedef struct parse_ctx {
  te_function_t *function;
  te_tensor_t *stage; /* NULL outside stages */
  int *reductions;    /* reductions seen in the stage so far */
  unsigned bound;     /* reduce axes bound by the enclosing reduction */
  char path[PATH_MAX_LEN];
} parse_ctx_t;

static bp_status_t fail(const parse_ctx_t *ctx, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static bp_status_t fail(const parse_ctx_t *ctx, const char *format, ...) {
  char what[512];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof(what), format, args);
  va_end(args);
  if (ctx && ctx->stage)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "IR: function '%s' stage '%s' %s: %s", ctx->function->name,
                    ctx->stage->name, ctx->path, what);
  if (ctx && ctx->function)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "IR: function '%s': %s",
                    ctx->function->name, what);
  return bp_error(BP_ERR_INVALID_ARGUMENT, "IR: %s", what);
}

static int valid_name(const char *name) {
  size_t length = strlen(name);
  if (length == 0 || length > TE_NAME_MAX)
    return 0;
  for (size_t i = 0; i < length; i++) {
    char c = name[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
      return 0;
  }
  return 1;
}

static bp_status_t parse_dtype(const parse_ctx_t *ctx, const json_t *json,
                               te_dtype_t *out) {
  static const char *const names[] = {"float32", "float16", "bfloat16",
                                      "int32"};
  for (int i = 0; json_is_string(json) && i < 4; i++)
    if (!strcmp(json_string_value(json), names[i])) {
      *out = (te_dtype_t)i;
      return BP_OK;
    }
  return fail(ctx, "dtype must be one of float32, float16, bfloat16, int32");
}

static void node_free(te_node_t *node) {
  if (!node)
    return;
  for (int i = 0; i < node->arg_count; i++)
    node_free(node->args[i]);
  free(node);
}

static int tensor_named(const te_function_t *function, const char *name) {
  for (size_t i = 0; i < function->tensor_count; i++)
    if (!strcmp(function->tensors[i].name, name))
      return (int)i;
  return -1;
}

/* The axis number of `name` in the current stage, or an error. */
static bp_status_t resolve_axis(const parse_ctx_t *ctx, const char *name,
                                int *out_axis) {
  const te_tensor_t *stage = ctx->stage;
  for (int i = 0; i < stage->rank; i++)
    if (!strcmp(stage->axes[i], name)) {
      *out_axis = i;
      return BP_OK;
    }
  for (int i = 0; i < stage->reduce_count; i++)
    if (!strcmp(stage->axes[stage->rank + i], name)) {
      if (!(ctx->bound & (1u << i)))
        return fail(ctx, "reduce axis '%s' used outside a reduction over it",
                    name);
      *out_axis = stage->rank + i;
      return BP_OK;
    }
  return fail(ctx, "unknown axis '%s'", name);
}

static int64_t axis_extent(const te_tensor_t *stage, int axis) {
  return axis < stage->rank ? stage->shape[axis]
                            : stage->reduce_extent[axis - stage->rank];
}

static void with_path(parse_ctx_t *child, const parse_ctx_t *parent,
                      const char *format, int value) {
  *child = *parent;
  size_t length = strlen(child->path);
  snprintf(child->path + length, sizeof(child->path) - length, format, value);
}

static bp_status_t parse_expr(parse_ctx_t *ctx, const json_t *json, int depth,
                              te_node_t **out_node);

/* A load with explicit indices ({"load": "x", "index": [...]}) or with
 * broadcasting against the stage's axes ("x"). */
static bp_status_t parse_load(parse_ctx_t *ctx, const char *name,
                              const json_t *index, te_node_t *node) {
  int tensor = tensor_named(ctx->function, name);
  if (tensor < 0)
    return fail(ctx, "undefined tensor '%s'", name);
  const te_tensor_t *source = &ctx->function->tensors[tensor];
  const te_tensor_t *stage = ctx->stage;
  node->kind = TE_NODE_LOAD;
  node->tensor = tensor;
  node->rank = source->rank;
  node->type = source->dtype == TE_I32 ? TE_INT : TE_FLOAT;
  if (!index) {
    if (source->rank > stage->rank)
      return fail(ctx,
                  "shape mismatch: cannot broadcast '%s' (rank %d) to the "
                  "stage's rank %d",
                  name, source->rank, stage->rank);
    int offset = stage->rank - source->rank;
    for (int d = 0; d < source->rank; d++) {
      if (source->shape[d] == 1) {
        node->index[d].is_const = 1;
        node->index[d].value = 0;
      } else if (source->shape[d] == stage->shape[offset + d]) {
        node->index[d].axis = offset + d;
      } else {
        return fail(ctx,
                    "shape mismatch: cannot broadcast '%s' dimension %d "
                    "(%lld) to the stage's %lld",
                    name, d, (long long)source->shape[d],
                    (long long)stage->shape[offset + d]);
      }
    }
    return BP_OK;
  }
  if (!json_is_array(index) || (int)json_array_size(index) != source->rank)
    return fail(ctx,
                "shape mismatch: '%s' has rank %d but \"index\" has %zu "
                "entries",
                name, source->rank,
                json_is_array(index) ? json_array_size(index) : (size_t)0);
  for (int d = 0; d < source->rank; d++) {
    const json_t *entry = json_array_get(index, (size_t)d);
    if (json_is_integer(entry)) {
      json_int_t value = json_integer_value(entry);
      if (value < 0 || value >= source->shape[d])
        return fail(ctx, "index %lld out of bounds for '%s' dimension %d",
                    (long long)value, name, d);
      node->index[d].is_const = 1;
      node->index[d].value = value;
    } else if (json_is_string(entry)) {
      bp_status_t status =
          resolve_axis(ctx, json_string_value(entry), &node->index[d].axis);
      if (status != BP_OK)
        return status;
      if (axis_extent(stage, node->index[d].axis) > source->shape[d])
        return fail(ctx,
                    "shape mismatch: axis '%s' (extent %lld) indexes '%s' "
                    "dimension %d of %lld",
                    json_string_value(entry),
                    (long long)axis_extent(stage, node->index[d].axis), name, d,
                    (long long)source->shape[d]);
    } else {
      return fail(ctx, "index entries must be axis names or integers");
    }
  }
  return BP_OK;
}

static bp_status_t parse_reduce(parse_ctx_t *ctx, const json_t *json, int depth,
                                te_node_t *node) {
  static const char *const names[] = {"sum", "max", "min"};
  const char *op = json_string_value(json_object_get(json, "reduce"));
  int found = -1;
  for (int i = 0; op && i < 3; i++)
    if (!strcmp(op, names[i]))
      found = i;
  if (found < 0)
    return fail(ctx, "unknown reduction '%s' (sum, max, min)",
                op ? op : "(not a string)");
  if (ctx->bound)
    return fail(ctx, "nested reductions are not supported");
  if (++*ctx->reductions > TE_MAX_REDUCTIONS)
    return fail(ctx, "more than %d reductions in one stage", TE_MAX_REDUCTIONS);
  node->kind = TE_NODE_REDUCE;
  node->reduce = (te_reduce_t)found;
  const json_t *axes = json_object_get(json, "axes");
  if (!json_is_array(axes) || json_array_size(axes) == 0 ||
      json_array_size(axes) > TE_MAX_REDUCE_AXES)
    return fail(ctx, "\"axes\" must list 1 to %d reduce axes",
                TE_MAX_REDUCE_AXES);
  unsigned bound = 0;
  for (size_t i = 0; i < json_array_size(axes); i++) {
    const char *name = json_string_value(json_array_get(axes, i));
    int axis = -1;
    for (int r = 0; name && r < ctx->stage->reduce_count; r++)
      if (!strcmp(ctx->stage->axes[ctx->stage->rank + r], name))
        axis = r;
    if (axis < 0)
      return fail(ctx,
                  "reduction over missing axis '%s' (not in the stage's "
                  "\"reduce_axes\")",
                  name ? name : "(not a string)");
    if (bound & (1u << axis))
      return fail(ctx, "reduction names axis '%s' twice", name);
    bound |= 1u << axis;
    node->reduce_axes[node->reduce_count++] = ctx->stage->rank + axis;
  }
  parse_ctx_t child;
  with_path(&child, ctx, ".arg", 0);
  child.bound = bound;
  node->arg_count = 1;
  bp_status_t status = parse_expr(&child, json_object_get(json, "arg"),
                                  depth + 1, &node->args[0]);
  if (status == BP_OK)
    node->type = node->args[0]->type;
  return status;
}

static bp_status_t parse_op(parse_ctx_t *ctx, const json_t *json, int depth,
                            te_node_t *node) {
  const char *name = json_string_value(json_object_get(json, "op"));
  int op = -1;
  for (int i = 0; name && i < TE_OP_COUNT; i++)
    if (!strcmp(name, op_names[i]))
      op = i;
  if (op < 0)
    return fail(ctx, "unknown op '%s'", name ? name : "(not a string)");
  node->kind = TE_NODE_OP;
  node->op = (te_op_t)op;
  const json_t *args = json_object_get(json, "args");
  int arity = op_arity(node->op);
  if (!json_is_array(args) || (int)json_array_size(args) != arity)
    return fail(ctx, "op '%s' takes %d argument%s in \"args\"", name, arity,
                arity == 1 ? "" : "s");
  if (node->op == TE_CAST) {
    bp_status_t status =
        parse_dtype(ctx, json_object_get(json, "dtype"), &node->cast_to);
    if (status != BP_OK)
      return status;
  }
  for (int i = 0; i < arity; i++) {
    parse_ctx_t child;
    with_path(&child, ctx, ".args[%d]", i);
    node->arg_count = i + 1;
    bp_status_t status = parse_expr(&child, json_array_get(args, (size_t)i),
                                    depth + 1, &node->args[i]);
    if (status != BP_OK)
      return status;
  }
  te_type_t a = node->args[0]->type;
  te_type_t b = arity > 1 ? node->args[arity - 1]->type : a;
  te_type_t promoted = a == TE_FLOAT || b == TE_FLOAT ? TE_FLOAT : TE_INT;
  switch (node->op) {
  case TE_LT:
  case TE_LE:
  case TE_GT:
  case TE_GE:
  case TE_EQ:
  case TE_NE:
  case TE_AND:
  case TE_OR:
  case TE_NOT:
    node->type = TE_INT;
    break;
  case TE_EXP:
  case TE_LOG:
  case TE_SQRT:
  case TE_TANH:
  case TE_ERF:
    node->type = TE_FLOAT;
    break;
  case TE_SELECT: {
    te_type_t x = node->args[1]->type, y = node->args[2]->type;
    node->type = x == TE_FLOAT || y == TE_FLOAT ? TE_FLOAT : TE_INT;
    break;
  }
  case TE_CAST:
    node->type = node->cast_to == TE_I32 ? TE_INT : TE_FLOAT;
    break;
  default:
    node->type = promoted;
  }
  return BP_OK;
}

static bp_status_t parse_expr(parse_ctx_t *ctx, const json_t *json, int depth,
                              te_node_t **out_node) {
  if (depth > MAX_DEPTH)
    return fail(ctx, "expression nested deeper than %d", MAX_DEPTH);
  te_node_t *node = calloc(1, sizeof(*node));
  if (!node)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
  bp_status_t status = BP_OK;
  if (json_is_integer(json)) {
    json_int_t value = json_integer_value(json);
    if (value < INT32_MIN || value > INT32_MAX)
      status = fail(ctx, "integer constant %lld does not fit int32",
                    (long long)value);
    node->kind = TE_NODE_CONST;
    node->type = TE_INT;
    node->integer = (int32_t)value;
  } else if (json_is_real(json)) {
    node->kind = TE_NODE_CONST;
    node->type = TE_FLOAT;
    node->real = json_real_value(json);
    if (!isfinite((float)node->real))
      status = fail(ctx, "constant %g is not a finite float32", node->real);
  } else if (json_is_string(json)) {
    status = parse_load(ctx, json_string_value(json), NULL, node);
  } else if (json_is_object(json) && json_object_get(json, "load")) {
    const char *name = json_string_value(json_object_get(json, "load"));
    status = name ? parse_load(ctx, name, json_object_get(json, "index"), node)
                  : fail(ctx, "\"load\" must name a tensor");
  } else if (json_is_object(json) && json_object_get(json, "axis")) {
    const char *name = json_string_value(json_object_get(json, "axis"));
    node->kind = TE_NODE_AXIS;
    node->type = TE_INT;
    status = name ? resolve_axis(ctx, name, &node->axis)
                  : fail(ctx, "\"axis\" must name an axis");
  } else if (json_is_object(json) && json_object_get(json, "reduce")) {
    status = parse_reduce(ctx, json, depth, node);
  } else if (json_is_object(json) && json_object_get(json, "op")) {
    status = parse_op(ctx, json, depth, node);
  } else {
    status = fail(ctx, "not an expression (a number, a tensor name, or an "
                       "object with \"op\", \"load\", \"axis\" or \"reduce\")");
  }
  if (status != BP_OK) {
    node_free(node);
    return status;
  }
  *out_node = node;
  return BP_OK;
}

/* Shape and name of a tensor ("inputs" entry or stage header). */
static bp_status_t parse_tensor_header(parse_ctx_t *ctx, const json_t *json,
                                       te_tensor_t *tensor) {
  const char *name = json_string_value(json_object_get(json, "name"));
  if (!json_is_object(json) || !name || !valid_name(name))
    return fail(ctx,
                "every input and stage needs a \"name\" (a C-like "
                "identifier of at most %d characters)",
                TE_NAME_MAX);
  strcpy(tensor->name, name);
  if (tensor_named(ctx->function, name) >= 0)
    return fail(ctx, "tensor '%s' defined twice", name);
  const json_t *shape = json_object_get(json, "shape");
  if (!json_is_array(shape) || json_array_size(shape) < 1 ||
      json_array_size(shape) > TE_MAX_RANK)
    return fail(ctx, "'%s': \"shape\" must list 1 to %d extents", name,
                TE_MAX_RANK);
  tensor->rank = (int)json_array_size(shape);
  int64_t elements = 1;
  for (int d = 0; d < tensor->rank; d++) {
    const json_t *extent = json_array_get(shape, (size_t)d);
    if (!json_is_integer(extent) || json_integer_value(extent) < 1 ||
        json_integer_value(extent) > MAX_ELEMENTS ||
        (elements *= json_integer_value(extent)) > MAX_ELEMENTS)
      return fail(ctx,
                  "'%s': shape extents must be positive, %lld elements "
                  "at most",
                  name, (long long)MAX_ELEMENTS);
    tensor->shape[d] = json_integer_value(extent);
  }
  return parse_dtype(ctx, json_object_get(json, "dtype"), &tensor->dtype);
}

static bp_status_t parse_stage_axes(parse_ctx_t *ctx, const json_t *json,
                                    te_tensor_t *stage) {
  const json_t *axes = json_object_get(json, "axes");
  if (!json_is_array(axes) || (int)json_array_size(axes) != stage->rank)
    return fail(ctx,
                "shape mismatch: \"axes\" must name one axis per "
                "dimension of the shape (%d)",
                stage->rank);
  const json_t *reduce = json_object_get(json, "reduce_axes");
  if (reduce && (!json_is_object(reduce) ||
                 json_object_size(reduce) > TE_MAX_REDUCE_AXES))
    return fail(ctx,
                "\"reduce_axes\" must be an object of at most %d "
                "{name: extent}",
                TE_MAX_REDUCE_AXES);
  for (int d = 0; d < stage->rank; d++) {
    const char *name = json_string_value(json_array_get(axes, (size_t)d));
    if (!name || !valid_name(name))
      return fail(ctx, "axis names must be C-like identifiers");
    strcpy(stage->axes[d], name);
  }
  const char *name;
  const json_t *extent;
  json_object_foreach((json_t *)reduce, name, extent) {
    if (!valid_name(name) || !json_is_integer(extent) ||
        json_integer_value(extent) < 1 ||
        json_integer_value(extent) > MAX_ELEMENTS)
      return fail(ctx, "reduce axis '%s' needs a positive extent", name);
    strcpy(stage->axes[stage->rank + stage->reduce_count], name);
    stage->reduce_extent[stage->reduce_count++] = json_integer_value(extent);
  }
  for (int a = 0; a < stage->rank + stage->reduce_count; a++)
    for (int b = 0; b < a; b++)
      if (!strcmp(stage->axes[a], stage->axes[b]))
        return fail(ctx, "axis '%s' named twice", stage->axes[a]);
  return BP_OK;
}

/* Stage `a` reads stage `b`. */
static int reads(const te_node_t *node, int tensor) {
  if (node->kind == TE_NODE_LOAD && node->tensor == tensor)
    return 1;
  for (int i = 0; i < node->arg_count; i++)
    if (reads(node->args[i], tensor))
      return 1;
  return 0;
}

/* Depth-first topological order; a stage met while on the stack closes a
 * cycle. */
static bp_status_t visit(te_function_t *function, int stage, int *state,
                         size_t *count) {
  if (state[stage] == 2)
    return BP_OK;
  parse_ctx_t ctx = {function, NULL, NULL, 0, ""};
  if (state[stage] == 1)
    return fail(&ctx, "cyclic stages: stage '%s' depends on itself",
                function->tensors[stage].name);
  state[stage] = 1;
  for (size_t other = function->input_count; other < function->tensor_count;
       other++) {
    if (!reads(function->tensors[stage].expr, (int)other))
      continue;
    bp_status_t status = visit(function, (int)other, state, count);
    if (status != BP_OK)
      return status;
  }
  state[stage] = 2;
  function->order[(*count)++] = stage;
  return BP_OK;
}

/* Reads of stages happen at the reader's own outer index. */
static int reads_aligned(const te_function_t *function, const te_node_t *node) {
  if (node->kind == TE_NODE_LOAD && function->tensors[node->tensor].is_stage &&
      (node->index[0].is_const || node->index[0].axis != 0))
    return 0;
  for (int i = 0; i < node->arg_count; i++)
    if (!reads_aligned(function, node->args[i]))
      return 0;
  return 1;
}

static void decide_splittable(te_function_t *function) {
  int64_t outer = function->tensors[function->input_count].shape[0];
  function->splittable = 1;
  for (size_t s = function->input_count; s < function->tensor_count; s++) {
    const te_tensor_t *stage = &function->tensors[s];
    if (stage->shape[0] != outer || !reads_aligned(function, stage->expr))
      function->splittable = 0;
  }
}

static bp_status_t parse_function(const json_t *json, te_function_t *function) {
  parse_ctx_t ctx = {function, NULL, NULL, 0, ""};
  const char *name = json_string_value(json_object_get(json, "name"));
  if (!json_is_object(json) || !name || !valid_name(name))
    return fail(NULL,
                "every function needs a \"name\" (a C-like identifier "
                "of at most %d characters)",
                TE_NAME_MAX);
  strcpy(function->name, name);
  const json_t *inputs = json_object_get(json, "inputs");
  const json_t *stages = json_object_get(json, "stages");
  const json_t *outputs = json_object_get(json, "outputs");
  if (!json_is_array(inputs) || !json_is_array(stages) ||
      !json_is_array(outputs) || json_array_size(stages) == 0 ||
      json_array_size(outputs) == 0)
    return fail(&ctx, "needs \"inputs\", non-empty \"stages\" and non-empty "
                      "\"outputs\" arrays");
  size_t total = json_array_size(inputs) + json_array_size(stages);
  if (json_array_size(inputs) + json_array_size(outputs) > MAX_TENSORS ||
      total > 64)
    return fail(&ctx,
                "at most %d parameters (inputs + outputs) and 64 "
                "tensors",
                MAX_TENSORS);
  function->tensors = calloc(total, sizeof(*function->tensors));
  function->order = calloc(total, sizeof(int));
  function->outputs = calloc(json_array_size(outputs), sizeof(int));
  if (!function->tensors || !function->order || !function->outputs)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
  for (size_t i = 0; i < json_array_size(inputs); i++) {
    bp_status_t status = parse_tensor_header(&ctx, json_array_get(inputs, i),
                                             &function->tensors[i]);
    function->tensor_count = ++function->input_count;
    if (status != BP_OK)
      return status;
    function->tensors[i].output = -1;
  }
  /* Headers first, so stages may read stages listed after them. */
  for (size_t i = 0; i < json_array_size(stages); i++) {
    te_tensor_t *stage = &function->tensors[function->tensor_count];
    bp_status_t status =
        parse_tensor_header(&ctx, json_array_get(stages, i), stage);
    function->tensor_count++;
    stage->is_stage = 1;
    stage->output = -1;
    if (status != BP_OK)
      return status;
  }
  for (size_t i = 0; i < json_array_size(stages); i++) {
    const json_t *entry = json_array_get(stages, i);
    te_tensor_t *stage = &function->tensors[function->input_count + i];
    int reductions = 0;
    parse_ctx_t stage_ctx = {function, stage, &reductions, 0, "expr"};
    bp_status_t status = parse_stage_axes(&stage_ctx, entry, stage);
    if (status == BP_OK)
      status = parse_expr(&stage_ctx, json_object_get(entry, "expr"), 0,
                          &stage->expr);
    if (status != BP_OK)
      return status;
  }
  for (size_t i = 0; i < json_array_size(outputs); i++) {
    const char *output = json_string_value(json_array_get(outputs, i));
    int tensor = output ? tensor_named(function, output) : -1;
    if (tensor < 0 || !function->tensors[tensor].is_stage)
      return fail(&ctx, "output '%s' is not a stage",
                  output ? output : "(not a string)");
    if (function->tensors[tensor].output >= 0)
      return fail(&ctx, "output '%s' listed twice", output);
    function->tensors[tensor].output = (int)i;
    function->outputs[function->output_count++] = tensor;
  }
  int *state = calloc(total, sizeof(int));
  if (!state)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
  size_t count = 0;
  bp_status_t status = BP_OK;
  for (size_t s = function->input_count; s < total && status == BP_OK; s++)
    status = visit(function, (int)s, state, &count);
  free(state);
  if (status == BP_OK)
    decide_splittable(function);
  return status;
}

void te_module_free(te_module_t *module) {
  if (!module)
    return;
  for (size_t f = 0; module->functions && f < module->function_count; f++) {
    te_function_t *function = &module->functions[f];
    for (size_t t = 0; function->tensors && t < function->tensor_count; t++)
      node_free(function->tensors[t].expr);
    free(function->tensors);
    free(function->order);
    free(function->outputs);
  }
  free(module->functions);
  free(module);
}

bp_status_t te_module_parse(const json_t *json, te_module_t **out_module) {
  const json_t *functions = json_object_get(json, "functions");
  if (!json_is_object(json) || !json_is_array(functions) ||
      json_array_size(functions) == 0 || json_array_size(functions) > 256)
    return fail(NULL, "a module is an object with a \"functions\" array of 1 "
                      "to 256 functions");
  te_module_t *module = calloc(1, sizeof(*module));
  if (module)
    module->functions =
        calloc(json_array_size(functions), sizeof(*module->functions));
  if (!module || !module->functions) {
    free(module);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
  }
  bp_status_t status = BP_OK;
  for (size_t f = 0; f < json_array_size(functions) && status == BP_OK; f++) {
    module->function_count = f + 1;
    status =
        parse_function(json_array_get(functions, f), &module->functions[f]);
    for (size_t g = 0; status == BP_OK && g < f; g++)
      if (!strcmp(module->functions[g].name, module->functions[f].name))
        status = fail(NULL, "function '%s' defined twice",
                      module->functions[f].name);
  }
  if (status != BP_OK) {
    te_module_free(module);
    return status;
  }
  *out_module = module;
  return BP_OK;
}
