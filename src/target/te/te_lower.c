/* Lowering the tensor-expression IR to C. Each stage becomes a loop nest
 * over its axes: the first axis split into the launch's blocks, the last one
 * a simple loop over restrict pointers that gcc -O3 vectorizes (with
 * `omp simd` when the body has no reduction). A reduction is hoisted before
 * the store and, over its innermost axis, kept in vector_width partial
 * accumulators so it vectorizes without reassociating the caller's math. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "target/te/te_ir.h"

void te_text_printf(te_text_t *text, const char *format, ...) {
  if (text->failed)
    return;
  for (;;) {
    va_list args;
    va_start(args, format);
    size_t room = text->capacity - text->length;
    int written = vsnprintf(text->data ? text->data + text->length : NULL,
                            text->data ? room : 0, format, args);
    va_end(args);
    if (written < 0) {
      text->failed = 1;
      return;
    }
    if (text->data && (size_t)written < room) {
      text->length += (size_t)written;
      return;
    }
    size_t capacity = text->capacity * 2 + (size_t)written + 256;
    char *data = realloc(text->data, capacity);
    if (!data) {
      text->failed = 1;
      return;
    }
    text->data = data;
    text->capacity = capacity;
  }
}

/* Conversions and safe integer arithmetic the generated code uses. */
static const char prelude[] =
    "#include <math.h>\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "\n"
    "typedef struct bp_generated_params {\n"
    "  void *tensors[16];\n"
    "} bp_generated_params_t;\n"
    "\n"
    "/* The head of bp_kernel_device_api_t (backplane/kernel_types.h; its\n"
    " * fields are only appended), which the plugin points this weak symbol\n"
    " * at when it loads the module, as backplane/kernel_device.h does. */\n"
    "typedef struct bp_device_api_head {\n"
    "  size_t struct_size;\n"
    "  uint32_t (*block_index)(void);\n"
    "  uint32_t (*block_count)(void);\n"
    "} bp_device_api_head_t;\n"
    "__attribute__((weak, visibility(\"default\")))\n"
    "const bp_device_api_head_t *bp_kernel_device_api;\n"
    "\n"
    "static inline float bp_f16_to_f32(uint16_t h) {\n"
    "  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;\n"
    "  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;\n"
    "  float f;\n"
    "  if (exponent == 0) {\n"
    "    f = (float)mantissa * 0x1p-24f;\n"
    "    memcpy(&bits, &f, 4);\n"
    "    bits |= sign;\n"
    "  } else if (exponent == 31) {\n"
    "    bits = sign | 0x7f800000u | (mantissa << 13);\n"
    "  } else {\n"
    "    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);\n"
    "  }\n"
    "  memcpy(&f, &bits, 4);\n"
    "  return f;\n"
    "}\n"
    "static inline uint16_t bp_f32_to_f16(float f) {\n"
    "  uint32_t x;\n"
    "  memcpy(&x, &f, 4);\n"
    "  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);\n"
    "  uint32_t magnitude = x & 0x7fffffffu;\n"
    "  if (magnitude > 0x7f800000u) return sign | 0x7e00u;\n"
    "  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;\n"
    "  if (magnitude < 0x38800000u) {\n"
    "    float a;\n"
    "    memcpy(&a, &magnitude, 4);\n"
    "    return sign | (uint16_t)lrintf(a * 0x1p24f);\n"
    "  }\n"
    "  magnitude += 0xc8000fffu + ((magnitude >> 13) & 1u);\n"
    "  return sign | (uint16_t)(magnitude >> 13);\n"
    "}\n"
    "static inline float bp_bf16_to_f32(uint16_t h) {\n"
    "  uint32_t bits = (uint32_t)h << 16;\n"
    "  float f;\n"
    "  memcpy(&f, &bits, 4);\n"
    "  return f;\n"
    "}\n"
    "static inline uint16_t bp_f32_to_bf16(float f) {\n"
    "  uint32_t x;\n"
    "  memcpy(&x, &f, 4);\n"
    "  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | "
    "0x40u);\n"
    "  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);\n"
    "}\n"
    "static inline int32_t bp_f2i(float f) {\n"
    "  if (!(f == f)) return 0;\n"
    "  if (f >= 2147483520.0f) return INT32_MAX;\n"
    "  if (f <= -2147483648.0f) return INT32_MIN;\n"
    "  return (int32_t)f;\n"
    "}\n"
    "static inline int32_t bp_idiv(int32_t a, int32_t b) {\n"
    "  if (b == 0) return 0;\n"
    "  if (b == -1) return (int32_t)(0u - (uint32_t)a);\n"
    "  return a / b;\n"
    "}\n"
    "#define BP_IADD(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))\n"
    "#define BP_ISUB(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)))\n"
    "#define BP_IMUL(a, b) ((int32_t)((uint32_t)(a) * (uint32_t)(b)))\n"
    "#define BP_INEG(a) ((int32_t)(0u - (uint32_t)(a)))\n"
    "#define BP_IABS(a) ((a) < 0 ? BP_INEG(a) : (a))\n"
    "\n";

static const char *storage_type(te_dtype_t dtype) {
  return dtype == TE_F32 ? "float" : dtype == TE_I32 ? "int32_t" : "uint16_t";
}

/* Lowering state of one function. */
typedef struct lower_ctx {
  te_text_t *text;
  const te_function_t *function;
  const te_tensor_t *stage;
  int64_t vector_width;
  /* The stage's reductions, hoisted into temporaries r0, r1, ... */
  int reduction_count;
  const te_node_t *reductions[TE_MAX_REDUCTIONS];
} lower_ctx_t;

static int reduction_number(const lower_ctx_t *ctx, const te_node_t *node) {
  for (int i = 0; i < ctx->reduction_count; i++)
    if (ctx->reductions[i] == node)
      return i;
  return -1; /* not reached: emit_reductions numbered every one */
}

/* `expr` (of type `from`) as a value of type `to`. */
static void emit_expr(lower_ctx_t *ctx, const te_node_t *node, te_type_t to);

static void emit_index(lower_ctx_t *ctx, const te_node_t *node) {
  const te_tensor_t *tensor = &ctx->function->tensors[node->tensor];
  int64_t stride = 1;
  te_text_printf(ctx->text, "(");
  for (int d = tensor->rank - 1; d >= 0; d--) {
    const te_index_t *index = &node->index[d];
    /* A split function keeps only its block's rows of each stage. */
    const char *row_base =
        d == 0 && tensor->is_stage && tensor->output < 0 ? " - bp_lo" : "";
    if (index->is_const)
      te_text_printf(ctx->text, "(%lldL%s) * %lldL + ", (long long)index->value,
                     row_base, (long long)stride);
    else
      te_text_printf(ctx->text, "(a_%s%s) * %lldL + ",
                     ctx->stage->axes[index->axis], row_base,
                     (long long)stride);
    stride *= tensor->shape[d];
  }
  te_text_printf(ctx->text, "0)");
}

static void emit_load(lower_ctx_t *ctx, const te_node_t *node) {
  const te_tensor_t *tensor = &ctx->function->tensors[node->tensor];
  const char *convert = tensor->dtype == TE_F16    ? "bp_f16_to_f32"
                        : tensor->dtype == TE_BF16 ? "bp_bf16_to_f32"
                                                   : "";
  te_text_printf(ctx->text, "%s(t_%s[", convert, tensor->name);
  emit_index(ctx, node);
  te_text_printf(ctx->text, "])");
}

static void emit_binary(lower_ctx_t *ctx, const te_node_t *node) {
  te_type_t type =
      node->args[0]->type == TE_FLOAT || node->args[1]->type == TE_FLOAT
          ? TE_FLOAT
          : TE_INT;
  const char *open = "(", *middle = ", ", *close = ")";
  switch (node->op) {
  case TE_ADD:
    open = type == TE_FLOAT ? "(" : "BP_IADD(";
    middle = type == TE_FLOAT ? " + " : ", ";
    break;
  case TE_SUB:
    open = type == TE_FLOAT ? "(" : "BP_ISUB(";
    middle = type == TE_FLOAT ? " - " : ", ";
    break;
  case TE_MUL:
    open = type == TE_FLOAT ? "(" : "BP_IMUL(";
    middle = type == TE_FLOAT ? " * " : ", ";
    break;
  case TE_DIV:
    open = type == TE_FLOAT ? "(" : "bp_idiv(";
    middle = type == TE_FLOAT ? " / " : ", ";
    break;
  case TE_MAX:
    open = type == TE_FLOAT ? "fmaxf(" : "bp_imax(";
    break;
  case TE_MIN:
    open = type == TE_FLOAT ? "fminf(" : "bp_imin(";
    break;
  case TE_LT:
    middle = " < ";
    break;
  case TE_LE:
    middle = " <= ";
    break;
  case TE_GT:
    middle = " > ";
    break;
  case TE_GE:
    middle = " >= ";
    break;
  case TE_EQ:
    middle = " == ";
    break;
  case TE_NE:
    middle = " != ";
    break;
  case TE_AND:
    middle = " != 0 && 0 != ";
    break;
  case TE_OR:
    middle = " != 0 || 0 != ";
    break;
  default:
    break;
  }
  te_text_printf(ctx->text, "%s", open);
  emit_expr(ctx, node->args[0], type);
  te_text_printf(ctx->text, "%s", middle);
  emit_expr(ctx, node->args[1], type);
  te_text_printf(ctx->text, "%s", close);
}

static void emit_op(lower_ctx_t *ctx, const te_node_t *node) {
  static const char *const float_calls[] = {[TE_EXP] = "expf",
                                            [TE_LOG] = "logf",
                                            [TE_SQRT] = "sqrtf",
                                            [TE_TANH] = "tanhf",
                                            [TE_ERF] = "erff"};
  te_type_t arg_type = node->args[0]->type;
  switch (node->op) {
  case TE_NEG:
  case TE_ABS:
    te_text_printf(ctx->text, "%s(",
                   arg_type == TE_FLOAT
                       ? (node->op == TE_NEG ? "-" : "fabsf")
                       : (node->op == TE_NEG ? "BP_INEG" : "BP_IABS"));
    emit_expr(ctx, node->args[0], arg_type);
    te_text_printf(ctx->text, ")");
    return;
  case TE_EXP:
  case TE_LOG:
  case TE_SQRT:
  case TE_TANH:
  case TE_ERF:
    te_text_printf(ctx->text, "%s(", float_calls[node->op]);
    emit_expr(ctx, node->args[0], TE_FLOAT);
    te_text_printf(ctx->text, ")");
    return;
  case TE_NOT:
    te_text_printf(ctx->text, "(0 == ");
    emit_expr(ctx, node->args[0], arg_type);
    te_text_printf(ctx->text, ")");
    return;
  case TE_SELECT:
    te_text_printf(ctx->text, "(0 != ");
    emit_expr(ctx, node->args[0], arg_type);
    te_text_printf(ctx->text, " ? ");
    emit_expr(ctx, node->args[1], node->type);
    te_text_printf(ctx->text, " : ");
    emit_expr(ctx, node->args[2], node->type);
    te_text_printf(ctx->text, ")");
    return;
  case TE_CAST: {
    const char *open = node->cast_to == TE_F16 ? "bp_f16_to_f32(bp_f32_to_f16("
                       : node->cast_to == TE_BF16
                           ? "bp_bf16_to_f32(bp_f32_to_bf16("
                           : "(";
    const char *close =
        node->cast_to == TE_F16 || node->cast_to == TE_BF16 ? "))" : ")";
    te_text_printf(ctx->text, "%s", open);
    emit_expr(ctx, node->args[0], node->type);
    te_text_printf(ctx->text, "%s", close);
    return;
  }
  default:
    emit_binary(ctx, node);
  }
}

static void emit_expr(lower_ctx_t *ctx, const te_node_t *node, te_type_t to) {
  int convert = node->type != to;
  if (convert)
    te_text_printf(ctx->text, to == TE_FLOAT ? "((float)" : "bp_f2i(");
  switch (node->kind) {
  case TE_NODE_CONST:
    if (node->type == TE_FLOAT)
      te_text_printf(ctx->text, "%af", (double)(float)node->real);
    else
      te_text_printf(ctx->text, "((int32_t)%ld)", (long)node->integer);
    break;
  case TE_NODE_LOAD:
    emit_load(ctx, node);
    break;
  case TE_NODE_AXIS:
    te_text_printf(ctx->text, "((int32_t)a_%s)", ctx->stage->axes[node->axis]);
    break;
  case TE_NODE_OP:
    emit_op(ctx, node);
    break;
  case TE_NODE_REDUCE:
    /* Hoisted by emit_reductions: a temporary holds its value. */
    te_text_printf(ctx->text, "r%d", reduction_number(ctx, node));
    break;
  }
  if (convert)
    te_text_printf(ctx->text, ")");
}

static void emit_combine(lower_ctx_t *ctx, te_reduce_t reduce, te_type_t type,
                         const char *into, const char *value) {
  if (reduce == TE_SUM)
    te_text_printf(ctx->text,
                   type == TE_FLOAT ? "%s = %s + %s;\n"
                                    : "%s = BP_IADD(%s, %s);\n",
                   into, into, value);
  else
    te_text_printf(ctx->text, "%s = %s %s %s ? %s : %s;\n", into, value,
                   reduce == TE_RMAX ? ">" : "<", into, value, into);
}

/* Emits, before the store, one temporary per reduction of the expression. */
static void emit_reductions(lower_ctx_t *ctx, const te_node_t *node) {
  for (int i = 0; i < node->arg_count; i++)
    if (node->kind != TE_NODE_REDUCE)
      emit_reductions(ctx, node->args[i]);
  if (node->kind != TE_NODE_REDUCE)
    return;
  int id = ctx->reduction_count++;
  ctx->reductions[id] = node;
  const char *type = node->type == TE_FLOAT ? "float" : "int32_t";
  const char *init =
      node->reduce == TE_SUM ? "0"
      : node->type == TE_FLOAT
          ? (node->reduce == TE_RMAX ? "-INFINITY" : "INFINITY")
          : (node->reduce == TE_RMAX ? "INT32_MIN" : "INT32_MAX");
  const te_tensor_t *stage = ctx->stage;
  int last = node->reduce_axes[node->reduce_count - 1];
  const char *inner = stage->axes[last];
  long long extent = (long long)stage->reduce_extent[last - stage->rank];
  long long lanes = (long long)ctx->vector_width;
  te_text_printf(ctx->text, "%s r%d = %s;\n", type, id, init);
  for (int r = 0; r + 1 < node->reduce_count; r++) {
    int axis = node->reduce_axes[r];
    te_text_printf(ctx->text, "for (long a_%s = 0; a_%s < %lldL; a_%s++) {\n",
                   stage->axes[axis], stage->axes[axis],
                   (long long)stage->reduce_extent[axis - stage->rank],
                   stage->axes[axis]);
  }
  /* vector_width partial results over the innermost axis, then the rest. */
  te_text_printf(ctx->text,
                 "{\n%s p%d[%lld];\n"
                 "for (int v = 0; v < %lld; v++) p%d[v] = %s;\n"
                 "long b_%s = 0;\n"
                 "for (; b_%s + %lld <= %lldL; b_%s += %lld) {\n"
                 "for (int v = 0; v < %lld; v++) {\n"
                 "const long a_%s = b_%s + v;\n"
                 "const %s x = ",
                 type, id, lanes, lanes, id, init, inner, inner, lanes, extent,
                 inner, lanes, lanes, inner, inner, type);
  emit_expr(ctx, node->args[0], node->type);
  char into[32];
  snprintf(into, sizeof(into), "p%d[v]", id);
  te_text_printf(ctx->text, ";\n");
  emit_combine(ctx, node->reduce, node->type, into, "x");
  te_text_printf(ctx->text, "}\n}\nfor (int v = 0; v < %lld; v++) {\n", lanes);
  snprintf(into, sizeof(into), "r%d", id);
  char part[32];
  snprintf(part, sizeof(part), "p%d[v]", id);
  emit_combine(ctx, node->reduce, node->type, into, part);
  te_text_printf(ctx->text,
                 "}\nfor (; b_%s < %lldL; b_%s++) {\nconst long a_%s = b_%s;\n"
                 "const %s x = ",
                 inner, extent, inner, inner, inner, type);
  emit_expr(ctx, node->args[0], node->type);
  te_text_printf(ctx->text, ";\n");
  emit_combine(ctx, node->reduce, node->type, into, "x");
  te_text_printf(ctx->text, "}\n}\n");
  for (int r = 0; r + 1 < node->reduce_count; r++)
    te_text_printf(ctx->text, "}\n");
}

static int has_reduction(const te_node_t *node) {
  if (node->kind == TE_NODE_REDUCE)
    return 1;
  for (int i = 0; i < node->arg_count; i++)
    if (has_reduction(node->args[i]))
      return 1;
  return 0;
}

static void emit_stage(lower_ctx_t *ctx, const te_tensor_t *stage) {
  ctx->stage = stage;
  ctx->reduction_count = 0;
  te_text_printf(ctx->text, "/* stage %s */\n", stage->name);
  for (int d = 0; d < stage->rank; d++) {
    if (d == stage->rank - 1 && stage->rank > 1 && !has_reduction(stage->expr))
      te_text_printf(ctx->text, "#pragma omp simd simdlen(%lld)\n",
                     (long long)ctx->vector_width);
    if (d == 0)
      te_text_printf(ctx->text,
                     "for (long a_%s = bp_lo; a_%s < bp_hi; a_%s++) {\n",
                     stage->axes[0], stage->axes[0], stage->axes[0]);
    else
      te_text_printf(ctx->text, "for (long a_%s = 0; a_%s < %lldL; a_%s++) {\n",
                     stage->axes[d], stage->axes[d], (long long)stage->shape[d],
                     stage->axes[d]);
  }
  emit_reductions(ctx, stage->expr);
  te_node_t store = {.kind = TE_NODE_LOAD,
                     .tensor = (int)(stage - ctx->function->tensors),
                     .rank = stage->rank};
  for (int d = 0; d < stage->rank; d++)
    store.index[d].axis = d;
  te_text_printf(ctx->text, "t_%s[", stage->name);
  emit_index(ctx, &store);
  te_text_printf(ctx->text, "] = ");
  te_type_t type = stage->dtype == TE_I32 ? TE_INT : TE_FLOAT;
  const char *convert = stage->dtype == TE_F16    ? "bp_f32_to_f16("
                        : stage->dtype == TE_BF16 ? "bp_f32_to_bf16("
                                                  : "(";
  te_text_printf(ctx->text, "%s", convert);
  emit_expr(ctx, stage->expr, type);
  te_text_printf(ctx->text, ");\n");
  for (int d = 0; d < stage->rank; d++)
    te_text_printf(ctx->text, "}\n");
}

static void emit_function(lower_ctx_t *ctx) {
  const te_function_t *function = ctx->function;
  te_text_t *text = ctx->text;
  int64_t outer = function->tensors[function->input_count].shape[0];
  te_text_printf(text,
                 "__attribute__((visibility(\"default\")))\n"
                 "unsigned int %s(void *param) {\n"
                 "const bp_generated_params_t *bp_p = param;\n"
                 "const uint32_t bp_launched = bp_kernel_device_api ? "
                 "bp_kernel_device_api->block_count() : 0;\n"
                 "const uint32_t bp_count = bp_launched ? bp_launched : 1;\n"
                 "const uint32_t bp_index = bp_launched ? "
                 "bp_kernel_device_api->block_index() : 0;\n"
                 "if (bp_index >= bp_count) return 1;\n",
                 function->name);
  if (function->splittable)
    te_text_printf(text,
                   "const long bp_lo = (long)(%lldLL * bp_index / "
                   "bp_count);\n"
                   "const long bp_hi = (long)(%lldLL * (bp_index + 1) "
                   "/ bp_count);\n",
                   (long long)outer, (long long)outer);
  else
    te_text_printf(text, "if (bp_index != 0) return 0;\n"
                         "const long bp_lo = 0;\n");
  for (size_t i = 0; i < function->input_count; i++)
    te_text_printf(text, "const %s *restrict t_%s = bp_p->tensors[%zu];\n",
                   storage_type(function->tensors[i].dtype),
                   function->tensors[i].name, i);
  for (size_t o = 0; o < function->output_count; o++) {
    const te_tensor_t *tensor = &function->tensors[function->outputs[o]];
    te_text_printf(text, "%s *restrict t_%s = bp_p->tensors[%zu];\n",
                   storage_type(tensor->dtype), tensor->name,
                   function->input_count + o);
  }
  /* Intermediate stages: the block's rows only, on the heap. */
  te_text_printf(text, "int bp_failed = 0;\n");
  for (size_t s = function->input_count; s < function->tensor_count; s++) {
    const te_tensor_t *tensor = &function->tensors[s];
    if (tensor->output >= 0)
      continue;
    int64_t row = 1;
    for (int d = 1; d < tensor->rank; d++)
      row *= tensor->shape[d];
    char rows[40];
    if (function->splittable)
      snprintf(rows, sizeof(rows), "bp_hi - bp_lo");
    else
      snprintf(rows, sizeof(rows), "%lldL", (long long)tensor->shape[0]);
    /* +1 row: a block may own no rows, and malloc(0) may return NULL. */
    te_text_printf(text,
                   "%s *restrict t_%s = malloc(sizeof(%s) * (size_t)%lldL * "
                   "(size_t)(%s + 1));\n"
                   "bp_failed |= t_%s == NULL;\n",
                   storage_type(tensor->dtype), tensor->name,
                   storage_type(tensor->dtype), (long long)row, rows,
                   tensor->name);
  }
  te_text_printf(text, "if (!bp_failed) {\n");
  for (size_t i = 0; i < function->tensor_count - function->input_count; i++) {
    const te_tensor_t *stage = &function->tensors[function->order[i]];
    if (!function->splittable)
      te_text_printf(text, "{\nconst long bp_hi = %lldL;\n",
                     (long long)stage->shape[0]);
    emit_stage(ctx, stage);
    if (!function->splittable)
      te_text_printf(text, "}\n");
  }
  te_text_printf(text, "}\n");
  for (size_t s = function->input_count; s < function->tensor_count; s++)
    if (function->tensors[s].output < 0)
      te_text_printf(text, "free(t_%s);\n", function->tensors[s].name);
  te_text_printf(text, "return bp_failed ? 2u : 0u;\n}\n\n");
}

bp_status_t te_lower_to_c(const te_module_t *module, int64_t vector_width,
                          char **out_source) {
  te_text_t text = {0};
  te_text_printf(&text,
                 "/* Generated by Backplane from tensor-expression "
                 "IR. */\n%s",
                 prelude);
  te_text_printf(&text, "static inline int32_t bp_imax(int32_t a, int32_t b) { "
                        "return a > b ? a : b; }\n"
                        "static inline int32_t bp_imin(int32_t a, int32_t b) { "
                        "return a < b ? a : b; }\n\n");
  for (size_t f = 0; f < module->function_count; f++) {
    lower_ctx_t ctx = {&text, &module->functions[f], NULL, vector_width, 0,
                       {NULL}};
    emit_function(&ctx);
  }
  if (text.failed) {
    free(text.data);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory lowering to C");
  }
  *out_source = text.data;
  return BP_OK;
}
