#!/usr/bin/python3
"""Writes op conformance cases generated from DeepLink DIOPI's own test
configurations (diopi_test/python/configs/diopi_configs.py) under
tests/data/ops_diopi/, one gzip-compressed case file per op, in the format
of scripts/make_op_baselines.py (`backplane optest --data` reads both).

    BP_DIOPI_SOURCE_DIR=/path/to/DIOPI /usr/bin/python3 \
        scripts/make_diopi_config_cases.py [--lib build/lib/backplane/ops/libbackplane_ops_ref.so]

Cases are expanded the way DIOPI-TEST's config parser does: the i-th shape
of every tensor argument and the i-th value of every `para` list make one
case, repeated for each dtype of the entry; entries with explicit `stride`s
become strided views of a larger storage, and arguments marked
`no_contiguous` are generated and then transposed. PyTorch (CPU) is the
oracle: float16/bfloat16 cases are computed in float32 and rounded, as the
half kernels of PyTorch's CPU build are partial. Tolerances are the entry's
atol/rtol (atol_half/rtol_half for 16-bit floats), else DIOPI's defaults.
An entry whose tensor arguments have `requires_grad` also gets, as
DIOPI-TEST runs it, a case of the op's backward function (BACKWARDS): the
gradients of the forward's first output against a grad_output of ones,
from the same inputs. Each entry draws its inputs from its own generator
(seeded by the entry's key and op name), so adding a builder leaves every
other entry's cases as they were.

Only DIOPI's configuration is read (from the checkout named by
BP_DIOPI_SOURCE_DIR); none of its code is copied here. The DIOPI config
names this script knows how to call are in BUILDERS (and BACKWARDS); an op
the reference
library does not export (checked with ctypes against --lib) is skipped and
listed, as is every case whose tensors exceed MAX_CASE_BYTES (DIOPI's
largest shapes hold hundreds of megabytes; the stored files stay small).
"""
import argparse
import gzip
import zlib
import os
import struct
import sys
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_op_baselines as base  # noqa: E402  (Case and the file format)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "data", "ops_diopi")
MAX_CASE_BYTES = 32 * 1024
DEFAULT_TOL = dict(atol=1e-5, rtol=1e-5, atol_half=1e-2, rtol_half=5e-2)

NP_TO_TORCH = {np.float16: torch.float16, np.float32: torch.float32,
               np.float64: torch.float64, np.int8: torch.int8,
               np.int16: torch.int16, np.int32: torch.int32,
               np.int64: torch.int64, np.uint8: torch.uint8,
               np.bool_: torch.bool}
DIOPI_DTYPE = {torch.int8: 0, torch.uint8: 1, torch.int16: 2, torch.int32: 4,
               torch.int64: 6, torch.float16: 8, torch.float32: 9,
               torch.float64: 10, torch.bool: 11, torch.bfloat16: 12}
SHORT = {torch.int8: "i8", torch.uint8: "u8", torch.int16: "i16",
         torch.int32: "i32", torch.int64: "i64", torch.float16: "f16",
         torch.float32: "f32", torch.float64: "f64", torch.bool: "bool",
         torch.bfloat16: "bf16"}
base.DTYPES.update(DIOPI_DTYPE)


class Unsupported(Exception):
    """A configured case this generator cannot express (reason in args)."""


# ---------------------------------------------------------------- inputs

def generate(gen_fn, shape, dtype, rng):
    """Values as DIOPI's Genfunc makes them (numpy), for a torch dtype."""
    spec = gen_fn if isinstance(gen_fn, dict) else {"fn": gen_fn}
    fn = (spec.get("fn") or "Genfunc.randn").split(".")[-1]
    low, high = spec.get("low", 0), spec.get("high", 10)
    if fn in ("randn", "randn_int"):
        v = rng.standard_normal(shape)
    elif fn == "rand":
        v = rng.random(shape)
    elif fn == "positive":
        v = np.abs(rng.standard_normal(shape))
    elif fn in ("zeros", "empty"):
        v = np.zeros(shape)
    elif fn == "ones":
        v = np.ones(shape)
    elif fn == "mask":
        v = rng.integers(0, 2, shape)
    elif fn == "randint":
        v = rng.integers(0 if dtype == torch.uint8 else low, high, shape)
    elif fn == "uniform":
        v = rng.uniform(low, high, shape)
    else:
        raise Unsupported(f"gen_fn {fn}")
    t = torch.from_numpy(np.asarray(v, dtype=np.float64))
    if dtype in (torch.float16, torch.float32, torch.float64, torch.bfloat16):
        return t.to(dtype)
    if dtype == torch.bool:
        return t != 0
    return t.to(torch.int64).to(dtype) if fn != "randn" else t.to(dtype)


def place(t, stride, no_contiguous):
    """t as DIOPI lays it out: a strided view or a transposed copy."""
    if stride is not None:
        extent = 1 + sum((n - 1) * s for n, s in zip(t.shape, stride))
        storage = torch.zeros(max(extent, 1), dtype=t.dtype)
        view = storage.as_strided(t.shape, stride)
        view.copy_(t)
        return view
    if no_contiguous and t.dim() > 1:
        return t.permute(*reversed(range(t.dim()))).contiguous().permute(
            *reversed(range(t.dim())))
    return t


def expand(entry):
    """DIOPI-TEST's expansion: [(dtype, para, {name: arg})] per case. The
    j-th shape of every argument and the j-th value of every para list make
    case j; each is repeated for the i-th dtype of the dtype lists (an
    argument's own list, else the entry's; a list of one serves every i)."""
    args = []
    for arg in entry["tensor_para"]["args"]:
        for name in arg["ins"]:
            one = dict(arg)
            one["ins"] = name
            args.append(one)
    if not args:
        raise Unsupported("no tensor arguments")
    count = len(args[0].get("shape", args[0].get("value", ())))
    para = entry.get("para", {})
    lists = [a["dtype"] for a in args if a.get("dtype")]
    n_dtypes = max([len(d) for d in lists] + [len(entry.get("dtype") or [0])])

    def dtype_of(a, i):
        d = a.get("dtype") or entry.get("dtype") or [np.float32]
        return d[i] if len(d) > 1 else d[0]
    cases = []
    for i in range(n_dtypes):
        for j in range(count):
            p = {k: v[j] for k, v in para.items() if j < len(v)}
            ins = {}
            for a in args:
                strides = a.get("stride")
                ins[a["ins"]] = dict(
                    shape=a["shape"][j] if "shape" in a else None,
                    dtype=NP_TO_TORCH[np.dtype(dtype_of(a, i)).type],
                    gen_fn=a.get("gen_fn", "Genfunc.randn"),
                    stride=strides[j] if strides and j < len(strides)
                    else None,
                    no_contiguous=a.get("no_contiguous", False),
                    requires_grad=bool((a.get("requires_grad") or
                                        [False])[0]),
                    value=a["value"][j] if "value" in a else None)
            cases.append((ins[args[0]["ins"]]["dtype"], p, ins))
    return cases


def make_inputs(ins, rng):
    out = {}
    for name, a in ins.items():
        if a["shape"] is None and a["value"] is None:
            out[name] = None
        elif a["value"] is not None:
            out[name] = torch.tensor(a["value"]).to(a["dtype"])
        else:
            t = generate(a["gen_fn"], tuple(a["shape"]), a["dtype"], rng)
            out[name] = place(t, a["stride"], a["no_contiguous"])
    return out


# ---------------------------------------------------------------- oracles

def oracle(fn, *tensors):
    """fn on the inputs, 16-bit floats computed in float32 and rounded."""
    half = [t is not None and t.dtype in (torch.float16, torch.bfloat16)
            for t in tensors]
    lifted = [t.float() if h else t for t, h in zip(tensors, half)]
    y = fn(*lifted)
    if any(half):
        dt = next(t.dtype for t, h in zip(tensors, half) if h)
        cast = (lambda v: v.to(dt) if v.is_floating_point() else v)
        y = tuple(cast(v) for v in y) if isinstance(y, tuple) else cast(y)
    return y


def pair(v):
    return list(v) if isinstance(v, (list, tuple)) else [v, v]


def unary(op, torch_fn):
    def build(name, p, x, inplace):
        if x["input"] is None:
            raise Unsupported("no input")
        t = x["input"]
        y = oracle(torch_fn, t)
        cases = [(op, lambda c: c.output("out", y).input("input", t))]
        if inplace:
            cases.append((op + "Inp", lambda c: c.inplace(
                "input", t.contiguous(), y)))
        return cases
    return build


def binary(op, torch_fn, scalar_op, with_alpha):
    def build(name, p, x, inplace):
        a, other = x["input"], x.get("other")
        alpha = p.get("alpha", 1)
        attrs = [("alpha", alpha)] if with_alpha else []
        if "rounding_mode" in p:
            mode = p["rounding_mode"]
            attrs = [("rounding_mode", {None: 0, "trunc": 1, "floor": 2}[mode])]
            kw = dict(rounding_mode=mode)
        else:
            kw = dict(alpha=alpha) if with_alpha else {}
        if other is None:
            value = p.get("other")
            if value is None:
                raise Unsupported("no other")
            y = oracle(lambda u: torch_fn(u, value, **kw), a)
            return [(scalar_op, lambda c: add_attrs(
                c.output("out", y).input("input", a).attr("other", value),
                attrs))]
        y = oracle(lambda u, v: torch_fn(u, v, **kw), a, other)
        cases = [(op, lambda c: add_attrs(
            c.output("out", y).input("input", a).input("other", other),
            attrs))]
        if inplace and tuple(y.shape) == tuple(a.shape) and y.dtype == a.dtype:
            cases.append((op + "Inp", lambda c: add_attrs(
                c.inplace("input", a.contiguous(), y).input("other", other),
                attrs)))
        return cases
    return build


def add_attrs(c, attrs):
    for k, v in attrs:
        c.attr(k, v)
    return c


def softmax_like(op, torch_fn):
    def build(name, p, x, inplace):
        t, dim = x["input"], p.get("dim", -1)
        y = oracle(lambda u: torch_fn(u, dim), t)
        return [(op, lambda c: c.output("out", y).input("input", t)
                 .attr("dim", dim))]
    return build


def matmul_like(op, second):
    def build(name, p, x, inplace):
        a, b = x["input"], x[second]
        y = oracle(torch.matmul, a, b)
        return [(op, lambda c: c.output("out", y).input("input", a)
                 .input(second, b))]
    return build


def build_addmm(name, p, x, inplace):
    i, m1, m2 = x["input"], x["mat1"], x["mat2"]
    beta, alpha = p.get("beta", 1), p.get("alpha", 1)
    y = oracle(lambda u, v, w: torch.addmm(u, v, w, beta=beta, alpha=alpha),
               i, m1, m2)
    return [("diopiAddmm", lambda c: c.output("out", y).input("input", i)
             .input("mat1", m1).input("mat2", m2).attr("beta", float(beta))
             .attr("alpha", float(alpha)))]


def build_linear(name, p, x, inplace):
    i, w, b = x["input"], x["weight"], x.get("bias")
    y = oracle(F.linear, i, w, b)

    def fill(c):
        c.output("out", y).input("input", i).input("weight", w)
        return c.input("bias", b) if b is not None else c
    return [("diopiLinear", fill)]


def build_conv2d(name, p, x, inplace):
    i, w, b = x["input"], x["weight"], x.get("bias")
    if i.dim() != 4:
        raise Unsupported("conv2d input not 4-d")
    st, pad = pair(p.get("stride", 1)), pair(p.get("padding", 0))
    dil, groups = pair(p.get("dilation", 1)), p.get("groups", 1)
    y = oracle(lambda u, v, z: F.conv2d(u, v, z, st, pad, dil, groups), i, w, b)

    def fill(c):
        c.output("out", y).input("input", i).input("weight", w)
        if b is not None:
            c.input("bias", b)
        return c.attr("stride", st).attr("padding", pad).attr(
            "dilation", dil).attr("groups", groups)
    return [("diopiConvolution2d", fill)]


def build_max_pool2d(name, p, x, inplace):
    t = x["input"]
    k = pair(p["kernel_size"])
    st = pair(p.get("stride") or k)
    pad, dil = pair(p.get("padding", 0)), pair(p.get("dilation", 1))
    ceil = bool(p.get("ceil_mode", False))
    y, idx = oracle(lambda u: F.max_pool2d(u, k, st, pad, dil, ceil_mode=ceil,
                                           return_indices=True), t)
    attrs = [("kernel_size", k), ("stride", st), ("padding", pad),
             ("dilation", dil), ("ceil_mode", ceil)]
    if p.get("return_indices"):
        return [("diopiMaxPool2dWithIndices", lambda c: add_attrs(
            c.output("out", y).output("indices", idx).input("input", t),
            attrs))]
    return [("diopiMaxPool2d", lambda c: add_attrs(
        c.output("out", y).input("input", t), attrs))]


def build_adaptive_avg_pool2d(name, p, x, inplace):
    t = x["input"]
    size = pair(p["output_size"])
    size = [t.shape[-2 + k] if s is None else s for k, s in enumerate(size)]
    y = oracle(lambda u: F.adaptive_avg_pool2d(u, size), t)
    return [("diopiAdaptiveAvgPool2d", lambda c: c.output("out", y)
             .input("input", t).attr("output_size", size))]


def build_layer_norm(name, p, x, inplace):
    t, w, b = x["input"], x.get("weight"), x.get("bias")
    norm, eps = list(p["normalized_shape"]), p.get("eps", 1e-5)
    y, mean, rstd = oracle(lambda u, v, z: torch.native_layer_norm(
        u, norm, v, z, eps), t, w, b)
    outer = list(t.shape[:t.dim() - len(norm)])

    def fill(c):
        c.output("out", y).output("save_mean", mean.float().reshape(outer))
        c.output("save_invstd", rstd.float().reshape(outer)).input("input", t)
        if w is not None:
            c.input("weight", w)
        if b is not None:
            c.input("bias", b)
        return c.attr("normalized_shape", norm).attr("eps", float(eps))
    if t.dtype == torch.float64:
        fill_f64 = fill

        def fill(c):  # noqa: F811  (double statistics for double inputs)
            fill_f64(c)
            for k, (role, kind, like, st, e) in enumerate(c.tensors):
                if role in ("save_mean", "save_invstd"):
                    c.tensors[k] = (role, kind, e.double(), st, e.double())
            return c
    return [("diopiLayerNorm", fill)]


def build_reduce(op, torch_fn):
    def build(name, p, x, inplace):
        t = x["input"]
        if "dtype" in p or p.get("keepdim"):
            raise Unsupported("dtype/keepdim forms")
        dim = p.get("dim")
        dims = [] if dim is None else ([dim] if isinstance(dim, int)
                                       else list(dim))
        y = oracle(lambda u: torch_fn(u, dim=dims) if dims else torch_fn(u), t)
        return [(op, lambda c: c.output("out", y).input("input", t)
                 .attr("dim", dims))]
    return build


def build_fill(name, p, x, inplace):
    t, value = x["input"], p["value"]
    if isinstance(value, bool):
        value = int(value)
    y = t.clone().fill_(value)
    return [("diopiFill", lambda c: c.inplace("input", t.contiguous(), y)
             .attr("value", value))]


def build_index_select(name, p, x, inplace):
    t, index, dim = x["input"], x["index"], p["dim"]
    y = torch.index_select(t, dim, index.long())
    return [("diopiIndexSelect", lambda c: c.output("out", y)
             .input("input", t).input("index", index).attr("dim", dim))]


def build_transpose(name, p, x, inplace):
    t, d0, d1 = x["input"], p["dim0"], p["dim1"]
    y = torch.transpose(t, d0, d1).contiguous()
    return [("diopiTranspose", lambda c: c.output("out", y).input("input", t)
             .attr("dim0", d0).attr("dim1", d1))]


def build_permute(name, p, x, inplace):
    t, dims = x["input"], list(p["dims"])
    y = t.permute(dims).contiguous()
    return [("diopiPermute", lambda c: c.output("out", y).input("input", t)
             .attr("dims", dims))]


def build_gelu(name, p, x, inplace):
    t, approx = x["input"], p.get("approximate", "none")
    y = oracle(lambda u: F.gelu(u, approximate=approx), t)
    return [("diopiGelu", lambda c: c.output("out", y).input("input", t)
             .attr("approximate", approx))]


REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def build_nll_loss(name, p, x, inplace):
    i, t, w = x["input"], x["target"], x.get("weight")
    red, ignore = p.get("reduction", "mean"), p.get("ignore_index", -100)
    y = oracle(lambda u, v: F.nll_loss(u, t, v, ignore_index=ignore,
                                       reduction=red), i, w)

    def fill(c):
        c.output("out", y).input("input", i).input("target", t)
        if w is not None:
            c.input("weight", w)
        return c.attr("reduction", REDUCTION[red]).attr("ignore_index", ignore)
    return [("diopiNLLLoss", fill)]


def total_weight(t, w, ignore, red, dtype):
    """PyTorch's nll_loss total weight (nll_loss_forward's second result):
    the summed class weights of the targets not ignored, 0 for none."""
    keep = t[t != ignore].long()
    total = 0.0 if red == "none" else float(
        w.double()[keep].sum() if w is not None else keep.numel())
    return torch.tensor([total], dtype=dtype)


def build_nll_loss_v2(name, p, x, inplace):
    i, t, w = x["input"], x["target"], x.get("weight")
    red, ignore = p.get("reduction", "mean"), p.get("ignore_index", -100)
    y = oracle(lambda u, v: F.nll_loss(u, t, v, ignore_index=ignore,
                                       reduction=red), i, w)
    total = total_weight(t, w, ignore, red, i.dtype)

    def fill(c):
        c.output("out", y).output("totalWeight", total).input("input", i)
        c.input("target", t)
        if w is not None:
            c.input("weight", w)
        return c.attr("reduction", REDUCTION[red]).attr("ignore_index", ignore)
    return [("diopiNLLLossV2", fill)]


def build_dropout2d(name, p, x, inplace):
    """Channel dropout as DIOPI-TEST calls it (diopiDropout with a mask of
    the input's first two dims and 1s), judged by rule: no reference
    output exists for another library's random numbers."""
    t, prob = x["input"], p.get("p", 0.5)
    if t.dim() < 3:
        raise Unsupported("dropout2d of fewer than 3 dims")
    mshape = list(t.shape[:2]) + [1] * (t.dim() - 2)
    return [("diopiDropout", lambda c: c.unjudged("out", torch.empty_like(t))
             .unjudged("mask", torch.empty(mshape, dtype=torch.uint8))
             .input("input", t).attr("p", prob).attr("train", True)
             .attr("seed", 25).attr("judge", "dropout"))]


BUILDERS = {
    "relu": unary("diopiRelu", torch.relu),
    "sigmoid": unary("diopiSigmoid", torch.sigmoid),
    "tanh": unary("diopiTanh", torch.tanh),
    "silu": unary("diopiSilu", F.silu),
    "gelu": build_gelu,
    "add": binary("diopiAdd", torch.add, "diopiAddScalar", True),
    "sub": binary("diopiSub", torch.sub, "diopiSubScalar", True),
    "mul": binary("diopiMul", torch.mul, "diopiMulScalar", False),
    "div": binary("diopiDiv", torch.div, "diopiDivScalar", False),
    "softmax": softmax_like("diopiSoftmax", torch.softmax),
    "log_softmax": softmax_like("diopiLogSoftmax", torch.log_softmax),
    "mm": matmul_like("diopiMm", "mat2"),
    "bmm": matmul_like("diopiBmm", "mat2"),
    "matmul": matmul_like("diopiMatmul", "other"),
    "addmm": build_addmm,
    "linear": build_linear,
    "conv2d": build_conv2d,
    "max_pool2d": build_max_pool2d,
    "adaptive_avg_pool2d": build_adaptive_avg_pool2d,
    "layer_norm": build_layer_norm,
    "sum": build_reduce("diopiSum", torch.sum),
    "mean": build_reduce("diopiMean", torch.mean),
    "fill_": build_fill,
    "index_select": build_index_select,
    "transpose": build_transpose,
    "permute": build_permute,
    "nll_loss": build_nll_loss,
    "nll_loss_v2": build_nll_loss_v2,
    "dropout2d": build_dropout2d,
}


# ---------------------------------------------------------------- backwards

def grads(fn, inputs, wanted):
    """DIOPI-TEST's backward of fn(**inputs): the gradients, against a
    grad_output of ones, of its (first) output with respect to the inputs
    named in `wanted`, 16-bit floats computed in float32 and rounded back.
    Returns (output, grad_output, {name: gradient})."""
    lifted = {}
    for k, t in inputs.items():
        if t is not None and t.dtype in (torch.float16, torch.bfloat16):
            t = t.float()
        if t is not None and k in wanted:
            t = t.detach().clone().requires_grad_()
        lifted[k] = t
    y = fn(**lifted)
    first = y[0] if isinstance(y, tuple) else y
    go = torch.ones_like(first)
    names = [k for k in wanted if lifted.get(k) is not None]
    got = torch.autograd.grad(first, [lifted[k] for k in names], go,
                              allow_unused=True)
    out = {}
    for k, g in zip(names, got):
        g = torch.zeros_like(lifted[k]) if g is None else g
        out[k] = g.to(inputs[k].dtype)
    dt = next((t.dtype for t in inputs.values() if t is not None and
               t.is_floating_point()), first.dtype)
    cast = (lambda v: v.detach().to(dt) if v.is_floating_point()
            else v.detach())
    y = tuple(cast(v) for v in y) if isinstance(y, tuple) else cast(y)
    return y, go.to(dt), out


def backward_saved(op, fn, saved):
    """grad_input from grad_output and the forward's `saved` ("input" or
    "output"): the activations' backwards."""
    def build(name, p, x, wanted):
        t = x["input"]
        y, go, g = grads(lambda input: fn(input, p), {"input": t}, wanted)
        keep = t if saved == "input" else y
        return [(op, lambda c: c.output("grad_input", g["input"])
                 .input("grad_output", go).input(saved, keep))]
    return build


def backward_gelu(name, p, x, wanted):
    t, approx = x["input"], p.get("approximate", "none")
    y, go, g = grads(lambda input: F.gelu(input, approximate=approx),
                     {"input": t}, wanted)
    return [("diopiGeluBackward", lambda c: c.output("grad_input", g["input"])
             .input("grad_output", go).input("input", t)
             .attr("approximate", approx))]


def backward_softmax(op, torch_fn):
    def build(name, p, x, wanted):
        t, dim = x["input"], p.get("dim", -1)
        y, go, g = grads(lambda input: torch_fn(input, dim), {"input": t},
                         wanted)
        return [(op, lambda c: c.output("grad_input", g["input"])
                 .input("grad_output", go).input("output", y)
                 .attr("dim", dim))]
    return build


def backward_conv2d(name, p, x, wanted):
    i, w, b = x["input"], x["weight"], x.get("bias")
    if i.dim() != 4:
        raise Unsupported("conv2d input not 4-d")
    st, pad = pair(p.get("stride", 1)), pair(p.get("padding", 0))
    dil, groups = pair(p.get("dilation", 1)), p.get("groups", 1)
    y, go, g = grads(lambda input, weight, bias: F.conv2d(
        input, weight, bias, st, pad, dil, groups),
        {"input": i, "weight": w, "bias": b}, ("input", "weight", "bias"))

    def fill(c):
        c.output("grad_input", g["input"]).output("grad_weight", g["weight"])
        if b is not None:
            c.output("grad_bias", g["bias"])
        c.input("grad_output", go).input("input", i).input("weight", w)
        return add_attrs(c, [("bias_sizes", list(b.shape) if b is not None
                              else []), ("stride", st), ("padding", pad),
                             ("dilation", dil), ("groups", groups)])
    return [("diopiConvolution2dBackward", fill)]


def backward_max_pool2d(name, p, x, wanted):
    t = x["input"]
    k = pair(p["kernel_size"])
    st = pair(p.get("stride") or k)
    pad, dil = pair(p.get("padding", 0)), pair(p.get("dilation", 1))
    ceil = bool(p.get("ceil_mode", False))
    y, go, g = grads(lambda input: F.max_pool2d(
        input, k, st, pad, dil, ceil_mode=ceil, return_indices=True),
        {"input": t}, wanted)
    attrs = [("kernel_size", k), ("stride", st), ("padding", pad),
             ("dilation", dil), ("ceil_mode", ceil)]
    return [("diopiMaxPool2dBackward", lambda c: add_attrs(
        c.output("grad_input", g["input"]).input("grad_output", go)
        .input("input", t).input("indices", y[1]), attrs))]


def backward_adaptive_avg_pool2d(name, p, x, wanted):
    t = x["input"]
    size = pair(p["output_size"])
    size = [t.shape[-2 + k] if s is None else s for k, s in enumerate(size)]
    y, go, g = grads(lambda input: F.adaptive_avg_pool2d(input, size),
                     {"input": t}, wanted)
    return [("diopiAdaptiveAvgPool2dBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad_output", go).input("input", t))]


def backward_layer_norm(name, p, x, wanted):
    t, w, b = x["input"], x.get("weight"), x.get("bias")
    norm, eps = list(p["normalized_shape"]), p.get("eps", 1e-5)
    y, go, g = grads(lambda input, weight, bias: torch.native_layer_norm(
        input, norm, weight, bias, eps), {"input": t, "weight": w, "bias": b},
        ("input", "weight", "bias"))
    outer = list(t.shape[:t.dim() - len(norm)])
    stats = torch.float64 if t.dtype == torch.float64 else torch.float32
    mean, rstd = (v.to(stats).reshape(outer) for v in y[1:])

    def fill(c):
        c.output("grad_input", g["input"])
        if w is not None:
            c.output("grad_weight", g["weight"])
        if b is not None:
            c.output("grad_bias", g["bias"])
        c.input("grad_output", go).input("input", t)
        if w is not None:
            c.input("weight", w)
        if b is not None:
            c.input("bias", b)
        c.input("mean", mean).input("rstd", rstd)
        return c.attr("normalized_shape", norm)
    return [("diopiLayerNormBackward", fill)]


def backward_linear(name, p, x, wanted):
    i, w, b = x["input"], x["weight"], x.get("bias")
    y, go, g = grads(lambda input, weight, bias: F.linear(input, weight, bias),
                     {"input": i, "weight": w, "bias": b},
                     ("input", "weight", "bias"))

    def fill(c):
        c.output("grad_input", g["input"]).output("grad_weight", g["weight"])
        if b is not None:
            c.output("grad_bias", g["bias"])
        return c.input("grad_output", go).input("input", i).input("weight", w)
    return [("diopiLinearBackward", fill)]


def backward_index_select(name, p, x, wanted):
    t, index, dim = x["input"], x["index"], p["dim"]
    if not t.is_floating_point():
        return []  # no gradient of an integer input
    y, go, g = grads(lambda input: torch.index_select(input, dim,
                                                      index.long()),
                     {"input": t}, ("input",))
    return [("diopiIndexSelectBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad", go).input("index", index)
        .attr("input_sizes", list(t.shape)).attr("dim", dim))]


def backward_nll_loss(name, p, x, wanted):
    i, t, w = x["input"], x["target"], x.get("weight")
    red, ignore = p.get("reduction", "mean"), p.get("ignore_index", -100)
    y, go, g = grads(lambda input, weight: F.nll_loss(
        input, t, weight, ignore_index=ignore, reduction=red),
        {"input": i, "weight": w}, ("input",))

    def fill(c):
        c.output("grad_input", g["input"]).input("grad_output", go)
        c.input("input", i).input("target", t)
        if w is not None:
            c.input("weight", w)
        return c.attr("reduction", REDUCTION[red]).attr("ignore_index", ignore)
    return [("diopiNLLLossBackward", fill)]


def backward_nll_loss_v2(name, p, x, wanted):
    made = backward_nll_loss(name, p, x, wanted)
    i, t, w = x["input"], x["target"], x.get("weight")
    red, ignore = p.get("reduction", "mean"), p.get("ignore_index", -100)
    total = total_weight(t, w, ignore, red, i.dtype)
    fill = made[0][1]
    return [("diopiNLLLossV2Backward",
             lambda c: fill(c).input("totalWeight", total))]


BACKWARDS = {
    "sigmoid": backward_saved("diopiSigmoidBackward",
                              lambda u, p: torch.sigmoid(u), "output"),
    "tanh": backward_saved("diopiTanhBackward", lambda u, p: torch.tanh(u),
                           "output"),
    "silu": backward_saved("diopiSiluBackward", lambda u, p: F.silu(u),
                           "input"),
    "gelu": backward_gelu,
    "softmax": backward_softmax("diopiSoftmaxBackward", torch.softmax),
    "log_softmax": backward_softmax("diopiLogSoftmaxBackward",
                                    torch.log_softmax),
    "conv2d": backward_conv2d,
    "max_pool2d": backward_max_pool2d,
    "adaptive_avg_pool2d": backward_adaptive_avg_pool2d,
    "layer_norm": backward_layer_norm,
    "linear": backward_linear,
    "index_select": backward_index_select,
    "nll_loss": backward_nll_loss,
    "nll_loss_v2": backward_nll_loss_v2,
}


# ---------------------------------------------------------------- driver

def tolerances(entry, dtype):
    half = dtype in (torch.float16, torch.bfloat16)
    get = (lambda k: entry.get(k, DEFAULT_TOL[k]))
    return (get("atol_half"), get("rtol_half")) if half else (
        get("atol"), get("rtol"))


def load_configs(source):
    path = os.path.join(source, "diopi_test", "python", "configs")
    if not os.path.isfile(os.path.join(path, "diopi_configs.py")):
        sys.exit(f"{path}/diopi_configs.py not found: set BP_DIOPI_SOURCE_DIR "
                 "to a DIOPI checkout")
    sys.path.insert(0, path)
    from diopi_configs import diopi_configs
    return diopi_configs


def exported(lib_path):
    lib = ctypes.CDLL(os.path.abspath(lib_path))
    return lambda fn: hasattr(lib, fn)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", default=os.path.join(
        ROOT, "build", "lib", "backplane", "ops", "libbackplane_ops_ref.so"))
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--max-case-bytes", type=int, default=MAX_CASE_BYTES,
                    help="the largest case stored (a larger cap makes a "
                    "one-off set of DIOPI's big shapes, not for the tree)")
    ap.add_argument("--only", nargs="*", default=None, metavar="NAME",
                    help="only these config op names (with another --out: "
                    "the stored set is every op's)")
    opts = ap.parse_args()
    source = os.environ.get("BP_DIOPI_SOURCE_DIR")
    if not source:
        sys.exit("BP_DIOPI_SOURCE_DIR must name a DIOPI checkout")
    configs = load_configs(source)
    has = exported(opts.lib)
    files, skipped, unknown, missing = {}, {}, set(), set()
    for key, entry in configs.items():
        for name in entry["name"]:
            if opts.only is not None and name not in opts.only:
                continue
            build = BUILDERS.get(name)
            if not build:
                unknown.add(name)
                continue
            rng = np.random.default_rng([25, zlib.crc32(f"{key}/{name}"
                                                        .encode())])
            for n, (tdt, p, ins) in enumerate(expand(entry)):
                tag = f"{name}/{key}/{n}/{SHORT[tdt]}"
                wanted = tuple(k for k, a in ins.items() if a["requires_grad"])
                try:
                    x = make_inputs(ins, rng)
                    made = build(name, p, x, entry.get("is_inplace", False))
                    if wanted and name in BACKWARDS:
                        made += BACKWARDS[name](name, p, x, wanted)
                except Unsupported as e:
                    skipped[tag] = str(e)
                    continue
                except (RuntimeError, ValueError, TypeError, IndexError) as e:
                    skipped[tag] = "PyTorch refuses: " + str(e).split("\n")[0]
                    continue
                for op, fill in made:
                    if not has(op):
                        missing.add(op)
                        continue
                    atol, rtol = tolerances(entry, tdt)
                    c = fill(base.Case(f"diopi/{tag}/{op[5:]}", op, tdt))
                    c.atol, c.rtol = atol, rtol
                    size = sum(t.numel() * t.element_size()
                               for _, _, t, _, _ in c.tensors)
                    if size > opts.max_case_bytes:
                        skipped[f"{tag}/{op[5:]}"] = f"{size} bytes > cap"
                        continue
                    files.setdefault(op[5:], []).append(c)
    os.makedirs(opts.out, exist_ok=True)
    for old in os.listdir(opts.out):
        if old.endswith(".bin.gz"):
            os.remove(os.path.join(opts.out, old))
    total = 0
    for family, cases in sorted(files.items()):
        blob = b"BPOPS001" + struct.pack("<I", len(cases)) + b"".join(
            c.pack() for c in cases)
        packed = gzip.compress(blob, 9, mtime=0)
        with open(os.path.join(opts.out, family + ".bin.gz"), "wb") as f:
            f.write(packed)
        total += len(packed)
        print(f"{family:24s} {len(cases):4d} cases {len(packed):8d} bytes")
    print(f"total {sum(map(len, files.values()))} cases, {total} bytes "
          f"compressed; {len(skipped)} configured cases not stored",
          file=sys.stderr)
    with open(os.path.join(opts.out, "SKIPPED.txt"), "w") as f:
        f.write("# Configured cases not stored, and why (generated by "
                "scripts/make_diopi_config_cases.py).\n")
        for op in sorted(missing):
            f.write(f"op {op}: not exported by the reference library\n")
        for name in sorted(unknown):
            f.write(f"config op {name}: no builder in the generator\n")
        for tag, why in sorted(skipped.items()):
            f.write(f"case {tag}: {why}\n")


if __name__ == "__main__":
    main()
