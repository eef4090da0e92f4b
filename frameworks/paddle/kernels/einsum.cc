/* einsum and its gradient for equations without "..." and without a label
 * repeated within one operand, each label of one size throughout, at most
 * BP_OPS_MAX_DIMS labels in all. Every operand is permuted into the order
 * of all the equation's labels (diopiPermute) and seen with unit dims for
 * the labels it lacks; out is their broadcast product (diopiMul) summed
 * over the labels out lacks (diopiSum), permuted into out's order. An
 * operand's gradient is out_grad so broadcast times the other operands,
 * summed over the labels that operand lacks. The product spans every label
 * (for a matrix product, i x j x k elements): simple, not fast. No implicit
 * output means the labels seen once, in alphabetical order. Paddle hands
 * the gradient kernel the forward's xshape outputs (shaped as the
 * operands) and inner_cache (its CPU kernel's intermediates), not the
 * operands: the forward copies each operand into its xshape, and gives
 * inner_cache one element each. */
#include <ctype.h>

#include <string>
#include <vector>

#include "kernel_call.h"

namespace bridge {

struct einsum_plan {
  std::vector<std::string> terms; /* the operands' labels */
  std::string output;             /* out's labels */
  std::string labels;             /* every label, first seen first */
  int64_t size[128];              /* of each label, by its character */
};

static einsum_plan einsum_parse(KernelCall &call, const std::string &equation,
                                const std::vector<PD_Tensor *> &operands) {
  einsum_plan p;
  std::string spec;
  for (char c : equation)
    if (c != ' ')
      spec += c;
  if (spec.find("...") != std::string::npos)
    call.fail("equation %s: '...' is not supported", equation.c_str());
  size_t arrow = spec.find("->");
  std::string inputs = spec.substr(0, arrow);
  for (size_t start = 0;;) {
    size_t comma = inputs.find(',', start);
    p.terms.push_back(inputs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (p.terms.size() != operands.size())
    call.fail("equation %s: %zu terms for %zu operands", equation.c_str(),
              p.terms.size(), operands.size());
  int seen[128] = {0};
  for (size_t k = 0; k < p.terms.size(); k++) {
    int64_t dims[BP_OPS_MAX_DIMS];
    int ndim = kernel_dims(operands[k], dims);
    const std::string &t = p.terms[k];
    if ((int)t.size() != ndim)
      call.fail("equation %s: term %s for an operand of %d dims",
                equation.c_str(), t.c_str(), ndim);
    for (int d = 0; d < ndim; d++) {
      unsigned char c = (unsigned char)t[d];
      if (c >= 128 || !isalpha(c))
        call.fail("equation %s: label '%c' is not a letter", equation.c_str(),
                  t[d]);
      if (t.find(t[d]) != (size_t)d)
        call.fail("equation %s: label '%c' repeats within a term",
                  equation.c_str(), t[d]);
      if (seen[c] == 0) {
        p.labels += t[d];
        p.size[c] = dims[d];
      } else if (p.size[c] != dims[d]) {
        call.fail("equation %s: label '%c' has sizes %lld and %lld",
                  equation.c_str(), t[d], (long long)p.size[c],
                  (long long)dims[d]);
      }
      seen[c]++;
    }
  }
  if (arrow == std::string::npos) {
    for (int c = 0; c < 128; c++)
      if (seen[c] == 1)
        p.output += (char)c;
  } else {
    p.output = spec.substr(arrow + 2);
    for (char c : p.output)
      if (seen[(unsigned char)c] == 0 || p.output.find(c) != p.output.rfind(c))
        call.fail("equation %s: output label '%c' is not an input label, or "
                  "repeats",
                  equation.c_str(), c);
  }
  if (p.labels.size() > BP_OPS_MAX_DIMS)
    call.fail("equation %s: %zu labels (at most %d)", equation.c_str(),
              p.labels.size(), BP_OPS_MAX_DIMS);
  return p;
}

/* `t` with labels `term` as a view of all the labels' order: permuted into
 * scratch (when its order differs) and unit dims where it lacks a label.
 * `shape` receives that view's dims. */
static diopiConstTensorHandle_t
in_label_order(KernelCall &call, diopiConstTensorHandle_t t,
               const std::string &term, const einsum_plan &p,
               diopiDtype_t dtype, int64_t *shape) {
  int64_t order[BP_OPS_MAX_DIMS], dims[BP_OPS_MAX_DIMS];
  int n = 0;
  bool same = true;
  for (char c : p.labels) {
    size_t at = term.find(c);
    if (at == std::string::npos)
      continue;
    same = same && at == (size_t)n;
    order[n] = (int64_t)at;
    dims[n++] = p.size[(unsigned char)c];
  }
  const void *data = NULL;
  if (same || n == 0) {
    diopiGetTensorDataConst(t, &data);
  } else {
    diopiTensorHandle_t permuted = call.temp(dtype, n, dims);
    diopiSize_t perm = {order, n};
    call.check(DIOPI(call, diopiPermute)(call.diopi(), permuted, t, perm),
               "diopiPermute");
    diopiGetTensorDataConst(permuted, &data);
  }
  int k = 0;
  for (char c : p.labels)
    shape[k++] =
        term.find(c) == std::string::npos ? 1 : p.size[(unsigned char)c];
  return call.wrap_data((void *)data, dtype, (int)p.labels.size(), shape, NULL);
}

/* dst (labels `term`) = `full` (every label) summed over the labels term
 * lacks, permuted into term's order. */
static void sum_into(KernelCall &call, diopiConstTensorHandle_t full,
                     const einsum_plan &p, const std::string &term,
                     diopiDtype_t dtype, PD_Tensor *dst) {
  int64_t summed[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS],
      order[BP_OPS_MAX_DIMS];
  int ns = 0, nk = 0;
  std::string kept_labels;
  for (size_t d = 0; d < p.labels.size(); d++) {
    if (term.find(p.labels[d]) == std::string::npos) {
      summed[ns++] = (int64_t)d;
    } else {
      kept[nk++] = p.size[(unsigned char)p.labels[d]];
      kept_labels += p.labels[d];
    }
  }
  call.alloc(dst);
  bool same = kept_labels == term;
  diopiTensorHandle_t reduced =
      same ? call.wrap(dst, nk, kept) : call.temp(dtype, nk, kept);
  if (ns > 0) {
    diopiSize_t dims = {summed, ns};
    call.check(DIOPI(call, diopiSum)(call.diopi(), reduced, full, dims),
               "diopiSum");
  } else {
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), full, reduced),
               "diopiCopyInp");
  }
  if (same)
    return;
  for (size_t d = 0; d < term.size(); d++)
    order[d] = (int64_t)kept_labels.find(term[d]);
  diopiSize_t perm = {order, (int64_t)term.size()};
  call.check(
      DIOPI(call, diopiPermute)(call.diopi(), call.wrap(dst), reduced, perm),
      "diopiPermute");
}

/* The broadcast product of `first` and the operands other than `skip`
 * (-1: none), every label's size, as scratch. */
static diopiTensorHandle_t product(KernelCall &call, const einsum_plan &p,
                                   diopiConstTensorHandle_t first,
                                   const std::vector<PD_Tensor *> &operands,
                                   int skip, diopiDtype_t dtype) {
  int64_t full[BP_OPS_MAX_DIMS], shape[BP_OPS_MAX_DIMS];
  int n = (int)p.labels.size();
  for (int d = 0; d < n; d++)
    full[d] = p.size[(unsigned char)p.labels[d]];
  diopiTensorHandle_t acc = call.temp(dtype, n, full);
  call.check(DIOPI(call, diopiExpand)(call.diopi(), acc, first), "diopiExpand");
  for (size_t k = 0; k < operands.size(); k++) {
    if ((int)k == skip)
      continue;
    diopiConstTensorHandle_t v = in_label_order(call, call.wrap(operands[k]),
                                                p.terms[k], p, dtype, shape);
    call.check(DIOPI(call, diopiMulInp)(call.diopi(), acc, v), "diopiMulInp");
  }
  return acc;
}

static std::vector<PD_Tensor *>
handles(const std::vector<const phi::DenseTensor *> &ts) {
  std::vector<PD_Tensor *> out;
  for (const phi::DenseTensor *t : ts)
    out.push_back(pd(t));
  return out;
}

template <typename T>
void EinsumKernel(const phi::Context &dev_ctx,
                  const std::vector<const phi::DenseTensor *> &inputs,
                  const std::string &equation, phi::DenseTensor *out,
                  std::vector<phi::DenseTensor *> inner_cache,
                  std::vector<phi::DenseTensor *> xshape) {
  KernelCall call(dev_ctx, "einsum", kernel_dtype_of<T>());
  std::vector<PD_Tensor *> operands = handles(inputs);
  if (operands.empty())
    call.fail("no operands");
  einsum_plan p = einsum_parse(call, equation, operands);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  diopiConstTensorHandle_t first =
      in_label_order(call, call.wrap(operands[0]), p.terms[0], p, dtype, shape);
  diopiTensorHandle_t full = product(call, p, first, operands, 0, dtype);
  sum_into(call, full, p, p.output, dtype, pd(out));
  /* The gradient reads the operands from xshape (Paddle hands it xshape,
   * not x); inner_cache goes unused. */
  int64_t one = 1;
  for (phi::DenseTensor *unused : inner_cache)
    call.alloc(pd(unused), 1, &one);
  for (size_t k = 0; k < xshape.size() && k < operands.size(); k++)
    if (pd(xshape[k]))
      call.check(DIOPI(call, diopiCopyInp)(call.diopi(), call.wrap(operands[k]),
                                           call.alloc(pd(xshape[k]))),
                 "diopiCopyInp");
}

template <typename T>
void EinsumGradKernel(const phi::Context &dev_ctx,
                      const std::vector<const phi::DenseTensor *> &xshape,
                      const std::vector<const phi::DenseTensor *> &inner_cache,
                      const phi::DenseTensor &out_grad,
                      const std::string &equation,
                      std::vector<phi::DenseTensor *> x_grad) {
  KernelCall call(dev_ctx, "einsum_grad", kernel_dtype_of<T>());
  std::vector<PD_Tensor *> operands = handles(xshape);
  einsum_plan p = einsum_parse(call, equation, operands);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  diopiConstTensorHandle_t g =
      in_label_order(call, call.wrap(pd(out_grad)), p.output, p, dtype, shape);
  for (size_t k = 0; k < operands.size() && k < x_grad.size(); k++) {
    if (pd(x_grad[k]) == NULL)
      continue;
    diopiTensorHandle_t full = product(call, p, g, operands, (int)k, dtype);
    sum_into(call, full, p, p.terms[k], dtype, pd(x_grad[k]));
  }
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(einsum, backplane, ALL_LAYOUT, bridge::EinsumKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(einsum_grad, backplane, ALL_LAYOUT,
                    bridge::EinsumGradKernel, BRIDGE_FLOAT_DTYPES) {}
