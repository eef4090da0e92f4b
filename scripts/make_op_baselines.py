#!/usr/bin/python3
"""Writes the op conformance baselines under tests/data/ops/ (one file per
op family), made by PyTorch on the CPU. Run with Debian's python3-torch:
    /usr/bin/python3 scripts/make_op_baselines.py
The files are committed; tests and `backplane optest` never need PyTorch.

File format (little endian), read by tools/backplane/optest_cases.c:
  "BPOPS001" u32 case_count, then per case:
    str name, str op, f64 atol, f64 rtol, u64 flops, u64 bytes,
    u32 tensor_count, per tensor:
      str role, u8 kind (0 input, 1 output, 2 in-place: initial + expected),
      u8 dtype (diopiDtype_t), u8 ndim, i64 shape[ndim], i64 stride[ndim],
      i64 storage_offset, u64 storage_bytes, bytes storage,
      kind 1/2: u64 expected_bytes, bytes expected (contiguous)
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

    def inplace(self, role, initial, expected):
        self.bytes += 2 * expected.numel() * expected.element_size()
        self.tensors.append((role, 2, initial, initial.contiguous(), expected))
        return self

    def attr(self, name, value):
        self.attrs.append((name, value))
        return self

    def pack(self):
        out = [s(self.name), s(self.op),
               struct.pack("<ddQQI", self.atol, self.rtol, int(self.flops),
                           int(self.bytes), len(self.tensors))]
        for role, kind, t, storage, expected in self.tensors:
            shape = list(t.shape)
            if kind == 0:
                stride, offset = list(t.stride()), t.storage_offset()
                if t._base is None:
                    offset = 0
            else:
                stride, offset = list(torch.empty(shape).stride()), 0
            out.append(s(role) + struct.pack("<BBB", kind, DTYPES[t.dtype],
                                             len(shape)))
            out.append(struct.pack("<%dq" % len(shape), *shape))
            out.append(struct.pack("<%dq" % len(shape), *stride))
            data = raw(storage) if storage is not None else b""
            out.append(struct.pack("<qQ", offset, len(data)) + data)
            if kind:
                e = raw(expected)
                out.append(struct.pack("<Q", len(e)) + e)
        out.append(struct.pack("<I", len(self.attrs)))
        for name, v in self.attrs:
            if isinstance(v, bool) or isinstance(v, int):
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
    shapes = [("same", (64, 128), (64, 128)), ("bcast", (16, 1, 32), (8, 1)),
              ("0size", (0, 6), (0, 6)), ("0d", (), ()),
              ("large", (128, 256), (128, 256))]
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
    src = randn((128, 256))
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
    for m, k, n in ((32, 64, 256), (128, 128, 128), (0, 8, 4), (5, 0, 3)):
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
    for n, i, o, bias in ((32, 64, 256, True), (32, 256, 10, True),
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
        for tag, x in (("f32", randn((64, 100))), ("f32/large",
                                                    randn((64, 256))),
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
                                ("large", (64, 500), 1), ("0d", (), 0)):
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
            for fw, op in ((True, "CrossEntropyLoss"),
                           (False, "CrossEntropyLossBackward")):
                c = Case(f"cross_entropy{'' if fw else '_backward'}/f32/{red}"
                         f"/{tag}", "diopi" + op)
                if fw:
                    c.output("out", y.detach())
                else:
                    c.output("grad_input", x.grad).input("grad_output", go)
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
            for fw, op in ((True, "NLLLoss"), (False, "NLLLossBackward")):
                c = Case(f"nll_loss{'' if fw else '_backward'}/f32/{red}/{tag}",
                         "diopi" + op)
                if fw:
                    c.output("out", y.detach())
                else:
                    c.output("grad_input", lp.grad).input("grad_output", go)
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
                                   ("large", (128, 256), [0], False),
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
    for shape in ((64, 64), (8192,)):
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


def main():
    for make in (arithmetic, memory, gemm, activations, softmax, losses,
                 reductions, optimizers):
        make()
    os.makedirs(OUT, exist_ok=True)
    total = 0
    for family, cases in sorted(FILES.items()):
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
