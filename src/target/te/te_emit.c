/* The walk every lowering shares (te_lower_internal.h): expressions, loads
 * and their flat indices, hoisted reductions and the store of one element.
 * The C, OpenCL C and CUDA C emitters differ only around it (preludes,
 * signatures, loops over the elements) and in the intrinsics' names
 * (te_dialect_t). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "target/te/te_lower_internal.h"

const te_dialect_t te_c_float_dialect = {.calls = {[TE_EXP] = "expf",
                                                   [TE_LOG] = "logf",
                                                   [TE_SQRT] = "sqrtf",
                                                   [TE_TANH] = "tanhf",
                                                   [TE_ERF] = "erff"},
                                         .fabs = "fabsf",
                                         .fmax = "fmaxf(",
                                         .fmin = "fminf("};

/* float16 and bfloat16 storage conversions, in the C, OpenCL C and CUDA C
 * the preludes share: as_float/as_uint are OpenCL's bit casts (the C and
 * CUDA C preludes define them). Round to nearest even; NaN stays NaN. */
const char te_half_helpers[] =
    "BP_HELPER float bp_f16_to_f32(uint16_t h) {\n"
    "  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;\n"
    "  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;\n"
    "  if (exponent == 0)\n"
    "    return as_float(as_uint((float)mantissa * 0x1p-24f) | sign);\n"
    "  if (exponent == 31)\n"
    "    return as_float(sign | 0x7f800000u | (mantissa << 13));\n"
    "  return as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));\n"
    "}\n"
    "BP_HELPER uint16_t bp_f32_to_f16(float f) {\n"
    "  uint32_t x = as_uint(f);\n"
    "  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);\n"
    "  uint32_t magnitude = x & 0x7fffffffu;\n"
    "  if (magnitude > 0x7f800000u) return sign | 0x7e00u;\n"
    "  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;\n"
    "  if (magnitude < 0x38800000u)\n"
    "    return sign | (uint16_t)(int)rint(as_float(magnitude) * 0x1p24f);\n"
    "  magnitude += 0xc8000fffu + ((magnitude >> 13) & 1u);\n"
    "  return sign | (uint16_t)(magnitude >> 13);\n"
    "}\n"
    "BP_HELPER float bp_bf16_to_f32(uint16_t h) {\n"
    "  return as_float((uint32_t)h << 16);\n"
    "}\n"
    "BP_HELPER uint16_t bp_f32_to_bf16(float f) {\n"
    "  uint32_t x = as_uint(f);\n"
    "  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | "
    "0x40u);\n"
    "  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);\n"
    "}\n";

/* Integer helpers the preludes share (after int32_t, INT32_MIN and
 * INT32_MAX exist): wrapping arithmetic, division by zero as 0, float to
 * int saturating. */
const char te_integer_helpers[] =
    "BP_HELPER int32_t bp_f2i(float f) {\n"
    "  if (!(f == f)) return 0;\n"
    "  if (f >= 2147483520.0f) return INT32_MAX;\n"
    "  if (f <= -2147483648.0f) return INT32_MIN;\n"
    "  return (int32_t)f;\n"
    "}\n"
    "BP_HELPER int32_t bp_idiv(int32_t a, int32_t b) {\n"
    "  if (b == 0) return 0;\n"
    "  if (b == -1) return (int32_t)(0u - (uint32_t)a);\n"
    "  return a / b;\n"
    "}\n"
    "BP_HELPER int32_t bp_imax(int32_t a, int32_t b) {\n"
    "  return a > b ? a : b;\n"
    "}\n"
    "BP_HELPER int32_t bp_imin(int32_t a, int32_t b) {\n"
    "  return a < b ? a : b;\n"
    "}\n"
    "#define BP_IADD(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))\n"
    "#define BP_ISUB(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)))\n"
    "#define BP_IMUL(a, b) ((int32_t)((uint32_t)(a) * (uint32_t)(b)))\n"
    "#define BP_INEG(a) ((int32_t)(0u - (uint32_t)(a)))\n"
    "#define BP_IABS(a) ((a) < 0 ? BP_INEG(a) : (a))\n"
    "\n";

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

const char *te_storage_type(te_dtype_t dtype) {
  return dtype == TE_F32 ? "float" : dtype == TE_I32 ? "int32_t" : "uint16_t";
}

static int reduction_number(const lower_ctx_t *ctx, const te_node_t *node) {
  for (int i = 0; i < ctx->reduction_count; i++)
    if (ctx->reductions[i] == node)
      return i;
  return -1; /* not reached: emit_reductions numbered every one */
}

void te_emit_index(lower_ctx_t *ctx, const te_node_t *node) {
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
  te_emit_index(ctx, node);
  te_text_printf(ctx->text, "])");
}

/* How a binary op is written, "<open>a<middle>b)", for float ([0]) and
 * int ([1]) operands: integer arithmetic through the overflow-defined
 * helpers of te_integer_helpers; float max/min from the dialect (NULL). */
static const struct {
  const char *open[2], *middle[2];
} binary_forms[] = {
    [TE_ADD] = {{"(", "BP_IADD("}, {" + ", ", "}},
    [TE_SUB] = {{"(", "BP_ISUB("}, {" - ", ", "}},
    [TE_MUL] = {{"(", "BP_IMUL("}, {" * ", ", "}},
    [TE_DIV] = {{"(", "bp_idiv("}, {" / ", ", "}},
    [TE_MAX] = {{NULL, "bp_imax("}, {", ", ", "}},
    [TE_MIN] = {{NULL, "bp_imin("}, {", ", ", "}},
    [TE_LT] = {{"(", "("}, {" < ", " < "}},
    [TE_LE] = {{"(", "("}, {" <= ", " <= "}},
    [TE_GT] = {{"(", "("}, {" > ", " > "}},
    [TE_GE] = {{"(", "("}, {" >= ", " >= "}},
    [TE_EQ] = {{"(", "("}, {" == ", " == "}},
    [TE_NE] = {{"(", "("}, {" != ", " != "}},
    [TE_AND] = {{"(", "("}, {" != 0 && 0 != ", " != 0 && 0 != "}},
    [TE_OR] = {{"(", "("}, {" != 0 || 0 != ", " != 0 || 0 != "}},
};

static void emit_binary(lower_ctx_t *ctx, const te_node_t *node) {
  te_type_t type =
      node->args[0]->type == TE_FLOAT || node->args[1]->type == TE_FLOAT
          ? TE_FLOAT
          : TE_INT;
  int form = type == TE_FLOAT ? 0 : 1;
  const char *open = binary_forms[node->op].open[form];
  if (!open)
    open = node->op == TE_MAX ? ctx->dialect->fmax : ctx->dialect->fmin;
  te_text_printf(ctx->text, "%s", open);
  te_emit_expr(ctx, node->args[0], type);
  te_text_printf(ctx->text, "%s", binary_forms[node->op].middle[form]);
  te_emit_expr(ctx, node->args[1], type);
  te_text_printf(ctx->text, ")");
}

static void emit_op(lower_ctx_t *ctx, const te_node_t *node) {
  te_type_t arg_type = node->args[0]->type;
  switch (node->op) {
  case TE_NEG:
  case TE_ABS:
    te_text_printf(ctx->text, "%s(",
                   arg_type == TE_FLOAT
                       ? (node->op == TE_NEG ? "-" : ctx->dialect->fabs)
                       : (node->op == TE_NEG ? "BP_INEG" : "BP_IABS"));
    te_emit_expr(ctx, node->args[0], arg_type);
    te_text_printf(ctx->text, ")");
    return;
  case TE_EXP:
  case TE_LOG:
  case TE_SQRT:
  case TE_TANH:
  case TE_ERF:
    te_text_printf(ctx->text, "%s(", ctx->dialect->calls[node->op]);
    te_emit_expr(ctx, node->args[0], TE_FLOAT);
    te_text_printf(ctx->text, ")");
    return;
  case TE_NOT:
    te_text_printf(ctx->text, "(0 == ");
    te_emit_expr(ctx, node->args[0], arg_type);
    te_text_printf(ctx->text, ")");
    return;
  case TE_SELECT:
    te_text_printf(ctx->text, "(0 != ");
    te_emit_expr(ctx, node->args[0], arg_type);
    te_text_printf(ctx->text, " ? ");
    te_emit_expr(ctx, node->args[1], node->type);
    te_text_printf(ctx->text, " : ");
    te_emit_expr(ctx, node->args[2], node->type);
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
    te_emit_expr(ctx, node->args[0], node->type);
    te_text_printf(ctx->text, "%s", close);
    return;
  }
  default:
    emit_binary(ctx, node);
  }
}

void te_emit_expr(lower_ctx_t *ctx, const te_node_t *node, te_type_t to) {
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
  te_emit_expr(ctx, node->args[0], node->type);
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
  te_emit_expr(ctx, node->args[0], node->type);
  te_text_printf(ctx->text, ";\n");
  emit_combine(ctx, node->reduce, node->type, into, "x");
  te_text_printf(ctx->text, "}\n}\n");
  for (int r = 0; r + 1 < node->reduce_count; r++)
    te_text_printf(ctx->text, "}\n");
}

int te_has_reduction(const te_node_t *node) {
  if (node->kind == TE_NODE_REDUCE)
    return 1;
  for (int i = 0; i < node->arg_count; i++)
    if (te_has_reduction(node->args[i]))
      return 1;
  return 0;
}

void te_emit_stage_body(lower_ctx_t *ctx) {
  const te_tensor_t *stage = ctx->stage;
  ctx->reduction_count = 0;
  emit_reductions(ctx, stage->expr);
  te_node_t store = {.kind = TE_NODE_LOAD,
                     .tensor = (int)(stage - ctx->function->tensors),
                     .rank = stage->rank};
  for (int d = 0; d < stage->rank; d++)
    store.index[d].axis = d;
  te_text_printf(ctx->text, "t_%s[", stage->name);
  te_emit_index(ctx, &store);
  te_text_printf(ctx->text, "] = ");
  te_type_t type = stage->dtype == TE_I32 ? TE_INT : TE_FLOAT;
  const char *convert = stage->dtype == TE_F16    ? "bp_f32_to_f16("
                        : stage->dtype == TE_BF16 ? "bp_f32_to_bf16("
                                                  : "(";
  te_text_printf(ctx->text, "%s", convert);
  te_emit_expr(ctx, stage->expr, type);
  te_text_printf(ctx->text, ");\n");
}
