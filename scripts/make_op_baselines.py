#!/usr/bin/python3
"""Writes the op conformance baselines under tests/data/ops/ (one file per
op family), made by PyTorch on the CPU. Run with Debian's python3-torch:
    /usr/bin/python3 scripts/make_op_baselines.py [FAMILY...]
(only the named families' files when any are named). The files are committed; tests and `backplane optest` never need PyTorch.

File format (little endian), read by tools/backplane/optest/optest_cases.c:
  "BPOPS001" u32 case_count, then per case:
    str name, str op, f64 atol, f64 rtol, u64 flops, u64 bytes,
    u32 tensor_count, per tensor:
      str role, u8 kind (0 input, 1 output, 2 in-place: initial + expected),
      u8 dtype (diopiDtype_t), u8 ndim, i64 shape[ndim], i64 stride[ndim],
      i64 storage_offset, u64 storage_bytes, bytes storage,
      kind 1/2: u64 expected_bytes, bytes expected (contiguous; 0 bytes for
        an output the case's "judge" attribute checks by rule instead)
    u32 attr_count, per attr: str name, u8 type (0 int, 1 float, 2 int list,
      3 string), value (i64 | f64 | u32 n + i64[n] | str)
  str: u16 length + bytes.
"""
import os
import struct
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(16)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                   "data", "ops")
DTYPES = {torch.float32: 9, torch.float16: 8, torch.bfloat16: 12,
          torch.float64: 10, torch.int32: 4, torch.int64: 6, torch.uint8: 1,
          torch.bool: 11}
SHORT = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
         torch.int32: "i32", torch.int64: "i64"}


def tol(dtype, atol=1e-5, rtol=1e-5):
    if dtype in (torch.float16, torch.bfloat16):
        return 1e-2, 5e-2
    return atol, rtol


def s(text):
    b = text.encode()
    return struct.pack("<H", len(b)) + b


def raw(t):
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.contiguous().numpy().tobytes()


class Case:
    def __init__(self, name, op, dtype=torch.float32, atol=1e-5, rtol=1e-5,
                 flops=0):
        self.name, self.op = name, op
        self.atol, self.rtol = tol(dtype, atol, rtol)
        self.flops, self.bytes = flops, 0
        self.tensors, self.attrs = [], []

    def input(self, role, t):
        base = t._base if t._base is not None else t
        storage = base.detach().contiguous()
        self.bytes += t.numel() * t.element_size()
        self.tensors.append((role, 0, t, storage, None))
        return self

    def output(self, role, expected):
        self.bytes += expected.numel() * expected.element_size()
        self.tensors.append((role, 1, expected, None, expected))
        return self

    def unjudged(self, role, like):
        """An output with no expected data: the case's judge rule checks it."""
        self.tensors.append((role, 1, like, None, None))
        return self

    def inplace(self, role, initial, expected):
        self.bytes += 2 * expected.numel() * expected.element_size()
        self.tensors.append((role, 2, initial, initial.contiguous(), expected))
        return self

    def attr(self, name, value):
        self.attrs.append((name, value))
        return self

    def head(self):
        """The record's fields before its tensors."""
        return [s(self.name), s(self.op),
                struct.pack("<ddQQI", self.atol, self.rtol, int(self.flops),
                            int(self.bytes), len(self.tensors))]

    def pack(self):
        out = self.head()
        for role, kind, t, storage, expected in self.tensors:
            shape = list(t.shape)
            stride, offset = layout(kind, t)
            out.append(s(role) + struct.pack("<BBB", kind, DTYPES[t.dtype],
                                             len(shape)))
            out.append(struct.pack("<%dq" % len(shape), *shape))
            out.append(struct.pack("<%dq" % len(shape), *stride))
            data = raw(storage) if storage is not None else b""
            out.append(struct.pack("<qQ", offset, len(data)) + data)
            if kind:
                e = raw(expected) if expected is not None else b""
                out.append(struct.pack("<Q", len(e)) + e)
        return b"".join(out) + attrs_blob(self.attrs)


def layout(kind, t):
    """A tensor's stored strides and storage offset: an input's own (offset
    0 for a tensor that is not a view), an output's contiguous ones."""
    if kind != 0:
        return list(torch.empty(list(t.shape)).stride()), 0
    return list(t.stride()), t.storage_offset() if t._base is not None else 0


def attrs_blob(attrs):
    """The attribute count and records of a case."""
    out = [struct.pack("<I", len(attrs))]
    for name, v in attrs:
        if isinstance(v, (bool, int)):
            out.append(s(name) + struct.pack("<Bq", 0, int(v)))
        elif isinstance(v, float):
            out.append(s(name) + struct.pack("<Bd", 1, v))
        elif isinstance(v, str):
            out.append(s(name) + struct.pack("<B", 3) + s(v))
        else:
            out.append(s(name) + struct.pack("<BI", 2, len(v)) +
                       struct.pack("<%dq" % len(v), *v))
    return b"".join(out)


def randn(shape, dtype=torch.float32):
    return torch.randn(shape).to(dtype)


def noncontig(shape, dtype=torch.float32):
    """A view with the last dim strided by 2."""
    shape = list(shape)
    base = randn(shape[:-1] + [shape[-1] * 2], dtype)
    return base[..., ::2]


FILES = {}


def add(family, case):
    FILES.setdefault(family, []).append(case)


def arithmetic():
    shapes = [("same", (24, 40), (24, 40)), ("bcast", (16, 1, 32), (8, 1)),
              ("0size", (0, 6), (0, 6)), ("0d", (), ()),
              ("large", (64, 96), (64, 96))]
    for op, fn in (("Add", torch.add), ("Sub", torch.sub)):
        for tag, a_shape, b_shape in shapes:
            for dt in (torch.float32, torch.float16, torch.bfloat16):
                if tag == "large" and dt != torch.float32:
                    continue
                a, b = randn(a_shape, dt), randn(b_shape, dt)
                out = fn(a.float(), b.float(), alpha=0.5).to(dt)
                add(op.lower(), Case(f"{op.lower()}/{SHORT[dt]}/{tag}",
                                     "diopi" + op, dt)
                    .output("out", out).input("input", a).input("other", b)
                    .attr("alpha", 0.5))
        a, b = noncontig((32, 48)), randn((32, 48))
        add(op.lower(), Case(f"{op.lower()}/f32/noncontig", "diopi" + op)
            .output("out", fn(a, b)).input("input", a).input("other", b)
            .attr("alpha", 1.0))
        a = torch.randint(-50, 50, (40, 30), dtype=torch.int32)
        b = torch.randint(-50, 50, (30,), dtype=torch.int32)
        add(op.lower(), Case(f"{op.lower()}/i32/bcast", "diopi" + op,
                             torch.int32)
            .output("out", fn(a, b, alpha=2)).input("input", a)
            .input("other", b).attr("alpha", 2))
        a, b = randn((16, 24)), randn((24,))
        add(op.lower(), Case(f"{op.lower()}_inp/f32/bcast", f"diopi{op}Inp")
            .inplace("input", a, fn(a, b, alpha=2.0)).input("other", b)
            .attr("alpha", 2.0))
        add(op.lower(), Case(f"{op.lower()}_scalar/f32", f"diopi{op}Scalar")
            .output("out", fn(a, 1.5, alpha=2.0)).input("input", a)
            .attr("other", 1.5).attr("alpha", 2.0))
    for tag, a_shape, b_shape in shapes:
        a, b = randn(a_shape), randn(b_shape)
        add("mul", Case(f"mul/f32/{tag}", "diopiMul")
            .output("out", a * b).input("input", a).input("other", b))
        for mode, name in ((None, 0), ("trunc", 1), ("floor", 2)):
            if tag in ("0d", "large") and mode:
                continue
            add("div", Case(f"div/f32/{tag}/{mode or 'none'}", "diopiDiv")
                .output("out", torch.div(a, b, rounding_mode=mode))
                .input("input", a).input("other", b).attr("rounding_mode",
                                                          name))
    a = randn((8, 9))
    add("mul", Case("mul_scalar/f32", "diopiMulScalar")
        .output("out", a * -3.0).input("input", a).attr("other", -3.0))
    add("mul", Case("mul_inp/f32", "diopiMulInp")
        .inplace("input", a, a * a).input("other", a.clone()))


def memory():
    x = randn((17, 33))
    add("fill", Case("fill/f32", "diopiFill")
        .inplace("input", x, torch.full_like(x, 2.5)).attr("value", 2.5))
    add("fill", Case("fill/i64", "diopiFill", torch.int64)
        .inplace("input", torch.zeros(5, 4, dtype=torch.int64),
                 torch.full((5, 4), 7, dtype=torch.int64)).attr("value", 7))
    src = noncontig((24, 40))
    add("copy", Case("copy/f32/strided_src", "diopiCopyInp")
        .input("src", src).output("dest", src.contiguous()))
    src = randn((64, 96))
    add("copy", Case("copy/f32/large", "diopiCopyInp")
        .input("src", src).output("dest", src.clone()))
    b = randn((7,))
    add("copy", Case("copy/f32/bcast", "diopiCopyInp")
        .input("src", b).output("dest", b.expand(5, 7).contiguous()))
    src = randn((10, 12)) * 100
    for dt in (torch.float16, torch.bfloat16, torch.int32, torch.int64):
        add("cast", Case(f"cast/f32_to_{SHORT[dt]}", "diopiCastDtype", dt)
            .input("input", src).output("out", src.to(dt)))


def gemm():
    for m, k, n in ((32, 64, 96), (64, 64, 64), (0, 8, 4), (5, 0, 3)):
        a, b = randn((m, k)), randn((k, n))
        add("mm", Case(f"mm/f32/{m}x{k}x{n}", "diopiMm", atol=1e-4, rtol=1e-4,
                       flops=2 * m * n * k)
            .output("out", a @ b).input("input", a).input("mat2", b))
    a, b = randn((48, 32)).t(), randn((48, 20))
    add("mm", Case("mm/f32/transposed", "diopiMm", atol=1e-4, rtol=1e-4)
        .output("out", a @ b).input("input", a).input("mat2", b))
    a, b = randn((16, 32), torch.float16), randn((32, 8), torch.float16)
    add("mm", Case("mm/f16", "diopiMm", torch.float16)
        .output("out", (a.float() @ b.float()).half()).input("input", a)
        .input("mat2", b))
    a, b = randn((4, 8, 16)), randn((4, 16, 12))
    add("bmm", Case("bmm/f32", "diopiBmm", atol=1e-4, rtol=1e-4,
                    flops=2 * 4 * 8 * 16 * 12)
        .output("out", torch.bmm(a, b)).input("input", a).input("mat2", b))
    add("matmul", Case("matmul/f32/3d", "diopiMatmul", atol=1e-4, rtol=1e-4)
        .output("out", torch.matmul(a, b)).input("input", a).input("other", b))
    c, m1, m2 = randn((20,)), randn((12, 30)), randn((30, 20))
    add("addmm", Case("addmm/f32/bias_row", "diopiAddmm", atol=1e-4, rtol=1e-4,
                      flops=2 * 12 * 30 * 20)
        .output("out", torch.addmm(c, m1, m2, beta=0.5, alpha=2.0))
        .input("input", c).input("mat1", m1).input("mat2", m2)
        .attr("beta", 0.5).attr("alpha", 2.0))
    for n, i, o, bias in ((16, 64, 96, True), (16, 128, 10, True),
                          (7, 5, 3, False)):
        x = randn((n, i)).requires_grad_()
        w = randn((o, i)).requires_grad_()
        b = randn((o,)).requires_grad_() if bias else None
        y = F.linear(x, w, b)
        go = randn(y.shape)
        y.backward(go)
        case = Case(f"linear/f32/{n}x{i}x{o}{'' if bias else '/nobias'}",
                    "diopiLinear", atol=1e-4, rtol=1e-4, flops=2 * n * i * o)
        case.output("out", y.detach()).input("input", x.detach())
        case.input("weight", w.detach())
        if bias:
            case.input("bias", b.detach())
        add("linear", case)
        bw = Case(f"linear_backward/f32/{n}x{i}x{o}", "diopiLinearBackward",
                  atol=1e-4, rtol=1e-4, flops=4 * n * i * o)
        bw.output("grad_input", x.grad).output("grad_weight", w.grad)
        if bias:
            bw.output("grad_bias", b.grad)
        bw.input("grad_output", go).input("input", x.detach())
        bw.input("weight", w.detach())
        add("linear", bw)


def activations():
    for name, fn, saved in (("Relu", F.relu, None),
                            ("Sigmoid", torch.sigmoid, "output"),
                            ("Tanh", torch.tanh, "output"),
                            ("Silu", F.silu, "input"),
                            ("Gelu", F.gelu, "input")):
        for tag, x in (("f32", randn((16, 40))), ("f32/large",
                                                    randn((48, 96))),
                       ("f16", randn((9, 10), torch.float16)),
                       ("f32/noncontig", noncontig((12, 20))),
                       ("f32/0size", randn((0, 3)))):
            dt = x.dtype
            xf = x.float().requires_grad_()
            y = fn(xf)
            go = randn(y.shape)
            y.backward(go)
            case = Case(f"{name.lower()}/{tag}", "diopi" + name, dt)
            case.output("out", y.detach().to(dt)).input("input", x)
            if name == "Gelu":
                case.attr("approximate", "none")
            add(name.lower(), case)
            if tag == "f32/large":
                continue
            go = go.to(dt)
            if name == "Relu":
                bw = Case(f"threshold_backward/{tag}",
                          "diopiThresholdBackward", dt)
                bw.output("grad_input", xf.grad.to(dt))
                bw.input("grad_output", go).input("input", x)
                bw.attr("threshold", 0.0)
            else:
                bw = Case(f"{name.lower()}_backward/{tag}",
                          f"diopi{name}Backward", dt)
                bw.output("grad_input", xf.grad.to(dt))
                bw.input("grad_output", go)
                bw.input(saved, y.detach().to(dt) if saved == "output" else x)
                if name == "Gelu":
                    bw.attr("approximate", "none")
            add(name.lower(), bw)
    x = randn((30, 40)).requires_grad_()
    y = F.gelu(x, approximate="tanh")
    go = randn(y.shape)
    y.backward(go)
    add("gelu", Case("gelu/f32/tanh", "diopiGelu").output("out", y.detach())
        .input("input", x.detach()).attr("approximate", "tanh"))
    add("gelu", Case("gelu_backward/f32/tanh", "diopiGeluBackward")
        .output("grad_input", x.grad).input("grad_output", go)
        .input("input", x.detach()).attr("approximate", "tanh"))
    x = randn((6, 7))
    add("relu", Case("relu_inp/f32", "diopiReluInp")
        .inplace("input", x, F.relu(x)))


def softmax():
    for name, fn in (("Softmax", F.softmax), ("LogSoftmax", F.log_softmax)):
        for tag, shape, dim in (("last", (32, 10), -1), ("mid", (4, 5, 6), 1),
                                ("large", (16, 300), 1), ("0d", (), 0)):
            x = randn(shape).requires_grad_()
            y = fn(x, dim=dim)
            go = randn(y.shape)
            y.backward(go)
            add(name.lower(), Case(f"{name.lower()}/f32/{tag}", "diopi" + name)
                .output("out", y.detach()).input("input", x.detach())
                .attr("dim", dim))
            add(name.lower(), Case(f"{name.lower()}_backward/f32/{tag}",
                                   f"diopi{name}Backward")
                .output("grad_input", x.grad).input("grad_output", go)
                .input("output", y.detach()).attr("dim", dim))
        x = randn((8, 12), torch.float16)
        add(name.lower(), Case(f"{name.lower()}/f16", "diopi" + name,
                               torch.float16)
            .output("out", fn(x.float(), dim=1).half()).input("input", x)
            .attr("dim", 1))


def forward_backward_cases(name, tag, op, out, grad_input, grad_output,
                           **tolerances):
    """An op's forward case (name/tag: diopi<op> giving out) and its
    backward's (name_backward/tag: diopi<op>Backward giving grad_input from
    grad_output); the caller adds the inputs and attributes both take."""
    return (Case(f"{name}/{tag}", f"diopi{op}", **tolerances)
            .output("out", out),
            Case(f"{name}_backward/{tag}", f"diopi{op}Backward", **tolerances)
            .output("grad_input", grad_input)
            .input("grad_output", grad_output))


def tensor_list_case(name, op, tag, parts, dim, out):
    """op over the tensor list `parts` (inputs tensors.0, tensors.1, ...)
    along dim, giving PyTorch's `out`."""
    c = Case(f"{name}/{tag}", op, parts[0].dtype).output("out", out)
    for i, t in enumerate(parts):
        c.input(f"tensors.{i}", t)
    add(name, c.attr("dim", dim))


def convolution_cases(dims, tag, x, w, b, y, grad_output, attrs, **kw):
    """convolution{dims}d and its backward from PyTorch's results: x, w and
    b (None: no bias) the leaves holding their gradients; `attrs` both
    cases'; kw the cases' dtype and tolerances."""
    name, op = f"conv{dims}d", f"diopiConvolution{dims}d"
    c = Case(f"{name}/{tag}", op, **kw).output("out", y.detach())
    # x and w as they are: a strided view's detach() would lose its base.
    c.input("input", x).input("weight", w)
    if b is not None:
        c.input("bias", b.detach())
    for attr in attrs:
        c.attr(*attr)
    add(name, c)
    bw = Case(f"{name}_backward/{tag}", op + "Backward", **kw)
    bw.output("grad_input", x.grad).output("grad_weight", w.grad)
    if b is not None:
        bw.output("grad_bias", b.grad)
    bw.input("grad_output", grad_output).input("input", x)
    bw.input("weight", w)
    bw.attr("bias_sizes", [] if b is None else [w.shape[0]])
    for attr in attrs:
        bw.attr(*attr)
    add(name, bw)


def pool_with_indices_cases(name, op, tag, x, y, indices, grad_output,
                            attrs, backward_attrs=None):
    """A pooling op's forward (diopi<op>), its WithIndices form and its
    backward (from grad_output and the indices) from PyTorch's results: x
    the input leaf holding its gradient; `attrs` the forwards' attributes,
    `backward_attrs` the backward's (None: the same)."""
    fw, bw = forward_backward_cases(name, tag, op, y.detach(), x.grad,
                                    grad_output)
    with_indices = (Case(f"{name}_with_indices/{tag}", f"diopi{op}WithIndices")
                    .output("out", y.detach()).output("indices", indices))
    for c in (fw, with_indices, bw):
        c.input("input", x.detach())
    bw.input("indices", indices)
    for c, these in ((fw, attrs), (with_indices, attrs),
                     (bw, attrs if backward_attrs is None else backward_attrs)):
        for attr in these:
            c.attr(*attr)
        add(name, c)


def avg_pool_cases(dims, table):
    """avg_pool{dims}d and its backward made by F.avg_pool{dims}d, for each
    (tag, shape, kernel, stride, padding, ceil_mode, count_include_pad,
    divisor_override or None) of `table`."""
    name = f"avg_pool{dims}d"
    for tag, shape, k, st, p, ceil, include, div in table:
        x = randn(shape).requires_grad_()
        divisor = () if div is None else (div,)  # avg_pool1d takes none
        y = getattr(F, name)(x, k, st, p, ceil, include, *divisor)
        go = randn(y.shape)
        y.backward(go)
        attrs = [("kernel_size", [k] * dims), ("stride", [st] * dims),
                 ("padding", [p] * dims), ("ceil_mode", ceil),
                 ("count_include_pad", include)]
        if div is not None:
            attrs.append(("divisor_override", div))
        for c in forward_backward_cases(name, tag, f"AvgPool{dims}d",
                                        y.detach(), x.grad, go):
            c.input("input", x.detach())
            for attr in attrs:
                c.attr(*attr)
            add(name, c)


def losses():
    reductions = {"none": 0, "mean": 1, "sum": 2}
    for red in reductions:
        for tag, weight, ignore, smooth in (("plain", False, -100, 0.0),
                                            ("weight", True, -100, 0.0),
                                            ("ignore", False, 3, 0.0),
                                            ("smooth", False, -100, 0.1)):
            x = randn((32, 10)).requires_grad_()
            t = torch.randint(0, 10, (32,))
            w = torch.rand(10) + 0.5 if weight else None
            y = F.cross_entropy(x, t, weight=w, reduction=red,
                                ignore_index=ignore, label_smoothing=smooth)
            go = randn(y.shape)
            y.backward(go)
            for c in forward_backward_cases(
                    "cross_entropy", f"f32/{red}/{tag}", "CrossEntropyLoss",
                    y.detach(), x.grad, go):
                c.input("input", x.detach()).input("target", t)
                if weight:
                    c.input("weight", w)
                c.attr("reduction", reductions[red])
                c.attr("ignore_index", ignore)
                c.attr("label_smoothing", smooth)
                add("cross_entropy", c)
            if smooth:
                continue
            lp = F.log_softmax(randn((32, 10)), 1).requires_grad_()
            y = F.nll_loss(lp, t, weight=w, reduction=red, ignore_index=ignore)
            go = randn(y.shape)
            y.backward(go)
            for c in forward_backward_cases(
                    "nll_loss", f"f32/{red}/{tag}", "NLLLoss", y.detach(),
                    lp.grad, go):
                c.input("input", lp.detach()).input("target", t)
                if weight:
                    c.input("weight", w)
                c.attr("reduction", reductions[red])
                c.attr("ignore_index", ignore)
                add("nll_loss", c)


def reductions():
    for tag, shape, dims, keep in (("all", (20, 30), [], False),
                                   ("dim0", (20, 30), [0], False),
                                   ("dim1_keep", (20, 30), [1], True),
                                   ("dims02", (4, 5, 6), [0, 2], False),
                                   ("large", (64, 96), [0], False),
                                   ("0size", (0, 4), [0], False)):
        x = randn(shape)
        for name, fn in (("Sum", torch.sum), ("Mean", torch.mean)):
            if name == "Mean" and tag == "0size":
                continue
            y = fn(x, dim=dims, keepdim=keep) if dims else fn(x)
            add(name.lower(), Case(f"{name.lower()}/f32/{tag}", "diopi" + name,
                                   atol=1e-4, rtol=1e-4)
                .output("out", y).input("input", x).attr("dim", dims))
    x = randn((10, 20))
    v, i = torch.max(x, dim=1)
    add("max", Case("max/f32/dim1", "diopiMax").output("max", v)
        .output("max_indices", i).input("input", x).attr("dim", 1))
    add("argmax", Case("argmax/f32/dim0", "diopiArgmax")
        .output("out", torch.argmax(x, dim=0)).input("input", x)
        .attr("dim", [0]).attr("keepdim", False))
    add("argmax", Case("argmax/f32/all", "diopiArgmax")
        .output("out", torch.argmax(x)).input("input", x).attr("dim", [])
        .attr("keepdim", False))


def optimizers():
    for shape in ((16, 24), (2048,)):
        p, g = randn(shape), randn(shape)
        m, v = randn(shape) * 0.1, torch.rand(shape) * 0.1
        for step in (1, 7):
            pp, mm, vv = p.clone(), m.clone(), v.clone()
            opt = torch.optim.AdamW([pp], lr=1e-3, betas=(0.9, 0.999),
                                    eps=1e-8, weight_decay=1e-2)
            pp.grad = g.clone()
            opt.state[pp] = {"step": torch.tensor(float(step - 1)),
                             "exp_avg": mm, "exp_avg_sq": vv}
            opt.step()
            add("adamw", Case(f"adamw/f32/{'x'.join(map(str, shape))}/step{step}",
                              "diopiAdamW", atol=1e-6, rtol=1e-5,
                              flops=12 * p.numel())
                .inplace("input", p, pp.detach()).inplace("grad", g, g)
                .inplace("exp_avg", m, mm).inplace("exp_avg_sq", v, vv)
                .attr("lr", 1e-3).attr("beta1", 0.9).attr("beta2", 0.999)
                .attr("eps", 1e-8).attr("weight_decay", 1e-2)
                .attr("step", step).attr("amsgrad", False))
    p, g, buf = randn((50, 20)), randn((50, 20)), randn((50, 20))
    for nesterov in (False, True):
        d_p = g + 1e-4 * p
        nb = 0.9 * buf + (1 - 0.1) * d_p
        step = d_p + 0.9 * nb if nesterov else nb
        add("sgd", Case(f"sgd/f32/momentum{'/nesterov' if nesterov else ''}",
                        "diopiSgd")
            .inplace("param", p, p - 0.05 * step).inplace("grad", g, g)
            .inplace("buf", buf, nb).attr("lr", 0.05).attr("momentum", 0.9)
            .attr("dampening", 0.1).attr("weight_decay", 1e-4)
            .attr("nesterov", nesterov))


def normalization():
    for tag, shape, norm, affine, dt in (
            ("f32/last", (8, 16), [16], True, torch.float32),
            ("f32/two_dims", (4, 6, 10), [6, 10], True, torch.float32),
            ("f32/no_affine", (5, 12), [12], False, torch.float32),
            ("f16", (6, 8), [8], True, torch.float16)):
        x = randn(shape, dt).float().requires_grad_()
        w = (torch.rand(norm) + 0.5).requires_grad_() if affine else None
        b = randn(norm).requires_grad_() if affine else None
        y, mean, rstd = torch.native_layer_norm(x, norm, w, b, 1e-5)
        go = randn(y.shape)
        y.backward(go)
        outer = list(shape[:len(shape) - len(norm)])
        c = Case(f"layer_norm/{tag}", "diopiLayerNorm", dt, atol=1e-4,
                 rtol=1e-4)
        c.output("out", y.detach().to(dt))
        c.output("save_mean", mean.detach().reshape(outer))
        c.output("save_invstd", rstd.detach().reshape(outer))
        c.input("input", x.detach().to(dt))
        if affine:
            c.input("weight", w.detach()).input("bias", b.detach())
        add("layer_norm", c.attr("normalized_shape", norm).attr("eps", 1e-5))
        bw = Case(f"layer_norm_backward/{tag}", "diopiLayerNormBackward", dt,
                  atol=1e-4, rtol=1e-4)
        bw.output("grad_input", x.grad.to(dt))
        if affine:
            bw.output("grad_weight", w.grad).output("grad_bias", b.grad)
        bw.input("grad_output", go.to(dt)).input("input", x.detach().to(dt))
        if affine:
            bw.input("weight", w.detach()).input("bias", b.detach())
        bw.input("mean", mean.detach().reshape(outer))
        bw.input("rstd", rstd.detach().reshape(outer))
        add("layer_norm", bw.attr("normalized_shape", norm))
    for tag, shape, training in (("f32/train/4d", (4, 3, 5, 6), True),
                                 ("f32/train/2d", (16, 8), True),
                                 ("f32/eval/4d", (4, 3, 5, 6), False)):
        c_dim = shape[1]
        x = randn(shape).requires_grad_()
        w = (torch.rand(c_dim) + 0.5).requires_grad_()
        b = randn(c_dim).requires_grad_()
        rm, rv = randn(c_dim) * 0.1, torch.rand(c_dim) + 0.5
        rm0, rv0 = rm.clone(), rv.clone()
        y, sm, si = torch.native_batch_norm(x, w, b, rm, rv, training, 0.1,
                                            1e-5)
        c = Case(f"batch_norm/{tag}", "diopiBatchNorm", atol=1e-4, rtol=1e-4)
        c.output("out", y.detach())
        if training:
            c.output("save_mean", sm).output("save_invstd", si)
        c.input("input", x.detach()).input("weight", w.detach())
        c.input("bias", b.detach())
        c.inplace("running_mean", rm0, rm).inplace("running_var", rv0, rv)
        add("batch_norm", c.attr("training", training).attr("momentum", 0.1)
            .attr("eps", 1e-5))
        if not training:
            continue
        go = randn(y.shape)
        gi, gw, gb = torch.ops.aten.native_batch_norm_backward(
            go, x.detach(), w.detach(), rm0, rv0, sm, si, True, 1e-5,
            [True, True, True])
        bw = Case(f"batch_norm_backward/{tag}", "diopiBatchNormBackward",
                  atol=1e-4, rtol=1e-4)
        bw.output("grad_input", gi).output("grad_weight", gw)
        bw.output("grad_bias", gb).input("grad_output", go)
        bw.input("input", x.detach()).input("weight", w.detach())
        bw.input("save_mean", sm).input("save_invstd", si)
        add("batch_norm", bw.attr("training", True).attr("eps", 1e-5))


def convolution():
    for case in (
            ("f32/3x3", 2, 3, 8, 4, 3, 1, 0, 1, 1, True, torch.float32),
            ("f32/stride2_pad1", 2, 3, 9, 5, 3, 2, 1, 1, 1, True,
             torch.float32),
            ("f32/dilation2", 1, 2, 10, 3, 3, 1, 2, 2, 1, False,
             torch.float32),
            ("f32/groups2", 2, 4, 7, 6, 3, 1, 1, 1, 2, True, torch.float32),
            ("f32/1x1", 4, 16, 8, 32, 1, 1, 0, 1, 1, True, torch.float32),
            ("f32/large", 4, 16, 16, 32, 3, 1, 1, 1, 1, True,
             torch.float32),
            ("f16", 1, 2, 6, 3, 3, 1, 1, 1, 1, True, torch.float16)):
        conv2d_case(*case)


def conv2d_case(tag, n, cin, hw, cout, k, stride, pad, dil, groups, bias,
                dt):
    x = randn((n, cin, hw, hw), dt).float().requires_grad_()
    w = randn((cout, cin // groups, k, k), dt).float().requires_grad_()
    b = randn((cout,), dt).float().requires_grad_() if bias else None
    y = F.conv2d(x, w, b, stride, pad, dil, groups)
    go = randn(y.shape, dt).float()
    y.backward(go)
    flops = 2 * y.numel() * (cin // groups) * k * k
    atol = 1e-3 if dt == torch.float32 else None
    kw = {"atol": atol, "rtol": 1e-4} if atol else {}
    c = Case(f"conv2d/{tag}", "diopiConvolution2d", dt, flops=flops, **kw)
    c.output("out", y.detach().to(dt)).input("input", x.detach().to(dt))
    c.input("weight", w.detach().to(dt))
    if bias:
        c.input("bias", b.detach().to(dt))
    for attr in (("stride", [stride] * 2), ("padding", [pad] * 2),
                 ("dilation", [dil] * 2), ("groups", groups)):
        c.attr(*attr)
    add("conv2d", c)
    bw = Case(f"conv2d_backward/{tag}", "diopiConvolution2dBackward", dt,
              flops=2 * flops, **kw)
    bw.output("grad_input", x.grad.to(dt))
    bw.output("grad_weight", w.grad.to(dt))
    if bias:
        bw.output("grad_bias", b.grad.to(dt))
    bw.input("grad_output", go.to(dt)).input("input", x.detach().to(dt))
    bw.input("weight", w.detach().to(dt))
    for attr in (("bias_sizes", [cout] if bias else []),
                 ("stride", [stride] * 2), ("padding", [pad] * 2),
                 ("dilation", [dil] * 2), ("groups", groups)):
        bw.attr(*attr)
    add("conv2d", bw)


def pooling():
    for tag, shape, k, stride, pad, dil, ceil in (
            ("f32/k3s2p1", (2, 3, 9, 9), 3, 2, 1, 1, False),
            ("f32/k2s2", (2, 4, 8, 8), 2, 2, 0, 1, False),
            ("f32/ceil", (1, 2, 10, 10), 3, 2, 0, 1, True),
            ("f32/dilation2", (1, 2, 11, 11), 3, 1, 1, 2, False)):
        x = randn(shape).requires_grad_()
        y, idx = F.max_pool2d(x, k, stride, pad, dil, ceil_mode=ceil,
                              return_indices=True)
        go = randn(y.shape)
        y.backward(go)
        attrs = (("kernel_size", [k, k]), ("stride", [stride, stride]),
                 ("padding", [pad, pad]), ("dilation", [dil, dil]),
                 ("ceil_mode", ceil))
        pool_with_indices_cases("max_pool2d", "MaxPool2d", tag, x, y, idx, go,
                                attrs)
    for tag, shape, size in (("f32/4x3", (2, 3, 10, 9), [4, 3]),
                             ("f32/global", (2, 8, 7, 7), [1, 1]),
                             ("f32/up", (1, 2, 3, 3), [5, 5]),
                             ("f16", (1, 3, 6, 6), [2, 2])):
        dt = torch.float16 if tag == "f16" else torch.float32
        x = randn(shape, dt).float().requires_grad_()
        y = F.adaptive_avg_pool2d(x, size)
        go = randn(y.shape, dt).float()
        y.backward(go)
        add("adaptive_avg_pool2d",
            Case(f"adaptive_avg_pool2d/{tag}", "diopiAdaptiveAvgPool2d", dt)
            .output("out", y.detach().to(dt)).input("input", x.detach().to(dt))
            .attr("output_size", size))
        add("adaptive_avg_pool2d",
            Case(f"adaptive_avg_pool2d_backward/{tag}",
                 "diopiAdaptiveAvgPool2dBackward", dt)
            .output("grad_input", x.grad.to(dt))
            .input("grad_output", go.to(dt)).input("input", x.detach().to(dt)))


def indexing():
    for tag, pad, freq in (("plain", -1, False), ("padding_idx", 3, False),
                           ("scale_grad_byfreq", -1, True)):
        w = randn((20, 8)).requires_grad_()
        idx = torch.randint(0, 20, (4, 5))
        idx[0, 0] = idx[1, 1] = 3
        y = F.embedding(idx, w, None if pad < 0 else pad,
                        scale_grad_by_freq=freq)
        go = randn(y.shape)
        y.backward(go)
        add("embedding", Case(f"embedding/f32/{tag}", "diopiEmbedding")
            .output("out", y.detach()).input("weight", w.detach())
            .input("indices", idx).attr("padding_idx", pad)
            .attr("scale_grad_byfreq", freq).attr("sparse", False))
        add("embedding", Case(f"embedding_backward/f32/{tag}",
                              "diopiEmbeddingBackward", atol=1e-4, rtol=1e-4)
            .output("out", w.grad).input("grad", go).input("indices", idx)
            .attr("num_weights", 20).attr("padding_idx", pad)
            .attr("scale_grad_byfreq", freq).attr("sparse", False))
    for tag, x, dim, index in (
            ("f32/dim1", randn((6, 7, 5)), 1, torch.tensor([0, 6, 2, 2])),
            ("f32/dim0_i32_index", randn((9, 4)), 0,
             torch.tensor([8, 0, 3], dtype=torch.int32)),
            ("i64/dim-1", torch.randint(-9, 9, (3, 8)), -1,
             torch.tensor([7, 1])),
            ("f16/dim0", randn((5, 6), torch.float16), 0,
             torch.tensor([4, 4, 0])),
            ("f32/0size_index", randn((4, 3)), 0,
             torch.tensor([], dtype=torch.int64))):
        dt = x.dtype
        add("index_select", Case(f"index_select/{tag}", "diopiIndexSelect", dt)
            .output("out", torch.index_select(x, dim, index.long()))
            .input("input", x).input("index", index).attr("dim", dim))
    for tag, x, dim, index in (
            ("f32/dim1", randn((5, 6)), 1, torch.randint(0, 6, (5, 3))),
            ("f32/dim0", randn((5, 6)), 0, torch.randint(0, 5, (2, 6))),
            ("i32/3d", torch.randint(-9, 9, (3, 4, 5), dtype=torch.int32), 2,
             torch.randint(0, 5, (3, 2, 5))),
            ("f32/noncontig", noncontig((6, 8)), 1,
             torch.randint(0, 8, (6, 4)))):
        add("gather", Case(f"gather/{tag}", "diopiGather", x.dtype)
            .output("out", torch.gather(x, dim, index)).input("input", x)
            .input("index", index).attr("dim", dim))


def shapes():
    for tag, parts, dim in (
            ("f32/dim0", [randn((2, 5)), randn((3, 5)), randn((1, 5))], 0),
            ("f32/dim1", [randn((4, 2, 3)), randn((4, 5, 3))], 1),
            ("f32/last_with_empty", [randn((3, 4)), randn((3, 0)),
                                     randn((3, 2))], -1),
            ("i64/dim0", [torch.randint(0, 9, (2, 3)),
                          torch.randint(0, 9, (2, 3))], 0),
            ("f32/noncontig", [noncontig((4, 6)), randn((4, 3))], 1)):
        tensor_list_case("cat", "diopiCat", tag, parts, dim,
                         torch.cat(parts, dim))
    for tag, x, d0, d1 in (("f32/2d", randn((6, 9)), 0, 1),
                           ("f32/3d", randn((3, 4, 5)), 0, 2),
                           ("i32/neg", torch.randint(0, 9, (4, 5, 2),
                                                     dtype=torch.int32),
                            -1, -2),
                           ("f32/large", randn((96, 80)), 0, 1)):
        add("transpose", Case(f"transpose/{tag}", "diopiTranspose", x.dtype)
            .output("out", x.transpose(d0, d1).contiguous())
            .input("input", x).attr("dim0", d0).attr("dim1", d1))
    for tag, x, dims in (("f32/3d", randn((3, 4, 5)), [2, 0, 1]),
                         ("f16/4d", randn((2, 3, 4, 5), torch.float16),
                          [0, 2, 3, 1]),
                         ("f32/neg", randn((2, 3, 4)), [-1, 1, 0])):
        add("permute", Case(f"permute/{tag}", "diopiPermute", x.dtype)
            .output("out", x.permute(dims).contiguous())
            .input("input", x).attr("dims", dims))
    for tag, x in (("f32/transposed", randn((7, 5)).t()),
                   ("f32/strided", noncontig((3, 4, 6))),
                   ("i64/contiguous", torch.randint(0, 9, (4, 4)))):
        add("contiguous", Case(f"contiguous/{tag}", "diopiContiguous",
                               x.dtype)
            .output("out", x.contiguous()).input("input", x))


def random_ops():
    """Dropout draws from the op library's generator, not PyTorch's: the
    train cases are judged by rule (judge=dropout: out = input * mask /
    (1 - p), the kept fraction near 1 - p), their outputs carry no data."""
    x = randn((64, 64))
    add("dropout", Case("dropout/f32/train_p0.3", "diopiDropout")
        .unjudged("out", torch.empty(x.shape))
        .unjudged("mask", torch.empty(x.shape, dtype=torch.uint8))
        .input("input", x).attr("p", 0.3).attr("train", True)
        .attr("seed", 16).attr("judge", "dropout"))
    add("dropout", Case("dropout/f32/eval", "diopiDropout")
        .output("out", x.clone()).input("input", x).attr("p", 0.3)
        .attr("train", False).attr("seed", 16))
    add("dropout", Case("dropout/f32/train_p0", "diopiDropout")
        .output("out", x.clone()).output("mask", torch.ones(x.shape, dtype=torch.uint8))
        .input("input", x).attr("p", 0.0).attr("train", True)
        .attr("seed", 16))


def convolution_batches():
    """Images in more than one GEMM batch (the reference library puts about
    2048 output pixels in one), the last batch short. Generated last so
    that the cases before it keep their random inputs."""
    conv2d_case("f32/batches", 3, 2, 30, 3, 3, 1, 1, 1, 1, True,
                torch.float32)


def reductions_split():
    """A column sum the reference library splits across two threads (over
    2^15 elements; 18 rows a slice), columns in blocks of 1024
    with a remainder. Generated last, like convolution_batches."""
    x = randn((36, 1030))
    add("sum", Case("sum/f32/split_columns", "diopiSum", atol=1e-4,
                    rtol=1e-4).output("out", torch.sum(x, dim=[0]))
        .input("input", x).attr("dim", [0]))


def convolution_winograd():
    """3x3 stride-1 convolutions the reference library computes by
    Winograd F(4x4, 3x3) in chunks of 32 4x4 tiles: partial tiles at odd
    sizes, channel counts off the 8-row and 16-lane blocks, 64 input
    channels (the rounding of long sums), one image, pad 0 and 2, chunks
    that straddle images, a short last chunk. Generated last, like
    convolution_batches."""
    for case in (("f32/winograd_odd", 1, 19, 13, 10, 3, 1, 1, 1, 1, True,
                  torch.float32),
                 ("f32/winograd_pad0", 3, 9, 11, 12, 3, 1, 0, 1, 1, False,
                  torch.float32),
                 ("f32/winograd_pad2", 2, 8, 15, 17, 3, 1, 2, 1, 1, True,
                  torch.float32),
                 ("f32/winograd_c64", 1, 64, 12, 16, 3, 1, 1, 1, 1, False,
                  torch.float32)):
        conv2d_case(*case)



# ---- Operator library breadth. Each family seeds its own generator, so
# that adding one leaves the others' data unchanged; `make_op_baselines.py
# FAMILY...` writes only the named families' files.

FLOATS = (torch.float32, torch.float16, torch.bfloat16, torch.float64)
SHORT[torch.float64] = "f64"
SHORT[torch.bool] = "bool"


def positive(shape, dtype=torch.float32):
    return (torch.rand(shape) * 4 + 0.1).to(dtype)


def unary_math():
    torch.manual_seed(25)
    ops = (("Exp", torch.exp, randn, True), ("Expm1", torch.expm1, randn, False),
           ("Log", torch.log, positive, True), ("Log2", torch.log2, positive, False),
           ("Log10", torch.log10, positive, False),
           ("Log1p", torch.log1p, positive, False),
           ("Sqrt", torch.sqrt, positive, True),
           ("Rsqrt", torch.rsqrt, positive, False),
           ("Erf", torch.erf, randn, False), ("Sin", torch.sin, randn, False),
           ("Cos", torch.cos, randn, False), ("Tan", torch.tan, randn, False),
           ("Atan", torch.atan, randn, False), ("Sinh", torch.sinh, randn, False),
           ("Cosh", torch.cosh, randn, False),
           ("Reciprocal", torch.reciprocal, positive, False),
           ("Neg", torch.neg, randn, True), ("Abs", torch.abs, randn, False),
           ("Floor", torch.floor, randn, False),
           ("Ceil", torch.ceil, randn, False), ("Sign", torch.sign, randn, False))
    for name, fn, gen, inp in ops:
        low = name.lower()
        for dt in FLOATS:
            x = gen((5, 7), dt) * (3 if name in ("Floor", "Ceil") else 1)
            add(low, Case(f"{low}/{SHORT[dt]}", "diopi" + name, dt)
                .output("out", fn(x.double()).to(dt)).input("input", x))
        x = gen((6, 16), torch.float32)[:, ::2]
        add(low, Case(f"{low}/f32/noncontig", "diopi" + name)
            .output("out", fn(x)).input("input", x))
        if inp:
            x = gen((4, 5))
            add(low, Case(f"{low}_inp/f32", f"diopi{name}Inp")
                .inplace("input", x, fn(x)))
    for name, fn in (("Neg", torch.neg), ("Abs", torch.abs),
                     ("Sign", torch.sign)):
        x = torch.randint(-50, 50, (6, 5), dtype=torch.int32)
        add(name.lower(), Case(f"{name.lower()}/i32", "diopi" + name,
                               torch.int32)
            .output("out", fn(x)).input("input", x))
    x = torch.randint(-9, 9, (3, 4)).float()
    add("exp", Case("exp/i64_to_f32", "diopiExp")
        .output("out", torch.exp(x)).input("input", x.long()))
    x = torch.tensor([float("nan"), 0.0, -0.0, float("inf"), -float("inf"),
                      -2.5, 2.5])
    add("sign", Case("sign/f32/special", "diopiSign")
        .output("out", torch.sign(x)).input("input", x))


def comparisons():
    torch.manual_seed(26)
    ops = (("Eq", torch.eq), ("Ne", torch.ne), ("Lt", torch.lt),
           ("Le", torch.le), ("Gt", torch.gt), ("Ge", torch.ge))
    for name, fn in ops:
        low = name.lower()
        a = torch.randint(-3, 3, (6, 8)).float()
        b = torch.randint(-3, 3, (8,)).float()
        a[0, 0] = float("nan")
        add(low, Case(f"{low}/f32/bcast", "diopi" + name)
            .output("out", fn(a, b)).input("input", a).input("other", b))
        ai = a.nan_to_num().to(torch.int32)
        add(low, Case(f"{low}/i32_f16", "diopi" + name)
            .output("out", fn(ai, b.half())).input("input", ai)
            .input("other", b.half()))
        a2 = torch.randint(-3, 3, (5, 12)).float()[:, ::3]
        add(low, Case(f"{low}/f32/noncontig", "diopi" + name)
            .output("out", fn(a2, a2[1])).input("input", a2)
            .input("other", a2[1]))
        add(low, Case(f"{low}_scalar/f32", f"diopi{name}Scalar")
            .output("out", fn(a, 1.0)).input("input", a).attr("other", 1.0))
        add(low, Case(f"{low}_scalar/i64", f"diopi{name}Scalar", torch.int64)
            .output("out", fn(ai.long(), 1)).input("input", ai.long())
            .attr("other", 1))
    a, b = torch.randint(-2, 2, (4, 6)).float(), torch.randint(-2, 2, (6,)).float()
    add("ge", Case("ge_inp/f32", "diopiGeInp")
        .inplace("input", a, (a >= b).float()).input("other", b))
    add("eq", Case("eq_inp_scalar/f32", "diopiEqInpScalar")
        .inplace("input", a, (a == 1).float()).attr("other", 1.0))
    add("lt", Case("lt_inp_scalar/i32", "diopiLtInpScalar", torch.int32)
        .inplace("input", a.int(), (a < 0).int()).attr("other", 0))
    for name, fn in (("LogicalAnd", torch.logical_and),
                     ("LogicalOr", torch.logical_or)):
        low = "logical_" + name[7:].lower()
        a = torch.randint(0, 2, (5, 6)).bool()
        b = torch.randint(-1, 2, (6,)).float()
        add(low, Case(f"{low}/bool_f32", "diopi" + name)
            .output("out", fn(a, b)).input("input", a).input("other", b))
    x = torch.randint(-1, 2, (4, 10)).float()[:, ::2]
    add("logical_not", Case("logical_not/f32/noncontig", "diopiLogicalNot")
        .output("out", torch.logical_not(x)).input("input", x))


def selection():
    torch.manual_seed(27)
    cond = torch.rand(4, 1, 6) > 0.5
    for dt in FLOATS + (torch.int64,):
        a = randn((4, 5, 6), dt) if dt != torch.int64 else \
            torch.randint(-9, 9, (4, 5, 6))
        b = randn((5, 1), dt) if dt != torch.int64 else \
            torch.randint(-9, 9, (5, 1))
        add("where", Case(f"where/{SHORT.get(dt, 'i64')}/bcast", "diopiWhere",
                          dt).output("out", torch.where(cond, a, b))
            .input("condition", cond).input("input", a).input("other", b))
    a = noncontig((6, 8))
    c = torch.rand(6, 8) > 0.3
    add("where", Case("where/f32/noncontig", "diopiWhere")
        .output("out", torch.where(c, a, 0.5 * a)).input("condition", c)
        .input("input", a).input("other", (0.5 * a).contiguous()))
    for dt in (torch.float32, torch.float16, torch.int32):
        x = randn((5, 6), dt) if dt != torch.int32 else \
            torch.randint(-9, 9, (5, 6), dtype=torch.int32)
        mask = torch.rand(6) > 0.5
        v = torch.tensor(3, dtype=dt)
        tag = SHORT[dt]
        add("masked_fill", Case(f"masked_fill_tensor/{tag}/bcast_mask",
                                "diopiMaskedFill", dt)
            .output("out", x.masked_fill(mask, v)).input("input", x)
            .input("mask", mask).input("value", v))
        add("masked_fill", Case(f"masked_fill_scalar/{tag}",
                                "diopiMaskedFillScalar", dt)
            .output("out", x.masked_fill(mask, -2)).input("input", x)
            .input("mask", mask).attr("value", -2.0 if dt.is_floating_point
                                      else -2))
    x = noncontig((4, 6))
    mask = torch.rand(4, 6) > 0.5
    add("masked_fill", Case("masked_fill_inp/f32", "diopiMaskedFillInp")
        .inplace("input", x.contiguous(), x.masked_fill(mask, 1.5))
        .input("mask", mask).input("value", torch.tensor(1.5)))
    add("masked_fill", Case("masked_fill_scalar/f32/noncontig",
                            "diopiMaskedFillScalar")
        .output("out", x.masked_fill(mask, 0.25)).input("input", x)
        .input("mask", mask).attr("value", 0.25))


def clamping():
    torch.manual_seed(28)
    for dt in FLOATS:
        x = randn((6, 7), dt)
        add("clamp", Case(f"clamp_scalar/{SHORT[dt]}", "diopiClampScalar", dt)
            .output("out", torch.clamp(x.float(), -0.5, 0.7).to(dt))
            .input("input", x).attr("min", -0.5).attr("max", 0.7))
    x = noncontig((5, 8))
    x[0, 0] = float("nan")
    add("clamp", Case("clamp_scalar/f32/noncontig_nan", "diopiClampScalar")
        .output("out", torch.clamp(x, -1.0, 1.0)).input("input", x)
        .attr("min", -1.0).attr("max", 1.0))
    xi = torch.randint(-20, 20, (4, 5))
    add("clamp", Case("clamp_scalar/i64", "diopiClampScalar", torch.int64)
        .output("out", torch.clamp(xi, -5, 7)).input("input", xi)
        .attr("min", -5).attr("max", 7))
    x, lo, hi = randn((4, 6)), randn((6,)) - 1, randn((4, 1)) + 1
    add("clamp", Case("clamp/f32/bcast", "diopiClamp")
        .output("out", torch.clamp(x, lo, hi)).input("input", x)
        .input("min", lo).input("max", hi))
    add("clamp", Case("clamp_min/f32", "diopiClampMin")
        .output("out", torch.clamp(x, min=lo)).input("input", x)
        .input("min", lo))
    add("clamp", Case("clamp_max/f32", "diopiClampMax")
        .output("out", torch.clamp(x, max=hi)).input("input", x)
        .input("max", hi))
    add("clamp", Case("clamp_min_scalar/f32", "diopiClampMinScalar")
        .output("out", torch.clamp(x, min=0.1)).input("input", x)
        .attr("min", 0.1))
    add("clamp", Case("clamp_max_scalar/f32", "diopiClampMaxScalar")
        .output("out", torch.clamp(x, max=0.1)).input("input", x)
        .attr("max", 0.1))
    add("clamp", Case("clamp_inp_scalar/f32", "diopiClampInpScalar")
        .inplace("input", x, torch.clamp(x, -0.2, 0.2)).attr("min", -0.2)
        .attr("max", 0.2))


def powers():
    torch.manual_seed(29)
    for dt in FLOATS:
        x = positive((5, 6), dt)
        for e in (2.0, 0.5, -1.5):
            add("pow", Case(f"pow/{SHORT[dt]}/e{e}", "diopiPow", dt)
                .output("out", torch.pow(x.double(), e).to(dt))
                .input("input", x).attr("exponent", e))
    xi = torch.randint(-5, 5, (4, 5))
    add("pow", Case("pow/i64/e3", "diopiPow", torch.int64)
        .output("out", torch.pow(xi, 3)).input("input", xi)
        .attr("exponent", 3))
    x = positive((4, 10))[:, ::2]
    add("pow", Case("pow/f32/noncontig", "diopiPow")
        .output("out", torch.pow(x, 1.7)).input("input", x)
        .attr("exponent", 1.7))
    x = positive((3, 4))
    add("pow", Case("pow_inp/f32", "diopiPowInp")
        .inplace("input", x, torch.pow(x, 2.0)).attr("exponent", 2.0))
    e = randn((4,))
    add("pow", Case("pow_scalar/f32", "diopiPowScalar")
        .output("out", torch.pow(2.5, e)).attr("input", 2.5)
        .input("exponent", e))
    x, e = positive((3, 4)), randn((4,))
    add("pow", Case("pow_tensor/f32/bcast", "diopiPowTensor")
        .output("out", torch.pow(x, e)).input("input", x).input("exponent", e))


def activations_piecewise():
    torch.manual_seed(30)
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        for tag, x in ((SHORT[dt], randn((6, 7), dt)),):
            xf = x.double().requires_grad_()
            y = F.leaky_relu(xf, 0.1)
            go = randn(y.shape, dt)
            y.backward(go.double())
            add("leaky_relu", Case(f"leaky_relu/{tag}", "diopiLeakyRelu", dt)
                .output("out", y.detach().to(dt)).input("input", x)
                .attr("negative_slope", 0.1))
            add("leaky_relu", Case(f"leaky_relu_backward/{tag}",
                                   "diopiLeakyReluBackward", dt)
                .output("grad_input", xf.grad.to(dt)).input("grad_output", go)
                .input("input", x).attr("negative_slope", 0.1)
                .attr("input_is_result", False))
    x = noncontig((5, 6))
    add("leaky_relu", Case("leaky_relu/f32/noncontig", "diopiLeakyRelu")
        .output("out", F.leaky_relu(x, 0.2)).input("input", x)
        .attr("negative_slope", 0.2))
    add("leaky_relu", Case("leaky_relu_inp/f32", "diopiLeakyReluInp")
        .inplace("input", x.contiguous(), F.leaky_relu(x, 0.01))
        .attr("negative_slope", 0.01))
    for dt in (torch.float32, torch.float16):
        x = (randn((6, 8)) * 2).to(dt)
        xf = x.float().detach().clone().requires_grad_()
        y = F.hardtanh(xf, -0.5, 1.0)
        go = randn(y.shape)
        y.backward(go)
        tag = SHORT[dt]
        add("hardtanh", Case(f"hardtanh/{tag}", "diopiHardtanh", dt)
            .output("out", y.detach().to(dt)).input("input", x)
            .attr("min_val", -0.5).attr("max_val", 1.0))
        add("hardtanh", Case(f"hardtanh_backward/{tag}",
                             "diopiHardtanhBackward", dt)
            .output("grad_input", xf.grad.to(dt)).input("grad_output", go.to(dt))
            .input("input", x).attr("min_val", -0.5).attr("max_val", 1.0))
        xf = (x.detach().float() * 2).to(dt).float().detach().requires_grad_()
        y = F.hardswish(xf)
        y.backward(go)
        add("hardswish", Case(f"hardswish/{tag}", "diopiHardswish", dt)
            .output("out", y.detach().to(dt)).input("input", xf.detach().to(dt)))
        add("hardswish", Case(f"hardswish_backward/{tag}",
                              "diopiHardswishBackward", dt)
            .output("grad_input", xf.grad.to(dt)).input("grad_output", go.to(dt))
            .input("input", xf.detach().to(dt)))
        add("threshold", Case(f"threshold/{tag}", "diopiThreshold", dt)
            .output("out", F.threshold(x.float(), 0.3, -1.0).to(dt))
            .input("input", x).attr("threshold", 0.3).attr("value", -1.0))
    x = noncontig((4, 6)) * 3
    add("hardtanh", Case("hardtanh/f32/noncontig", "diopiHardtanh")
        .output("out", F.hardtanh(x)).input("input", x)
        .attr("min_val", -1.0).attr("max_val", 1.0))


def reductions_minmax():
    torch.manual_seed(31)
    for dt in FLOATS + (torch.int32,):
        x = randn((5, 7), dt) if dt != torch.int32 else \
            torch.randint(-4, 4, (5, 7), dtype=torch.int32)
        tag = SHORT[dt]
        v, i = torch.min(x, 1)
        add("min", Case(f"min/{tag}/dim1", "diopiMin", dt).output("min", v)
            .output("min_indices", i).input("input", x).attr("dim", 1))
        add("min", Case(f"min_all/{tag}", "diopiMinAll", dt)
            .output("out", torch.min(x)).input("input", x))
        add("max_all", Case(f"max_all/{tag}", "diopiMaxAll", dt)
            .output("out", torch.max(x)).input("input", x))
    x = torch.randint(-3, 3, (4, 6, 5)).float()
    v, i = torch.min(x, 0, keepdim=True)
    add("min", Case("min/f32/dim0_keep_ties", "diopiMin").output("min", v)
        .output("min_indices", i).input("input", x).attr("dim", 0))
    x = noncontig((6, 5))
    x[2, 3] = float("nan")
    v, i = torch.min(x, -1)
    add("min", Case("min/f32/noncontig_nan", "diopiMin").output("min", v)
        .output("min_indices", i).input("input", x).attr("dim", -1))
    add("max_all", Case("max_all/f32/nan", "diopiMaxAll")
        .output("out", torch.max(x)).input("input", x))
    x = randn((4, 5, 6))
    for tag, dims, keep in (("dims02", [0, 2], False), ("dim1_keep", [1], True),
                            ("all", [], False)):
        y = torch.amax(x, dims, keep) if dims else torch.amax(x, (0, 1, 2))
        add("amax", Case(f"amax/f32/{tag}", "diopiAmax").output("out", y)
            .input("input", x).attr("dim", dims).attr("keepdim", keep))
    xh = randn((4, 6), torch.float16)
    add("amax", Case("amax/f16/dim1", "diopiAmax", torch.float16)
        .output("out", torch.amax(xh, 1)).input("input", xh).attr("dim", [1])
        .attr("keepdim", False))
    x = torch.randint(-3, 3, (5, 6)).float()
    add("argmin", Case("argmin/f32/dim1_ties", "diopiArgmin")
        .output("out", torch.argmin(x, 1)).input("input", x).attr("dim", [1])
        .attr("keepdim", False))
    add("argmin", Case("argmin/f32/all", "diopiArgmin")
        .output("out", torch.argmin(x)).input("input", x).attr("dim", [])
        .attr("keepdim", False))
    add("argmin", Case("argmin/f32/dim0_keep", "diopiArgmin")
        .output("out", torch.argmin(x, 0, keepdim=True)).input("input", x)
        .attr("dim", [0]).attr("keepdim", True))


def loss_mse():
    torch.manual_seed(32)
    reductions = {"none": 0, "mean": 1, "sum": 2}
    for dt in (torch.float32, torch.float16, torch.float64):
        for red, code in reductions.items():
            x = randn((6, 9), dt).double().requires_grad_()
            t = randn((6, 9), dt)
            y = F.mse_loss(x, t.double(), reduction=red)
            go = randn(y.shape, dt)
            y.backward(go.double())
            tag = f"{SHORT[dt]}/{red}"
            add("mse_loss", Case(f"mse_loss/{tag}", "diopiMSELoss", dt)
                .output("out", y.detach().to(dt)).input("input", x.detach().to(dt))
                .input("target", t).attr("reduction", code))
            add("mse_loss", Case(f"mse_loss_backward/{tag}",
                                 "diopiMSELossBackward", dt)
                .output("grad_input", x.grad.to(dt)).input("grad_output", go)
                .input("input", x.detach().to(dt)).input("target", t)
                .attr("reduction", code))
    x, t = noncontig((5, 6)), randn((5, 6))
    add("mse_loss", Case("mse_loss/f32/noncontig_mean", "diopiMSELoss")
        .output("out", F.mse_loss(x, t)).input("input", x).input("target", t)
        .attr("reduction", 1))


def optimizer_adam():
    torch.manual_seed(33)
    for tag, shape, step, wd, ams, dt in (
            ("f32/8x12/step1", (8, 12), 1, 0.0, False, torch.float32),
            ("f32/8x12/step7_wd", (8, 12), 7, 1e-2, False, torch.float32),
            ("f32/300/amsgrad", (300,), 4, 1e-2, True, torch.float32),
            ("f64/5x7/step3", (5, 7), 3, 1e-2, False, torch.float64)):
        p, g = randn(shape, dt), randn(shape, dt)
        m, v = randn(shape, dt) * 0.1, torch.rand(shape, dtype=dt) * 0.1
        vmax = v + torch.rand(shape, dtype=dt) * 0.05 * (torch.rand(shape) > 0.5)
        pp, mm, vv, vm = p.clone(), m.clone(), v.clone(), vmax.clone()
        opt = torch.optim.Adam([pp], lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                               weight_decay=wd, amsgrad=ams)
        pp.grad = g.clone()
        state = {"step": torch.tensor(float(step - 1)), "exp_avg": mm,
                 "exp_avg_sq": vv}
        if ams:
            state["max_exp_avg_sq"] = vm
        opt.state[pp] = state
        opt.step()
        c = (Case(f"adam/{tag}", "diopiAdam", dt, atol=1e-6, rtol=1e-5,
                  flops=14 * p.numel())
             .inplace("param", p, pp.detach()).input("grad", g)
             .inplace("exp_avg", m, mm).inplace("exp_avg_sq", v, vv))
        if ams:
            c.inplace("max_exp_avg_sq", vmax, vm)
        add("adam", c.attr("lr", 1e-3).attr("beta1", 0.9).attr("beta2", 0.999)
            .attr("eps", 1e-8).attr("weight_decay", wd).attr("step", step)
            .attr("amsgrad", ams))


def random_fills():
    """Judged by rule (judge=uniform/normal: range, mean and spread), the
    draws being the op library's own."""
    for op, role, a, b, rule in (("diopiUniformInp", "inout", -2.0, 3.0,
                                  "uniform"),
                                 ("diopiNormalInp", "inout", 1.5, 0.5,
                                  "normal"),
                                 ("diopiNormal", "out", -1.0, 2.0, "normal")):
        for dt in (torch.float32, torch.float16, torch.float64):
            c = Case(f"{op[5:].lower()}/{SHORT[dt]}", op, dt)
            like = torch.zeros(32, 32, dtype=dt)
            if role == "inout":
                c.tensors.append((role, 2, like, like, None))
            else:
                c.unjudged(role, like)
            names = ("from", "to") if rule == "uniform" else ("mean", "std")
            add(rule, c.attr(names[0], a).attr(names[1], b).attr("seed", 25)
                .attr("judge", rule))


def ranges():
    for tag, start, end, step, dt in (("i64", 0, 10, 1, torch.int64),
                                      ("i64/step3", -7, 11, 3, torch.int64),
                                      ("f32/frac", 0.5, 3.2, 0.3,
                                       torch.float32),
                                      ("f32/down", 4.0, -2.0, -0.75,
                                       torch.float32),
                                      ("f64", 1.0, 2.0, 0.125, torch.float64),
                                      ("f32/empty", 3, 3, 1, torch.float32)):
        y = torch.arange(start, end, step, dtype=dt)
        add("arange", Case(f"arange/{tag}", "diopiArange", dt)
            .output("out", y).attr("start", start).attr("end", end)
            .attr("step", step))
    for tag, start, end, steps, dt in (("f32", -1.0, 2.0, 7, torch.float32),
                                       ("f32/one", 3.0, 5.0, 1, torch.float32),
                                       ("f64/100", 0.0, 1.0, 100,
                                        torch.float64),
                                       ("i64", 0, 20, 6, torch.int64)):
        y = torch.linspace(start, end, steps, dtype=dt)
        add("linspace", Case(f"linspace/{tag}", "diopiLinspace", dt)
            .output("out", y).attr("start", start).attr("end", end)
            .attr("steps", steps))


def stacking():
    torch.manual_seed(34)
    for tag, parts, dim in (
            ("f32/dim0", [randn((3, 4)) for _ in range(3)], 0),
            ("f32/dim1", [randn((2, 5)) for _ in range(4)], 1),
            ("f16/last", [randn((2, 3), torch.float16) for _ in range(2)], -1),
            ("i64/dim0", [torch.randint(0, 9, (4,)) for _ in range(3)], 0),
            ("f32/noncontig", [noncontig((3, 4)), randn((3, 4))], 1)):
        tensor_list_case("stack", "diopiStack", tag, parts, dim,
                         torch.stack(parts, dim))
    for tag, x, shape in (("f32/row", randn((1, 6)), (4, 6)),
                          ("f32/new_dims", randn((3, 1)), (2, 3, 5)),
                          ("f16", randn((5,), torch.float16), (3, 5)),
                          ("f32/noncontig", noncontig((2, 1, 3)), (2, 4, 3))):
        add("expand", Case(f"expand/{tag}", "diopiExpand", x.dtype)
            .output("out", x.expand(shape).contiguous()).input("input", x))


BREADTH = (unary_math, comparisons, selection, clamping, powers,
           activations_piecewise, reductions_minmax, loss_mse, optimizer_adam,
           random_fills, ranges, stacking)


def hardening():
    """Silent wrong answers of the past, each against PyTorch: NaN through
    relu, beta 0 ignoring a NaN/Inf input of addmm, int64 values beyond
    2^53 kept exact, float64 products in float64, zero weight and bias
    gradients of a batch-0 convolution, SGD momentum without a buffer,
    losses over spatial dims and over class probabilities, adaptive
    pooling to size 0. Generated last, like convolution_batches."""
    x = torch.tensor([[float("nan"), -1.0, 2.0], [0.5, float("nan"), -3.0]])
    add("relu", Case("relu/f32/nan", "diopiRelu").output("out", torch.relu(x))
        .input("input", x))
    inp = torch.tensor([[float("nan"), float("inf")], [1.0, -float("inf")]])
    m1, m2 = randn((2, 3)), randn((3, 2))
    add("addmm", Case("addmm/beta0/f32/ignores_nan_inf", "diopiAddmm",
                      atol=1e-5, rtol=1e-5)
        .output("out", torch.addmm(inp, m1, m2, beta=0, alpha=2.0))
        .input("input", inp).input("mat1", m1).input("mat2", m2)
        .attr("beta", 0.0).attr("alpha", 2.0))
    big = torch.tensor([[2**62 + 1, 2**53 + 1, -(2**60) - 3],
                        [2**55 + 7, 9, -(2**53) - 1]], dtype=torch.int64)
    small = torch.tensor([[3, 1, 5], [2, -4, 1]], dtype=torch.int64)
    add("add", Case("add/i64/beyond_2^53", "diopiAdd", torch.int64, 0, 0)
        .output("out", torch.add(big, small, alpha=3)).input("input", big)
        .input("other", small).attr("alpha", 3))
    add("sub", Case("sub/i64/beyond_2^53", "diopiSub", torch.int64, 0, 0)
        .output("out", torch.sub(big, small)).input("input", big)
        .input("other", small).attr("alpha", 1))
    add("mul", Case("mul/i64/beyond_2^53", "diopiMul", torch.int64, 0, 0)
        .output("out", big * small).input("input", big).input("other", small))
    filled = torch.full((2, 3), 2**63 - 1, dtype=torch.int64)
    add("fill", Case("fill/i64/max", "diopiFill", torch.int64, 0, 0)
        .inplace("input", torch.zeros((2, 3), dtype=torch.int64), filled)
        .attr("value", 2**63 - 1))
    ext = torch.tensor([[2**63 - 1, -(2**63)], [2**53 + 1, -(2**53) - 1]],
                       dtype=torch.int64)
    add("cat", Case("cat/i64/extremes", "diopiCat", torch.int64, 0, 0)
        .output("out", torch.cat([ext, big[:, :2]], 0))
        .input("tensors.0", ext).input("tensors.1", big[:, :2])
        .attr("dim", 0))
    add("copy", Case("copy/i64/strided_extremes", "diopiCopyInp", torch.int64,
                     0, 0)
        .inplace("dest", torch.zeros((2, 2), dtype=torch.int64),
                 ext.t().contiguous())
        .input("src", ext.t()))
    add("transpose", Case("transpose/i64/extremes", "diopiTranspose",
                          torch.int64, 0, 0)
        .output("out", ext.t().contiguous()).input("input", ext)
        .attr("dim0", 0).attr("dim1", 1))
    add("permute", Case("permute/i64/extremes", "diopiPermute", torch.int64,
                        0, 0)
        .output("out", big.permute(1, 0).contiguous()).input("input", big)
        .attr("dims", [1, 0]))
    index = torch.tensor([2, 0, 2], dtype=torch.int64)
    add("index_select", Case("index_select/i64/extremes", "diopiIndexSelect",
                             torch.int64, 0, 0)
        .output("out", torch.index_select(big, 1, index)).input("input", big)
        .input("index", index).attr("dim", 1))
    close = torch.tensor([[2**53, 2**53 + 1, 2**53], [5, 2**62, 2**62 + 1]],
                         dtype=torch.int64)
    v, i = torch.max(close, 1)
    add("max", Case("max/i64/beyond_2^53", "diopiMax", torch.int64, 0, 0)
        .output("max", v).output("max_indices", i).input("input", close)
        .attr("dim", 1))
    a64, b64 = randn((33, 17), torch.float64), randn((17, 9), torch.float64)
    add("mm", Case("mm/f64/precision", "diopiMm", torch.float64, 1e-12, 1e-12)
        .output("out", a64 @ b64).input("input", a64).input("mat2", b64))
    x64, w64, bias64 = (randn((5, 40), torch.float64),
                        randn((7, 40), torch.float64),
                        randn((7,), torch.float64))
    add("linear", Case("linear/f64/precision", "diopiLinear", torch.float64,
                       1e-12, 1e-12)
        .output("out", F.linear(x64, w64, bias64)).input("input", x64)
        .input("weight", w64).input("bias", bias64))
    x0 = torch.zeros((0, 2, 5, 5))
    w0 = randn((3, 2, 3, 3))
    go0 = torch.zeros((0, 3, 3, 3))
    add("conv2d", Case("conv2d_backward/f32/batch0",
                       "diopiConvolution2dBackward")
        .output("grad_input", torch.zeros(x0.shape))
        .output("grad_weight", torch.zeros(w0.shape))
        .output("grad_bias", torch.zeros((3,)))
        .input("grad_output", go0).input("input", x0).input("weight", w0)
        .attr("bias_sizes", [3]).attr("stride", [1, 1]).attr("padding", [0, 0])
        .attr("dilation", [1, 1]).attr("groups", 1))
    p, g = randn((6, 5)), randn((6, 5))
    for nesterov in (False, True):
        pp = p.clone().requires_grad_()
        opt = torch.optim.SGD([pp], lr=0.1, momentum=0.9, dampening=0.0,
                              weight_decay=1e-2, nesterov=nesterov)
        pp.grad = g.clone()
        opt.step()
        add("sgd", Case("sgd/f32/momentum_without_buffer"
                        f"{'/nesterov' if nesterov else ''}", "diopiSgd")
            .inplace("param", p, pp.detach()).inplace("grad", g, g)
            .attr("lr", 0.1).attr("momentum", 0.9).attr("dampening", 0.0)
            .attr("weight_decay", 1e-2).attr("nesterov", nesterov))
    reductions = {"none": 0, "mean": 1, "sum": 2}
    for red, code in reductions.items():
        x = randn((2, 4, 3, 2)).requires_grad_()
        t = torch.randint(0, 4, (2, 3, 2))
        t[0, 1, 1] = -100
        w = torch.rand(4) + 0.5
        y = F.cross_entropy(x, t, weight=w, reduction=red)
        go = randn(y.shape)
        y.backward(go)
        add("cross_entropy", Case(f"cross_entropy/f32/spatial/{red}",
                                  "diopiCrossEntropyLoss")
            .output("out", y.detach()).input("input", x.detach())
            .input("target", t).input("weight", w).attr("reduction", code)
            .attr("ignore_index", -100).attr("label_smoothing", 0.0))
        add("cross_entropy", Case(f"cross_entropy_backward/f32/spatial/{red}",
                                  "diopiCrossEntropyLossBackward")
            .output("grad_input", x.grad).input("grad_output", go)
            .input("input", x.detach()).input("target", t).input("weight", w)
            .attr("reduction", code).attr("ignore_index", -100)
            .attr("label_smoothing", 0.0))
        lp = F.log_softmax(randn((2, 4, 3)), 1).requires_grad_()
        tt = torch.randint(0, 4, (2, 3))
        y = F.nll_loss(lp, tt, reduction=red)
        go = randn(y.shape)
        y.backward(go)
        add("nll_loss", Case(f"nll_loss/f32/spatial/{red}", "diopiNLLLoss")
            .output("out", y.detach()).input("input", lp.detach())
            .input("target", tt).attr("reduction", code)
            .attr("ignore_index", -100))
        add("nll_loss", Case(f"nll_loss_backward/f32/spatial/{red}",
                             "diopiNLLLossBackward")
            .output("grad_input", lp.grad).input("grad_output", go)
            .input("input", lp.detach()).input("target", tt)
            .attr("reduction", code).attr("ignore_index", -100))
        x = randn((5, 4)).requires_grad_()
        prob = torch.softmax(randn((5, 4)), 1)
        y = F.cross_entropy(x, prob, reduction=red, label_smoothing=0.2)
        go = randn(y.shape)
        y.backward(go)
        add("cross_entropy", Case(f"cross_entropy/f32/probabilities/{red}",
                                  "diopiCrossEntropyLoss")
            .output("out", y.detach()).input("input", x.detach())
            .input("target", prob).attr("reduction", code)
            .attr("ignore_index", -100).attr("label_smoothing", 0.2))
        add("cross_entropy",
            Case(f"cross_entropy_backward/f32/probabilities/{red}",
                 "diopiCrossEntropyLossBackward")
            .output("grad_input", x.grad).input("grad_output", go)
            .input("input", x.detach()).input("target", prob)
            .attr("reduction", code).attr("ignore_index", -100)
            .attr("label_smoothing", 0.2))
    x = randn((2, 3, 4, 4))
    add("adaptive_avg_pool2d", Case("adaptive_avg_pool2d/f32/size0",
                                    "diopiAdaptiveAvgPool2d")
        .output("out", F.adaptive_avg_pool2d(x, (0, 2))).input("input", x)
        .attr("output_size", [0, 2]))
    for tag, sa, sb in (("vector_vector", (5,), (5,)),
                        ("matrix_vector", (3, 5), (5,)),
                        ("vector_matrix", (5,), (5, 4)),
                        ("batch_vector", (2, 3, 5), (5,)),
                        ("batch_matrix", (2, 3, 5), (5, 4)),
                        ("broadcast_batches", (2, 1, 3, 5), (4, 5, 2))):
        a, b = randn(sa), randn(sb)
        add("matmul", Case(f"matmul/f32/{tag}", "diopiMatmul", atol=1e-5,
                           rtol=1e-5)
            .output("out", torch.matmul(a, b)).input("input", a)
            .input("other", b))
    src = randn(())
    zero_d = torch.tensor(0, dtype=torch.int64)
    add("gather", Case("gather/f32/0d", "diopiGather")
        .output("out", torch.gather(src, 0, zero_d)).input("input", src)
        .input("index", zero_d).attr("dim", 0))
    x, w, bias = randn((3, 4)), randn((0, 4)), randn((0,))
    add("linear", Case("linear/f32/0_out_features", "diopiLinear")
        .output("out", F.linear(x, w, bias)).input("input", x)
        .input("weight", w).input("bias", bias))
    for tag, shape, index in (("0d_input", (), [0]), ("0d_index", (3,), 2)):
        src = randn(shape)
        index = torch.tensor(index, dtype=torch.int64)
        add("gather", Case(f"gather/f32/{tag}", "diopiGather")
            .output("out", torch.gather(src, 0, index)).input("input", src)
            .input("index", index).attr("dim", 0))
    for tag, shape, has_bias in (("0_out_features_3d", (2, 3, 4), False),
                                 ("0_out_features_1d", (4,), True)):
        x, w = randn(shape), randn((0, 4))
        c = Case(f"linear/f32/{tag}", "diopiLinear").output(
            "out", F.linear(x, w, torch.zeros(0) if has_bias else None))
        c.input("input", x).input("weight", w)
        if has_bias:
            c.input("bias", torch.zeros(0))
        add("linear", c)
    for tag, n, cin, hw, cout, k, stride, pad, dil, groups, bias in (
            ("f64/precision", 2, 4, 7, 6, 3, 2, 1, 1, 2, True),
            ("f64/dilated", 1, 3, 8, 2, 3, 1, 0, 2, 1, False)):
        x = randn((n, cin, hw, hw), torch.float64).requires_grad_()
        w = randn((cout, cin // groups, k, k), torch.float64).requires_grad_()
        b = randn((cout,), torch.float64).requires_grad_() if bias else None
        y = F.conv2d(x, w, b, stride, pad, dil, groups)
        go = randn(y.shape, torch.float64)
        y.backward(go)
        attrs = (("stride", [stride] * 2), ("padding", [pad] * 2),
                 ("dilation", [dil] * 2), ("groups", groups))
        convolution_cases(2, tag, x, w, b, y, go, attrs, dtype=torch.float64,
                          atol=1e-10, rtol=1e-10)


def pointwise_blends():
    torch.manual_seed(35)
    for dt in (torch.float32, torch.float16, torch.float64):
        a, b, w = randn((4, 6), dt), randn((6,), dt), torch.rand(4, 1).to(dt)
        add("lerp", Case(f"lerp_tensor/{SHORT[dt]}/bcast", "diopiLerpTensor", dt)
            .output("out", torch.lerp(a.double(), b.double(), w.double()).to(dt))
            .input("input", a).input("end", b).input("weight", w))
        add("lerp", Case(f"lerp_scalar/{SHORT[dt]}", "diopiLerpScalar", dt)
            .output("out", torch.lerp(a.double(), b.double(), 0.7).to(dt))
            .input("input", a).input("end", b).attr("weight", 0.7))
        t1, t2 = randn((4, 1), dt), positive((6,), dt)
        for name, fn in (("Addcmul", torch.addcmul), ("Addcdiv", torch.addcdiv)):
            add(name.lower(), Case(f"{name.lower()}/{SHORT[dt]}/bcast",
                                   "diopi" + name, dt)
                .output("out", fn(a.double(), t1.double(), t2.double(),
                                  value=0.5).to(dt))
                .input("input", a).input("tensor1", t1).input("tensor2", t2)
                .attr("value", 0.5))
    a, t1, t2 = noncontig((5, 6)), randn((5, 6)), positive((5, 6))
    for name, fn in (("Addcmul", torch.addcmul), ("Addcdiv", torch.addcdiv)):
        add(name.lower(), Case(f"{name.lower()}/f32/noncontig", "diopi" + name)
            .output("out", fn(a, t1, t2, value=-2.0)).input("input", a)
            .input("tensor1", t1).input("tensor2", t2).attr("value", -2.0))
        add(name.lower(), Case(f"{name.lower()}_inp/f32", f"diopi{name}Inp")
            .inplace("input", a.contiguous(), fn(a, t1, t2, value=1.5))
            .input("tensor1", t1).input("tensor2", t2).attr("value", 1.5))
    ai = torch.randint(-5, 5, (4, 5))
    add("addcmul", Case("addcmul/i64", "diopiAddcmul", torch.int64)
        .output("out", torch.addcmul(ai, ai, ai, value=2)).input("input", ai)
        .input("tensor1", ai).input("tensor2", ai).attr("value", 2))
    a, b = randn((5, 6)), randn((6,))
    a[1, 2], b[4] = float("nan"), float("nan")
    for name, fn in (("Maximum", torch.maximum), ("Minimum", torch.minimum)):
        add(name.lower(), Case(f"{name.lower()}/f32/bcast_nan", "diopi" + name)
            .output("out", fn(a, b)).input("input", a).input("other", b))
        ai, bi = torch.randint(-9, 9, (3, 4)), torch.randint(-9, 9, (3, 4))
        add(name.lower(), Case(f"{name.lower()}/i64", "diopi" + name,
                               torch.int64)
            .output("out", fn(ai, bi)).input("input", ai).input("other", bi))
    x = noncontig((4, 6))
    x[0, 1] = float("nan")
    add("isnan", Case("isnan/f32/noncontig", "diopiIsNan")
        .output("out", torch.isnan(x)).input("input", x))


def bitwise():
    torch.manual_seed(36)
    for dt in (torch.int32, torch.int64, torch.uint8, torch.bool):
        if dt == torch.bool:
            a, b = torch.rand(4, 5) > 0.5, torch.rand(5) > 0.5
        else:
            hi = 255 if dt == torch.uint8 else 1000
            lo = 0 if dt == torch.uint8 else -1000
            a = torch.randint(lo, hi, (4, 5)).to(dt)
            b = torch.randint(lo, hi, (5,)).to(dt)
        tag = {torch.uint8: "u8", torch.bool: "bool"}.get(dt, SHORT.get(dt))
        for name, fn in (("And", torch.bitwise_and), ("Or", torch.bitwise_or)):
            low = "bitwise_" + name.lower()
            add(low, Case(f"{low}/{tag}/bcast", "diopiBitwise" + name, dt)
                .output("out", fn(a, b)).input("input", a).input("other", b))
        add("bitwise_not", Case(f"bitwise_not/{tag}", "diopiBitwiseNot", dt)
            .output("out", torch.bitwise_not(a)).input("input", a))
    a = torch.randint(-99, 99, (6, 8), dtype=torch.int32)[:, ::2]
    add("bitwise_and", Case("bitwise_and_scalar/i32/noncontig",
                            "diopiBitwiseAndScalar", torch.int32)
        .output("out", a & 12).input("input", a).attr("other", 12))
    add("bitwise_or", Case("bitwise_or_scalar/i32", "diopiBitwiseOrScalar",
                           torch.int32)
        .output("out", a | 5).input("input", a).attr("other", 5))
    b = torch.randint(-99, 99, (3, 4))
    add("bitwise_and", Case("bitwise_and_inp/i64", "diopiBitwiseAndInp",
                            torch.int64)
        .inplace("input", b, b & b.flip(0)).input("other", b.flip(0)))


def remaps():
    torch.manual_seed(37)
    for tag, x, dims in (("f32/dims01", randn((3, 4, 5)), [0, 2]),
                         ("i64/last", torch.randint(0, 9, (4, 6)), [-1]),
                         ("f16/all", randn((2, 3), torch.float16), [0, 1]),
                         ("f32/noncontig", noncontig((4, 5)), [1])):
        add("flip", Case(f"flip/{tag}", "diopiFlip", x.dtype)
            .output("out", torch.flip(x, dims)).input("input", x)
            .attr("dims", dims))
    for tag, x, shifts, dims in (("f32/dim1", randn((3, 7)), [2], [1]),
                                 ("f32/two_dims", randn((4, 5)), [-1, 7],
                                  [0, 1]),
                                 ("f32/flat", randn((3, 4)), [5], []),
                                 ("i32/noncontig",
                                  torch.randint(0, 9, (4, 10),
                                                dtype=torch.int32)[:, ::2],
                                  [1], [0])):
        y = torch.roll(x, shifts, dims) if dims else torch.roll(x, shifts)
        add("roll", Case(f"roll/{tag}", "diopiRoll", x.dtype)
            .output("out", y).input("input", x).attr("shifts", shifts)
            .attr("dims", dims))
    for tag, x, reps in (("f32/2d", randn((2, 3)), [2, 3]),
                         ("f32/lead", randn((3,)), [2, 1, 2]),
                         ("f16/ones", randn((2, 2), torch.float16), [1, 1]),
                         ("f32/noncontig", noncontig((2, 3)), [3, 1])):
        add("repeat", Case(f"repeat/{tag}", "diopiRepeat", x.dtype)
            .output("out", x.repeat(*reps)).input("input", x)
            .attr("repeats_size", reps))
    x4 = randn((2, 3, 5, 6))
    for mode, pad in (("constant", [1, 2, 0, 3]), ("constant", [-1, 2]),
                      ("reflect", [2, 3, 1, 4]), ("replicate", [3, 1, 2, 2]),
                      ("circular", [2, 1, 1, 3])):
        kw = {"value": 0.5} if mode == "constant" else {}
        y = F.pad(x4, pad, mode, **kw)
        c = Case(f"pad/f32/{mode}/{'_'.join(map(str, pad))}", "diopiPad")
        c.output("out", y).input("input", x4).attr("pad", pad)
        c.attr("mode", mode)
        if kw:
            c.attr("value", 0.5)
        add("pad", c)
    x = noncontig((2, 3, 4))
    add("pad", Case("pad/f32/reflect/noncontig", "diopiPad")
        .output("out", F.pad(x, [2, 1], "reflect")).input("input", x)
        .attr("pad", [2, 1]).attr("mode", "reflect"))
    xh = randn((1, 2, 4, 4), torch.float16)
    add("pad", Case("pad/f16/replicate", "diopiPad", torch.float16)
        .output("out", F.pad(xh.float(), [1, 1, 1, 1], "replicate").half())
        .input("input", xh).attr("pad", [1, 1, 1, 1]).attr("mode", "replicate"))


def positional():
    torch.manual_seed(38)
    for tag, x in (("f32", randn((5, 7))), ("f32/batched", randn((2, 4, 3))),
                   ("i64", torch.randint(0, 9, (4, 4))),
                   ("f32/noncontig", noncontig((4, 6)))):
        for diag in (0, 1, -2):
            for name, fn in (("Tril", torch.tril), ("Triu", torch.triu)):
                add(name.lower(), Case(f"{name.lower()}/{tag}/d{diag}",
                                       "diopi" + name, x.dtype)
                    .output("out", fn(x, diag)).input("input", x)
                    .attr("diagonal", diag))
    idx = torch.randint(0, 5, (3, 4))
    add("one_hot", Case("one_hot/i64/5", "diopiOneHot", torch.int64)
        .output("out", F.one_hot(idx, 5)).input("input", idx)
        .attr("num_classes", 5))
    add("one_hot", Case("one_hot/i64/inferred", "diopiOneHot", torch.int64)
        .output("out", F.one_hot(idx, 7)).input("input", idx)
        .attr("num_classes", -1))


def splitting():
    torch.manual_seed(39)
    for tag, x, sizes, dim in (("f32/dim0", randn((7, 3)), [2, 4, 1], 0),
                               ("f32/dim1_empty", randn((3, 5)), [2, 0, 3], 1),
                               ("i64/last", torch.randint(0, 9, (2, 6)),
                                [3, 3], -1),
                               ("f32/noncontig", noncontig((6, 4)), [1, 3], 1)):
        c = Case(f"split_with_sizes/{tag}", "diopiSplitWithSizes", x.dtype)
        for i, part in enumerate(torch.split(x, sizes, dim)):
            c.output(f"outs.{i}", part.contiguous())
        add("split_with_sizes", c.input("input", x).attr("splitSizes", sizes)
            .attr("dim", dim))


def reductions_more():
    torch.manual_seed(40)
    x = torch.rand(4, 5) + 0.5
    add("prod", Case("prod/f32/dim1", "diopiProd", atol=1e-5, rtol=1e-5)
        .output("out", torch.prod(x, 1)).input("input", x).attr("dim", 1))
    add("prod", Case("prod/f32/all", "diopiProd")
        .output("out", torch.prod(x)).input("input", x))
    xi = torch.randint(-3, 4, (3, 4))
    add("prod", Case("prod/i64/dim0", "diopiProd", torch.int64)
        .output("out", torch.prod(xi, 0)).input("input", xi).attr("dim", 0))
    xh = (torch.rand(3, 6) + 0.5).half()
    add("prod", Case("prod/f16/dim1", "diopiProd", torch.float16)
        .output("out", torch.prod(xh.float(), 1).half()).input("input", xh)
        .attr("dim", 1))
    b = torch.rand(4, 6) > 0.7
    b[2] = False
    bf = torch.randint(0, 2, (5, 8)).float()[:, ::2]
    for name, fn in (("Any", torch.any), ("All", torch.all)):
        low = name.lower()
        add(low, Case(f"{low}/bool/dim1", "diopi" + name, torch.bool)
            .output("out", fn(b, 1)).input("input", b).attr("dim", 1))
        add(low, Case(f"{low}/bool/all", "diopi" + name, torch.bool)
            .output("out", fn(b)).input("input", b))
        add(low, Case(f"{low}/f32/noncontig_dim0", "diopi" + name, torch.bool)
            .output("out", fn(bf, 0)).input("input", bf).attr("dim", 0))
    x = randn((4, 5, 6))
    for p in (2.0, 1.0, float("inf"), 3.0, 0.0):
        for tag, dims, keep in (("all", [], False), ("dim2", [2], False),
                                ("dims01_keep", [0, 1], True)):
            y = torch.linalg.vector_norm(x, p, dims if dims else None, keep)
            add("norm", Case(f"norm/f32/p{p}/{tag}", "diopiNorm", atol=1e-4,
                             rtol=1e-4).output("out", y).input("input", x)
                .attr("p", p).attr("dim", dims))
            if p in (float("inf"), 0.0):
                continue
            xg = x.clone().requires_grad_()
            yg = torch.linalg.vector_norm(xg, p, dims if dims else None, keep)
            go = randn(yg.shape)
            yg.backward(go)
            add("norm", Case(f"norm_backward/f32/p{p}/{tag}",
                             "diopiNormBackward", atol=1e-4, rtol=1e-4)
                .output("grad_input", xg.grad).input("grad_output", go)
                .input("input", x).input("norm", yg.detach()).attr("p", p)
                .attr("dim", dims))
    xh = randn((4, 8), torch.float16)
    add("norm", Case("norm/f16/p2/dim1", "diopiNorm", torch.float16)
        .output("out", torch.linalg.vector_norm(xh.float(), 2, [1]).half())
        .input("input", xh).attr("p", 2.0).attr("dim", [1]))
    xn = noncontig((5, 6))
    add("norm", Case("norm/f32/p2/noncontig", "diopiNorm")
        .output("out", torch.linalg.vector_norm(xn)).input("input", xn)
        .attr("p", 2.0).attr("dim", []))
    for tag, x, dims, corr, keep in (
            ("f32/all", randn((6, 7)), [], 1, False),
            ("f32/dim1", randn((6, 7)), [1], 1, False),
            ("f32/dims02_keep_c0", randn((3, 4, 5)), [0, 2], 0, True),
            ("f64/dim0", randn((8, 3), torch.float64), [0], 1, False),
            ("f32/noncontig", noncontig((5, 6)), [0], 2, False)):
        y = torch.std(x, dims if dims else None, correction=corr, keepdim=keep)
        add("std", Case(f"std/{tag}", "diopiStd", x.dtype, atol=1e-5,
                        rtol=1e-4).output("out", y).input("input", x)
            .attr("dim", dims).attr("correction", corr))
    for tag, x, dim in (("f32/dim1", randn((4, 9)), 1),
                        ("f32/dim0", randn((5, 3, 2)), 0),
                        ("f64/last", randn((3, 6), torch.float64), -1),
                        ("i64/dim0", torch.randint(-9, 9, (6, 3)), 0),
                        ("f16/dim1", randn((3, 8), torch.float16), 1),
                        ("f32/noncontig", noncontig((4, 6)), 1)):
        dt = x.dtype
        y = torch.cumsum(x.double(), dim).to(dt)
        add("cumsum", Case(f"cumsum/{tag}", "diopiCumsum", dt, atol=1e-5,
                           rtol=1e-5).output("out", y).input("input", x)
            .attr("dim", dim))
        if dt.is_floating_point:
            xg = x.double().requires_grad_()
            yg = torch.cumsum(xg, dim)
            go = randn(yg.shape, dt)
            yg.backward(go.double())
            add("cumsum", Case(f"cumsum_backward/{tag}", "diopiCumsumBackward",
                               dt).output("grad_input", xg.grad.to(dt))
                .input("grad_output", go).attr("dim", dim))


def losses_more():
    torch.manual_seed(41)
    reductions = {"none": 0, "mean": 1, "sum": 2}
    for red, code in reductions.items():
        for dt in (torch.float32, torch.float16):
            x = randn((5, 7), dt).double().requires_grad_()
            t = randn((5, 7), dt)
            for beta in (1.0, 0.5, 0.0):
                if dt == torch.float16 and beta != 1.0:
                    continue
                x.grad = None
                y = F.smooth_l1_loss(x, t.double(), reduction=red, beta=beta)
                go = randn(y.shape, dt)
                y.backward(go.double())
                tag = f"{SHORT[dt]}/{red}/beta{beta}"
                add("smooth_l1_loss", Case(f"smooth_l1_loss/{tag}",
                                           "diopiSmoothL1Loss", dt)
                    .output("out", y.detach().to(dt))
                    .input("input", x.detach().to(dt)).input("target", t)
                    .attr("reduction", code).attr("beta", beta))
                add("smooth_l1_loss", Case(f"smooth_l1_loss_backward/{tag}",
                                           "diopiSmoothL1LossBackward", dt)
                    .output("grad_input", x.grad.to(dt)).input("grad_output", go)
                    .input("input", x.detach().to(dt)).input("target", t)
                    .attr("reduction", code).attr("beta", beta))
        for weighted in (False, True):
            x = torch.rand(4, 6).clamp(0.02, 0.98).double().requires_grad_()
            t = torch.rand(4, 6).double()
            w = torch.rand(6).double() + 0.5 if weighted else None
            y = F.binary_cross_entropy(x, t, w, reduction=red)
            go = randn(y.shape).double()
            y.backward(go)
            tag = f"f32/{red}{'/weight' if weighted else ''}"
            c = Case(f"bce/{tag}", "diopiBCELoss", atol=1e-5, rtol=1e-4)
            c.output("out", y.detach().float()).input("input", x.detach().float())
            c.input("target", t.float())
            if weighted:
                c.input("weight", w.float())
            add("bce", c.attr("reduction", code))
            c = Case(f"bce_backward/{tag}", "diopiBCELossBackward", atol=1e-5,
                     rtol=1e-4)
            c.output("grad_input", x.grad.float()).input("grad_output", go.float())
            c.input("input", x.detach().float()).input("target", t.float())
            if weighted:
                c.input("weight", w.float())
            add("bce", c.attr("reduction", code))
        for weighted, pos in ((False, False), (True, False), (True, True),
                              (False, True)):
            x = (randn((4, 6)) * 3).double().requires_grad_()
            t = torch.rand(4, 6).double()
            w = torch.rand(4, 1).double() + 0.5 if weighted else None
            pw = torch.rand(6).double() + 0.5 if pos else None
            y = F.binary_cross_entropy_with_logits(x, t, w, reduction=red,
                                                   pos_weight=pw)
            go = randn(y.shape).double()
            y.backward(go)
            tag = (f"f32/{red}{'/weight' if weighted else ''}"
                   f"{'/pos_weight' if pos else ''}")
            for c in forward_backward_cases(
                    "bce_with_logits", tag, "BCEWithLogits",
                    y.detach().float(), x.grad.float(), go.float(),
                    atol=1e-5, rtol=1e-4):
                c.input("input", x.detach().float()).input("target", t.float())
                if weighted:
                    c.input("weight", w.float())
                if pos:
                    c.input("pos_weight", pw.float())
                add("bce_with_logits", c.attr("reduction", code))
    x, t = noncontig((4, 6)), randn((4, 6))
    add("smooth_l1_loss", Case("smooth_l1_loss/f32/noncontig",
                               "diopiSmoothL1Loss")
        .output("out", F.smooth_l1_loss(x, t)).input("input", x)
        .input("target", t).attr("reduction", 1).attr("beta", 1.0))


def optimizers_more():
    torch.manual_seed(42)
    for tag, centered, momentum, wd in (("plain", False, 0.0, 0.0),
                                        ("centered", True, 0.0, 1e-2),
                                        ("momentum", False, 0.9, 0.0),
                                        ("centered_momentum", True, 0.5, 1e-2)):
        shape = (6, 7)
        p, g = randn(shape), randn(shape)
        sq = torch.rand(shape) * 0.1
        ga = randn(shape) * 0.01
        buf = randn(shape) * 0.1
        pp = p.clone()
        opt = torch.optim.RMSprop([pp], lr=1e-2, alpha=0.9, eps=1e-8,
                                  weight_decay=wd, momentum=momentum,
                                  centered=centered)
        pp.grad = g.clone()
        state = {"step": torch.tensor(3.0), "square_avg": sq.clone()}
        if centered:
            state["grad_avg"] = ga.clone()
        if momentum > 0:
            state["momentum_buffer"] = buf.clone()
        opt.state[pp] = state
        opt.step()
        c = (Case(f"rmsprop/f32/{tag}", "diopiRmsprop", atol=1e-5, rtol=1e-5)
             .inplace("param", p, pp.detach()).input("grad", g)
             .inplace("square_avg", sq, state["square_avg"]))
        if centered:
            c.inplace("grad_avg", ga, state["grad_avg"])
        if momentum > 0:
            c.inplace("momentum_buf", buf, state["momentum_buffer"])
        add("rmsprop", c.attr("lr", 1e-2).attr("alpha", 0.9).attr("eps", 1e-8)
            .attr("weight_decay", wd).attr("momentum", momentum)
            .attr("centered", centered))
    for tag, wd in (("plain", 0.0), ("weight_decay", 1e-2)):
        shape = (5, 6)
        p, g = randn(shape), randn(shape)
        sq, acc = torch.rand(shape) * 0.1, torch.rand(shape) * 0.01
        pp = p.clone()
        opt = torch.optim.Adadelta([pp], lr=1.0, rho=0.9, eps=1e-6,
                                   weight_decay=wd)
        pp.grad = g.clone()
        state = {"step": torch.tensor(2.0), "square_avg": sq.clone(),
                 "acc_delta": acc.clone()}
        opt.state[pp] = state
        opt.step()
        add("adadelta", Case(f"adadelta/f32/{tag}", "diopiAdadelta",
                             atol=1e-5, rtol=1e-5)
            .inplace("param", p, pp.detach()).input("grad", g)
            .inplace("square_avg", sq, state["square_avg"])
            .inplace("acc_delta", acc, state["acc_delta"])
            .attr("lr", 1.0).attr("rho", 0.9).attr("eps", 1e-6)
            .attr("weight_decay", wd))


def random_samples():
    """Judged by rule (bernoulli: 0/1 with the expected mean; permutation;
    multinomial: in range, weighted, no repeats without replacement)."""
    torch.manual_seed(43)
    for dt in (torch.float32, torch.float16):
        add("bernoulli", Case(f"bernoulli_scalar/{SHORT[dt]}",
                              "diopiBernoulliScalar", dt)
            .unjudged("out", torch.zeros(32, 32, dtype=dt)).attr("p", 0.3)
            .attr("seed", 25).attr("judge", "bernoulli"))
    probs = torch.rand(32, 32)
    add("bernoulli", Case("bernoulli/f32", "diopiBernoulli")
        .unjudged("out", torch.zeros(32, 32)).input("input", probs)
        .attr("p", float(probs.mean())).attr("seed", 25)
        .attr("judge", "bernoulli"))
    c = Case("bernoulli_inp/f32", "diopiBernoulliInp")
    c.tensors.append(("inout", 2, probs, probs, None))
    add("bernoulli", c.attr("p", float(probs.mean())).attr("seed", 26)
        .attr("judge", "bernoulli"))
    for n, dt in ((1, torch.int64), (50, torch.int64), (33, torch.int32)):
        add("randperm", Case(f"randperm/{SHORT[dt]}/{n}", "diopiRandperm", dt)
            .unjudged("out", torch.zeros(n, dtype=dt)).attr("n", n)
            .attr("seed", 25).attr("judge", "permutation"))
    w = torch.rand(3, 8)
    w[0, 2] = w[1, 5] = 0
    for rep, k in ((True, 20), (False, 6)):
        add("multinomial", Case(f"multinomial/f32/{'with' if rep else 'no'}"
                                "_replacement", "diopiMultinomial", torch.int64)
            .unjudged("out", torch.zeros(3, k, dtype=torch.int64))
            .input("input", w).attr("num_samples", k).attr("replacement", rep)
            .attr("seed", 25).attr("judge", "multinomial"))
    add("multinomial", Case("multinomial/f32/1d", "diopiMultinomial",
                            torch.int64)
        .unjudged("out", torch.zeros(5, dtype=torch.int64)).input("input", w[0])
        .attr("num_samples", 5).attr("replacement", False).attr("seed", 25)
        .attr("judge", "multinomial"))


BREADTH += (pointwise_blends, bitwise, remaps, positional, splitting,
            reductions_more, losses_more, optimizers_more, random_samples)


def pooling_more():
    torch.manual_seed(44)
    avg_pool_cases(2, (
            ("f32/k3s2p1", (2, 3, 9, 9), 3, 2, 1, False, True, None),
            ("f32/k3s2p1_exclude_pad", (2, 3, 9, 9), 3, 2, 1, False, False,
             None),
            ("f32/ceil", (1, 2, 10, 10), 3, 2, 0, True, True, None),
            ("f32/ceil_pad_exclude", (1, 2, 8, 7), 3, 2, 1, True, False, None),
            ("f32/divisor", (1, 2, 6, 6), 2, 2, 0, False, True, 3),
            ("f32/3d_input", (3, 7, 5), 2, 1, 1, False, True, None)))
    xh = randn((1, 2, 6, 6), torch.float16)
    add("avg_pool2d", Case("avg_pool2d/f16", "diopiAvgPool2d", torch.float16)
        .output("out", F.avg_pool2d(xh.float(), 2).half()).input("input", xh)
        .attr("kernel_size", [2, 2]).attr("stride", []).attr("padding", [0, 0])
        .attr("ceil_mode", False).attr("count_include_pad", True))
    xn = noncontig((1, 2, 6, 6))
    add("avg_pool2d", Case("avg_pool2d/f32/noncontig", "diopiAvgPool2d")
        .output("out", F.avg_pool2d(xn, 3, 1)).input("input", xn)
        .attr("kernel_size", [3]).attr("stride", [1]).attr("padding", [0])
        .attr("ceil_mode", False).attr("count_include_pad", True))
    for tag, shape, size in (("f32/4x3", (2, 3, 10, 9), [4, 3]),
                             ("f32/global", (2, 4, 7, 7), [1, 1]),
                             ("f32/up", (1, 2, 3, 3), [5, 5]),
                             ("f32/3d_input", (3, 8, 6), [3, 4])):
        x = torch.randperm(int(torch.tensor(shape).prod())).float() \
            .reshape(shape).requires_grad_()  # distinct: no ties
        y, idx = F.adaptive_max_pool2d(x, size, return_indices=True)
        go = randn(y.shape)
        y.backward(go)
        add("adaptive_max_pool2d", Case(f"adaptive_max_pool2d/{tag}",
                                        "diopiAdaptiveMaxPool2d")
            .output("out", y.detach()).input("input", x.detach())
            .attr("output_size", size))
        add("adaptive_max_pool2d", Case(
            f"adaptive_max_pool2d_with_indices/{tag}",
            "diopiAdaptiveMaxPool2dWithIndices")
            .output("out", y.detach()).output("indices", idx)
            .input("input", x.detach()).attr("output_size", size))
        add("adaptive_max_pool2d", Case(
            f"adaptive_max_pool2d_backward/{tag}",
            "diopiAdaptiveMaxPool2dBackward")
            .output("grad_input", x.grad).input("grad_output", go)
            .input("input", x.detach()).input("indices", idx))


def normalization_more():
    torch.manual_seed(45)
    for tag, shape, groups, affine, dt in (
            ("f32/4d", (2, 6, 4, 5), 3, True, torch.float32),
            ("f32/3d_no_affine", (3, 4, 7), 2, False, torch.float32),
            ("f32/2d", (4, 8), 4, True, torch.float32),
            ("f64/one_group", (2, 4, 3, 3), 1, True, torch.float64),
            ("f16", (2, 4, 3, 3), 2, True, torch.float16)):
        c = shape[1]
        x = randn(shape, dt).double().requires_grad_()
        w = (torch.rand(c) + 0.5).double().requires_grad_() if affine else None
        b = randn((c,)).double().requires_grad_() if affine else None
        y, mean, rstd = torch.ops.aten.native_group_norm(
            x, w, b, shape[0], c, int(x.numel() // shape[0] // c), groups,
            1e-5)
        go = randn(y.shape, dt).double()
        y.backward(go)
        f = Case(f"group_norm/{tag}", "diopiGroupNorm", dt, atol=1e-4,
                 rtol=1e-4)
        f.output("out", y.detach().to(dt)).output("save_mean", mean.detach().to(dt))
        f.output("save_invstd", rstd.detach().to(dt)).input("input", x.detach().to(dt))
        if affine:
            f.input("weight", w.detach().to(dt)).input("bias", b.detach().to(dt))
        add("group_norm", f.attr("num_groups", groups).attr("eps", 1e-5))
        bw = Case(f"group_norm_backward/{tag}", "diopiGroupNormBackward", dt,
                  atol=1e-4, rtol=1e-4)
        bw.output("grad_input", x.grad.to(dt))
        if affine:
            bw.output("grad_weight", w.grad.to(dt)).output("grad_bias", b.grad.to(dt))
        bw.input("grad_output", go.to(dt)).input("input", x.detach().to(dt))
        if affine:
            bw.input("weight", w.detach().to(dt))
        bw.input("mean", mean.detach().to(dt)).input("rstd", rstd.detach().to(dt))
        add("group_norm", bw.attr("num_groups", groups))
    for tag, shape, norm, affine, bias, stat in (
            ("f32/last", (4, 6), [6], True, False, (4,)),
            ("f32/two_dims_bias", (2, 3, 4, 5), [4, 5], True, True, (2, 3, 1, 1)),
            ("f32/no_weight", (5, 8), [8], False, False, (5, 1))):
        x = randn(shape).double().requires_grad_()
        w = (torch.rand(norm) + 0.5).double().requires_grad_() if affine else None
        bb = randn(norm).double().requires_grad_() if bias else None
        dims = tuple(range(len(shape) - len(norm), len(shape)))
        inv = torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + 1e-6)
        y = x * inv
        if affine:
            y = y * w
        if bias:
            y = y + bb
        go = randn(y.shape).double()
        y.backward(go)
        f = Case(f"rms_norm/{tag}", "diopiRMSNorm", atol=1e-5, rtol=1e-5)
        f.output("out", y.detach().float())
        f.output("inv_rms", inv.detach().reshape(stat).float())
        f.input("input", x.detach().float())
        if affine:
            f.input("weight", w.detach().float())
        if bias:
            f.input("bias", bb.detach().float())
        add("rms_norm", f.attr("normalized_shape", norm).attr("eps", 1e-6))
        bw = Case(f"rms_norm_backward/{tag}", "diopiRMSNormBackward",
                  atol=1e-5, rtol=1e-5)
        bw.output("grad_input", x.grad.float())
        if affine:
            bw.output("grad_weight", w.grad.float())
        if bias:
            bw.output("grad_bias", bb.grad.float())
        bw.input("grad_output", go.float()).input("input", x.detach().float())
        if affine:
            bw.input("weight", w.detach().float())
        if bias:
            bw.input("bias", bb.detach().float())
        bw.input("inv_rms", inv.detach().reshape(stat).float())
        add("rms_norm", bw.attr("normalized_shape", norm).attr("eps", 1e-6))
    torch.manual_seed(46)
    for tag, inp, beta, alpha in (("f32/full", randn((3, 4, 5)), 0.5, 2.0),
                                  ("f32/bcast_row", randn((5,)), 1.0, 1.0),
                                  ("f32/beta0_nan", torch.full((3, 4, 5),
                                                               float("nan")),
                                   0.0, 1.5)):
        b1, b2 = randn((3, 4, 6)), randn((3, 6, 5))
        name = f"baddbmm/{tag.split('/', 1)[1]}/f32"  # no 'mm/f32' inside
        add("baddbmm", Case(name, "diopiBaddbmm", atol=1e-4,
                            rtol=1e-4)
            .output("out", torch.baddbmm(inp, b1, b2, beta=beta, alpha=alpha))
            .input("input", inp).input("batch1", b1).input("batch2", b2)
            .attr("beta", beta).attr("alpha", alpha))
    inp, b1, b2 = randn((2, 3, 4)), noncontig((2, 3, 5)), randn((2, 5, 4))
    add("baddbmm", Case("baddbmm_inp/noncontig/f32", "diopiBaddbmmInp",
                        atol=1e-4, rtol=1e-4)
        .inplace("input", inp, torch.baddbmm(inp, b1, b2, beta=0.5, alpha=-1.0))
        .input("batch1", b1).input("batch2", b2).attr("beta", 0.5)
        .attr("alpha", -1.0))


BREADTH += (pooling_more, normalization_more)


def scatters():
    torch.manual_seed(47)
    x = randn((4, 6))
    for tag, dim, index, src_shape in (
            ("dim0", 0, torch.stack([torch.randperm(4)[:2] for _ in range(5)],
                                    1), (3, 5)),
            ("dim1", 1, torch.stack([torch.randperm(6)[:3] for _ in range(4)]),
             (4, 4))):
        src = randn(src_shape)
        add("scatter", Case(f"scatter/f32/{tag}", "diopiScatter")
            .output("out", x.scatter(dim, index, src)).input("input", x)
            .input("src", src).input("index", index).attr("dim", dim))
        for reduce in ("add", "multiply"):
            rep = torch.randint(0, x.shape[dim], index.shape)
            add("scatter", Case(f"scatter/f32/{tag}/{reduce}", "diopiScatter")
                .output("out", x.scatter(dim, rep, src, reduce=reduce))
                .input("input", x).input("src", src).input("index", rep)
                .attr("dim", dim).attr("reduce", reduce))
        add("scatter", Case(f"scatter_scalar/f32/{tag}", "diopiScatterScalar")
            .output("out", x.scatter(dim, index, 2.5)).input("input", x)
            .input("index", index).attr("dim", dim).attr("value", 2.5))
    xi = torch.randint(-9, 9, (3, 5))
    idx = torch.randint(0, 5, (3, 4))
    srci = torch.randint(-9, 9, (3, 4))
    add("scatter", Case("scatter/i64/dim1/add", "diopiScatter", torch.int64)
        .output("out", xi.scatter(1, idx, srci, reduce="add"))
        .input("input", xi).input("src", srci).input("index", idx)
        .attr("dim", 1).attr("reduce", "add"))
    xn = noncontig((4, 5))
    idx = torch.stack([torch.randperm(5)[:2] for _ in range(4)])
    src = randn((4, 2))
    add("scatter", Case("scatter_inp/f32/noncontig_index", "diopiScatterInp")
        .inplace("input", xn.contiguous(), xn.scatter(1, idx, src))
        .input("src", src).input("index", idx).attr("dim", 1))
    for tag, shape, dim, ishape in (("f32/dim1", (5, 6), 1, (5, 3)),
                                    ("f32/dim0_3d", (4, 3, 2), 0, (6, 3, 2))):
        x = randn(shape).requires_grad_()
        index = torch.randint(0, shape[dim], ishape)
        y = torch.gather(x, dim, index)
        go = randn(y.shape)
        y.backward(go)
        add("gather_backward", Case(f"gather_backward/{tag}",
                                    "diopiGatherBackward")
            .output("grad_input", x.grad).input("grad_output", go)
            .input("input", x.detach()).input("index", index).attr("dim", dim))
    for tag, shape, dim, index in (
            ("f32/dim1", (4, 6, 3), 1, torch.tensor([5, 0, 5, 2])),
            ("f32/dim0_i32", (5, 4), 0, torch.tensor([4, 4, 1],
                                                     dtype=torch.int32))):
        x = randn(shape).requires_grad_()
        y = torch.index_select(x, dim, index.long())
        go = randn(y.shape)
        y.backward(go)
        add("index_select_backward", Case(f"index_select_backward/{tag}",
                                          "diopiIndexSelectBackward")
            .output("grad_input", x.grad).input("grad", go)
            .input("index", index).attr("input_sizes", list(shape))
            .attr("dim", dim))


def index_puts():
    torch.manual_seed(48)
    x = randn((5, 4, 3))
    for tag, idx, vshape, acc in (
            ("one", [torch.tensor([0, 3, 1])], (3, 4, 3), False),
            ("two_bcast", [torch.tensor([[0], [4]]), torch.tensor([1, 3])],
             (2, 2, 3), False),
            ("scalar_value", [torch.tensor([2, 0])], (), False),
            ("accumulate_repeats", [torch.tensor([1, 1, 4, 1])], (4, 4, 3),
             True),
            ("negative", [torch.tensor([-1, 0]), torch.tensor([-2, 1])],
             (2, 3), False)):
        v = randn(vshape)
        y = x.index_put(tuple(idx), v, accumulate=acc)
        c = Case(f"index_put/f32/{tag}", "diopiIndexPut").output("out", y)
        c.input("input", x).input("values", v)
        for k, t in enumerate(idx):
            c.input(f"indices.{k}", t)
        add("index_put", c.attr("indices_counts", len(idx))
            .attr("accumulate", acc))
    idx = torch.tensor([0, 2, 2])
    v = randn((5, 3, 3))
    y = torch.ops.aten.index_put(x, [None, idx], v, True)  # x[:, idx] += v
    add("index_put", Case("index_put/f32/leading_null_accumulate",
                          "diopiIndexPut").output("out", y).input("input", x)
        .input("values", v).input("indices.1", idx)
        .attr("indices_counts", 2).attr("null_indices", [0])
        .attr("accumulate", True))
    mask = torch.rand(5, 4) > 0.5
    v = randn((int(mask.sum()), 3))
    add("index_put", Case("index_put/f32/bool_mask", "diopiIndexPut")
        .output("out", x.index_put((mask,), v)).input("input", x)
        .input("values", v).input("indices.0", mask)
        .attr("indices_counts", 1).attr("accumulate", False))
    add("index_put", Case("index_put/f32/bool_mask_scalar", "diopiIndexPut")
        .output("out", x.index_put((mask,), torch.tensor(0.5)))
        .input("input", x).input("values", torch.tensor(0.5))
        .input("indices.0", mask).attr("indices_counts", 1)
        .attr("accumulate", False))
    xi = torch.zeros(6, dtype=torch.int64)
    idx = torch.tensor([1, 3, 1, 5])
    vi = torch.tensor([1, 2, 3, 4])
    add("index_put", Case("index_put_inp/i64/accumulate", "diopiIndexPutInp",
                          torch.int64)
        .inplace("input", xi, xi.index_put((idx,), vi, True))
        .input("values", vi).input("indices.0", idx)
        .attr("indices_counts", 1).attr("accumulate", True))


def selections_dynamic():
    torch.manual_seed(49)
    for tag, x, mask in (("f32/same", randn((4, 5)), torch.rand(4, 5) > 0.5),
                         ("f32/bcast", randn((3, 4)), torch.rand(4) > 0.5),
                         ("i64/none", torch.randint(0, 9, (2, 3)),
                          torch.zeros(2, 3, dtype=torch.bool)),
                         ("f32/noncontig", noncontig((4, 4)),
                          torch.rand(4, 4) > 0.3)):
        add("masked_select", Case(f"masked_select/{tag}", "diopiMaskedSelect",
                                  x.dtype)
            .output("out", torch.masked_select(x, mask)).input("input", x)
            .input("mask", mask))
    x, mask = randn((3, 4)).requires_grad_(), torch.rand(4) > 0.5
    y = torch.masked_select(x, mask)
    go = randn(y.shape)
    y.backward(go)
    add("masked_select", Case("masked_select_backward/f32/bcast",
                              "diopiMaskedSelectBackward")
        .output("grad_input", x.grad).input("grad_output", go)
        .input("input", x.detach()).input("mask", mask))
    for tag, x in (("f32/2d", torch.randint(0, 3, (4, 5)).float()),
                   ("i64/3d", torch.randint(0, 2, (2, 3, 4))),
                   ("bool/1d", torch.rand(7) > 0.5),
                   ("f32/none", torch.zeros(3, 2)),
                   ("f32/noncontig", torch.randint(0, 2, (4, 6)).float()[:, ::2])):
        add("nonzero", Case(f"nonzero/{tag}", "diopiNonzero", x.dtype)
            .output("out", torch.nonzero(x)).input("input", x))


BREADTH += (scatters, index_puts, selections_dynamic)


def sorting():
    torch.manual_seed(50)
    for tag, x, dim, desc, stable in (
            ("f32/last", randn((4, 9)), -1, False, None),
            ("f32/dim0_desc", randn((6, 3)), 0, True, None),
            ("f32/ties_stable", torch.randint(0, 4, (3, 10)).float(), 1,
             False, True),
            ("f32/ties_stable_desc", torch.randint(0, 4, (3, 10)).float(), 1,
             True, True),
            ("i64/dim1", torch.randint(-50, 50, (2, 3, 7)), 1, False, True),
            ("f16/last", randn((3, 8), torch.float16), -1, True, None),
            ("f32/noncontig", noncontig((5, 6)), 1, False, None)):
        if tag == "f32/last":
            x[1, 3] = float("nan")
        v, i = torch.sort(x, dim=dim, descending=desc, stable=bool(stable))
        c = Case(f"sort/{tag}", "diopiSort", x.dtype).output("values", v)
        c.output("indices", i).input("input", x).attr("dim", dim)
        c.attr("descending", desc)
        if stable is not None:
            c.attr("stable", stable)
        add("sort", c)
    for tag, x, k, dim, largest in (("f32/k3_last", randn((4, 9)), 3, -1, True),
                                    ("f32/k2_dim0_smallest", randn((6, 5)), 2,
                                     0, False),
                                    ("f32/k_all", randn((2, 5)), 5, 1, True),
                                    ("f64/k1", randn((3, 7), torch.float64), 1,
                                     1, True),
                                    ("f32/noncontig", noncontig((4, 8)), 4, 1,
                                     False)):
        v, i = torch.topk(x, k, dim, largest, True)
        add("topk", Case(f"topk/{tag}", "diopiTopk", x.dtype).output("values", v)
            .output("indices", i).input("input", x).attr("k", k)
            .attr("dim", dim).attr("largest", largest).attr("sorted", True))


BREADTH += (sorting,)


def interpolation():
    torch.manual_seed(51)
    for tag, shape, size, mode, align in (
            ("nearest/2d_up", (2, 3, 4, 5), [7, 9], "nearest", None),
            ("nearest/2d_down", (1, 2, 9, 7), [4, 3], "nearest", None),
            ("nearest/2d_double", (1, 2, 3, 4), [6, 8], "nearest", None),
            ("nearest/1d", (2, 3, 5), [12], "nearest", None),
            ("nearest/3d", (1, 2, 3, 4, 2), [5, 6, 3], "nearest", None),
            ("bilinear/up", (2, 3, 4, 5), [7, 9], "bilinear", False),
            ("bilinear/up_align", (2, 3, 4, 5), [7, 9], "bilinear", True),
            ("bilinear/down", (1, 2, 9, 8), [4, 3], "bilinear", False),
            ("linear/1d_align", (2, 2, 6), [11], "linear", True),
            ("trilinear/3d", (1, 2, 3, 4, 2), [5, 6, 3], "trilinear", False)):
        x = randn(shape).requires_grad_()
        kw = {} if mode == "nearest" else {"align_corners": align}
        y = F.interpolate(x, size=size, mode=mode, **kw)
        go = randn(y.shape)
        y.backward(go)
        if mode == "nearest":
            fw = Case(f"upsample_nearest/f32/{tag}", "diopiUpsampleNearest")
            bw = Case(f"upsample_nearest_backward/f32/{tag}",
                      "diopiUpsampleNearestBackward")
        else:
            fw = Case(f"upsample_linear/f32/{tag}", "diopiUpsampleLinear")
            bw = Case(f"upsample_linear_backward/f32/{tag}",
                      "diopiUpsampleLinearBackward")
            for c in (fw, bw):
                c.attr("align_corners", align).attr("mode", mode)
        fw.output("out", y.detach()).input("input", x.detach()).attr("size", size)
        bw.output("grad_input", x.grad).input("grad_output", go)
        bw.attr("out_size", size).attr("in_size", list(shape))
        family = "upsample_" + ("nearest" if mode == "nearest" else "linear")
        add(family, fw)
        add(family, bw)
    xn = noncontig((1, 2, 4, 4))
    add("upsample_linear", Case("upsample_linear/f32/noncontig",
                                "diopiUpsampleLinear")
        .output("out", F.interpolate(xn, size=[6, 5], mode="bilinear",
                                     align_corners=False))
        .input("input", xn).attr("size", [6, 5]).attr("align_corners", False)
        .attr("mode", "bilinear"))
    xh = randn((1, 2, 3, 3), torch.float16)
    add("upsample_nearest", Case("upsample_nearest/f16", "diopiUpsampleNearest",
                                 torch.float16)
        .output("out", F.interpolate(xh.float(), size=[5, 4]).half())
        .input("input", xh).attr("size", [5, 4]))


BREADTH += (interpolation,)


def optimizers_fused():
    torch.manual_seed(52)
    for tag, shapes, ams, maximize in (("two", [(6, 7), (13,)], False, False),
                                       ("amsgrad", [(5, 4)], True, False),
                                       ("maximize", [(9,), (2, 3)], False,
                                        True)):
        c = Case(f"fused_adamw/f32/{tag}", "diopiFusedAdamW", atol=1e-6,
                 rtol=1e-5)
        for i, shape in enumerate(shapes):
            p, g = randn(shape), randn(shape)
            m, v = randn(shape) * 0.1, torch.rand(shape) * 0.1
            vmax = v + torch.rand(shape) * 0.05
            step = 3 + i
            pp = p.clone()
            opt = torch.optim.AdamW([pp], lr=1e-2, betas=(0.9, 0.99), eps=1e-8,
                                    weight_decay=1e-2, amsgrad=ams,
                                    maximize=maximize, foreach=False)
            pp.grad = g.clone()
            state = {"step": torch.tensor(float(step - 1)),
                     "exp_avg": m.clone(), "exp_avg_sq": v.clone()}
            if ams:
                state["max_exp_avg_sq"] = vmax.clone()
            opt.state[pp] = state
            opt.step()
            c.inplace(f"params.{i}", p, pp.detach()).input(f"grads.{i}", g)
            c.inplace(f"exp_avgs.{i}", m, state["exp_avg"])
            c.inplace(f"exp_avg_sqs.{i}", v, state["exp_avg_sq"])
            if ams:
                c.inplace(f"max_exp_avg_sqs.{i}", vmax, state["max_exp_avg_sq"])
            c.input(f"state_steps.{i}", torch.tensor(float(step)))
        add("fused_adamw", c.attr("lr", 1e-2).attr("beta1", 0.9)
            .attr("beta2", 0.99).attr("eps", 1e-8).attr("weight_decay", 1e-2)
            .attr("amsgrad", ams).attr("maximize", maximize))


def renorms():
    torch.manual_seed(53)
    for tag, p, max_norm in (("p2", 2.0, 1.5), ("p1", 1.0, 2.0),
                             ("inf", float("inf"), 0.8)):
        w = randn((10, 4))
        idx = torch.tensor([[1, 7], [3, 1]])
        ref = w.clone()
        with torch.no_grad():
            torch.embedding_renorm_(ref, idx, max_norm, p)
        add("embedding_renorm", Case(f"embedding_renorm/f32/{tag}",
                                     "diopiEmbeddingRenorm_")
            .inplace("inout", w, ref).input("indices", idx)
            .attr("max_norm", max_norm).attr("norm_type", p))
    for tag, shapes, max_norm, p in (("p2_clipped", [(5, 6), (7,)], 1.0, 2.0),
                                     ("p2_unclipped", [(4,)], 100.0, 2.0),
                                     ("inf", [(3, 3), (5,)], 0.5,
                                      float("inf")),
                                     ("p1", [(6,)], 2.0, 1.0)):
        grads = [randn(s) for s in shapes]
        params = [torch.zeros(s, requires_grad=True) for s in shapes]
        for q, g in zip(params, grads):
            q.grad = g.clone()
        total = torch.nn.utils.clip_grad_norm_(params, max_norm, p)
        c = Case(f"clip_grad_norm/f32/{tag}", "diopiClipGradNorm", atol=1e-5,
                 rtol=1e-5)
        for i, (g, q) in enumerate(zip(grads, params)):
            c.inplace(f"grads.{i}", g, q.grad)
        c.output("total_norm", total.double())
        add("clip_grad_norm", c.attr("max_norm", max_norm).attr("norm_type", p)
            .attr("error_if_nonfinite", False))


BREADTH += (optimizers_fused, renorms)


def convolution_transposed():
    torch.manual_seed(54)
    for tag, n, cin, hw, cout, k, s, p, op, d, g, bias, dt in (
            ("f32/k3s1", 2, 3, 5, 4, 3, 1, 0, 0, 1, 1, True, torch.float32),
            ("f32/k3s2p1_outpad1", 1, 4, 4, 2, 3, 2, 1, 1, 1, 1, True,
             torch.float32),
            ("f32/k2s2_groups2", 2, 4, 3, 6, 2, 2, 0, 0, 1, 2, False,
             torch.float32),
            ("f32/dilation2", 1, 2, 4, 3, 3, 1, 1, 0, 2, 1, True,
             torch.float32),
            ("f64/k3s2", 1, 2, 3, 2, 3, 2, 0, 0, 1, 1, True, torch.float64),
            ("f16/k2", 1, 2, 3, 2, 2, 1, 0, 0, 1, 1, True, torch.float16)):
        x = randn((n, cin, hw, hw), dt).double().requires_grad_()
        w = randn((cin, cout // g, k, k), dt).double().requires_grad_()
        b = randn((cout,), dt).double().requires_grad_() if bias else None
        y = F.conv_transpose2d(x, w, b, s, p, op, g, d)
        go = randn(y.shape, dt).double()
        y.backward(go)
        kw = {} if dt == torch.float16 else {"atol": 1e-4, "rtol": 1e-4}
        fw = Case(f"conv_transpose2d/{tag}", "diopiConvTranspose2d", dt, **kw)
        fw.output("out", y.detach().to(dt)).input("input", x.detach().to(dt))
        fw.input("weight", w.detach().to(dt))
        if bias:
            fw.input("bias", b.detach().to(dt))
        bw = Case(f"conv_transpose2d_backward/{tag}",
                  "diopiConvTranspose2dBackward", dt, **kw)
        bw.output("grad_input", x.grad.to(dt)).output("grad_weight", w.grad.to(dt))
        if bias:
            bw.output("grad_bias", b.grad.to(dt))
        bw.input("grad_output", go.to(dt)).input("input", x.detach().to(dt))
        bw.input("weight", w.detach().to(dt))
        for c in (fw, bw):
            c.attr("stride", [s, s]).attr("padding", [p, p])
            c.attr("output_padding", [op, op]).attr("dilation", [d, d])
            c.attr("groups", g)
        bw.attr("bias_sizes", [cout] if bias else [])
        add("conv_transpose2d", fw)
        add("conv_transpose2d", bw)


BREADTH += (convolution_transposed,)


def attention():
    """Flash attention as DIOPI's functions_ext.h declares it, the oracle
    written out in double with PyTorch ops (1.13 has no flash kernel)."""
    torch.manual_seed(55)
    for tag, b, sq, sk, hq, hk, d, causal, left, right, alibi, dt in (
            ("f32/plain", 2, 5, 5, 2, 2, 8, False, -1, -1, False,
             torch.float32),
            ("f32/causal", 1, 6, 6, 2, 2, 4, True, -1, 0, False,
             torch.float32),
            ("f32/causal_sk_longer", 1, 3, 7, 1, 1, 4, True, -1, 0, False,
             torch.float32),
            ("f32/gqa_window_alibi", 1, 6, 6, 4, 2, 4, False, 2, 1, True,
             torch.float32),
            ("f16/causal", 1, 4, 4, 2, 1, 8, True, -1, 0, False,
             torch.float16),
            ("bf16/plain", 1, 4, 6, 2, 2, 8, False, -1, -1, False,
             torch.bfloat16)):
        q = randn((b, sq, hq, d), dt).double().requires_grad_()
        k = randn((b, sk, hk, d), dt).double().requires_grad_()
        v = randn((b, sk, hk, d), dt).double().requires_grad_()
        slopes = torch.rand(hq) if alibi else None
        scale = d ** -0.5
        rep = hq // hk
        kk = k.repeat_interleave(rep, 2)
        vv = v.repeat_interleave(rep, 2)
        s = torch.einsum("bihd,bjhd->bhij", q, kk) * scale
        i = torch.arange(sq).view(-1, 1)
        j = torch.arange(sk).view(1, -1)
        diag = i + sk - sq
        if alibi:
            s = s - slopes.double().view(1, -1, 1, 1) * (diag - j).abs()
        mask = torch.zeros(sq, sk, dtype=torch.bool)
        if causal:
            mask |= j > diag
        if left >= 0:
            mask |= j < diag - left
        if right >= 0:
            mask |= j > diag + right
        s = s.masked_fill(mask, float("-inf"))
        lse = torch.logsumexp(s, -1)
        out = torch.einsum("bhij,bjhd->bihd", torch.softmax(s, -1), vv)
        go = randn(out.shape, dt).double()
        out.backward(go)
        kw = {"atol": 1e-5, "rtol": 1e-4} if dt == torch.float32 else {}
        attrs = (("p_dropout", 0.0), ("softmax_scale", scale),
                 ("is_causal", causal), ("window_size_left", left),
                 ("window_size_right", right))
        fw = Case(f"flash_attention/{tag}", "diopiFlashAttention", dt, **kw)
        fw.output("attention_out", out.detach().to(dt))
        fw.output("softmax_lse", lse.detach().float())
        fw.input("q", q.detach().to(dt)).input("k", k.detach().to(dt))
        fw.input("v", v.detach().to(dt))
        bw = Case(f"flash_attention_backward/{tag}",
                  "diopiFlashAttentionBackward", dt, **kw)
        bw.output("grad_q", q.grad.to(dt)).output("grad_k", k.grad.to(dt))
        bw.output("grad_v", v.grad.to(dt)).input("grad_output", go.to(dt))
        bw.input("q", q.detach().to(dt)).input("k", k.detach().to(dt))
        bw.input("v", v.detach().to(dt))
        bw.input("attention_out", out.detach().to(dt).contiguous())
        bw.input("softmax_lse", lse.detach().float().contiguous())
        for c in (fw, bw):
            if alibi:
                c.input("alibi_slopes", slopes)
            for attr in attrs:
                c.attr(*attr)
            add("flash_attention", c)


BREADTH += (attention,)


def more_math():
    torch.manual_seed(56)
    for name, fn, gen in (("Erfinv", torch.erfinv,
                           lambda s, dt: (torch.rand(s) * 1.98 - 0.99).to(dt)),
                          ("Asin", torch.asin,
                           lambda s, dt: (torch.rand(s) * 1.98 - 0.99).to(dt)),
                          ("Acos", torch.acos,
                           lambda s, dt: (torch.rand(s) * 1.98 - 0.99).to(dt)),
                          ("Asinh", torch.asinh, randn),
                          ("Acosh", torch.acosh,
                           lambda s, dt: (torch.rand(s) * 4 + 1).to(dt)),
                          ("Atanh", torch.atanh,
                           lambda s, dt: (torch.rand(s) * 1.8 - 0.9).to(dt)),
                          ("Sgn", torch.sgn, randn)):
        low = name.lower()
        for dt in (torch.float32, torch.float16, torch.float64):
            x = gen((4, 6), dt)
            add(low, Case(f"{low}/{SHORT[dt]}", "diopi" + name, dt)
                .output("out", fn(x.double()).to(dt)).input("input", x))
        x = gen((4, 12), torch.float32)[:, ::2]
        add(low, Case(f"{low}/f32/noncontig", "diopi" + name)
            .output("out", fn(x)).input("input", x))
    a, b = randn((4, 6)) * 5, randn((6,)) * 2
    add("remainder", Case("remainder_tensor/f32/bcast", "diopiRemainderTensor")
        .output("out", torch.remainder(a, b)).input("input", a)
        .input("other", b))
    ai = torch.randint(-20, 20, (3, 5))
    bi = torch.randint(1, 6, (5,)) * torch.tensor([1, -1, 1, -1, 1])
    add("remainder", Case("remainder_tensor/i64", "diopiRemainderTensor",
                          torch.int64)
        .output("out", torch.remainder(ai, bi)).input("input", ai)
        .input("other", bi))
    add("remainder", Case("remainder_scalar/f32", "diopiRemainderScalar")
        .output("out", torch.remainder(a, -1.5)).input("input", a)
        .attr("other", -1.5))
    add("remainder", Case("remainder/f32_scalar_input", "diopiRemainder")
        .output("out", torch.remainder(torch.tensor(7.0), b)).attr("input", 7.0)
        .input("other", b))
    for name, value in (("Zeros", 0), ("Ones", 1)):
        for dt in (torch.float32, torch.int64, torch.float16):
            add(name.lower(), Case(f"{name.lower()}/{SHORT[dt]}", "diopi" + name,
                                   dt)
                .output("out", torch.full((3, 4), value, dtype=dt))
                .attr("size", [3, 4]))
    x = randn((3, 5))
    add("zeros", Case("zero_inp/f32", "diopiZeroInp")
        .inplace("input", x, torch.zeros_like(x)))


def selects_slices():
    torch.manual_seed(57)
    x = randn((4, 5, 6))
    for dim, index in ((0, 2), (1, -1), (2, 0)):
        xs = x.clone().requires_grad_()
        y = xs.select(dim, index)
        go = randn(y.shape)
        y.backward(go)
        add("select", Case(f"select/f32/dim{dim}_{index}", "diopiSelect")
            .output("out", y.detach()).input("input", x).attr("dim", dim)
            .attr("index", index))
        add("select", Case(f"select_backward/f32/dim{dim}_{index}",
                           "diopiSelectBackward")
            .output("grad_input", xs.grad).input("grad_output", go)
            .attr("input_sizes", list(x.shape)).attr("dim", dim)
            .attr("index", index))
        src = randn(y.shape)
        add("select", Case(f"select_scatter/f32/dim{dim}_{index}",
                           "diopiSelectScatter")
            .output("out", torch.select_scatter(x, src, dim, index))
            .input("input", x).input("src", src).attr("dim", dim)
            .attr("index", index))
    for dim, start, end, step in ((0, 1, 3, 1), (1, -4, 100, 2),
                                  (2, 0, 6, 4), (2, 5, 2, 1)):
        xs = x.clone().requires_grad_()
        y = torch.ops.aten.slice(xs, dim, start, end, step)
        go = randn(y.shape)
        y.sum().backward() if y.numel() == 0 else y.backward(go)
        tag = f"dim{dim}_{start}_{end}_{step}"
        attrs = (("dim", dim), ("start", start), ("end", end), ("step", step))
        cases = [Case(f"slice/f32/{tag}", "diopiSlice").output("out", y.detach())
                 .input("input", x),
                 Case(f"slice_backward/f32/{tag}", "diopiSliceBackward")
                 .output("grad_input", xs.grad if xs.grad is not None
                         else torch.zeros_like(x))
                 .input("grad_output", go).attr("input_sizes", list(x.shape))]
        src = randn(y.shape)
        cases.append(Case(f"slice_scatter/f32/{tag}", "diopiSliceScatter")
                     .output("out", torch.slice_scatter(x, src, dim, start,
                                                        end, step))
                     .input("input", x).input("src", src))
        for c in cases:
            for attr in attrs:
                c.attr(*attr)
            add("slice", c)
    xn = noncontig((4, 6))
    add("slice", Case("slice/f32/noncontig", "diopiSlice")
        .output("out", xn[1:3]).input("input", xn).attr("dim", 0)
        .attr("start", 1).attr("end", 3).attr("step", 1))
    a, b, c = randn((3,)), randn((4,)), torch.randint(0, 9, (2,)).float()
    grids = torch.meshgrid(a, b, c, indexing="ij")
    case = Case("meshgrid/f32/three", "diopiMeshGrid")
    for i, (g, t) in enumerate(zip(grids, (a, b, c))):
        case.output(f"outs.{i}", g.contiguous()).input(f"inputs.{i}", t)
    add("meshgrid", case)


def indexing_more():
    torch.manual_seed(58)
    x = randn((5, 4, 3))
    for tag, idx, nulls in (
            ("one", [torch.tensor([4, 0, 4])], []),
            ("two_bcast", [torch.tensor([[0], [3]]), torch.tensor([1, 2, 3])],
             []),
            ("leading_null", [None, torch.tensor([3, -1])], [0]),
            ("bool_mask", [torch.rand(5, 4) > 0.5], [])):
        xs = x.clone().requires_grad_()
        y = xs[tuple(slice(None) if t is None else t for t in idx)]
        go = randn(y.shape)
        y.backward(go)
        fw = Case(f"index/f32/{tag}", "diopiIndex").output("out", y.detach())
        fw.input("input", x)
        bw = Case(f"index_backward/f32/{tag}", "diopiIndexBackward")
        bw.output("grad_input", xs.grad).input("grad_output", go)
        bw.input("zeros_like_input", torch.zeros_like(x))
        for c in (fw, bw):
            for k, t in enumerate(idx):
                if t is not None:
                    c.input(f"indices.{k}", t)
            c.attr("indices_counts", len(idx))
            if nulls:
                c.attr("null_indices", nulls)
            add("index", c)
    x = randn((4, 6))
    idx = torch.tensor([5, 0, 5])
    add("index_fill", Case("index_fill/f32/dim1", "diopiIndexFill")
        .output("out", x.index_fill(1, idx, torch.tensor(-1.5)))
        .input("input", x).input("index", idx)
        .input("value", torch.tensor(-1.5)).attr("dim", 1))
    add("index_fill", Case("index_fill_scalar/f32/dim0", "diopiIndexFillScalar")
        .output("out", x.index_fill(0, torch.tensor([3, 1]), 2.0))
        .input("input", x).input("index", torch.tensor([3, 1]))
        .attr("value", 2.0).attr("dim", 0))
    xi = torch.randint(0, 9, (3, 4))
    add("index_fill", Case("index_fill_inp_scalar/i64", "diopiIndexFillInpScalar",
                           torch.int64)
        .inplace("input", xi, xi.index_fill(1, torch.tensor([0, 2]), 7))
        .input("index", torch.tensor([0, 2])).attr("value", 7).attr("dim", 1))
    for tag, shape, dim, desc in (("f32/dim1", (3, 7), 1, False),
                                  ("f32/dim0_desc", (5, 4), 0, True)):
        x = randn(shape).requires_grad_()
        v, i = torch.sort(x, dim, desc)
        go = randn(v.shape)
        v.backward(go)
        add("sort", Case(f"sort_backward/{tag}", "diopiSortBackward")
            .output("grad_input", x.grad).input("grad_output", go)
            .input("indices", i).attr("dim", dim).attr("sizes", list(shape))
            .attr("keepdim", True))
        add("argsort", Case(f"argsort/{tag}", "diopiArgsort", torch.int64)
            .output("out", torch.argsort(x.detach(), dim, desc))
            .input("input", x.detach()).attr("dim", dim).attr("stable", True)
            .attr("descending", desc))
    x = torch.randint(0, 5, (2, 6)).float()
    add("argsort", Case("argsort/f32/default_dim_ties", "diopiArgsort",
                        torch.int64)
        .output("out", torch.sort(x, stable=True)[1]).input("input", x)
        .attr("stable", True).attr("descending", False))
    x = randn((4, 5))
    mask = torch.rand(5) > 0.4
    src = randn((4, 5))
    add("masked_scatter", Case("masked_scatter/f32/bcast", "diopiMaskedScatter")
        .output("out", x.masked_scatter(mask, src)).input("input", x)
        .input("mask", mask).input("source", src))


def misc_more():
    torch.manual_seed(59)
    x = randn((4, 5, 6))
    for tag, ord_, dims, keep in (("p2_all", 2.0, [], False),
                                  ("p1_dim1_keep", 1.0, [1], True),
                                  ("inf_dims02", float("inf"), [0, 2], False)):
        y = torch.linalg.vector_norm(x, ord_, dims if dims else None, keep)
        add("linalg_vec_norm", Case(f"linalg_vec_norm/f32/{tag}",
                                    "diopiLinalgVecNorm", atol=1e-4,
                                    rtol=1e-4)
            .output("out", y).input("input", x).attr("ord", ord_)
            .attr("dim", dims).attr("keepdim", keep))
    a = randn((3, 4))
    for tag, b, want in (("same", a.clone(), True),
                         ("differs", a + (torch.arange(12).view(3, 4) == 5),
                          False),
                         ("shape", randn((4, 3)), False)):
        add("equal", Case(f"equal/f32/{tag}", "diopiEqual", torch.bool)
            .output("out", torch.tensor(want)).input("input", a)
            .input("other", b))
    x = randn((5, 6))
    add("dropout", Case("dropout_inp/f32/eval", "diopiDropoutInp")
        .inplace("input", x, x.clone())
        .inplace("mask", torch.zeros(5, 6, dtype=torch.uint8),
                 torch.ones(5, 6, dtype=torch.uint8))  # native_dropout's
        .attr("p", 0.5).attr("train", False))
    for tag, tensor_mean, tensor_std in (("tensor_scalar", True, False),
                                         ("scalar_tensor", False, True),
                                         ("tensor", True, True)):
        op = {"tensor_scalar": "diopiNormalTensorScalar",
              "scalar_tensor": "diopiNormalScalarTensor",
              "tensor": "diopiNormalTensor"}[tag]
        c = Case(f"normal_{tag}/f32", op).unjudged("out", torch.zeros(32, 32))
        if tensor_mean:
            c.input("mean", torch.full((32,), 1.5))
        if tensor_std:
            c.input("std", torch.full((32, 1), 0.5))
        add("normal", c.attr("mean", 1.5).attr("std", 0.5).attr("seed", 27)
            .attr("judge", "normal"))
    c = Case("random_inp/i64", "diopiRandomInp", torch.int64)
    like = torch.zeros(32, 32, dtype=torch.int64)
    c.tensors.append(("inout", 2, like, like, None))
    add("uniform", c.attr("from", -3).attr("to", 7).attr("seed", 25)
        .attr("judge", "uniform"))


def foreach_and_amp():
    torch.manual_seed(60)
    xs = [randn((3, 4)), randn((5,)), noncontig((2, 3))]
    for name, fn, other in (("ForeachaddScalar", torch._foreach_add, 1.5),
                            ("ForeachmulScalar", torch._foreach_mul, -2.0)):
        c = Case(f"{name.lower()}/f32", "diopi" + name)
        for i, (x, y) in enumerate(zip(xs, fn(xs, other))):
            c.output(f"outs.{i}", y).input(f"inputs.{i}", x)
        add("foreach", c.attr("other", other))
    c = Case("foreachaddinpscalar/f32", "diopiForeachaddInpScalar")
    for i, x in enumerate(xs[:2]):
        c.inplace(f"inputs.{i}", x, x + 0.25)
    add("foreach", c.attr("other", 0.25))
    t = torch.tensor(3.0)
    c = Case("foreachmultensor/f32", "diopiForeachmulTensor")
    for i, x in enumerate(xs):
        c.output(f"outs.{i}", x * t).input(f"inputs.{i}", x)
    add("foreach", c.input("other", t))
    c = Case("foreachmulinptensor/f32", "diopiForeachmulInpTensor")
    for i, x in enumerate(xs[:2]):
        c.inplace(f"inputs.{i}", x, x * t)
    add("foreach", c.input("other", t))
    c = Case("foreachnormscalar/f32", "diopiForeachnormScalar", atol=1e-5,
             rtol=1e-5)
    for i, x in enumerate(xs):
        c.output(f"outs.{i}", torch.linalg.vector_norm(x)).input(f"inputs.{i}", x)
    add("foreach", c.attr("ord", 2.0))
    for tag, bad in (("finite", False), ("inf", True)):
        grads = [randn((4, 3)) * 8, randn((5,)) * 8]
        if bad:
            grads[1][2] = float("inf")
        inv = torch.tensor(0.125)
        found = torch.zeros(1)
        c = Case(f"amp_unscale/f32/{tag}",
                 "diopiAmpForeachNonFiniteCheckAndUnscaleInp")
        for i, g in enumerate(grads):
            c.inplace(f"scaled_grads.{i}", g, g * inv)
        c.inplace("found_inf", found, torch.ones(1) if bad else found)
        add("amp", c.input("inv_scale", inv))
    for tag, found, tracker, interval in (("backoff", 1.0, 3.0, 5),
                                          ("count", 0.0, 1.0, 5),
                                          ("grow", 0.0, 4.0, 5)):
        scale = torch.tensor([1024.0])
        want_scale = scale * (0.5 if found else 2.0 if tracker + 1 == interval
                              else 1.0)
        want_tracker = torch.tensor([0.0 if found or tracker + 1 == interval
                                     else tracker + 1]).int()
        add("amp", Case(f"amp_update_scale/f32/{tag}", "diopiAmpUpdateScaleInp")
            .inplace("current_scale", scale, want_scale)
            .inplace("growth_tracker", torch.tensor([tracker]).int(), want_tracker)
            .input("found_inf", torch.tensor([found]))
            .attr("scale_growth_factor", 2.0).attr("scale_backoff_factor", 0.5)
            .attr("growth_interval", interval))


BREADTH += (more_math, selects_slices, indexing_more, misc_more,
            foreach_and_amp)


def unfolds():
    torch.manual_seed(61)
    for tag, x, dim, size, step in (("f32/dim1_overlap", randn((3, 8)), 1, 3, 2),
                                    ("f32/dim0", randn((7, 2)), 0, 2, 2),
                                    ("f32/noncontig", noncontig((4, 6)), 1, 4,
                                     1)):
        xs = x.detach().clone().requires_grad_()
        y = xs.unfold(dim, size, step)
        go = randn(y.shape)
        y.backward(go)
        add("unfold", Case(f"unfold/{tag}", "diopiUnfold")
            .output("out", y.detach().contiguous()).input("input", x)
            .attr("dim", dim).attr("size", size).attr("step", step))
        add("unfold", Case(f"unfold_backward/{tag}", "diopiUnfoldBackward")
            .output("grad_input", xs.grad).input("grad_output", go)
            .attr("input_sizes", list(x.shape)).attr("dim", dim)
            .attr("size", size).attr("step", step))
    for tag, p in (("p2", 2.0), ("p1", 1.0), ("inf", float("inf")),
                   ("p3", 3.0)):
        a, b = randn((2, 4, 5)), randn((2, 3, 5))
        add("cdist", Case(f"cdist/f32/{tag}", "diopiCdist", atol=1e-4,
                          rtol=1e-4)
            .output("out", torch.cdist(a, b, p)).input("input1", a)
            .input("input2", b).attr("p", p))


BREADTH += (unfolds,)


def batch_norm_sync():
    """Synchronized batch norm's pieces. PyTorch 1.13 runs torch.batch_norm_*
    on CUDA only: the oracle is their definitions written out in double
    (two ranks simulated by two inputs)."""
    torch.manual_seed(62)
    eps, momentum = 1e-5, 0.1

    def dims(x):
        return [0] + list(range(2, x.dim()))

    def stats(x):
        xd = x.double()
        mean = xd.mean(dims(x))
        var = xd.var(dims(x), unbiased=False)
        return mean, 1 / torch.sqrt(var + eps)

    def per_channel(v, x):
        return v.view([1, -1] + [1] * (x.dim() - 2))

    x0, x1 = randn((3, 4, 5, 2)), randn((2, 4, 5, 2)) + 0.5
    for tag, x in (("4d", x0), ("2d", randn((6, 3))),
                   ("noncontig", noncontig((3, 4, 6)))):
        mean, invstd = stats(x)
        add("batch_norm_sync", Case(f"batch_norm_stats/f32/{tag}",
                                    "diopiBatchNormStats", atol=1e-5,
                                    rtol=1e-4)
            .output("mean", mean.float()).output("invstd", invstd.float())
            .input("input", x).attr("eps", eps))
    both = [stats(x) for x in (x0, x1)]
    mean_all = torch.stack([m for m, _ in both]).float()
    invstd_all = torch.stack([v for _, v in both]).float()
    counts = torch.tensor([float(x0.numel() // 4), float(x1.numel() // 4)])
    joined = torch.cat([x0, x1]).double()
    mean = joined.mean(dims(joined))
    var = joined.var(dims(joined), unbiased=False)
    invstd = 1 / torch.sqrt(var + eps)
    n = float(counts.sum())
    rm, rv = randn((4,)) * 0.1, torch.rand(4) + 0.5
    add("batch_norm_sync", Case("batch_norm_gather_stats_with_counts/f32",
                                "diopiBatchNormGatherStatsWithCounts",
                                atol=1e-5, rtol=1e-4)
        .output("mean", mean.float()).output("invstd", invstd.float())
        .input("input", x0).input("mean_all", mean_all)
        .input("invstd_all", invstd_all)
        .inplace("running_mean", rm,
                 ((1 - momentum) * rm + momentum * mean).float())
        .inplace("running_var", rv,
                 ((1 - momentum) * rv + momentum * var * n / (n - 1)).float())
        .input("counts", counts).attr("momentum", momentum).attr("eps", eps))
    mean, invstd = stats(x0)
    w, b = torch.rand(4) + 0.5, randn((4,))
    xmu = x0.double() - per_channel(mean, x0)
    y = xmu * per_channel(invstd, x0) * per_channel(w, x0) + per_channel(b, x0)
    add("batch_norm_sync", Case("batch_norm_elemt/f32", "diopiBatchNormElemt",
                                atol=1e-5, rtol=1e-4)
        .output("out", y.float()).input("input", x0).input("weight", w)
        .input("bias", b).input("mean", mean.float())
        .input("invstd", invstd.float()).attr("eps", eps))
    dy = randn(x0.shape)
    sum_dy = dy.double().sum(dims(x0))
    sum_dy_xmu = (dy.double() * xmu).sum(dims(x0))
    add("batch_norm_sync", Case("batch_norm_backward_reduce/f32",
                                "diopiBatchNormBackwardReduce", atol=1e-4,
                                rtol=1e-4)
        .output("sum_dy", sum_dy.float()).output("sum_dy_xmu", sum_dy_xmu.float())
        .output("grad_weight", (sum_dy_xmu * invstd).float())
        .output("grad_bias", sum_dy.float())
        .input("grad_out", dy).input("input", x0).input("mean", mean.float())
        .input("invstd", invstd.float()).input("weight", w)
        .attr("input_g", True).attr("weight_g", True).attr("bias_g", True))
    count = torch.tensor([x0.numel() // 4, x1.numel() // 4], dtype=torch.int32)
    total = float(count.sum())
    gi = (dy.double() - per_channel(sum_dy / total, x0) -
          xmu * per_channel(invstd * invstd * sum_dy_xmu / total, x0)) * \
        per_channel(invstd * w.double(), x0)
    add("batch_norm_sync", Case("batch_norm_backward_elemt/f32",
                                "diopiBatchNormBackwardElemt", atol=1e-5,
                                rtol=1e-4)
        .output("grad_input", gi.float()).input("grad_out", dy)
        .input("input", x0).input("mean", mean.float())
        .input("invstd", invstd.float()).input("weight", w)
        .input("sum_dy", sum_dy.float()).input("sum_dy_xmu", sum_dy_xmu.float())
        .input("count", count))


BREADTH += (batch_norm_sync,)


def adaptive_pool1d_cases(kind, table):
    """adaptive_{kind}_pool1d ("max": also with indices; its input a
    permutation, free of ties) and its backward made by PyTorch, for each
    (tag, shape, output size) of `table`."""
    name = f"adaptive_{kind}_pool1d"
    op = f"Adaptive{kind.capitalize()}Pool1d"
    for tag, shape, size in table:
        if kind == "max":
            x = torch.randperm(int(torch.tensor(shape).prod())).float() \
                .reshape(shape).requires_grad_()
            y, idx = F.adaptive_max_pool1d(x, size, return_indices=True)
        else:
            x = randn(shape).requires_grad_()
            y = F.adaptive_avg_pool1d(x, size)
        go = randn(y.shape)
        y.backward(go)
        attrs = (("output_size", [size]),)
        if kind == "max":
            pool_with_indices_cases(name, op, f"f32/{tag}", x, y, idx, go,
                                    attrs, backward_attrs=())
            continue
        fw, bw = forward_backward_cases(name, f"f32/{tag}", op, y.detach(),
                                        x.grad, go)
        add(name, fw.input("input", x.detach()).attr(*attrs[0]))
        add(name, bw.input("input", x.detach()))


def pooling_1d():
    torch.manual_seed(63)
    avg_pool_cases(1, (
            ("f32/k3s2p1", (2, 3, 11), 3, 2, 1, False, True, None),
            ("f32/ceil_exclude", (1, 2, 10), 3, 2, 1, True, False, None),
            ("f32/2d_input", (3, 8), 2, 2, 0, False, True, None)))
    adaptive_pool1d_cases("max", (("down", (2, 3, 11), 4),
                                  ("up", (1, 2, 3), 5)))


BREADTH += (pooling_1d,)


def inplace_forms():
    """One case per in-place form whose out-of-place twin has the rest:
    out = input, through the same code."""
    torch.manual_seed(64)
    unit = lambda s: torch.rand(s) * 1.8 - 0.9  # noqa: E731
    for name, fn, gen in (
            ("AbsInp", torch.abs, randn), ("AcosInp", torch.acos, unit),
            ("AcoshInp", torch.acosh, lambda s: torch.rand(s) * 3 + 1),
            ("AsinInp", torch.asin, unit), ("AsinhInp", torch.asinh, randn),
            ("AtanInp", torch.atan, randn), ("AtanhInp", torch.atanh, unit),
            ("CeilInp", torch.ceil, lambda s: randn(s) * 3),
            ("CosInp", torch.cos, randn), ("CoshInp", torch.cosh, randn),
            ("ErfInp", torch.erf, randn), ("ErfinvInp", torch.erfinv, unit),
            ("Expm1Inp", torch.expm1, randn),
            ("FloorInp", torch.floor, lambda s: randn(s) * 3),
            ("Log10Inp", torch.log10, positive), ("Log1pInp", torch.log1p,
                                                  positive),
            ("Log2Inp", torch.log2, positive),
            ("ReciprocalInp", torch.reciprocal, positive),
            ("RsqrtInp", torch.rsqrt, positive), ("SgnInp", torch.sgn, randn),
            ("SinInp", torch.sin, randn), ("SinhInp", torch.sinh, randn),
            ("TanInp", torch.tan, unit), ("HardswishInp", F.hardswish,
                                          lambda s: randn(s) * 4),
            ("LogicalNotInp", lambda x: torch.logical_not(x).float(),
             lambda s: torch.randint(-1, 2, s).float()),
            ("BitwiseNotInp", torch.bitwise_not,
             lambda s: torch.randint(-99, 99, s))):
        x = gen((3, 5))
        add("inplace", Case(f"{name}/{'i64' if x.dtype == torch.int64 else 'f32'}",
                            "diopi" + name, x.dtype)
            .inplace("input", x, fn(x)))
    for name, fn, ints in (("EqInp", torch.eq, False), ("GtInp", torch.gt, False),
                           ("LeInp", torch.le, False), ("LtInp", torch.lt, False),
                           ("NeInp", torch.ne, False),
                           ("LogicalAndInp", torch.logical_and, False),
                           ("LogicalOrInp", torch.logical_or, False),
                           ("BitwiseOrInp", torch.bitwise_or, True),
                           ("PowInpTensor", torch.pow, False)):
        if ints:
            a, b = torch.randint(0, 64, (3, 5)), torch.randint(0, 64, (5,))
        elif name == "PowInpTensor":
            a, b = positive((3, 5)), randn((5,))
        else:
            a = torch.randint(-2, 2, (3, 5)).float()
            b = torch.randint(-2, 2, (5,)).float()
        add("inplace", Case(f"{name}/bcast", "diopi" + name, a.dtype)
            .inplace("input", a, fn(a, b).to(a.dtype)).input("other", b))
    for name, fn, ints in (("GeInpScalar", torch.ge, False),
                           ("GtInpScalar", torch.gt, False),
                           ("LeInpScalar", torch.le, False),
                           ("NeInpScalar", torch.ne, False),
                           ("BitwiseAndInpScalar", torch.bitwise_and, True),
                           ("BitwiseOrInpScalar", torch.bitwise_or, True)):
        a = torch.randint(-3, 60, (3, 5)) if ints else \
            torch.randint(-2, 2, (3, 5)).float()
        other = 13 if ints else 0.0
        add("inplace", Case(f"{name}", "diopi" + name, a.dtype)
            .inplace("input", a, fn(a, other).to(a.dtype)).attr("other", other))


BREADTH += (inplace_forms,)


def pooling_1d_more():
    torch.manual_seed(65)
    for tag, shape, k, s, p, d, ceil in (("k3s2p1", (2, 3, 11), 3, 2, 1, 1,
                                          False),
                                         ("dilation2_ceil", (1, 2, 12), 3, 2,
                                          1, 2, True),
                                         ("2d_input", (3, 9), 2, 1, 0, 1,
                                          False)):
        x = torch.randperm(int(torch.tensor(shape).prod())).float() \
            .reshape(shape).requires_grad_()
        y, idx = F.max_pool1d(x, k, s, p, d, ceil, return_indices=True)
        go = randn(y.shape)
        y.backward(go)
        attrs = (("kernel_size", [k]), ("stride", [s]), ("padding", [p]),
                 ("dilation", [d]), ("ceil_mode", ceil))
        pool_with_indices_cases("max_pool1d", "MaxPool1d", f"f32/{tag}", x, y,
                                idx, go, attrs)
    adaptive_pool1d_cases("avg", (("down", (2, 3, 11), 4),
                                  ("up", (1, 2, 3), 5),
                                  ("2d_input", (3, 7), 3)))


BREADTH += (pooling_1d_more,)


def volumes_3d():
    """3-d convolution and pooling, and cdist's backward, under a seed of their own (the global
    generator's state is put back, so the families after keep theirs)."""
    saved = torch.get_rng_state()
    torch.manual_seed(303)

    def triple(v):
        return list(v) if isinstance(v, tuple) else [v] * 3

    for tag, shape, cout, k, stride, pad, dil, groups, bias in (
            ("f32/k3p1", (2, 3, 5, 5, 5), 4, (3, 3, 3), 1, 1, 1, 1, True),
            ("f32/strided_dilated_groups2", (1, 4, 6, 7, 8), 4, (3, 2, 3),
             (2, 1, 2), (0, 1, 1), (2, 1, 1), 2, False)):
        x = randn(shape).requires_grad_()
        w = randn((cout, shape[1] // groups) + k).requires_grad_()
        b = randn((cout,)).requires_grad_() if bias else None
        y = F.conv3d(x, w, b, stride, pad, dil, groups)
        go = randn(y.shape)
        y.backward(go)
        attrs = [("stride", triple(stride)), ("padding", triple(pad)),
                 ("dilation", triple(dil)), ("groups", groups)]
        convolution_cases(3, tag, x, w, b, y, go, attrs, atol=1e-4,
                          rtol=1e-4)
    for tag, shape, k, st, p, d, ceil in (
            ("f32/k3s2p1", (2, 3, 7, 7, 7), [3] * 3, [2] * 3, [1] * 3,
             [1] * 3, False),
            ("f32/dilation2_ceil", (1, 2, 9, 8, 10), [3, 2, 3], [2] * 3,
             [1] * 3, [2, 1, 2], True),
            ("f32/4d_input", (3, 5, 6, 7), [2] * 3, [2] * 3, [0] * 3,
             [1] * 3, False)):
        x = torch.randperm(int(torch.tensor(shape).prod())).float() \
            .reshape(shape).requires_grad_()
        y, idx = F.max_pool3d(x, k, st, p, d, ceil, return_indices=True)
        go = randn(y.shape)
        y.backward(go)
        attrs = (("kernel_size", k), ("stride", st), ("padding", p),
                 ("dilation", d), ("ceil_mode", ceil))
        pool_with_indices_cases("max_pool3d", "MaxPool3d", tag, x, y, idx, go,
                                attrs)
    avg_pool_cases(3, (
            ("f32/k3s2p1", (2, 3, 7, 7, 7), 3, 2, 1, False, True, None),
            ("f32/ceil_no_pad_count", (1, 2, 8, 9, 7), 3, 2, 1, True, False,
             None),
            ("f32/divisor", (3, 4, 6, 5), 2, 2, 0, False, True, 5)))
    for tag, p in (("p2", 2.0), ("p1", 1.0), ("inf", float("inf")),
                   ("p3", 3.0), ("p0_5", 0.5), ("p0", 0.0)):
        x1, x2 = randn((2, 4, 5)).requires_grad_(), randn((2, 3, 5))
        x2[0, 1] = x1[0, 2].detach()  # a zero distance
        # PyTorch's _cdist_forward (its own backward), not the matrix
        # product shortcut cdist takes for p = 2.
        y = torch.ops.aten._cdist_forward(x1, x2, p, None)
        go = randn(y.shape)
        y.backward(go)
        add("cdist_backward", Case(f"cdist_backward/f32/{tag}",
                                   "diopiCdistBackward", atol=1e-4, rtol=1e-4)
            .output("grad_input", x1.grad).input("grad_output", go)
            .input("input1", x1.detach()).input("input2", x2)
            .input("cdist", y.detach()).attr("p", p))
    torch.set_rng_state(saved)


BREADTH += (volumes_3d,)


def conv3d_paths():
    """conv3d's paths through the im2col + GEMM engine it shares with conv2d:
    runs of output depth slices (an image wider than one GEMM), float64 and
    float16, strided inputs, an empty batch, a planar 3x3 one (Winograd);
    under a seed of their own."""
    saved = torch.get_rng_state()
    torch.manual_seed(304)
    for tag, shape, cout, k, stride, pad, dil, groups, bias, dt, make in (
            ("f32/depth_runs", (1, 1, 13, 20, 20), 2, (3, 3, 3), (2, 1, 1),
             1, 1, 1, True, torch.float32, randn),
            ("f64/groups3_padded", (2, 6, 4, 5, 6), 3, (2, 3, 3), 1,
             (1, 1, 0), 1, 3, True, torch.float64, randn),
            ("f16/k2", (2, 2, 3, 4, 5), 4, (2, 2, 2), 1, 0, 1, 1, True,
             torch.float16, randn),
            ("f32/noncontig_dilated", (2, 3, 5, 6, 7), 2, (2, 3, 2),
             (1, 2, 1), (0, 1, 2), (2, 1, 2), 1, False, torch.float32,
             noncontig),
            ("f32/empty_batch", (0, 2, 3, 4, 5), 2, (1, 2, 2), 1, 0, 1, 1,
             True, torch.float32, randn),
            ("f32/planar_winograd", (2, 8, 1, 6, 6), 8, (1, 3, 3), 1,
             (0, 1, 1), 1, 1, True, torch.float32, randn)):
        def triple(v):
            return list(v) if isinstance(v, tuple) else [v] * 3

        x = make(shape, dt).requires_grad_()
        w = make((cout, shape[1] // groups) + k, dt).requires_grad_()
        b = randn((cout,), dt).requires_grad_() if bias else None
        # PyTorch's CPU conv3d has no float16 kernel: float16 inputs,
        # results computed in float32 and rounded.
        up = (lambda t: t.float()) if dt == torch.float16 else (lambda t: t)
        y = F.conv3d(up(x), up(w), None if b is None else up(b), stride, pad,
                     dil, groups)
        go = randn(y.shape, dt)
        y.backward(up(go))
        attrs = [("stride", triple(stride)), ("padding", triple(pad)),
                 ("dilation", triple(dil)), ("groups", groups)]
        convolution_cases(3, tag, x, w, b, y.to(dt), go, attrs, dtype=dt,
                          atol=1e-4, rtol=1e-4)
    torch.set_rng_state(saved)


BREADTH += (conv3d_paths,)


def columns():
    torch.manual_seed(66)
    for tag, shape, k, d, p, s in (("k3", (2, 3, 5, 6), [3, 3], [1, 1], [0, 0],
                                    [1, 1]),
                                   ("k2s2p1", (1, 2, 6, 5), [2, 2], [1, 1],
                                    [1, 1], [2, 2]),
                                   ("k3_dil2_rect", (1, 2, 7, 8), [3, 2],
                                    [2, 1], [1, 0], [1, 2])):
        x = randn(shape)
        cols = F.unfold(x, k, d, p, s)
        add("im2col", Case(f"im2col/f32/{tag}", "diopiIm2Col")
            .output("out", cols).input("input", x).attr("kernel_size", k)
            .attr("dilation", d).attr("padding", p).attr("stride", s))
        c = randn(cols.shape)
        add("im2col", Case(f"col2im/f32/{tag}", "diopiCol2Im")
            .output("out", F.fold(c, list(shape[2:]), k, d, p, s))
            .input("input", c).attr("output_size", list(shape[2:]))
            .attr("kernel_size", k).attr("dilation", d).attr("padding", p)
            .attr("stride", s))


BREADTH += (columns,)


def extra_unary():
    """ref_extra_unary.c: rounding, lgamma, erfc, square, isinf and the
    smooth activations with their backwards."""
    torch.manual_seed(70)
    halves = lambda s, dt: (torch.randint(-12, 12, s) / 2 +
                            torch.randn(s) * (torch.rand(s) < 0.5)).to(dt)
    off_poles = lambda s, dt: (torch.rand(s) * 8 - 3.9).to(dt)
    for name, fn, gen in (("Round", torch.round, halves),
                          ("Trunc", torch.trunc, halves),
                          ("Frac", torch.frac, halves),
                          ("Lgamma", torch.lgamma, off_poles),
                          ("Erfc", torch.erfc, randn),
                          ("Square", torch.square, randn),
                          ("Mish", F.mish, randn),
                          ("Hardsigmoid", F.hardsigmoid,
                           lambda s, dt: (randn(s) * 4).to(dt))):
        low = name.lower()
        for dt in (torch.float32, torch.float16, torch.bfloat16,
                   torch.float64):
            x = gen((4, 6), dt)
            add(low, Case(f"{low}/{SHORT.get(dt, 'f64')}", "diopi" + name, dt)
                .output("out", fn(x.double()).to(dt)).input("input", x))
        x = gen((4, 12), torch.float32)[:, ::2]
        add(low, Case(f"{low}/f32/noncontig", "diopi" + name)
            .output("out", fn(x)).input("input", x))
        x = gen((3, 5), torch.float32)
        add(low, Case(f"{low}_inp/f32", f"diopi{name}Inp")
            .inplace("input", x, fn(x)))
        if name in ("Mish", "Hardsigmoid"):
            for dt in (torch.float32, torch.float16):
                x = gen((5, 6), dt)
                xd = x.double().requires_grad_()
                go = randn((5, 6), dt)
                fn(xd).backward(go.double())
                add(low, Case(f"{low}_backward/{SHORT[dt]}",
                              f"diopi{name}Backward", dt)
                    .output("grad_input", xd.grad.to(dt))
                    .input("grad_output", go).input("input", x))
    for name, fn in (("Round", torch.round), ("Trunc", torch.trunc),
                     ("Square", torch.square)):
        x = torch.randint(-50, 50, (4, 5), dtype=torch.int32)
        add(name.lower(), Case(f"{name.lower()}/i32", "diopi" + name,
                               torch.int32)
            .output("out", fn(x)).input("input", x))
    x = torch.tensor([float("inf"), -float("inf"), float("nan"), 0.0, 3e38,
                      -1.0])
    for dt in (torch.float32, torch.float16, torch.float64):
        add("isinf", Case(f"isinf/{SHORT.get(dt, 'f64')}", "diopiIsInf", dt)
            .output("out", torch.isinf(x.to(dt))).input("input", x.to(dt)))
    x = noncontig((3, 4))
    x[0, 0] = float("-inf")
    add("isinf", Case("isinf/f32/noncontig", "diopiIsInf")
        .output("out", torch.isinf(x)).input("input", x))
    for tag, alpha, scale, in_scale in (("default", 1.0, 1.0, 1.0),
                                        ("selu", 1.6732632423543772,
                                         1.0507009873554805, 1.0),
                                        ("input_scale", 0.5, 1.0, 2.0)):
        for dt in (torch.float32, torch.float16, torch.float64):
            x = randn((4, 6), dt) * 2
            xd = x.double().requires_grad_()
            y = torch.ops.aten.elu(xd, alpha, scale, in_scale)
            go = randn((4, 6), dt)
            y.backward(go.double())
            dts = SHORT.get(dt, "f64")
            attrs = (("alpha", alpha), ("scale", scale),
                     ("input_scale", in_scale))
            cases = [Case(f"elu/{dts}/{tag}", "diopiElu", dt)
                     .output("out", y.detach().to(dt)).input("input", x),
                     Case(f"elu_backward/{dts}/{tag}", "diopiEluBackward", dt)
                     .output("grad_input", xd.grad.to(dt))
                     .input("grad_output", go).input("input", x)
                     .attr("input_is_result", False)]
            if dt == torch.float64:
                r = y.detach()
                cases.append(Case(f"elu_backward/f64/{tag}/result",
                                  "diopiEluBackward", dt)
                             .output("grad_input", torch.ops.aten.elu_backward(
                                 go.double(), alpha, scale, in_scale, True, r))
                             .input("grad_output", go).input("input", r)
                             .attr("input_is_result", True))
            for c in cases:
                for attr in attrs:
                    c.attr(*attr)
                add("elu", c)
    x = noncontig((4, 5))
    add("elu", Case("elu/f32/noncontig", "diopiElu")
        .output("out", F.elu(x, 0.7)).input("input", x).attr("alpha", 0.7)
        .attr("scale", 1.0).attr("input_scale", 1.0))
    x = randn((3, 5))
    add("elu", Case("elu_inp/f32", "diopiEluInp")
        .inplace("input", x, F.elu(x)).attr("alpha", 1.0).attr("scale", 1.0)
        .attr("input_scale", 1.0))
    for beta, threshold in ((1.0, 20.0), (2.0, 3.0)):
        for dt in (torch.float32, torch.float16, torch.float64):
            x = randn((5, 6), dt) * 3
            xd = x.double().requires_grad_()
            y = F.softplus(xd, beta, threshold)
            go = randn((5, 6), dt)
            y.backward(go.double())
            tag = f"{SHORT.get(dt, 'f64')}/beta{beta:g}_threshold{threshold:g}"
            for c in (Case(f"softplus/{tag}", "diopiSoftplus", dt)
                      .output("out", y.detach().to(dt)).input("input", x),
                      Case(f"softplus_backward/{tag}", "diopiSoftplusBackward",
                           dt)
                      .output("grad_input", xd.grad.to(dt))
                      .input("grad_output", go).input("input", x)):
                add("softplus", c.attr("beta", beta).attr("threshold",
                                                          threshold))
    x = noncontig((4, 5)) * 3
    add("softplus", Case("softplus/f32/noncontig", "diopiSoftplus")
        .output("out", F.softplus(x)).input("input", x).attr("beta", 1.0)
        .attr("threshold", 20.0))


BREADTH += (extra_unary,)


# ---------------------------------------------------------------- extensions

MASK64 = (1 << 64) - 1


def ref_rng_uniform(seed, k):
    """The reference library's counter-based draw u(seed, k) (ref_rng.c),
    for k an int64 numpy array: the attention dropout cases are made with
    the mask the library draws, so their expected values are exact."""
    import numpy as np

    def mix(z):
        z = z ^ (z >> np.uint64(33))
        z = z * np.uint64(0xff51afd7ed558ccd)
        z = z ^ (z >> np.uint64(33))
        z = z * np.uint64(0xc4ceb9fe1a85ec53)
        return z ^ (z >> np.uint64(33))
    with np.errstate(over="ignore"):
        s = mix(np.uint64((seed + 0x9e3779b97f4a7c15) & MASK64))
        bits = mix(s ^ (k.astype(np.uint64) * np.uint64(0xd1b54a32d192ed03)))
    return torch.from_numpy((bits >> np.uint64(11)).astype(np.float64) *
                            2.0 ** -53)


def reductions_ext():
    """var and logsumexp over dims (extension ops) and their backwards."""
    torch.manual_seed(71)
    for tag, x, dims, keep, corr in (
            ("f32/dim1", randn((12, 20)), [1], False, 1),
            ("f32/dim1_keep", randn((12, 20)), [1], True, 1),
            ("f32/dims02_corr0", randn((4, 5, 6)), [0, 2], False, 0),
            ("f32/all_default", randn((10, 30)), [], False, None),
            ("f32/long_rows", randn((8, 300)), [1], False, 1),
            ("f32/noncontig", noncontig((12, 20)), [0], False, 1),
            ("f64/dim0", randn((6, 7), torch.float64), [0], False, 1),
            ("f16/dim1", randn((8, 12), torch.float16), [1], False, 1),
            ("bf16/dim1_corr2", randn((6, 10), torch.bfloat16), [1], False, 2),
            ("f32/0size", randn((0, 4)), [0], False, 1)):
        dt = x.dtype
        xd = x.double().requires_grad_()
        c = 1 if corr is None else corr
        y = torch.var(xd, dim=dims or list(range(x.dim())), correction=c,
                      keepdim=keep)
        lse_dims = dims or list(range(x.dim()))
        z = torch.logsumexp(xd, dim=lse_dims, keepdim=keep)
        for name, op, out, extra in (("var", "diopiVar", y, corr),
                                     ("logsumexp", "diopiLogsumexp", z, None)):
            fw = Case(f"{name}/{tag}", op, dt, atol=1e-5, rtol=1e-4)
            fw.output("out", out.detach().to(dt)).input("input", x)
            fw.attr("dim", dims if name == "var" else lse_dims)
            if extra is not None:
                fw.attr("correction", extra)
            add(name, fw)
            if x.numel() == 0:
                continue
            go = randn(out.shape, dt)
            (gx,) = torch.autograd.grad(out, xd, go.double())
            bw = Case(f"{name}_backward/{tag}", op + "Backward", dt,
                      atol=1e-5, rtol=1e-4)
            bw.output("grad_input", gx.to(dt)).input("grad_output", go)
            bw.input("input", x)
            if name == "logsumexp":
                bw.input("result", out.detach().to(dt))
            bw.attr("dim", dims if name == "var" else lse_dims)
            if extra is not None:
                bw.attr("correction", extra)
            add(name, bw)
    x = torch.tensor([[0.0, float("-inf"), 1.0], [float("-inf")] * 3,
                      [float("inf"), 2.0, float("inf")],
                      [float("nan"), 1.0, 2.0]])
    add("logsumexp", Case("logsumexp/f32/infinities", "diopiLogsumexp")
        .output("out", torch.logsumexp(x, 1)).input("input", x)
        .attr("dim", [1]))


def kl_div_loss():
    """kl_div (extension op): every reduction, target as probabilities
    (some exactly 0) or as log-probabilities; and its backward."""
    torch.manual_seed(72)
    reductions = {"none": 0, "mean": 1, "sum": 2}
    for red in reductions:
        for log_target in (False, True):
            for dt, shape in ((torch.float32, (6, 10)),
                              (torch.float64, (3, 4, 5)),
                              (torch.float16, (4, 8))):
                if dt != torch.float32 and (red == "sum" or log_target):
                    continue
                x = F.log_softmax(randn(shape), -1).to(dt)
                t = F.softmax(randn(shape) * 2, -1)
                if not log_target:
                    t[..., 0] = 0  # xlogy's zero
                else:
                    t = t.log()
                t = t.to(dt)
                xd = x.double().requires_grad_()
                y = F.kl_div(xd, t.double(), reduction=red,
                             log_target=log_target)
                go = randn(y.shape, dt)
                (gx,) = torch.autograd.grad(y, xd, go.double())
                tag = (f"{SHORT.get(dt, 'f64')}/{red}"
                       f"{'/log_target' if log_target else ''}")
                for c in (Case(f"kl_div/{tag}", "diopiKLDivLoss", dt)
                          .output("out", y.detach().to(dt)),
                          Case(f"kl_div_backward/{tag}",
                               "diopiKLDivLossBackward", dt)
                          .output("grad_input", gx.to(dt))
                          .input("grad_output", go)):
                    add("kl_div", c.input("input", x).input("target", t)
                        .attr("reduction", reductions[red])
                        .attr("log_target", log_target))
    x = F.log_softmax(noncontig((5, 8)), -1)
    t = F.softmax(randn((5, 8)), -1)
    add("kl_div", Case("kl_div/f32/none/noncontig", "diopiKLDivLoss")
        .output("out", F.kl_div(x, t, reduction="none")).input("input", x)
        .input("target", t).attr("reduction", 0).attr("log_target", False))


def adagrad():
    """Adagrad steps (extension op) made by torch.optim.Adagrad."""
    torch.manual_seed(73)
    for tag, shape, dt, step, lr_decay, wd in (
            ("f32/step1", (16, 24), torch.float32, 1, 0.0, 0.0),
            ("f32/step5_decay", (16, 24), torch.float32, 5, 0.01, 0.1),
            ("f32/flat", (1024,), torch.float32, 3, 0.0, 0.01),
            ("f64/step2", (7, 9), torch.float64, 2, 0.05, 0.0),
            ("f16/step3", (6, 8), torch.float16, 3, 0.0, 0.1)):
        p, g = randn(shape, dt), randn(shape, dt)
        state = (torch.rand(shape) * 0.5).to(dt)
        pp, ss = p.double().clone(), state.double().clone()
        opt = torch.optim.Adagrad([pp], lr=0.05, lr_decay=lr_decay,
                                  weight_decay=wd, eps=1e-10)
        pp.grad = g.double().clone()
        opt.state[pp] = {"step": torch.tensor(float(step - 1)), "sum": ss}
        opt.step()
        add("adagrad", Case(f"adagrad/{tag}", "diopiAdagrad", dt,
                            atol=1e-6, rtol=1e-5, flops=8 * p.numel())
            .inplace("param", p, pp.detach().to(dt)).input("grad", g)
            .inplace("state_sum", state, ss.to(dt)).attr("lr", 0.05)
            .attr("lr_decay", lr_decay).attr("weight_decay", wd)
            .attr("eps", 1e-10).attr("step", step))


def eye_and_digamma():
    """eye and digamma (extension ops)."""
    torch.manual_seed(74)
    for tag, n, m, dt in (("f32/3x5", 3, 5, torch.float32),
                          ("i64/4x4", 4, 4, torch.int64),
                          ("bool/2x3", 2, 3, torch.bool),
                          ("f16/5x2", 5, 2, torch.float16),
                          ("f64/0x3", 0, 3, torch.float64)):
        add("eye", Case(f"eye/{tag}", "diopiEye", dt)
            .output("out", torch.eye(n, m, dtype=dt)).attr("n", n)
            .attr("m", m))
    special = torch.tensor([0.0, -0.0, -1.0, -2.0, 1.0, 0.5, -0.5, -2.5,
                            1e-3, 1.4616321, 30.0, 1e4, float("inf"),
                            float("-inf"), float("nan")])
    for tag, x in (("f32/range", torch.rand(24, 10) * 20 - 5),
                   ("f32/special", special),
                   ("f64/range", (torch.rand(9, 7) * 30 - 10).double()),
                   ("f16/range", (torch.rand(8, 6) * 10 + 0.1).half()),
                   ("bf16/range", (torch.rand(8, 6) * 10 + 0.1).bfloat16()),
                   ("f32/noncontig", noncontig((8, 10)) * 4 + 5)):
        dt = x.dtype
        y = torch.digamma(x.double()).to(dt)
        add("digamma", Case(f"digamma/{tag}", "diopiDigamma", dt, atol=1e-5,
                            rtol=1e-5)
            .output("out", y).input("input", x))
    x = torch.rand(5, 6) * 8 + 0.2
    add("digamma", Case("digamma_inp/f32", "diopiDigammaInp")
        .inplace("input", x, torch.digamma(x)))


def polygamma_xlogy():
    """polygamma (n >= 1; n = 0 is digamma's), digamma's and polygamma's
    backwards, and xlogy in its tensor, scalar and backward forms
    (extension ops). Values off the n = 1 poles, where PyTorch's float32
    result is finite but meaningless."""
    torch.manual_seed(75)
    special = torch.tensor([0.0, -0.0, -3.0, 1e-3, 0.5, -0.5, -2.25, 1.0,
                            30.0, 1e4, float("nan")])
    for n in (1, 2, 3, 5):
        for tag, x in (("f32/range", torch.rand(12, 10) * 20 - 5),
                       ("f64/range", (torch.rand(7, 9) * 30 - 10).double()),
                       ("f32/noncontig", noncontig((6, 8)) * 4 + 5),
                       ("f32/special", special)):
            if n == 1 and tag == "f32/special":
                x = x[x != -3.0]
            dt = x.dtype
            y = torch.polygamma(n, x.double()).to(dt)
            add("polygamma", Case(f"polygamma/n{n}/{tag}", "diopiPolygamma",
                                  dt, atol=1e-5, rtol=1e-5)
                .output("out", y).input("input", x).attr("n", n))
    x = (torch.rand(8, 6) * 10 + 0.1).half()
    add("polygamma", Case("polygamma/n2/f16", "diopiPolygamma", x.dtype)
        .output("out", torch.polygamma(2, x.double()).half())
        .input("input", x).attr("n", 2))
    x = torch.rand(5, 6) * 8 + 0.2
    add("polygamma", Case("polygamma_inp/n1/f32", "diopiPolygammaInp")
        .inplace("input", x, torch.polygamma(1, x.double()).float())
        .attr("n", 1))
    for n in (0, 1, 3):
        x = (torch.rand(6, 7) * 12 - 3).double().requires_grad_()
        y = torch.polygamma(n, x) if n else torch.digamma(x)
        go = randn(y.shape).double()
        (gx,) = torch.autograd.grad(y, x, go)
        c = (Case(f"polygamma_backward/n{n}/f64", "diopiPolygammaBackward",
                  torch.float64).attr("n", n) if n else
             Case("digamma_backward/f64", "diopiDigammaBackward",
                  torch.float64))
        add("polygamma", c.output("grad_input", gx).input("grad_output", go)
            .input("input", x.detach()))
    xs = torch.tensor([[0.0, 0.0, 0.0, 1.0, float("nan"), 2.0, -1.5, 3.0]])
    ys = torch.tensor([[0.0, float("nan"), -1.0, 0.0, 1.0, -1.0, 0.5,
                        float("inf")]])
    for tag, x, y in (
            ("f32/broadcast", randn((4, 1, 5)), torch.rand(3, 5) * 3),
            ("f32/special", xs, ys),
            ("f64/same", randn((6, 7)).double(), torch.rand(6, 7).double()),
            ("f32/noncontig", noncontig((5, 8)), torch.rand(5, 8) + 0.1),
            ("f32/int_other", randn((3, 4)), torch.randint(0, 4, (4,))),
            ("f16/same", randn((4, 6), torch.float16),
             (torch.rand(4, 6) + 0.1).half())):
        dt = torch.promote_types(x.dtype, y.dtype)
        add("xlogy", Case(f"xlogy/{tag}", "diopiXlogy", dt)
            .output("out", torch.xlogy(x.double(), y.double()).to(dt))
            .input("input", x).input("other", y))
    x, y = randn((4, 5)), torch.rand(4, 5) + 0.1
    add("xlogy", Case("xlogy_inp/f32", "diopiXlogyInp")
        .inplace("input", x, torch.xlogy(x, y)).input("other", y))
    x = randn((3, 4))
    x[0, 0] = 0
    for other in (2.5, 0.0):
        add("xlogy", Case(f"xlogy_scalar/f32/{other}", "diopiXlogyScalar")
            .output("out", torch.xlogy(x, other)).input("input", x)
            .attr("other", other))
    add("xlogy", Case("xlogy_scalar_inp/f32", "diopiXlogyScalarInp")
        .inplace("input", x, torch.xlogy(x, 3.0)).attr("other", 3.0))
    y = torch.rand(3, 4) + 0.1
    for value in (1.5, 0.0):
        add("xlogy", Case(f"xlogy_scalar_self/f32/{value}",
                          "diopiXlogyScalarSelf")
            .output("out", torch.xlogy(value, y)).attr("input", value)
            .input("other", y))
    for tag, xs, ys in (("f64/broadcast", (4, 1, 5), (3, 5)),
                        ("f64/same", (6, 7), (6, 7))):
        x = randn(xs).double()
        x.view(-1)[::3] = 0
        x.requires_grad_()
        y = (torch.rand(ys) + 0.1).double().requires_grad_()
        out = torch.xlogy(x, y)
        go = randn(out.shape).double()
        gx, gy = torch.autograd.grad(out, (x, y), go)
        add("xlogy", Case(f"xlogy_backward/{tag}", "diopiXlogyBackward",
                          torch.float64)
            .output("grad_input", gx).output("grad_other", gy)
            .input("grad_output", go).input("input", x.detach())
            .input("other", y.detach()))


def addmv_addbmm():
    """addmv and addbmm (extension ops): broadcast and full addends, beta 0
    ignoring a NaN addend, strided operands, float64, in place."""
    torch.manual_seed(76)
    nan_row = torch.full((7,), float("nan"))
    for tag, inp, mat, vec, beta, alpha, dt in (
            ("f32/plain", randn((7,)), randn((7, 5)), randn((5,)), 1.0, 1.0,
             torch.float32),
            ("f32/broadcast", randn((1,)), randn((7, 9)), randn((9,)), 0.5,
             -2.0, torch.float32),
            ("f32/beta0_nan", nan_row, randn((7, 4)), randn((4,)), 0.0, 1.5,
             torch.float32),
            ("f32/transposed", randn((7,)), randn((6, 7)).t(),
             noncontig((6,)), 2.0, 0.5, torch.float32),
            ("f64/plain", randn((7,)).double(), randn((7, 3)).double(),
             randn((3,)).double(), 0.25, 3.0, torch.float64)):
        add("addmv", Case(f"addmv/{tag}", "diopiAddmv", dt, atol=1e-4,
                          flops=2 * mat.numel())
            .output("out", torch.addmv(inp, mat, vec, beta=beta, alpha=alpha))
            .input("input", inp).input("mat", mat).input("vec", vec)
            .attr("beta", beta).attr("alpha", alpha))
    inp, mat, vec = randn((6,)), randn((6, 4)), randn((4,))
    add("addmv", Case("addmv_inp/f32", "diopiAddmvInp", atol=1e-4)
        .inplace("input", inp, torch.addmv(inp, mat, vec, beta=0.5, alpha=2.0))
        .input("mat", mat).input("vec", vec).attr("beta", 0.5)
        .attr("alpha", 2.0))
    nan_mat = torch.full((4, 6), float("nan"))
    # dtype last in the names: no "mm/f32" inside (the filter of mm's)
    for tag, inp, b1, b2, beta, alpha, dt in (
            ("plain/f32", randn((4, 6)), randn((3, 4, 5)), randn((3, 5, 6)),
             1.0, 1.0, torch.float32),
            ("broadcast/f32", randn((6,)), randn((2, 4, 3)), randn((2, 3, 6)),
             -1.0, 0.5, torch.float32),
            ("beta0_nan/f32", nan_mat, randn((2, 4, 3)), randn((2, 3, 6)),
             0.0, 2.0, torch.float32),
            ("transposed/f32", randn((4, 6)),
             randn((3, 5, 4)).transpose(1, 2), noncontig((3, 5, 6)), 0.5,
             1.0, torch.float32),
            ("empty_batch/f32", randn((4, 6)), randn((0, 4, 3)),
             randn((0, 3, 6)), 2.0, 1.0, torch.float32),
            ("plain/f64", randn((4, 6)).double(), randn((3, 4, 2)).double(),
             randn((3, 2, 6)).double(), 0.5, -1.5, torch.float64)):
        add("addbmm", Case(f"addbmm/{tag}", "diopiAddbmm", dt, atol=1e-4,
                           flops=2 * b1.numel() * b2.shape[-1])
            .output("out", torch.addbmm(inp, b1, b2, beta=beta, alpha=alpha))
            .input("input", inp).input("batch1", b1).input("batch2", b2)
            .attr("beta", beta).attr("alpha", alpha))
    inp, b1, b2 = randn((4, 6)), randn((2, 4, 3)), randn((2, 3, 6))
    add("addbmm", Case("addbmm_inp/f32", "diopiAddbmmInp", atol=1e-4)
        .inplace("input", inp,
                 torch.addbmm(inp, b1, b2, beta=0.5, alpha=2.0))
        .input("batch1", b1).input("batch2", b2).attr("beta", 0.5)
        .attr("alpha", 2.0))
    add_product_backward_cases()


def add_product_backward_cases():
    """addmv's and addbmm's backwards, made by autograd in float64: a
    broadcast addend summed back to its shape, transposed factors."""
    f64 = torch.float64
    for tag, inp, mat, vec, beta, alpha in (
            ("f64/plain", randn((5,), f64), randn((5, 3), f64),
             randn((3,), f64), 1.0, 1.0),
            ("f64/broadcast_transposed", randn((1,), f64),
             randn((4, 5), f64).t(), randn((4,), f64), 0.5, -2.0)):
        leaves = [t.clone().requires_grad_() for t in (inp, mat, vec)]
        y = torch.addmv(*leaves, beta=beta, alpha=alpha)
        go = randn(y.shape, f64)
        gi, gm, gv = torch.autograd.grad(y, leaves, go)
        add("addmv", Case(f"addmv_backward/{tag}", "diopiAddmvBackward", f64)
            .output("grad_input", gi).output("grad_mat", gm)
            .output("grad_vec", gv).input("grad_output", go)
            .input("mat", mat).input("vec", vec).attr("beta", beta)
            .attr("alpha", alpha))
    for tag, inp, b1, b2, beta, alpha in (
            ("f64/plain", randn((4, 6), f64), randn((3, 4, 5), f64),
             randn((3, 5, 6), f64), 1.0, 1.0),
            ("f64/broadcast_transposed", randn((6,), f64),
             randn((2, 3, 4), f64).transpose(1, 2), randn((2, 3, 6), f64),
             -1.0, 0.5)):
        leaves = [t.clone().requires_grad_() for t in (inp, b1, b2)]
        y = torch.addbmm(*leaves, beta=beta, alpha=alpha)
        go = randn(y.shape, f64)
        gi, g1, g2 = torch.autograd.grad(y, leaves, go)
        add("addbmm", Case(f"addbmm_backward/{tag}", "diopiAddbmmBackward",
                           f64)
            .output("grad_input", gi).output("grad_batch1", g1)
            .output("grad_batch2", g2).input("grad_output", go)
            .input("batch1", b1).input("batch2", b2).attr("beta", beta)
            .attr("alpha", alpha))


def dropout2d():
    """Channel dropout through diopiDropout with a [N, C, 1, ...] mask, as
    DIOPI's tests call it for dropout2d: judged by rule (judge=dropout:
    each channel 0 or input / (1 - p) as its mask says, the kept fraction
    near 1 - p); the eval form exactly."""
    torch.manual_seed(75)
    for tag, shape, p, dt in (("f32/nchw_p0.3", (16, 32, 2, 2), 0.3,
                               torch.float32),
                              ("f16/ncl_p0.5", (32, 24, 3), 0.5,
                               torch.float16),
                              ("f64/ncdhw_p0.2", (8, 64, 1, 2, 2), 0.2,
                               torch.float64)):
        x = randn(shape, dt).abs() + 0.1
        mshape = list(shape[:2]) + [1] * (len(shape) - 2)
        add("dropout2d", Case(f"dropout2d/{tag}", "diopiDropout", dt)
            .unjudged("out", torch.empty(shape, dtype=dt))
            .unjudged("mask", torch.empty(mshape, dtype=torch.uint8))
            .input("input", x).attr("p", p).attr("train", True)
            .attr("seed", 16).attr("judge", "dropout"))
    # inputs of 0 (DIOPI's positive inputs come near it): out is 0 whether
    # the mask keeps the channel or not, and the rule must take either
    x = randn((16, 16, 2, 2)).abs()
    x[:, :, 0, 0] = 0
    add("dropout2d", Case("dropout2d/f32/zeros_in_input", "diopiDropout")
        .unjudged("out", torch.empty(x.shape))
        .unjudged("mask", torch.empty(16, 16, 1, 1, dtype=torch.uint8))
        .input("input", x).attr("p", 0.5).attr("train", True)
        .attr("seed", 16).attr("judge", "dropout"))
    x = randn((4, 6, 3, 3))
    add("dropout2d", Case("dropout2d/f32/eval", "diopiDropout")
        .output("out", x.clone())
        .output("mask", torch.ones(4, 6, 1, 1, dtype=torch.uint8))
        .input("input", x).attr("p", 0.3).attr("train", False)
        .attr("seed", 16))


def attention_dropout():
    """Flash attention with dropout, forward and backward: the mask is the
    reference library's (its counter-based draws from the case's seeded
    generator: probability (b, h, i, j) kept when u(seed, offset +
    ((b * Hq + h) * Sq + i) * Sk + j) >= p), reproduced here, so expected
    values are PyTorch's exact ones for that mask. The backward's generator
    is where the forward left it (offset = the forward's draws)."""
    torch.manual_seed(76)
    import numpy as np
    seed, p = 7, 0.3
    for tag, b, sq, sk, hq, hk, d, causal, dt, strided in (
            ("f32/tiled", 2, 5, 7, 4, 2, 8, False, torch.float32, False),
            ("f32/tiled_causal", 1, 6, 6, 2, 2, 4, True, torch.float32, False),
            ("f32/plain_strided", 1, 4, 6, 2, 1, 8, False, torch.float32,
             True),
            ("f64/plain", 2, 3, 5, 2, 2, 4, False, torch.float64, False),
            ("f16/plain_causal", 1, 4, 4, 2, 1, 8, True, torch.float16,
             False)):
        def make(shape):
            if strided:  # head_dim strided by 2: the plain algorithm
                return noncontig(shape, dt)
            return randn(shape, dt)
        q, k, v = make((b, sq, hq, d)), make((b, sk, hk, d)), \
            make((b, sk, hk, d))
        qd, kd, vd = (t.double().requires_grad_() for t in (q, k, v))
        scale = d ** -0.5
        rep = hq // hk
        s = torch.einsum("bihd,bjhd->bhij", qd, kd.repeat_interleave(rep, 2))
        s = s * scale
        i = torch.arange(sq).view(-1, 1)
        j = torch.arange(sk).view(1, -1)
        if causal:
            s = s.masked_fill(j > i + sk - sq, float("-inf"))
        lse = torch.logsumexp(s, -1)
        count = b * hq * sq * sk
        u = ref_rng_uniform(seed, np.arange(count, dtype=np.int64))
        keep = (u >= p).view(b, hq, sq, sk).double() / (1 - p)
        probs = torch.softmax(s, -1) * keep
        out = torch.einsum("bhij,bjhd->bihd", probs,
                           vd.repeat_interleave(rep, 2))
        go = randn(out.shape, dt)
        gq, gk, gv = torch.autograd.grad(out, (qd, kd, vd), go.double())
        kw = {"atol": 1e-5, "rtol": 1e-4} if dt == torch.float32 else {}
        attrs = (("p_dropout", p), ("softmax_scale", scale),
                 ("is_causal", causal), ("window_size_left", -1),
                 ("window_size_right", -1), ("seed", seed))
        fw = Case(f"flash_attention_dropout/{tag}", "diopiFlashAttention", dt,
                  **kw)
        fw.output("attention_out", out.detach().to(dt))
        fw.output("softmax_lse", lse.detach().float())
        bw = Case(f"flash_attention_dropout_backward/{tag}",
                  "diopiFlashAttentionBackward", dt, **kw)
        bw.output("grad_q", gq.to(dt)).output("grad_k", gk.to(dt))
        bw.output("grad_v", gv.to(dt)).input("grad_output", go)
        for c in (fw, bw):
            c.input("q", q).input("k", k).input("v", v)
        bw.input("attention_out", out.detach().to(dt).contiguous())
        bw.input("softmax_lse", lse.detach().float().contiguous())
        bw.attr("offset", count)
        for c in (fw, bw):
            for attr in attrs:
                c.attr(*attr)
            add("flash_attention_dropout", c)


EXTENSIONS = (reductions_ext, kl_div_loss, adagrad, eye_and_digamma,
              polygamma_xlogy, addmv_addbmm, dropout2d, attention_dropout)


def main():
    for make in (arithmetic, memory, gemm, activations, softmax, losses,
                 reductions, optimizers, normalization, convolution, pooling,
                 indexing, shapes, random_ops, convolution_batches,
                 reductions_split, convolution_winograd) + BREADTH + (
                     hardening,) + EXTENSIONS:
        make()
    os.makedirs(OUT, exist_ok=True)
    only = set(sys.argv[1:])
    unknown = only - set(FILES)
    if unknown:
        sys.exit(f"no such family: {', '.join(sorted(unknown))}")
    total = 0
    for family, cases in sorted(FILES.items()):
        if only and family not in only:
            continue
        blob = b"BPOPS001" + struct.pack("<I", len(cases)) + b"".join(
            c.pack() for c in cases)
        with open(os.path.join(OUT, family + ".bin"), "wb") as f:
            f.write(blob)
        total += len(blob)
        print(f"{family:16s} {len(cases):4d} cases {len(blob):9d} bytes")
    print(f"total {sum(len(c) for c in FILES.values())} cases, {total} bytes",
          file=sys.stderr)


if __name__ == "__main__":
    main()
