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
the reference library does not export (checked with ctypes against --lib)
is skipped and listed. A case whose tensors exceed MAX_CASE_BYTES (DIOPI's
largest shapes hold hundreds of megabytes) is stored as seeds and samples
instead (see "large cases" below; named .../large); one that is still over
LARGE_CASE_BYTES, or whose result PyTorch leaves unspecified (ties in an
index result, repeated scatter targets), is listed with its reason in
SKIPPED.txt.

The set is kept small: integral inputs, and every input of a case past
SEED_MIN_BYTES, are stored as their seed (make_inputs); the cases of one
config op share a file, where a data field equal to an earlier one is
stored as a reference (CaseFile); a case repeating an earlier one
(StoredCase.signature) is stored once and counted in SKIPPED.txt.
"""
import argparse
import ctypes
import gzip
import multiprocessing
import os
import struct
import sys
import zlib

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

def as_shape(shape):
    """A config's shape; `(1)` in a config is the int 1, which numpy's
    size arguments (and so DIOPI's generators) take as the 1-d shape (1,)."""
    return (shape,) if isinstance(shape, int) else shape


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
    """t as DIOPI lays it out: a strided view, or (no_contiguous) t
    transposed, every dim reversed (DIOPI's configured shape is the one
    drawn: an input (12, 2) marked so is a (2, 12) view)."""
    if stride is not None:
        extent = 1 + sum((n - 1) * s for n, s in zip(t.shape, stride))
        storage = torch.zeros(max(extent, 1), dtype=t.dtype)
        view = storage.as_strided(t.shape, stride)
        view.copy_(t)
        return view
    if no_contiguous and t.dim() > 1:
        return t.permute(*reversed(range(t.dim())))
    return t


def expand(entry):
    """DIOPI-TEST's expansion: [(dtype, para, {name: arg})] per case. The
    j-th shape of every argument and the j-th value of every para list make
    case j; each is repeated for the i-th dtype of the dtype lists (an
    argument's own list, else the entry's; a list of one serves every i)."""
    args = []
    tensor_para = entry.get("tensor_para", {})
    for arg in tensor_para.get("args", []):
        for name in arg.get("ins") or ["input"]:
            one = {k: v for k, v in tensor_para.items() if k != "args"}
            one.update(arg)
            one["ins"] = name
            args.append(one)
    para = entry.get("para", {})
    if not args:  # a creation op: its cases are its para lists
        count = max((len(v) for v in para.values()), default=0)
        dtypes = entry.get("dtype") or [np.float32]
        return [(NP_TO_TORCH[np.dtype(d).type],
                 {k: v[j] for k, v in para.items() if j < len(v)}, {})
                for d in dtypes for j in range(count)]
    count = len(args[0].get("shape", args[0].get("value", ())))
    lists = [a["dtype"] for a in args if a.get("dtype")]
    n_dtypes = max([len(d) for d in lists] + [len(entry.get("dtype") or [0])])

    def dtype_of(a, i):
        d = a.get("dtype") or entry.get("dtype") or [np.float32]
        d = d[min(i, len(d) - 1)]
        if np.dtype(d).type not in NP_TO_TORCH:
            raise Unsupported(f"dtype {np.dtype(d).name}")
        return d
    cases = []
    for i in range(n_dtypes):
        try:
            for a in args:
                dtype_of(a, i)
        except Unsupported as e:  # one case per shape, none made
            cases += [(None, str(e), None)] * count
            continue
        for j in range(count):
            p = {k: v[j] for k, v in para.items() if j < len(v)}
            ins = {}
            for a in args:
                strides = a.get("stride")
                ins[a["ins"]] = dict(
                    shape=as_shape(a["shape"][j]) if "shape" in a else None,
                    dtype=NP_TO_TORCH[np.dtype(dtype_of(a, i)).type],
                    gen_fn=a.get("gen_fn", "Genfunc.randn"),
                    stride=strides[j] if strides and j < len(strides)
                    else None,
                    no_contiguous=a.get("no_contiguous", False),
                    requires_grad=bool((a.get("requires_grad") or
                                        [False])[0]),
                    policy=a.get("gen_policy", ""),
                    count_range=a.get("gen_num_range"),
                    value=a["value"][j] if "value" in a else None)
            cases.append((ins[args[0]["ins"]]["dtype"], p, ins))
    return cases


def make_inputs(ins, rng, seeded, how):
    """The case's inputs, drawn as `how` says: "large", every one from
    `seeded` (stored as its seed); "seeded", every one that has a seeded
    form; "integral", the integral and bool ones (their values need no more
    than the generator's range); "plain", none: the others come from rng
    (continuous values: no ties)."""
    def draw(k, a, shape):
        if how in ("large", "seeded") or (
                how == "integral" and not a["dtype"].is_floating_point):
            try:
                return seeded.tensor(k, a["gen_fn"], shape, a["dtype"],
                                     a["stride"], a["no_contiguous"])
            except Unsupported:
                if how == "large":
                    raise
        return place(generate(a["gen_fn"], shape, a["dtype"], rng),
                     a["stride"], a["no_contiguous"])
    out = {}
    for k, (name, a) in enumerate(ins.items()):
        if a["shape"] is None and a["value"] is None:
            out[name] = None
        elif a["value"] is not None:
            out[name] = torch.tensor(a["value"]).to(a["dtype"])
        elif a["policy"].startswith("gen_tensor_list"):
            diff = a["policy"] == "gen_tensor_list_diff_shape"
            if diff:
                shapes = [tuple(s) for s in a["shape"]]
            else:
                low, high = a["count_range"] or (1, 5)
                count = int(rng.integers(low, high)) if high > low else low
                shapes = [tuple(a["shape"])] * count
            out[name] = [draw(16 * k + j, a, s) for j, s in enumerate(shapes)]
        else:
            out[name] = draw(16 * k, a, tuple(a["shape"]))
    return out


# ---------------------------------------------------------------- large cases
# A case over MAX_CASE_BYTES draws its inputs from a seeded generator that
# `backplane optest` implements identically (tools/backplane/optest/
# optest_seeded.h defines it): such a tensor is stored as its seed, with the
# kind byte's 0x10 bit set. Its large outputs are stored as a sample (0x20):
# the values at SAMPLE_COUNT seeded positions, the sum and the sum of
# magnitudes. Inputs made from the outputs of PyTorch (saved results,
# indices) are stored whole; constant ones (grad_output) as a constant.

SAMPLE_COUNT = 128
SAMPLE_MIN_BYTES = 4096
LARGE_CASE_BYTES = 96 * 1024
# Inputs past SEED_MIN_BYTES are drawn by seed in every case (the stored
# set stays small: random floats do not compress), except for the ops whose
# cases are dropped when their input holds ties (the seeded values are
# multiples of 1/128): those draw continuous values up to MAX_CASE_BYTES.
SEED_MIN_BYTES = 1024
TIES_MATTER = {"min", "max", "argmax", "argmin", "topk", "sort"}
GENS = {"randn": 0, "randn_int": 0, "rand": 1, "positive": 2, "mask": 3,
        "randint": 4, "zeros": 5, "empty": 5, "ones": 5, "uniform": 6}
_U = np.uint64


def splitmix(seed, idx):
    """SplitMix64's outputs for counters idx + 1 of seed (uint64 arrays)."""
    z = _U(seed) + (idx.astype(_U) + _U(1)) * _U(0x9E3779B97F4A7C15)
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


def seeded_values(spec, n, dtype):
    """The n storage elements of a seeded tensor (optest_seeded.h)."""
    seed, gen, low, high, value = spec
    z = splitmix(seed, np.arange(n, dtype=_U))
    b = [((z >> _U(8 * k)) & _U(255)).astype(np.int64) for k in range(4)]
    total = b[0] + b[1] + b[2] + b[3]
    half = dtype in (torch.float16, torch.bfloat16)
    if gen in (0, 2):
        v = ((total // 4 - 127) / 32.0 if dtype == torch.bfloat16
             else (total - 510) / 128.0)
        v = np.abs(v) if gen == 2 else v
    elif gen == 1:
        v = b[0] / 256.0 if half else (b[0] * 256.0 + b[1]) / 65536.0
    elif gen == 3:
        v = (z & _U(1)).astype(np.float64)
    elif gen == 4:
        v = (low + (z % _U(high - low)).astype(np.int64)).astype(np.float64)
    elif gen == 6:
        u = b[0] / 256.0 if half else (b[0] * 256.0 + b[1]) / 65536.0
        v = low + (high - low) * u
    else:
        v = np.full(n, float(value))
    t = torch.from_numpy(np.asarray(v, dtype=np.float64))
    if dtype == torch.bool:
        return t != 0
    if not dtype.is_floating_point:
        return t.trunc().to(torch.int64).to(dtype)
    if gen == 6 and not bool((t.to(dtype).double() == t).all()):
        raise Unsupported(f"uniform({low}, {high}) is not exact in {dtype}")
    return t.to(dtype)


def seed_spec(gen_fn, dtype, seed):
    spec = gen_fn if isinstance(gen_fn, dict) else {"fn": gen_fn}
    fn = (spec.get("fn") or "Genfunc.randn").split(".")[-1]
    if fn not in GENS:
        raise Unsupported(f"gen_fn {fn} has no seeded form")
    low, high = spec.get("low", 0), spec.get("high", 10)
    if fn == "uniform" and not (low == int(low) and high == int(high)):
        raise Unsupported(f"gen_fn uniform({low}, {high}) of fractional "
                          "bounds has no seeded form")
    if dtype == torch.uint8 and fn != "uniform":
        low = 0
    value = {"ones": 1.0}.get(fn, 0.0)
    return (seed, GENS[fn], int(low), int(high), value)


class Seeded:
    """The seeded tensors of one large case, by their storage."""

    def __init__(self, seed):
        self.seed, self.specs, self.keep = seed, {}, []

    def tensor(self, k, gen_fn, shape, dtype, stride, no_contiguous):
        spec = seed_spec(gen_fn, dtype, (self.seed * 64 + k) % (1 << 63))
        n = int(np.prod(shape)) if shape else 1
        if stride is not None:
            extent = 1 + sum((d - 1) * s for d, s in zip(shape, stride))
            storage = seeded_values(spec, max(extent, 1) if n else 0, dtype)
            view = storage.as_strided(shape, stride)
        elif no_contiguous and len(shape) > 1:
            storage = seeded_values(spec, n, dtype)
            view = storage.reshape(shape).permute(*reversed(range(len(shape))))
        else:
            storage = seeded_values(spec, n, dtype)
            view = storage.reshape(shape)
        self.keep.append(storage)
        self.specs[(storage.data_ptr(), storage.numel(), dtype)] = spec
        return view

    def spec_of(self, t):
        """The seed of input t's storage, a constant's, or None."""
        b = t._base if t._base is not None else t
        spec = self.specs.get((b.data_ptr(), b.numel(), b.dtype))
        if spec is not None or t.numel() < 64 or not t.is_contiguous() or \
                t._base is not None:
            return spec
        first = t.reshape(-1)[0]
        if torch.isnan(first.double()) or not bool((t == first).all()):
            return None
        return (0, 5, 0, 0, float(first.double()))


class StoredCase(base.Case):
    """A case as stored: inputs drawn by seed stored as their seed, the
    outputs of a large case as samples, and any data field equal to an
    earlier one of its file as a reference to it (CaseFile)."""

    seeded = None  # the Seeded its inputs were drawn from, if any
    large = False  # outputs sampled, named .../large

    def signature(self, config):
        """What makes two cases the same test: the op, tolerances, every
        tensor's role, kind, dtype, shape and layout, the attributes, and
        `config` (how the entry draws each input, its para values)."""
        meta = []
        for role, kind, t, storage, _ in self.tensors:
            layout = (tuple(t.stride()), t.storage_offset(),
                      storage.numel() if storage is not None else -1) \
                if kind == 0 else ()
            meta.append((role, kind, t.dtype, tuple(t.shape)) + layout)
        attrs = tuple((k, tuple(v) if isinstance(v, list) else v)
                      for k, v in self.attrs if k != "seed")
        return (self.op, self.atol, self.rtol, tuple(meta), attrs, config)

    def pack(self, into):
        """The case's record; `into` is the CaseFile it joins."""
        out = self.head()
        for k, (role, kind, t, storage, expected) in enumerate(self.tensors):
            shape = list(t.shape)
            flags = 0
            spec = self.seeded.spec_of(t) if self.seeded and kind != 1 \
                else None
            if kind == 2 and spec is not None and not (
                    t.is_contiguous() and t.storage_offset() == 0 and
                    (t._base is None or t._base.numel() == t.numel())):
                spec = None
            stride, offset = base.layout(kind, t)
            if spec is not None:
                flags |= 0x10
                data = struct.pack("<QIiid", *spec)
            else:
                data = base.raw(storage) if storage is not None else b""
                data, shared = into.share(data, k, 0)
                flags |= 0x40 if shared else 0
            e = b""
            if kind and expected is not None:
                if self.large and expected.numel() * \
                        expected.element_size() > SAMPLE_MIN_BYTES:
                    flags |= 0x20
                    e = sample(self.name + "/" + role, expected)
                else:
                    e, shared = into.share(base.raw(expected), k, 1)
                    flags |= 0x80 if shared else 0
            out.append(base.s(role) + struct.pack(
                "<BBB", kind | flags, base.DTYPES[t.dtype], len(shape)))
            out.append(struct.pack("<%dq" % len(shape), *shape))
            out.append(struct.pack("<%dq" % len(shape), *stride))
            out.append(struct.pack("<qQ", offset, len(data)) + data)
            if kind:
                out.append(struct.pack("<Q", len(e)) + e)
        return b"".join(out) + base.attrs_blob(self.attrs)


SHARED_MIN_BYTES = 64


class CaseFile:
    """The cases of one file. A data field (a tensor's storage or expected
    values) of SHARED_MIN_BYTES or more that equals an earlier one of the
    file is stored as a reference to it (kind bit 0x40 for the storage, 0x80
    for the expected values: u32 case, u16 tensor, u16 field (0 storage, 1
    expected), the index of the case in the file and of the tensor in the
    case): an in-place case repeats its out-of-place case's input and
    result, a backward case its forward's inputs and saved outputs."""

    def __init__(self):
        self.cases, self.seen, self.fresh = [], {}, []

    def share(self, data, tensor, field):
        """(bytes to store, whether they are a reference) for `data`, a
        field of the case being packed: references name earlier cases or
        fields packed before in this one."""
        if len(data) < SHARED_MIN_BYTES:
            return data, False
        first = self.seen.get(data)
        if first is not None:
            return struct.pack("<IHH", *first), True
        self.seen[data] = (len(self.cases), tensor, field)
        self.fresh.append(data)
        return data, False

    def add(self, case, limit):
        """Appends the case's record unless it exceeds `limit` bytes;
        returns the record's size."""
        self.fresh = []
        packed = case.pack(self)
        if len(packed) > limit:
            for data in self.fresh:
                del self.seen[data]
        else:
            self.cases.append(packed)
        return len(packed)

    def blob(self):
        return b"BPOPS001" + struct.pack("<I", len(self.cases)) + b"".join(
            self.cases)


def sample(key, expected):
    """A sampled output's record: header, then the values at its positions."""
    seed = zlib.crc32(key.encode())
    flat = expected.detach().contiguous().reshape(-1)
    n = flat.numel()
    pos = (splitmix(seed, np.arange(SAMPLE_COUNT, dtype=_U)) % _U(n)).astype(
        np.int64)
    picked = flat[torch.from_numpy(pos)]
    wide = flat.double()
    return struct.pack("<QQdd", seed, SAMPLE_COUNT, float(wide.sum()),
                       float(wide.abs().sum())) + base.raw(picked)


def input_bytes(ins):
    """The bytes of a case's generated inputs, before they are made."""
    total = 0
    for a in ins.values():
        if a["shape"] is None:
            continue
        shapes = a["shape"] if a["policy"] == "gen_tensor_list_diff_shape" \
            else [a["shape"]] * (a["count_range"] or (1, 1))[-1]
        for s in shapes:
            total += int(np.prod(s)) * torch.tensor([], dtype=a["dtype"]) \
                .element_size()
    return total


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


def optional_inputs(c, **tensors):
    """The inputs given (in order), leaving out the absent (None) ones."""
    for role, t in tensors.items():
        if t is not None:
            c.input(role, t)
    return c


def affine_grads(c, g, go, t, w, b):
    """A backward's gradients of input and of the weight and bias it has
    (an affine normalization's, a convolution's), then its grad_output and
    input."""
    c.output("grad_input", g["input"])
    for role, v in (("weight", w), ("bias", b)):
        if v is not None:
            c.output("grad_" + role, g[role])
    return c.input("grad_output", go).input("input", t)


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
    return [("diopiLinear", conv_forward_fill(y, i, w, b, []))]


def conv2d_args(p, i):
    """stride, padding, dilation, groups of a conv2d entry (4-d input)."""
    if i.dim() != 4:
        raise Unsupported("conv2d input not 4-d")
    return (pair(p.get("stride", 1)), pair(p.get("padding", 0)),
            pair(p.get("dilation", 1)), p.get("groups", 1))


def conv_forward_fill(y, i, w, b, attrs):
    """A convolution's case: out, input, weight, bias if any, attrs."""
    return lambda c: add_attrs(optional_inputs(
        c.output("out", y), input=i, weight=w, bias=b), attrs)


def conv_backward_fill(g, go, i, w, b, attrs):
    """A convolution backward's case: the gradients, grad_output, input,
    weight, bias_sizes ([] without a bias), attrs."""
    def fill(c):
        affine_grads(c, g, go, i, w, b).input("weight", w)
        return add_attrs(c, [("bias_sizes", list(b.shape) if b is not None
                              else [])] + attrs)
    return fill


def build_conv2d(name, p, x, inplace):
    i, w, b = x["input"], x["weight"], x.get("bias")
    st, pad, dil, groups = conv2d_args(p, i)
    y = oracle(lambda u, v, z: F.conv2d(u, v, z, st, pad, dil, groups), i, w, b)
    return [("diopiConvolution2d", conv_forward_fill(
        y, i, w, b, [("stride", st), ("padding", pad), ("dilation", dil),
                     ("groups", groups)]))]


def max_pool_args(p):
    """kernel_size, stride, padding, dilation, ceil_mode of a max_pool2d
    entry, as its case's attributes."""
    k = pair(p["kernel_size"])
    return [("kernel_size", k), ("stride", pair(p.get("stride") or k)),
            ("padding", pair(p.get("padding", 0))),
            ("dilation", pair(p.get("dilation", 1))),
            ("ceil_mode", bool(p.get("ceil_mode", False)))]


def build_max_pool2d(name, p, x, inplace):
    t = x["input"]
    attrs = max_pool_args(p)
    k, st, pad, dil, ceil = (v for _, v in attrs)
    y, idx = oracle(lambda u: F.max_pool2d(u, k, st, pad, dil, ceil_mode=ceil,
                                           return_indices=True), t)
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
        return optional_inputs(c, weight=w, bias=b).attr(
            "normalized_shape", norm).attr("eps", float(eps))
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


def nll_loss_fill(p, x, with_total):
    """An nll_loss case: out (and PyTorch's total weight with_total),
    input, target, weight if any, reduction, ignore_index."""
    i, t, w = x["input"], x["target"], x.get("weight")
    red, ignore = p.get("reduction", "mean"), p.get("ignore_index", -100)
    y = oracle(lambda u, v: F.nll_loss(u, t, v, ignore_index=ignore,
                                       reduction=red), i, w)

    def fill(c):
        c.output("out", y)
        if with_total:
            c.output("totalWeight", total_weight(t, w, ignore, red, i.dtype))
        optional_inputs(c, input=i, target=t, weight=w)
        return c.attr("reduction", REDUCTION[red]).attr("ignore_index", ignore)
    return fill


def build_nll_loss(name, p, x, inplace):
    return [("diopiNLLLoss", nll_loss_fill(p, x, False))]


def total_weight(t, w, ignore, red, dtype):
    """PyTorch's nll_loss total weight (nll_loss_forward's second result):
    the summed class weights of the targets not ignored, 0 for none."""
    keep = t[t != ignore].long()
    total = 0.0 if red == "none" else float(
        w.double()[keep].sum() if w is not None else keep.numel())
    return torch.tensor([total], dtype=dtype)


def build_nll_loss_v2(name, p, x, inplace):
    return [("diopiNLLLossV2", nll_loss_fill(p, x, True))]


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


# ---------------------------------------------------------------- breadth
# The builders of issue 25's op library breadth: one per config op, each
# expanding every case exactly as the ones above do.

def inplace_of(op, y, t):
    """The in-place case of `op` when PyTorch's in-place form keeps t's
    dtype and shape (an integer input of a float op has none)."""
    if tuple(y.shape) != tuple(t.shape):
        return []
    if y.dtype != t.dtype:
        return []
    return [(op, lambda c: c.inplace("input", t.contiguous(), y))]


def unary_ext(op, torch_fn, inp=True):
    """unary() with the in-place case only where PyTorch has one."""
    def build(name, p, x, inplace):
        t = x["input"]
        if t is None:
            raise Unsupported("no input")
        y = oracle(torch_fn, t)
        cases = [(op, lambda c: c.output("out", y).input("input", t))]
        if inplace and inp:
            cases += inplace_of(op + "Inp", y, t)
        return cases
    return build


def compare(op, torch_fn, scalar_op):
    """Comparisons and logic ops: bool outputs; the in-place forms keep
    the input's dtype (a.eq_(b) writes 0/1 in a's type)."""
    def build(name, p, x, inplace):
        a, other = x["input"], x.get("other")
        if other is None:
            value = p.get("other")
            if value is None:
                raise Unsupported("no other")
            y = oracle(lambda u: torch_fn(u, value), a)
            cases = [(scalar_op, lambda c: c.output("out", y).input("input", a)
                      .attr("other", value))]
            if inplace:
                cases.append((scalar_op.replace("Scalar", "InpScalar"),
                              lambda c: c.inplace("input", a.contiguous(),
                                                  y.to(a.dtype))
                              .attr("other", value)))
            return cases
        y = oracle(torch_fn, a, other)
        cases = [(op, lambda c: c.output("out", y).input("input", a)
                  .input("other", other))]
        if inplace and tuple(y.shape) == tuple(a.shape):
            cases.append((op + "Inp", lambda c: c.inplace(
                "input", a.contiguous(), y.to(a.dtype)).input("other", other)))
        return cases
    return build


def build_binary_scalar_inp(name, p, x, inplace):
    """add/sub/mul/div with a scalar other, and their InpScalar forms."""
    made = BINARY_BASE[name](name, p, x, inplace)
    a, value = x["input"], p.get("other")
    if x.get("other") is not None or value is None or not inplace:
        return made
    y = made[0][1](base.Case("", "", a.dtype)).tensors[0][4]
    if y.dtype != a.dtype:
        return made
    alpha = p.get("alpha", 1)
    op = made[0][0].replace("Scalar", "InpScalar")

    def fill(c):
        c.inplace("input", a.contiguous(), y).attr("other", value)
        if name in ("add", "sub"):
            c.attr("alpha", alpha)
        if name == "div":
            c.attr("rounding_mode", {None: 0, "trunc": 1, "floor": 2}[
                p.get("rounding_mode")])
        return c
    return made + [(op, fill)]


def build_remainder(name, p, x, inplace):
    a, other = x.get("input"), x.get("other")
    if "self" in p:
        y = torch.remainder(p["self"], other)
        return [("diopiRemainder", lambda c: c.output("out", y)
                 .attr("input", p["self"]).input("other", other))]
    if other is None:
        y = oracle(lambda u: torch.remainder(u, p["other"]), a)
        return [("diopiRemainderScalar", lambda c: c.output("out", y)
                 .input("input", a).attr("other", p["other"]))]
    y = oracle(torch.remainder, a, other)
    return [("diopiRemainderTensor", lambda c: c.output("out", y)
             .input("input", a).input("other", other))]


def build_pow(name, p, x, inplace):
    a, e = x.get("input"), x.get("exponent")
    if "self" in p:
        y = oracle(lambda v: torch.pow(p["self"], v), e)
        return [("diopiPowScalar", lambda c: c.output("out", y)
                 .attr("input", p["self"]).input("exponent", e))]
    if e is None:
        y = oracle(lambda u: torch.pow(u, p["exponent"]), a)
        cases = [("diopiPow", lambda c: c.output("out", y).input("input", a)
                  .attr("exponent", p["exponent"]))]
        if inplace and y.dtype == a.dtype:
            cases.append(("diopiPowInp", lambda c: c.inplace(
                "input", a.contiguous(), y).attr("exponent", p["exponent"])))
        return cases
    y = oracle(torch.pow, a, e)
    cases = [("diopiPowTensor", lambda c: c.output("out", y).input("input", a)
              .input("exponent", e))]
    if inplace and y.dtype == a.dtype and y.shape == a.shape:
        cases.append(("diopiPowInpTensor", lambda c: c.inplace(
            "input", a.contiguous(), y).input("other", e)))
    return cases


def optional_attrs(c, p, names):
    for k in names:
        if p.get(k) is not None:
            c.attr(k, p[k])
    return c


def build_clamp(name, p, x, inplace):
    t = x["input"]
    lo, hi = x.get("min"), x.get("max")
    kw_lo = p.get("min") if lo is None else lo
    kw_hi = p.get("max") if hi is None else hi
    if name == "clamp_min":
        kw_hi = None
    if name == "clamp_max":
        kw_lo = None
    y = oracle(lambda u: torch.clamp(u, kw_lo, kw_hi), t)
    suffix = {"clamp": "", "clamp_min": "Min", "clamp_max": "Max"}[name]
    if lo is None and hi is None:
        op = f"diopiClamp{suffix}Scalar"

        def fill(c):
            return optional_attrs(c, p, ("min", "max"))
        cases = [(op, lambda c: fill(c.output("out", y).input("input", t)))]
        if inplace and y.dtype == t.dtype:
            cases.append((f"diopiClamp{suffix}InpScalar", lambda c: fill(
                c.inplace("input", t.contiguous(), y))))
        return cases

    def bounds(c):
        if lo is not None:
            c.input("min", lo)
        if hi is not None:
            c.input("max", hi)
        return c
    cases = [(f"diopiClamp{suffix}", lambda c: bounds(
        c.output("out", y).input("input", t)))]
    if inplace and y.dtype == t.dtype and y.shape == t.shape:
        cases.append((f"diopiClamp{suffix}Inp", lambda c: bounds(
            c.inplace("input", t.contiguous(), y))))
    return cases


def activation(op, torch_fn, attrs, inp_op=None):
    """An activation with scalar attributes `attrs` (para names, in order)."""
    def build(name, p, x, inplace):
        t = x["input"]
        args = [p[k] for k in attrs if k in p]
        y = oracle(lambda u: torch_fn(u, *args), t)

        def fill(c):
            for k in attrs:
                if k in p:
                    c.attr(k, p[k])
            return c
        cases = [(op, lambda c: fill(c.output("out", y).input("input", t)))]
        if inplace and y.dtype == t.dtype:
            cases.append((inp_op or op + "Inp", lambda c: fill(
                c.inplace("input", t.contiguous(), y))))
        return cases
    return build


def backward_activation(op, torch_fn, attrs, extra=()):
    def build(name, p, x, wanted):
        t = x["input"]
        if not t.is_floating_point():
            return []
        args = [p[k] for k in attrs if k in p]
        y, go, g = grads(lambda input: torch_fn(input, *args), {"input": t},
                         ("input",))

        def fill(c):
            c.output("grad_input", g["input"]).input("grad_output", go)
            c.input("input", t)
            for k in attrs:
                if k in p:
                    c.attr(k, p[k])
            for k, v in extra:
                c.attr(k, v)
            return c
        return [(op, fill)]
    return build


def build_addc(name, p, x, inplace):
    t, t1, t2 = x["input"], x["tensor1"], x["tensor2"]
    value = p.get("value", 1)
    fn = torch.addcmul if name == "addcmul" else torch.addcdiv
    y = oracle(lambda u, v, w: fn(u, v, w, value=value), t, t1, t2)
    op = "diopiAddcmul" if name == "addcmul" else "diopiAddcdiv"
    cases = [(op, lambda c: c.output("out", y).input("input", t)
              .input("tensor1", t1).input("tensor2", t2).attr("value", value))]
    if inplace and y.shape == t.shape and y.dtype == t.dtype:
        cases.append((op + "Inp", lambda c: c.inplace(
            "input", t.contiguous(), y).input("tensor1", t1)
            .input("tensor2", t2).attr("value", value)))
    return cases


def build_lerp(name, p, x, inplace):
    t, end, w = x["input"], x["end"], x.get("weight")
    if w is None:
        weight = p["weight"]
        y = oracle(lambda u, v: torch.lerp(u, v, weight), t, end)
        return [("diopiLerpScalar", lambda c: c.output("out", y)
                 .input("input", t).input("end", end).attr("weight", weight))]
    y = oracle(torch.lerp, t, end, w)
    return [("diopiLerpTensor", lambda c: c.output("out", y).input("input", t)
             .input("end", end).input("weight", w))]


def build_where(name, p, x, inplace):
    cond, a, b = x["condition"], x["input"], x["other"]
    y = torch.where(cond.bool(), a, b)
    return [("diopiWhere", lambda c: c.output("out", y)
             .input("condition", cond).input("input", a).input("other", b))]


def build_masked_fill(name, p, x, inplace):
    t, mask, v = x["input"], x["mask"], x.get("value")
    if v is None:
        value = p["value"]
        y = t.masked_fill(mask.bool(), value)
        cases = [("diopiMaskedFillScalar", lambda c: c.output("out", y)
                  .input("input", t).input("mask", mask).attr("value", value))]
        if inplace and y.shape == t.shape:
            cases.append(("diopiMaskedFillInpScalar", lambda c: c.inplace(
                "input", t.contiguous(), y).input("mask", mask)
                .attr("value", value)))
        return cases
    y = t.masked_fill(mask.bool(), v.to(t.dtype))
    cases = [("diopiMaskedFill", lambda c: c.output("out", y)
              .input("input", t).input("mask", mask).input("value", v))]
    if inplace and y.shape == t.shape:
        cases.append(("diopiMaskedFillInp", lambda c: c.inplace(
            "input", t.contiguous(), y).input("mask", mask).input("value", v)))
    return cases


def build_any_all(name, p, x, inplace):
    t, dim = x["input"], p.get("dim")
    fn = torch.any if name == "any" else torch.all
    y = fn(t) if dim is None else fn(t, dim)
    op = "diopiAny" if name == "any" else "diopiAll"
    return [(op, lambda c: optional_attrs(
        c.output("out", y).input("input", t), p, ("dim",)))]


def build_min_max(name, p, x, inplace):
    t, dim = x["input"], p.get("dim")
    fn = torch.min if name == "min" else torch.max
    if dim is None:
        y = fn(t)
        return [(f"diopi{name.capitalize()}All", lambda c: c.output("out", y)
                 .input("input", t))]
    v, i = fn(t, dim)
    if has_ties_along(t, dim):
        raise Unsupported("ties along dim: the index PyTorch picks is not "
                          "specified")
    return [(f"diopi{name.capitalize()}", lambda c: c.output(name, v)
             .output(f"{name}_indices", i).input("input", t).attr("dim", dim))]


def has_ties_along(t, dim):
    if t.numel() == 0 or t.dim() == 0:
        return False
    s = torch.sort(t.float(), dim=dim).values
    return bool((s.narrow(dim, 1, s.shape[dim] - 1) ==
                 s.narrow(dim, 0, s.shape[dim] - 1)).any()) \
        if s.shape[dim] > 1 else False


def dims_of(dim):
    return [] if dim is None else ([dim] if isinstance(dim, int)
                                   else list(dim))


def build_std(name, p, x, inplace):
    t, dims = x["input"], dims_of(p.get("dim"))
    corr = p.get("correction", 1)
    y = oracle(lambda u: torch.std(u, dim=dims or None, unbiased=bool(corr)),
               t)
    return [("diopiStd", lambda c: c.output("out", y).input("input", t)
             .attr("dim", dims).attr("correction", corr))]


def build_amax(name, p, x, inplace):
    t, dims, keep = x["input"], dims_of(p.get("dim")), p.get("keepdim", False)
    y = torch.amax(t, dims, keep) if dims else torch.amax(
        t, tuple(range(t.dim())), keep)
    return [("diopiAmax", lambda c: c.output("out", y).input("input", t)
             .attr("dim", dims).attr("keepdim", bool(keep)))]


def build_arg(name, p, x, inplace):
    t, dim, keep = x["input"], p.get("dim"), bool(p.get("keepdim", False))
    fn = torch.argmax if name == "argmax" else torch.argmin
    if t.dtype in (torch.float16, torch.bfloat16):
        y = fn(t.float(), dim, keep)
    else:
        y = fn(t, dim, keep)
    if dim is not None and has_ties_along(t, dim) or dim is None and \
            t.numel() != torch.unique(t.float()).numel():
        ties = t.float().flatten() if dim is None else None
        if ties is not None or dim is not None:
            raise Unsupported("ties: the index PyTorch picks is not specified")
    op = "diopiArgmax" if name == "argmax" else "diopiArgmin"
    return [(op, lambda c: c.output("out", y).input("input", t)
             .attr("dim", dims_of(dim)).attr("keepdim", keep))]


def build_prod(name, p, x, inplace):
    t, dim = x["input"], p.get("dim")
    dt = p.get("dtype")
    out_dt = NP_TO_TORCH[np.dtype(dt).type] if dt is not None else None

    def prod(u, dtype):
        return torch.prod(u, dim, dtype=dtype) if dim is not None else \
            torch.prod(u, dtype=dtype)
    # An integral dtype casts each element first (1.5 * 1.5 is 1), for
    # 16-bit floats as for the others; a float32 copy holds them exactly.
    if t.dtype in (torch.float16, torch.bfloat16):
        integral = out_dt is not None and not out_dt.is_floating_point
        y = prod(t.float(), out_dt) if integral else \
            prod(t.float(), None).to(out_dt or t.dtype)
    else:
        y = prod(t, out_dt)
    return [("diopiProd", lambda c: optional_attrs(
        c.output("out", y).input("input", t), p, ("dim",)))]


def build_norm(name, p, x, inplace):
    t, dims, order = x["input"], dims_of(p.get("dim")), p.get("p", 2)
    y = oracle(lambda u: torch.norm(u, order, dims or None), t)
    return [("diopiNorm", lambda c: c.output("out", y).input("input", t)
             .attr("p", float(order)).attr("dim", dims))]


def backward_norm(name, p, x, wanted):
    t, dims, order = x["input"], dims_of(p.get("dim")), p.get("p", 2)
    y, go, g = grads(lambda input: torch.norm(input, order, dims or None),
                     {"input": t}, ("input",))
    return [("diopiNormBackward", lambda c: c.output("grad_input", g["input"])
             .input("grad_output", go).input("input", t).input("norm", y)
             .attr("dim", dims).attr("p", float(order)))]


def build_cumsum(name, p, x, inplace):
    t, dim = x["input"], p["dim"]
    y = oracle(lambda u: torch.cumsum(u, dim), t)
    return [("diopiCumsum", lambda c: c.output("out", y).input("input", t)
             .attr("dim", dim))]


def backward_cumsum(name, p, x, wanted):
    t, dim = x["input"], p["dim"]
    y, go, g = grads(lambda input: torch.cumsum(input, dim), {"input": t},
                     ("input",))
    return [("diopiCumsumBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad_output", go).attr("dim", dim))]


def build_topk(name, p, x, inplace):
    t = x["input"]
    k, dim = p["k"], p.get("dim", -1)
    largest, srt = p.get("largest", True), p.get("sorted", True)
    v, i = oracle(lambda u: torch.topk(u, k, dim, largest, True), t)
    if has_ties_along(t, dim) or not srt:
        raise Unsupported("ties or unsorted: PyTorch's index order is not "
                          "specified")
    return [("diopiTopk", lambda c: c.output("values", v).output("indices", i)
             .input("input", t).attr("k", k).attr("dim", dim)
             .attr("largest", largest).attr("sorted", srt))]


def build_sort(name, p, x, inplace):
    t, dim, desc = x["input"], p.get("dim", -1), p.get("descending", False)
    stable = p.get("stable")
    v, i = torch.sort(t.float() if t.dtype == torch.float16 else t,
                      stable=bool(stable), dim=dim, descending=desc)
    v = v.to(t.dtype)
    if not stable and has_ties_along(t, dim):
        raise Unsupported("ties in an unstable sort: the order of equal "
                          "keys is not specified")

    def fill(c):
        c.output("values", v).output("indices", i).input("input", t)
        c.attr("dim", dim).attr("descending", bool(desc))
        return c.attr("stable", bool(stable)) if stable is not None else c
    return [("diopiSort", fill)]


def build_flip(name, p, x, inplace):
    t, dims = x["input"], dims_of(p.get("dims"))
    y = torch.flip(t, dims)
    return [("diopiFlip", lambda c: c.output("out", y).input("input", t)
             .attr("dims", dims))]


def build_roll(name, p, x, inplace):
    t = x["input"]
    shifts, dims = dims_of(p.get("shifts")), dims_of(p.get("dims"))
    y = torch.roll(t, shifts, dims)
    return [("diopiRoll", lambda c: c.output("out", y).input("input", t)
             .attr("shifts", shifts).attr("dims", dims))]


def build_repeat(name, p, x, inplace):
    t, reps = x["input"], list(p["repeats"])
    y = t.repeat(reps)
    return [("diopiRepeat", lambda c: c.output("out", y).input("input", t)
             .attr("repeats_size", reps))]


def build_pad(name, p, x, inplace):
    t, pads, mode = x["input"], list(p["pad"]), p.get("mode", "constant")
    value = p.get("value")
    kw = {"value": value} if mode == "constant" and value is not None else {}
    y = oracle(lambda u: F.pad(u, pads, mode, **kw), t)

    def fill(c):
        c.output("out", y).input("input", t).attr("pad", pads)
        c.attr("mode", mode)
        return c.attr("value", float(value)) if value is not None else c
    return [("diopiPad", fill)]


def build_triangle(name, p, x, inplace):
    t, diag = x["input"], p.get("diagonal", 0)
    fn = torch.tril if name == "tril" else torch.triu
    y = fn(t, diag)
    op = "diopiTril" if name == "tril" else "diopiTriu"
    cases = [(op, lambda c: c.output("out", y).input("input", t)
              .attr("diagonal", diag))]
    if inplace:
        cases.append((op + "Inp", lambda c: c.inplace(
            "input", t.contiguous(), y).attr("diagonal", diag)))
    return cases


def build_one_hot(name, p, x, inplace):
    t, n = x["input"], p.get("num_classes", -1)
    y = F.one_hot(t.long(), n)
    return [("diopiOneHot", lambda c: c.output("out", y).input("input", t)
             .attr("num_classes", n))]


def build_expand(name, p, x, inplace):
    t, size = x["input"], list(p["size"])
    y = t.expand(size).contiguous()
    return [("diopiExpand", lambda c: c.output("out", y).input("input", t))]


def build_arange(name, p, x, inplace):
    start, end, step = p.get("start", 0), p["end"], p.get("step", 1)
    y = torch.arange(start, end, step)
    return [("diopiArange", lambda c: c.output("out", y).attr("start", start)
             .attr("end", end).attr("step", step))]


def build_linspace(name, p, x, inplace):
    start, end, steps = p["start"], p["end"], p["steps"]
    y = torch.linspace(start, end, steps)
    return [("diopiLinspace", lambda c: c.output("out", y)
             .attr("start", start).attr("end", end).attr("steps", steps))]


def build_stack_cat(name, p, x, inplace):
    parts, dim = x["tensors"], p.get("dim", 0)
    if not isinstance(parts, list):
        parts = [parts]
    fn = torch.stack if name == "stack" else torch.cat
    y = fn(parts, dim)

    def fill(c):
        c.output("out", y)
        for k, t in enumerate(parts):
            c.input(f"tensors.{k}", t)
        return c.attr("dim", dim)
    return [("diopiStack" if name == "stack" else "diopiCat", fill)]


def build_split(name, p, x, inplace):
    t, dim = x["tensor"], p["dim"]
    size = p["split_size_or_sections"]
    parts = torch.split(t, size, dim)
    sizes = [q.shape[dim] for q in parts]

    def fill(c):
        for k, q in enumerate(parts):
            c.output(f"outs.{k}", q.contiguous())
        return c.input("input", t).attr("splitSizes", sizes).attr("dim", dim)
    if len(parts) > 16:
        raise Unsupported("more than 16 parts")
    return [("diopiSplitWithSizes", fill)]


def build_gather(name, p, x, inplace):
    t, index, dim = x["input"], x["index"], p["dim"]
    y = torch.gather(t, dim, index.long())
    return [("diopiGather", lambda c: c.output("out", y).input("input", t)
             .attr("dim", dim).input("index", index))]


def backward_gather(name, p, x, wanted):
    t, index, dim = x["input"], x["index"], p["dim"]
    if not t.is_floating_point():
        return []
    y, go, g = grads(lambda input: torch.gather(input, dim, index.long()),
                     {"input": t}, ("input",))
    return [("diopiGatherBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad_output", go).input("input", t)
        .attr("dim", dim).input("index", index))]


def out_or_inplace(c, kind, t, y):
    """The case's result y: as out of input t ("out"), or t updated in
    place."""
    if kind == "out":
        return c.output("out", y).input("input", t)
    return c.inplace("input", t.contiguous(), y)


def build_scatter(name, p, x, inplace):
    t, index, src = x["input"], x["index"], x.get("src")
    dim, reduce = p["dim"], p.get("reduce")
    kw = {"reduce": reduce} if reduce else {}
    if src is None:
        value = p["value"]
        y = torch.scatter(t, dim, index.long(), value, **kw)
        op, extra = "diopiScatterScalar", (lambda c: c.attr("value", value))
    else:
        y = torch.scatter(t, dim, index.long(), src, **kw)
        op, extra = "diopiScatter", (lambda c: c.input("src", src))

    def fill(c, kind):
        out_or_inplace(c, kind, t, y)
        extra(c.input("index", index).attr("dim", dim))
        return c.attr("reduce", reduce) if reduce else c
    if reduce is None and src is not None and \
            not unique_scatter_targets(index, dim):
        raise Unsupported("repeated scatter targets: which write wins is not "
                          "specified")
    cases = [(op, lambda c: fill(c, "out"))]
    if inplace:
        cases.append((op.replace("Scatter", "ScatterInp"),
                      lambda c: fill(c, "inp")))
    return cases


def unique_scatter_targets(index, dim):
    if index.numel() == 0:
        return True
    grid = torch.stack(torch.meshgrid(*[torch.arange(n) for n in
                                        index.shape], indexing="ij"))
    grid[dim if dim >= 0 else dim + index.dim()] = index.long()
    flat = grid.reshape(index.dim(), -1).t()
    return torch.unique(flat, dim=0).shape[0] == flat.shape[0]


def build_index_put(name, p, x, inplace):
    t, values, acc = x["input"], x["values"], bool(p.get("accumulate", False))
    indices = [x[k] for k in ("indices1", "indices2", "indices3")
               if x.get(k) is not None]
    conv = [i if i.dtype == torch.bool else i.long() for i in indices]
    y = t.index_put(tuple(conv), values, acc)
    if not acc and repeated_index(t, conv):
        raise Unsupported("index_put without accumulate: which repeated "
                          "write wins is not specified")

    def fill(c, kind):
        out_or_inplace(c, kind, t, y).input("values", values)
        for k, i in enumerate(indices):
            c.input(f"indices.{k}", i)
        return c.attr("indices_counts", len(indices)).attr("accumulate", acc)
    cases = [("diopiIndexPut", lambda c: fill(c, "out"))]
    if inplace:
        cases.append(("diopiIndexPutInp", lambda c: fill(c, "inp")))
    return cases


def repeated_index(t, conv):
    probe = torch.zeros(t.shape, dtype=torch.int64)
    probe.index_put_(tuple(conv), torch.ones((), dtype=torch.int64), True)
    return bool((probe > 1).any())


def build_masked_select(name, p, x, inplace):
    t, mask = x["input"], x["mask"]
    y = torch.masked_select(t, mask.bool())
    return [("diopiMaskedSelect", lambda c: c.output("out", y)
             .input("input", t).input("mask", mask))]


def backward_masked_select(name, p, x, wanted):
    t, mask = x["input"], x["mask"]
    if not t.is_floating_point():
        return []
    y, go, g = grads(lambda input: torch.masked_select(input, mask.bool()),
                     {"input": t}, ("input",))
    return [("diopiMaskedSelectBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad_output", go).input("input", t)
        .input("mask", mask))]


def build_nonzero(name, p, x, inplace):
    t = x["input"]
    y = torch.nonzero(t)
    return [("diopiNonzero", lambda c: c.output("out", y).input("input", t))]


def pooling_args(p, n=2):
    k = pair(p["kernel_size"]) if n == 2 else [p["kernel_size"]]
    st = p.get("stride")
    st = (pair(st) if n == 2 else [st]) if st is not None else k
    pad = pair(p.get("padding", 0)) if n == 2 else [p.get("padding", 0)]
    return k, st, pad


def avg_pool_args(p):
    """kernel_size, stride, padding, ceil_mode, count_include_pad and
    divisor_override (None when absent) of an avg_pool2d entry."""
    k, st, pad = pooling_args(p)
    return (k, st, pad, bool(p.get("ceil_mode", False)),
            bool(p.get("count_include_pad", True)), p.get("divisor_override"))


def avg_pool_attrs(c, k, st, pad, ceil, cip, div):
    c.attr("kernel_size", k).attr("stride", st).attr("padding", pad)
    c.attr("ceil_mode", ceil).attr("count_include_pad", cip)
    return c.attr("divisor_override", div) if div is not None else c


def build_avg_pool2d(name, p, x, inplace):
    t, args = x["input"], avg_pool_args(p)
    y = oracle(lambda u: F.avg_pool2d(u, *args), t)
    return [("diopiAvgPool2d", lambda c: avg_pool_attrs(
        c.output("out", y).input("input", t), *args))]


def backward_avg_pool2d(name, p, x, wanted):
    t, args = x["input"], avg_pool_args(p)
    y, go, g = grads(lambda input: F.avg_pool2d(input, *args), {"input": t},
                     ("input",))
    return [("diopiAvgPool2dBackward", lambda c: avg_pool_attrs(
        c.output("grad_input", g["input"]).input("grad_output", go)
        .input("input", t), *args))]


def build_adaptive_max_pool2d(name, p, x, inplace):
    t = x["input"]
    size = pair(p["output_size"])
    size = [t.shape[-2 + k] if s is None else s for k, s in enumerate(size)]
    y, idx = oracle(lambda u: F.adaptive_max_pool2d(u, size, True), t)
    if p.get("return_indices"):
        return [("diopiAdaptiveMaxPool2dWithIndices", lambda c: c.output(
            "out", y).output("indices", idx).input("input", t)
            .attr("output_size", size))]
    return [("diopiAdaptiveMaxPool2d", lambda c: c.output("out", y)
             .input("input", t).attr("output_size", size))]


def backward_adaptive_max_pool2d(name, p, x, wanted):
    t = x["input"]
    size = pair(p["output_size"])
    size = [t.shape[-2 + k] if s is None else s for k, s in enumerate(size)]
    y, go, g = grads(lambda input: F.adaptive_max_pool2d(input, size, True),
                     {"input": t}, ("input",))
    return [("diopiAdaptiveMaxPool2dBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad_output", go).input("input", t)
        .input("indices", y[1]))]


def interpolate_args(p, t):
    mode = p.get("mode", "nearest")
    size, scale = p.get("size"), p.get("scale_factor")
    ac = p.get("align_corners")
    kw = dict(size=size, scale_factor=scale, mode=mode)
    if mode != "nearest":
        kw["align_corners"] = ac
    return mode, kw, bool(ac)


def build_interpolate(name, p, x, inplace):
    t = x["input"]
    mode, kw, ac = interpolate_args(p, t)
    if mode == "bicubic":
        raise Unsupported("bicubic: no such DIOPI upsample")
    y = oracle(lambda u: F.interpolate(u, **kw), t)
    size = list(y.shape[2:])
    if mode == "nearest":
        return [("diopiUpsampleNearest", lambda c: c.output("out", y)
                 .input("input", t).attr("size", size))]
    return [("diopiUpsampleLinear", lambda c: c.output("out", y)
             .input("input", t).attr("size", size).attr("align_corners", ac)
             .attr("mode", mode))]


def backward_interpolate(name, p, x, wanted):
    t = x["input"]
    mode, kw, ac = interpolate_args(p, t)
    if mode == "bicubic":
        return []
    y, go, g = grads(lambda input: F.interpolate(input, **kw), {"input": t},
                     ("input",))
    out_size, in_size = list(y.shape[2:]), list(t.shape)
    if mode == "nearest":
        return [("diopiUpsampleNearestBackward", lambda c: c.output(
            "grad_input", g["input"]).input("grad_output", go)
            .attr("out_size", out_size).attr("in_size", in_size))]
    return [("diopiUpsampleLinearBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad_output", go)
        .attr("out_size", out_size).attr("in_size", in_size)
        .attr("align_corners", ac).attr("mode", mode))]


def build_group_norm(name, p, x, inplace):
    t, w, b = x["input"], x.get("weight"), x.get("bias")
    groups, eps = p["num_groups"], p.get("eps", 1e-5)
    y, mean, rstd = oracle(lambda u, v, z: torch.native_group_norm(
        u, v, z, u.shape[0], u.shape[1],
        int(np.prod(u.shape[2:])) if u.dim() > 2 else 1, groups, eps),
        t, w, b)
    stats = torch.float64 if t.dtype == torch.float64 else t.dtype

    def fill(c):
        c.output("out", y).output("save_mean", mean.to(stats))
        c.output("save_invstd", rstd.to(stats)).input("input", t)
        return optional_inputs(c, weight=w, bias=b).attr(
            "num_groups", groups).attr("eps", float(eps))
    return [("diopiGroupNorm", fill)]


def backward_group_norm(name, p, x, wanted):
    t, w, b = x["input"], x.get("weight"), x.get("bias")
    groups, eps = p["num_groups"], p.get("eps", 1e-5)
    hw = int(np.prod(t.shape[2:])) if t.dim() > 2 else 1
    y, go, g = grads(lambda input, weight, bias: torch.native_group_norm(
        input, weight, bias, t.shape[0], t.shape[1], hw, groups, eps),
        {"input": t, "weight": w, "bias": b}, ("input", "weight", "bias"))
    stats = torch.float64 if t.dtype == torch.float64 else t.dtype
    mean, rstd = (v.to(stats) for v in y[1:])

    def fill(c):
        affine_grads(c, g, go, t, w, b)
        return optional_inputs(c, weight=w).input("mean", mean).input(
            "rstd", rstd).attr("num_groups", groups)
    return [("diopiGroupNormBackward", fill)]


def rms_norm_ref(u, shape, w, b, eps):
    dims = tuple(range(u.dim() - len(shape), u.dim()))
    inv = torch.rsqrt(u.float().pow(2).mean(dims, keepdim=True) + eps)
    y = u.float() * inv
    if w is not None:
        y = y * w.float()
    if b is not None:
        y = y + b.float()
    return y, inv


def build_rms_norm(name, p, x, inplace):
    t, w, b = x["input"], x.get("weight"), x.get("bias")
    shape, eps = list(p["normalized_shape"]), p.get("eps", 1e-6)
    y, inv = rms_norm_ref(t.double(), shape, w if w is None else w.double(),
                          b if b is None else b.double(), eps)
    y = y.to(t.dtype)
    inv = inv.float().reshape(list(t.shape[:t.dim() - len(shape)]) +
                              [1] * len(shape))

    def fill(c):
        c.output("out", y).output("inv_rms", inv).input("input", t)
        return optional_inputs(c, weight=w, bias=b).attr(
            "normalized_shape", shape).attr("eps", float(eps))
    return [("diopiRMSNorm", fill)]


def backward_rms_norm(name, p, x, wanted):
    t, w, b = x["input"], x.get("weight"), x.get("bias")
    shape, eps = list(p["normalized_shape"]), p.get("eps", 1e-6)
    y, go, g = grads(lambda input, weight, bias: rms_norm_ref(
        input, shape, weight, bias, eps), {"input": t, "weight": w,
                                           "bias": b},
        ("input", "weight", "bias"))
    inv = y[1].float().reshape(list(t.shape[:t.dim() - len(shape)]) +
                               [1] * len(shape))

    def fill(c):
        optional_inputs(affine_grads(c, g, go, t, w, b), weight=w, bias=b)
        return c.input("inv_rms", inv).attr("normalized_shape", shape).attr(
            "eps", float(eps))
    return [("diopiRMSNormBackward", fill)]


def build_baddbmm(name, p, x, inplace):
    t, b1, b2 = x["input"], x["batch1"], x["batch2"]
    beta, alpha = p.get("beta", 1), p.get("alpha", 1)
    y = oracle(lambda u, v, w: torch.baddbmm(u, v, w, beta=beta, alpha=alpha),
               t, b1, b2)

    def fill(c):
        return c.input("batch1", b1).input("batch2", b2).attr(
            "beta", float(beta)).attr("alpha", float(alpha))
    cases = [("diopiBaddbmm", lambda c: fill(
        c.output("out", y).input("input", t)))]
    if inplace and y.shape == t.shape:
        cases.append(("diopiBaddbmmInp", lambda c: fill(
            c.inplace("input", t.contiguous(), y))))
    return cases


def refuse_wrapping_pos_weight(args):
    """PyTorch forms pos_weight - 1 in pos_weight's dtype: a uint8 zero
    wraps to 255, an artifact of its formula rather than the loss."""
    pw = args.get("pos_weight")
    if pw is not None and pw.dtype == torch.uint8 and bool((pw == 0).any()):
        raise Unsupported("a uint8 pos_weight of 0: PyTorch's pos_weight - 1 "
                          "wraps to 255")


def loss_args(p, x, attrs, inputs):
    """A loss entry's case: (reduction, attribute values, inputs, fill):
    fill adds the inputs present, the attributes and the reduction."""
    red = p.get("reduction", "mean")
    kw = {k: p.get(k, d) for k, _, d in attrs}
    args = {k: x.get(k) for k in inputs}
    refuse_wrapping_pos_weight(args)

    def fill(c):
        optional_inputs(c, **args)
        for k, a, d in attrs:
            c.attr(a, float(kw[k]))
        return c.attr("reduction", REDUCTION[red])
    return red, kw, args, fill


def loss_builder(op, fn, attrs, inputs):
    """A loss of (input, target[, weight[, pos_weight]]) with `reduction`
    (and the attributes in attrs: (para name, attribute name, default))."""
    def build(name, p, x, inplace):
        red, kw, args, fill = loss_args(p, x, attrs, inputs)
        # Past target by name: binary_cross_entropy_with_logits' fourth
        # positional parameter is size_average, not pos_weight.
        y = oracle(lambda u, t, *v: fn(u, t, **dict(zip(inputs[2:], v)),
                                       reduction=red, **kw),
                   *[args[k] for k in inputs])
        return [(op, lambda c: fill(c.output("out", y)))]
    return build


def loss_backward(op, fn, attrs, inputs):
    def build(name, p, x, wanted):
        red, kw, args, fill = loss_args(p, x, attrs, inputs)
        y, go, g = grads(lambda **v: fn(v["input"], v["target"],
                                        **{k: v[k] for k in inputs[2:]},
                                        reduction=red, **kw), args,
                         ("input",))
        return [(op, lambda c: fill(c.output("grad_input", g["input"])
                                    .input("grad_output", go)))]
    return build


def padding_index(p, w):
    """An embedding entry's padding_idx, counted from the front, or None."""
    pad = p.get("padding_idx")
    return pad + w.shape[0] if pad is not None and pad < 0 else pad


def build_embedding(name, p, x, inplace):
    idx, w = x["input"], x["weight"]
    pad = padding_index(p, w)
    max_norm = p.get("max_norm")
    cases = []
    weight = w
    if max_norm is not None:
        # 16-bit weights renormed in float32 and rounded, like the oracle.
        lifted = w.float() if w.dtype in (torch.float16, torch.bfloat16) \
            else w.clone()
        with torch.no_grad():
            F.embedding(idx.long(), lifted, max_norm=max_norm,
                        norm_type=p.get("norm_type", 2.0))
        renormed = lifted.to(w.dtype)
        cases.append(("diopiEmbeddingRenorm_", lambda c: c.inplace(
            "inout", w.contiguous(), renormed).input("indices", idx)
            .attr("max_norm", float(max_norm))
            .attr("norm_type", float(p.get("norm_type", 2.0)))))
        weight = renormed
    y = F.embedding(idx.long(), weight)
    cases.append(("diopiEmbedding", lambda c: c.output("out", y)
                  .input("weight", weight).input("indices", idx)
                  .attr("padding_idx", -1 if pad is None else pad)
                  .attr("scale_grad_byfreq",
                        bool(p.get("scale_grad_by_freq", False)))
                  .attr("sparse", False)))
    return cases


def backward_embedding(name, p, x, wanted):
    idx, w = x["input"], x["weight"]
    pad = padding_index(p, w)
    freq = bool(p.get("scale_grad_by_freq", False))
    y, go, g = grads(lambda weight: F.embedding(
        idx.long(), weight, padding_idx=pad, scale_grad_by_freq=freq),
        {"weight": w}, ("weight",))
    return [("diopiEmbeddingBackward", lambda c: c.output("out", g["weight"])
             .input("grad", go).input("indices", idx)
             .attr("num_weights", w.shape[0])
             .attr("padding_idx", -1 if pad is None else pad)
             .attr("scale_grad_byfreq", freq).attr("sparse", False))]


def optimizer_step(opt_cls, params, state, **kw):
    p0 = params[0].detach().clone()
    p0.grad = params[1].clone()
    opt = opt_cls([p0], **kw)
    if state is not None:
        opt.state[p0] = state
    opt.step()
    return p0.detach()


def build_adam(name, p, x, inplace):
    param, grad = x["param"], x["param_grad"]
    m, v, vmax = x["exp_avg"], x["exp_avg_sq"], x.get("max_exp_avg_sq")
    ams, step = bool(p.get("amsgrad", False)), p.get("step", 1)
    lr, b1, b2 = p.get("lr", 1e-3), p.get("beta1", 0.9), p.get("beta2", 0.999)
    eps, wd = p.get("eps", 1e-8), p.get("weight_decay", 0)
    if param.dtype in (torch.float16, torch.bfloat16):
        raise Unsupported("PyTorch's CPU optimizers take no 16-bit floats")
    mm, vv = m.clone(), v.clone()
    vm = vmax.clone() if vmax is not None else torch.zeros_like(v)
    state = {"step": torch.tensor(float(step - 1)), "exp_avg": mm,
             "exp_avg_sq": vv}
    if ams:
        state["max_exp_avg_sq"] = vm
    cls = torch.optim.Adam if name == "adam" else torch.optim.AdamW
    y = optimizer_step(cls, (param, grad), state, lr=lr, betas=(b1, b2),
                       eps=eps, weight_decay=wd, amsgrad=ams)
    op = "diopiAdam" if name == "adam" else "diopiAdamW"

    def fill(c):
        c.inplace("param" if name == "adam" else "input", param.contiguous(),
                  y).input("grad", grad)
        c.inplace("exp_avg", m.contiguous(), mm)
        c.inplace("exp_avg_sq", v.contiguous(), vv)
        if vmax is not None:
            c.inplace("max_exp_avg_sq", vmax.contiguous(), vm)
        return c.attr("lr", float(lr)).attr("beta1", float(b1)).attr(
            "beta2", float(b2)).attr("eps", float(eps)).attr(
            "weight_decay", float(wd)).attr("step", step).attr("amsgrad", ams)
    return [(op, fill)]


def build_sgd(name, p, x, inplace):
    param, grad, buf = x["param"], x["param_grad"], x.get("buf")
    lr, mom = p.get("lr", 0.1), p.get("momentum", 0)
    damp, wd = p.get("dampening", 0), p.get("weight_decay", 0)
    nest = bool(p.get("nesterov", False))
    if param.dtype in (torch.float16, torch.bfloat16):
        raise Unsupported("PyTorch's CPU optimizers take no 16-bit floats")
    b = buf.clone() if buf is not None else None
    state = {"momentum_buffer": b} if b is not None else None
    y = optimizer_step(torch.optim.SGD, (param, grad), state, lr=lr,
                       momentum=mom, dampening=damp, weight_decay=wd,
                       nesterov=nest)

    def fill(c):
        c.inplace("param", param.contiguous(), y).input("grad", grad)
        if buf is not None:
            c.inplace("buf", buf.contiguous(), b)
        return c.attr("lr", float(lr)).attr("momentum", float(mom)).attr(
            "dampening", float(damp)).attr("weight_decay", float(wd)).attr(
            "nesterov", nest)
    return [("diopiSgd", fill)]


def build_rmsprop(name, p, x, inplace):
    param, grad = x["param"], x["param_grad"]
    sq, ga, mb = x["square_avg"], x["grad_avg"], x["momentum_buffer"]
    lr, alpha, eps = p.get("lr", 1e-2), p.get("alpha", 0.99), p.get(
        "eps", 1e-8)
    wd, mom, cen = p.get("weight_decay", 0), p.get("momentum", 0), bool(
        p.get("centered", False))
    if param.dtype in (torch.float16, torch.bfloat16):
        raise Unsupported("PyTorch's CPU optimizers take no 16-bit floats")
    s2, g2, m2 = sq.clone(), ga.clone(), mb.clone()
    state = {"step": torch.tensor(0.0), "square_avg": s2,
             "momentum_buffer": m2, "grad_avg": g2}
    y = optimizer_step(torch.optim.RMSprop, (param, grad), state, lr=lr,
                       alpha=alpha, eps=eps, weight_decay=wd, momentum=mom,
                       centered=cen)

    def fill(c):
        c.inplace("param", param.contiguous(), y).input("grad", grad)
        c.inplace("square_avg", sq.contiguous(), s2)
        c.inplace("grad_avg", ga.contiguous(), g2)
        c.inplace("momentum_buf", mb.contiguous(), m2)
        return c.attr("lr", float(lr)).attr("alpha", float(alpha)).attr(
            "eps", float(eps)).attr("weight_decay", float(wd)).attr(
            "momentum", float(mom)).attr("centered", cen)
    return [("diopiRmsprop", fill)]


def build_adadelta(name, p, x, inplace):
    param, grad = x["param"], x["param_grad"]
    sq, acc = x["square_avg"], x["acc_delta"]
    lr, rho, eps, wd = p.get("lr", 1.0), p.get("rho", 0.9), p.get(
        "eps", 1e-6), p.get("weight_decay", 0)
    if param.dtype in (torch.float16, torch.bfloat16):
        raise Unsupported("PyTorch's CPU optimizers take no 16-bit floats")
    s2, a2 = sq.clone(), acc.clone()
    state = {"step": torch.tensor(0.0), "square_avg": s2, "acc_delta": a2}
    y = optimizer_step(torch.optim.Adadelta, (param, grad), state, lr=lr,
                       rho=rho, eps=eps, weight_decay=wd)

    def fill(c):
        c.inplace("param", param.contiguous(), y).input("grad", grad)
        c.inplace("square_avg", sq.contiguous(), s2)
        c.inplace("acc_delta", acc.contiguous(), a2)
        return c.attr("lr", float(lr)).attr("rho", float(rho)).attr(
            "eps", float(eps)).attr("weight_decay", float(wd))
    return [("diopiAdadelta", fill)]


def build_clip_grad_norm(name, p, x, inplace):
    parts = x["tensors"]
    if not isinstance(parts, list):
        parts = [parts]
    max_norm, norm_type = p["max_norm"], p.get("norm_type", 2.0)
    nonfinite = bool(p.get("error_if_nonfinite", False))
    if any(t.dtype in (torch.float16, torch.bfloat16) for t in parts):
        raise Unsupported("PyTorch's clip_grad_norm_ on 16-bit floats "
                          "on the CPU")
    params = []
    for t in parts:
        q = torch.zeros_like(t, requires_grad=True)
        q.grad = t.clone()
        params.append(q)
    total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type,
                                           nonfinite)
    if not torch.isfinite(total):
        raise Unsupported("a non-finite total norm")

    def fill(c):
        for k, (t, q) in enumerate(zip(parts, params)):
            c.inplace(f"grads.{k}", t.contiguous(), q.grad)
        c.output("total_norm", total.double().reshape(()))
        return c.attr("max_norm", float(max_norm)).attr(
            "norm_type", float(norm_type)).attr("error_if_nonfinite",
                                                nonfinite)
    return [("diopiClipGradNorm", fill)]


def judged_by(rule, c, attrs):
    """c as a random op's case: its attributes, the case's seed, `rule`."""
    for k, v in attrs:
        c.attr(k, v)
    return c.attr("seed", 25).attr("judge", rule)


def random_case(rule, op, role, like, attrs):
    """A random op judged by rule (DIOPI-TEST checks these by their
    properties too: no reference output exists for another library's
    random numbers)."""
    def fill(c):
        if role == "inout":
            c.tensors.append((role, 2, like, like.contiguous(), None))
        else:
            c.unjudged(role, like)
        return judged_by(rule, c, attrs)
    return [(op, fill)]


def random_fill(rule, op, attrs):
    """An in-place random fill (uniform_, normal_) judged by `rule`; attrs:
    (attribute, para name, default). The rule judges the spread of 64
    draws or more, the range and the mean of any number."""
    def build(name, p, x, inplace):
        t = x["input"]
        return random_case(rule, op, "inout", t,
                           [(a, float(p.get(k, d))) for a, k, d in attrs])
    return build


def build_randperm(name, p, x, inplace):
    n = p["n"]
    return random_case("permutation", "diopiRandperm", "out",
                       torch.empty(n, dtype=torch.int64), [("n", n)])


def build_dropout(name, p, x, inplace):
    t, prob = x["input"], p.get("p", 0.5)
    if not p.get("training", True):
        return [("diopiDropout", lambda c: c.output("out", t.clone())
                 .output("mask", torch.ones(t.shape, dtype=torch.uint8))
                 .input("input", t).attr("p", prob).attr("train", False)
                 .attr("seed", 25))]
    if t.numel() < 256:
        raise Unsupported("too few draws to judge the kept fraction")
    return [("diopiDropout", lambda c: c.unjudged("out", torch.empty_like(t))
             .unjudged("mask", torch.empty(t.shape, dtype=torch.uint8))
             .input("input", t).attr("p", prob).attr("train", True)
             .attr("seed", 25).attr("judge", "dropout"))]


BINARY_BASE = {}


UNARY_EXT = {
    "abs": torch.abs, "acos": torch.acos, "asin": torch.asin,
    "atan": torch.atan, "ceil": torch.ceil, "cos": torch.cos,
    "cosh": torch.cosh, "erf": torch.erf, "erfinv": torch.erfinv,
    "exp": torch.exp, "expm1": torch.expm1, "floor": torch.floor,
    "log": torch.log, "log10": torch.log10, "log1p": torch.log1p,
    "log2": torch.log2, "neg": torch.neg, "reciprocal": torch.reciprocal,
    "rsqrt": torch.rsqrt, "sin": torch.sin, "sinh": torch.sinh,
    "sqrt": torch.sqrt, "tan": torch.tan, "asinh": torch.asinh,
    "acosh": torch.acosh, "atanh": torch.atanh, "sgn": torch.sgn,
    "sign": torch.sign, "logical_not": torch.logical_not,
    "bitwise_not": torch.bitwise_not,
}
for _name, _fn in UNARY_EXT.items():
    _op = "diopi" + "".join(w.capitalize() for w in _name.split("_"))
    BUILDERS[_name] = unary_ext(_op, _fn)
BUILDERS["isnan"] = unary_ext("diopiIsNan", torch.isnan, inp=False)
for _name in ("add", "sub", "mul", "div"):
    BINARY_BASE[_name] = BUILDERS[_name]
    BUILDERS[_name] = build_binary_scalar_inp
for _name, _fn in (("eq", torch.eq), ("ne", torch.ne), ("lt", torch.lt),
                   ("le", torch.le), ("gt", torch.gt), ("ge", torch.ge)):
    _op = "diopi" + _name.capitalize()
    BUILDERS[_name] = compare(_op, _fn, _op + "Scalar")
BUILDERS["logical_and"] = compare("diopiLogicalAnd", torch.logical_and,
                                  "diopiLogicalAndScalar")
BUILDERS["logical_or"] = compare("diopiLogicalOr", torch.logical_or,
                                 "diopiLogicalOrScalar")
BUILDERS.update({
    "bitwise_and": binary("diopiBitwiseAnd", torch.bitwise_and,
                          "diopiBitwiseAndScalar", False),
    "bitwise_or": binary("diopiBitwiseOr", torch.bitwise_or,
                         "diopiBitwiseOrScalar", False),
    "maximum": binary("diopiMaximum", torch.maximum, None, False),
    "minimum": binary("diopiMinimum", torch.minimum, None, False),
    "remainder": build_remainder,
    "pow": build_pow,
    "clamp": build_clamp, "clamp_min": build_clamp, "clamp_max": build_clamp,
    "hardtanh": activation("diopiHardtanh", F.hardtanh,
                           ("min_val", "max_val")),
    "threshold": activation("diopiThreshold", F.threshold,
                            ("threshold", "value")),
    "hardswish": activation("diopiHardswish", F.hardswish, ()),
    "leaky_relu": activation("diopiLeakyRelu", F.leaky_relu,
                             ("negative_slope",)),
    "addcmul": build_addc, "addcdiv": build_addc,
    "lerp": build_lerp,
    "where": build_where,
    "masked_fill": build_masked_fill,
    "any": build_any_all, "all": build_any_all,
    "min": build_min_max, "max": build_min_max,
    "std": build_std, "amax": build_amax,
    "argmax": build_arg, "argmin": build_arg,
    "prod": build_prod, "norm": build_norm, "cumsum": build_cumsum,
    "topk": build_topk, "sort": build_sort,
    "flip": build_flip, "roll": build_roll, "repeat": build_repeat,
    "pad": build_pad, "tril": build_triangle, "triu": build_triangle,
    "one_hot": build_one_hot, "expand": build_expand,
    "arange": build_arange, "linspace": build_linspace,
    "stack": build_stack_cat, "cat": build_stack_cat,
    "split": build_split, "gather": build_gather,
    "scatter": build_scatter, "index_put": build_index_put,
    "masked_select": build_masked_select, "nonzero": build_nonzero,
    "avg_pool2d": build_avg_pool2d,
    "adaptive_max_pool2d": build_adaptive_max_pool2d,
    "interpolate": build_interpolate,
    "group_norm": build_group_norm, "rms_norm": build_rms_norm,
    "baddbmm": build_baddbmm,
    "mse_loss": loss_builder("diopiMSELoss", F.mse_loss, (),
                             ("input", "target")),
    "smooth_l1_loss": loss_builder("diopiSmoothL1Loss", F.smooth_l1_loss,
                                   (("beta", "beta", 1.0),),
                                   ("input", "target")),
    "binary_cross_entropy": loss_builder(
        "diopiBCELoss", F.binary_cross_entropy, (),
        ("input", "target", "weight")),
    "binary_cross_entropy_with_logits": loss_builder(
        "diopiBCEWithLogits", F.binary_cross_entropy_with_logits, (),
        ("input", "target", "weight", "pos_weight")),
    "embedding": build_embedding,
    "adam": build_adam, "adamw": build_adam, "sgd": build_sgd,
    "rmsprop": build_rmsprop, "adadelta": build_adadelta,
    "clip_grad_norm_": build_clip_grad_norm,
    "uniform": random_fill("uniform", "diopiUniformInp",
                           (("from", "start", 0), ("to", "end", 1))),
    "normal_": random_fill("normal", "diopiNormalInp",
                           (("mean", "mean", 0), ("std", "std", 1))),
    "randperm": build_randperm, "dropout": build_dropout,
})
BACKWARD_MORE = {
    "hardtanh": backward_activation("diopiHardtanhBackward", F.hardtanh,
                                    ("min_val", "max_val")),
    # F.threshold takes the replacement value too; the gradient ignores it.
    "threshold": backward_activation(
        "diopiThresholdBackward", lambda u, th: F.threshold(u, th, 0.0),
        ("threshold",)),
    "hardswish": backward_activation("diopiHardswishBackward", F.hardswish,
                                     ()),
    "leaky_relu": backward_activation("diopiLeakyReluBackward", F.leaky_relu,
                                      ("negative_slope",),
                                      (("input_is_result", False),)),
    "norm": backward_norm, "cumsum": backward_cumsum,
    "gather": backward_gather, "masked_select": backward_masked_select,
    "avg_pool2d": backward_avg_pool2d,
    "adaptive_max_pool2d": backward_adaptive_max_pool2d,
    "interpolate": backward_interpolate,
    "group_norm": backward_group_norm, "rms_norm": backward_rms_norm,
    "mse_loss": loss_backward("diopiMSELossBackward", F.mse_loss, (),
                              ("input", "target")),
    "smooth_l1_loss": loss_backward("diopiSmoothL1LossBackward",
                                    F.smooth_l1_loss,
                                    (("beta", "beta", 1.0),),
                                    ("input", "target")),
    "binary_cross_entropy": loss_backward(
        "diopiBCELossBackward", F.binary_cross_entropy, (),
        ("input", "target", "weight")),
    "binary_cross_entropy_with_logits": loss_backward(
        "diopiBCEWithLogitsBackward", F.binary_cross_entropy_with_logits, (),
        ("input", "target", "weight", "pos_weight")),
    "embedding": backward_embedding,
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
    st, pad, dil, groups = conv2d_args(p, i)
    y, go, g = grads(lambda input, weight, bias: F.conv2d(
        input, weight, bias, st, pad, dil, groups),
        {"input": i, "weight": w, "bias": b}, ("input", "weight", "bias"))
    return [("diopiConvolution2dBackward", conv_backward_fill(
        g, go, i, w, b, [("stride", st), ("padding", pad), ("dilation", dil),
                         ("groups", groups)]))]


def backward_max_pool2d(name, p, x, wanted):
    t = x["input"]
    attrs = max_pool_args(p)
    k, st, pad, dil, ceil = (v for _, v in attrs)
    y, go, g = grads(lambda input: F.max_pool2d(
        input, k, st, pad, dil, ceil_mode=ceil, return_indices=True),
        {"input": t}, wanted)
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
        optional_inputs(affine_grads(c, g, go, t, w, b), weight=w, bias=b)
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
        optional_inputs(c, input=i, target=t, weight=w)
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

BACKWARDS.update(BACKWARD_MORE)

# ---------------------------------------------------------------- remaining
# The builders of the config ops issue 25 names last: vector_norm, the
# fused multi-tensor adamw, the random ops judged by rule (bernoulli,
# normal, multinomial, random), the creation and fill forms (zeros, ones,
# zero_), argsort, and the indexing forms (index, index_fill, select,
# slice, masked_scatter).

def build_vector_norm(name, p, x, inplace):
    t, dims, order = x["input"], dims_of(p.get("dim")), p.get("ord", 2)
    keep = bool(p.get("keepdim", False))
    if p.get("dtype") is not None:
        raise Unsupported("vector_norm's dtype form")
    y = oracle(lambda u: torch.linalg.vector_norm(u, order, dims or None,
                                                  keep), t)
    return [("diopiLinalgVecNorm", lambda c: c.output("out", y)
             .input("input", t).attr("ord", float(order)).attr("dim", dims)
             .attr("keepdim", keep))]


def lifted(t):
    """t in float32 if it is a 16-bit float, else t itself (a copy)."""
    return t.float() if t.dtype in (torch.float16, torch.bfloat16) \
        else t.clone()


def build_fused_adamw(name, p, x, inplace):
    """One adamw step of each tensor of the lists, its step count read from
    its state_steps tensor (already advanced, as torch._fused_adamw_ takes
    it): torch.optim.AdamW from step - 1, 16-bit floats in float32."""
    params, grads = x["params"], x["grads"]
    m, v, vmax, steps = (x["exp_avgs"], x["exp_avg_sqs"],
                         x["max_exp_avg_sqs"], x["state_steps"])
    ams, maximize = bool(p.get("amsgrad", False)), bool(p.get("maximize",
                                                              False))
    kw = dict(lr=p.get("lr", 1e-3), betas=(p.get("beta1", 0.9),
                                           p.get("beta2", 0.999)),
              eps=p.get("eps", 1e-8), weight_decay=p.get("weight_decay", 1e-2),
              amsgrad=ams, maximize=maximize)
    n = len(params)
    if not all(len(lst) == n for lst in (grads, m, v, steps)) or \
            (ams and len(vmax) != n):
        raise Unsupported("tensor lists of different lengths")
    results = []
    for k in range(n):
        state = {"step": torch.tensor(float(steps[k].item()) - 1),
                 "exp_avg": lifted(m[k]), "exp_avg_sq": lifted(v[k])}
        if ams:
            state["max_exp_avg_sq"] = lifted(vmax[k])
        y = optimizer_step(torch.optim.AdamW, (lifted(params[k]),
                                               lifted(grads[k])), state, **kw)
        dt = params[k].dtype
        results.append((y.to(dt), state["exp_avg"].to(dt),
                        state["exp_avg_sq"].to(dt),
                        state["max_exp_avg_sq"].to(dt) if ams else None))

    def fill(c):
        for k, (y, mm, vv, vm) in enumerate(results):
            c.inplace(f"params.{k}", params[k].contiguous(), y)
            c.input(f"grads.{k}", grads[k])
            c.inplace(f"exp_avgs.{k}", m[k].contiguous(), mm)
            c.inplace(f"exp_avg_sqs.{k}", v[k].contiguous(), vv)
            if ams:
                c.inplace(f"max_exp_avg_sqs.{k}", vmax[k].contiguous(), vm)
            c.input(f"state_steps.{k}", steps[k])
        return c.attr("lr", float(kw["lr"])).attr(
            "beta1", float(kw["betas"][0])).attr(
            "beta2", float(kw["betas"][1])).attr("eps", float(kw["eps"])).attr(
            "weight_decay", float(kw["weight_decay"])).attr(
            "amsgrad", ams).attr("maximize", maximize)
    return [("diopiFusedAdamW", fill)]


def mean_probability(t):
    return float(t.double().mean()) if t.numel() else 0.5


def build_bernoulli(name, p, x, inplace):
    """bernoulli(input) draws 1 with probability input (DIOPI: Bernoulli,
    in place BernoulliInp), bernoulli(input, p) with probability p
    (BernoulliScalar into input's shape and dtype); judged by rule: every
    value 0 or 1, their mean within 5 standard errors of the mean
    probability."""
    t, prob = x["input"], p.get("p")
    if prob is not None:
        lifted(t).bernoulli_(float(prob))  # PyTorch takes it
        return [("diopiBernoulliScalar", lambda c: judged_by(
            "bernoulli", c.unjudged("out", torch.empty_like(t)),
            [("p", float(prob))]))]
    torch.bernoulli(lifted(t))
    mean = mean_probability(t)
    cases = [("diopiBernoulli", lambda c: judged_by(
        "bernoulli", c.unjudged("out", torch.empty_like(t)).input("input", t),
        [("p", mean)]))]
    if inplace:
        cases += random_case("bernoulli", "diopiBernoulliInp", "inout",
                             t.contiguous(), [("p", mean)])
    return cases


def build_normal(name, p, x, inplace):
    """normal with scalar parameters into a tensor of `size` (Normal), a
    tensor mean (NormalTensorScalar), a tensor std (NormalScalarTensor) or
    both (NormalTensor, broadcast); judged by rule: the draws standardized
    by their element's mean and std have mean 0 and std 1."""
    mean, std = x.get("mean"), x.get("std")
    if mean is None and std is None:
        m, s = float(p["mean"]), float(p["std"])
        out = torch.empty(tuple(p["size"]))
        torch.normal(m, s, size=tuple(p["size"]))  # PyTorch takes it
        return random_case("normal", "diopiNormal", "out", out,
                           [("mean", m), ("std", s)])
    if std is None:
        s = float(p["std"])
        out = torch.normal(lifted(mean), s).to(mean.dtype)
        return [("diopiNormalTensorScalar", lambda c: judged_by(
            "normal", c.unjudged("out", torch.empty_like(out))
            .input("mean", mean), [("std", s)]))]
    if mean is None:
        m = float(p["mean"])
        out = torch.normal(m, lifted(std)).to(std.dtype)
        return [("diopiNormalScalarTensor", lambda c: judged_by(
            "normal", c.unjudged("out", torch.empty_like(out))
            .input("std", std), [("mean", m)]))]
    out = torch.normal(lifted(mean), lifted(std))
    dt = torch.promote_types(mean.dtype, std.dtype)
    return [("diopiNormalTensor", lambda c: judged_by(
        "normal", c.unjudged("out", torch.empty(out.shape, dtype=dt))
        .input("mean", mean).input("std", std), []))]


def build_multinomial(name, p, x, inplace):
    """Samples of each row's categories by weight; judged by rule: every
    sample a category of positive weight, none twice in a row without
    replacement, and with replacement the drawn categories' mean weight
    share near its expectation."""
    t, n, rep = x["input"], p["num_samples"], bool(p["replacement"])
    y = torch.multinomial(lifted(t), n, rep)  # PyTorch takes it
    return [("diopiMultinomial", lambda c: judged_by(
        "multinomial", c.unjudged("out", torch.empty_like(y))
        .input("input", t), [("num_samples", n), ("replacement", rep)]))]


def random_upper(dtype):
    """random_'s exclusive upper bound when `to` is absent: PyTorch draws
    up to the dtype's largest value, for a float the largest integer up to
    which every integer is exact (2^digits)."""
    if dtype == torch.bool:
        return 2
    if dtype.is_floating_point:
        return 2 ** {torch.float16: 11, torch.bfloat16: 8, torch.float32: 24,
                     torch.float64: 53}[dtype] + 1
    return torch.iinfo(dtype).max + 1


def build_random(name, p, x, inplace):
    """random_(from, to): integers in [from, to), `to` absent: up to the
    dtype's bound (random_upper); judged by rule: every value an integer of
    the range, their mean within 5 standard errors of the range's."""
    t, low, high = x["input"], p.get("start", 0), p.get("end")
    probe = t.clone()
    probe.random_(low, high)  # PyTorch takes it (high None: the bound)
    attrs = [("from", int(low))] + ([("to", int(high))] if high is not None
                                    else [])
    bound = float(high if high is not None else random_upper(t.dtype))
    return random_case("integers", "diopiRandomInp", "inout", t.contiguous(),
                       attrs + [("high", bound)])


def build_constant(op, torch_fn):
    """zeros/ones: a tensor of the entry's size and dtype (a creation op:
    x holds only the case's dtype)."""
    def build(name, p, x, inplace):
        size = list(as_shape(p["size"]))
        y = torch_fn(size, dtype=x["dtype"])
        return [(op, lambda c: c.output("out", y).attr("size", size))]
    return build


def build_zero_inp(name, p, x, inplace):
    t = x["input"]
    return [("diopiZeroInp", lambda c: c.inplace("input", t.contiguous(),
                                                 torch.zeros_like(t)))]


def build_argsort(name, p, x, inplace):
    t, dim = x["input"], p["dim"]
    desc, stable = bool(p.get("descending", False)), bool(p.get("stable",
                                                                False))
    if not stable and has_ties_along(t, dim):
        raise Unsupported("ties in an unstable sort: the order of equal "
                          "keys is not specified")
    u = t.float() if t.dtype == torch.float16 else t
    y = torch.sort(u, stable=stable, dim=dim, descending=desc).indices
    return [("diopiArgsort", lambda c: c.output("out", y).input("input", t)
             .attr("stable", stable).attr("dim", dim)
             .attr("descending", desc))]


def index_args(t, parts):
    """DIOPI's index arguments (None: every element of a dimension; a run
    of them stands for as many dimensions as the others leave, as an
    Ellipsis does; trailing ones take nothing) as PyTorch's index tuple
    and as the C list: the index tensors, None where a dimension is
    whole."""
    while parts and parts[-1] is None:
        parts = parts[:-1]
    taken = sum(i.dim() if i.dtype in (torch.bool, torch.uint8) else 1
                for i in parts if i is not None)
    if taken > t.dim():
        raise Unsupported("more indexed dimensions than the input has")
    key, listed, spread = [], [], False
    for i in parts:
        if i is not None:
            key.append(i if i.dtype in (torch.bool, torch.uint8)
                       else i.long())
            listed.append(i)
        elif not spread:
            key.append(Ellipsis)
            listed += [None] * (t.dim() - taken)
            spread = True
    return tuple(key), listed


def index_inputs(c, listed):
    """The index list's tensors "indices.k", its count and the positions of
    the absent ones (null_indices)."""
    nulls = [k for k, i in enumerate(listed) if i is None]
    for k, i in enumerate(listed):
        if i is not None:
            c.input(f"indices.{k}", i)
    c.attr("indices_counts", len(listed))
    return c.attr("null_indices", nulls) if nulls else c


def index_parts(x):
    return [x.get(k) for k in sorted(x) if k.startswith("idx")]


def build_index(name, p, x, inplace):
    t = x["input"]
    key, listed = index_args(t, index_parts(x))
    y = t[key]
    return [("diopiIndex", lambda c: index_inputs(
        c.output("out", y).input("input", t), listed))]


def backward_index(name, p, x, wanted):
    t = x["input"]
    key, listed = index_args(t, index_parts(x))
    y, go, g = grads(lambda input: input[key], {"input": t}, ("input",))
    return [("diopiIndexBackward", lambda c: index_inputs(
        c.output("grad_input", g["input"])
        .input("zeros_like_input", torch.zeros_like(t)), listed)
        .input("grad_output", go))]


def build_index_fill(name, p, x, inplace):
    t, index, dim, v = x["input"], x["index"], p["dim"], x.get("value")
    value = p.get("value") if v is None else v
    if isinstance(value, bool):
        value = int(value)
    y = t.index_fill(dim, index.long(), value)
    if v is None:
        op, extra = "diopiIndexFillScalar", (lambda c: c.attr("value", value))
    else:
        op, extra = "diopiIndexFill", (lambda c: c.input("value", v))

    def fill(c, kind):
        out_or_inplace(c, kind, t, y).attr("dim", dim).input("index", index)
        return extra(c)
    cases = [(op, lambda c: fill(c, "out"))]
    if inplace:
        cases.append((op.replace("Fill", "FillInp"), lambda c: fill(c, "inp")))
    return cases


def build_select(name, p, x, inplace):
    t, dim, index = x["input"], p["dim"], p["index"]
    y = torch.select(t, dim, index).contiguous()
    return [("diopiSelect", lambda c: c.output("out", y).input("input", t)
             .attr("dim", dim).attr("index", index))]


def backward_select(name, p, x, wanted):
    t, dim, index = x["input"], p["dim"], p["index"]
    y, go, g = grads(lambda input: torch.select(input, dim, index),
                     {"input": t}, ("input",))
    return [("diopiSelectBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad_output", go)
        .attr("input_sizes", list(t.shape)).attr("dim", dim)
        .attr("index", index))]


def slice_args(p):
    """dim, start, end, step of a slice_op entry (its index a slice), as
    DIOPI passes them: negative bounds count from the end."""
    s = p["index"]
    return p["dim"], s.start or 0, s.stop, s.step or 1


def slice_key(t, dim, start, end, step):
    return (slice(None),) * (dim % t.dim()) + (slice(start, end, step),)


def build_slice(name, p, x, inplace):
    t = x["input"]
    dim, start, end, step = slice_args(p)
    y = t[slice_key(t, dim, start, end, step)].contiguous()
    return [("diopiSlice", lambda c: c.output("out", y).input("input", t)
             .attr("dim", dim).attr("start", start).attr("end", end)
             .attr("step", step))]


def backward_slice(name, p, x, wanted):
    t = x["input"]
    dim, start, end, step = slice_args(p)
    key = slice_key(t, dim, start, end, step)
    y, go, g = grads(lambda input: input[key], {"input": t}, ("input",))
    return [("diopiSliceBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad_output", go)
        .attr("input_sizes", list(t.shape)).attr("dim", dim)
        .attr("start", start).attr("end", end).attr("step", step))]


def build_masked_scatter(name, p, x, inplace):
    t, mask, src = x["input"], x["mask"], x["source"]
    y = t.masked_scatter(mask.bool(), src)
    return [("diopiMaskedScatter", lambda c: c.output("out", y)
             .input("input", t).input("mask", mask).input("source", src))]


BUILDERS.update({
    "vector_norm": build_vector_norm,
    "fused_adamw": build_fused_adamw,
    "bernoulli": build_bernoulli,
    "normal": build_normal,
    "multinomial": build_multinomial,
    "random": build_random,
    "zeros": build_constant("diopiZeros", torch.zeros),
    "ones": build_constant("diopiOnes", torch.ones),
    "zero_": build_zero_inp,
    "argsort": build_argsort,
    "index": build_index,
    "index_fill": build_index_fill,
    "select": build_select,
    "slice_op": build_slice,
    "masked_scatter": build_masked_scatter,
})
BACKWARDS.update({
    "index": backward_index,
    "select": backward_select,
    "slice_op": backward_slice,
})
TIES_MATTER.add("argsort")


# ---------------------------------------------------------------- exported
# Builders of the config ops whose functions the reference library already
# exported without configured cases: batch_norm and synchronized batch
# norm's pieces, cross_entropy, conv3d, the 1-d and 3-d pools, unfold,
# im2col/col2im, cdist, meshgrid, equal, copy_, cast_dtype, foreach.

def per_channel(v, x):
    """v (C,) shaped to broadcast along x's dim 1."""
    return v.reshape([1, -1] + [1] * (x.dim() - 2))


def batch_norm_fill(p, x, y, mean, invstd):
    """A batch_norm case: out, the saved statistics in training, input,
    weight, bias, the running statistics (updated in place in training)."""
    t, w, b = x["input"], x.get("weight"), x.get("bias")
    rm, rv = x.get("running_mean"), x.get("running_var")
    train = bool(p.get("training", False))

    def fill(c):
        c.output("out", y[0])
        if train:
            c.output("save_mean", mean).output("save_invstd", invstd)
        optional_inputs(c.input("input", t), weight=w, bias=b)
        for role, v, new in (("running_mean", rm, y[1]),
                             ("running_var", rv, y[2])):
            if v is None:
                continue
            if train:
                c.inplace(role, v.contiguous(), new)
            else:
                c.input(role, v)
        return c.attr("training", train).attr(
            "momentum", float(p.get("momentum", 0.1))).attr(
            "eps", float(p.get("eps", 1e-5)))
    return fill


def batch_norm_ref(p, x):
    """PyTorch's native_batch_norm (16-bit floats in float32): out, the
    updated running statistics, the saved mean and invstd."""
    t, w, b = x["input"], x.get("weight"), x.get("bias")
    rm, rv = x.get("running_mean"), x.get("running_var")
    train = bool(p.get("training", False))
    run = [lifted(v) if v is not None else None for v in (rm, rv)]
    y, mean, invstd = oracle(lambda u, v, z: torch.native_batch_norm(
        u, v, z, run[0], run[1], train, p.get("momentum", 0.1),
        p.get("eps", 1e-5)), t, w, b)
    new = [v.to(o.dtype) if v is not None else None
           for v, o in zip(run, (rm, rv))]
    return (y, new[0], new[1]), mean, invstd


def build_batch_norm(name, p, x, inplace):
    y, mean, invstd = batch_norm_ref(p, x)
    return [("diopiBatchNorm", batch_norm_fill(p, x, y, mean, invstd))]


def backward_batch_norm(name, p, x, wanted):
    t, w, b = x["input"], x.get("weight"), x.get("bias")
    rm, rv = x.get("running_mean"), x.get("running_var")
    train = bool(p.get("training", False))
    eps = p.get("eps", 1e-5)
    run = [lifted(v) if v is not None else None for v in (rm, rv)]
    y, go, g = grads(lambda input, weight, bias: torch.native_batch_norm(
        input, weight, bias, run[0], run[1], train, p.get("momentum", 0.1),
        eps), {"input": t, "weight": w, "bias": b},
        ("input", "weight", "bias"))

    def fill(c):
        affine_grads(c, g, go, t, w, b)
        optional_inputs(c, weight=w, running_mean=rm, running_var=rv)
        if train:
            c.input("save_mean", y[1]).input("save_invstd", y[2])
        return c.attr("training", train).attr("eps", float(eps))
    return [("diopiBatchNormBackward", fill)]


def stats_dims(x):
    return [0] + list(range(2, x.dim()))


def build_batch_norm_stats(name, p, x, inplace):
    """torch.batch_norm_stats (CUDA only in PyTorch 1.13): each channel's
    mean and 1 / sqrt(biased variance + eps), written out in double."""
    t, eps = x["input"], p.get("eps", 1e-5)
    td = t.double()
    mean = td.mean(stats_dims(t))
    invstd = 1 / torch.sqrt(td.var(stats_dims(t), unbiased=False) + eps)
    return [("diopiBatchNormStats", lambda c: c.output(
        "mean", mean.to(t.dtype)).output("invstd", invstd.to(t.dtype))
        .input("input", t).attr("eps", float(eps)))]


def build_batch_norm_gather(name, p, x, inplace):
    """torch.batch_norm_gather_stats_with_counts, written out in double:
    the ranks' statistics combined by their counts, the running mean and
    (unbiased) variance moved toward them by momentum."""
    t, rm, rv = x["input"], x["running_mean"], x["running_var"]
    ma, ia, counts = x["mean_all"], x["invstd_all"], x["count_all"]
    eps, mom = p.get("eps", 1e-5), p.get("momentum", 0.1)
    n = counts.double().reshape(-1, 1)
    total = n.sum(0)
    mean = (ma.double() * n).sum(0) / total
    var_i = 1 / ia.double() ** 2 - eps
    var = ((var_i + (ma.double() - mean) ** 2) * n).sum(0) / total
    invstd = 1 / torch.sqrt(var + eps)
    unbiased = var * total / (total - 1)
    dt = t.dtype
    new_rm = ((1 - mom) * rm.double() + mom * mean).to(dt)
    new_rv = ((1 - mom) * rv.double() + mom * unbiased).to(dt)
    return [("diopiBatchNormGatherStatsWithCounts", lambda c: c.output(
        "mean", mean.to(dt)).output("invstd", invstd.to(dt))
        .input("input", t).input("mean_all", ma).input("invstd_all", ia)
        .inplace("running_mean", rm.contiguous(), new_rm)
        .inplace("running_var", rv.contiguous(), new_rv)
        .input("counts", counts).attr("momentum", float(mom))
        .attr("eps", float(eps)))]


def build_batch_norm_elemt(name, p, x, inplace):
    t, w, b, mean, invstd = (x["input"], x["weight"], x["bias"], x["mean"],
                             x["invstd"])
    y = ((t.double() - per_channel(mean.double(), t)) *
         per_channel(invstd.double() * w.double(), t) +
         per_channel(b.double(), t)).to(t.dtype)
    return [("diopiBatchNormElemt", lambda c: c.output("out", y)
             .input("input", t).input("weight", w).input("bias", b)
             .input("mean", mean).input("invstd", invstd)
             .attr("eps", float(p.get("eps", 1e-5))))]


def build_batch_norm_backward_reduce(name, p, x, inplace):
    """torch.batch_norm_backward_reduce, written out in double: sum_dy and
    sum_dy_xmu (input_g), grad_weight (weight_g), grad_bias (bias_g)."""
    dy, t, mean, invstd, w = (x["grad_output"], x["input"], x["mean"],
                              x["invstd"], x["weight"])
    ig, wg, bg = (bool(p.get(k, True)) for k in ("input_g", "weight_g",
                                                 "bias_g"))
    xmu = t.double() - per_channel(mean.double(), t)
    sum_dy = dy.double().sum(stats_dims(t))
    sum_dy_xmu = (dy.double() * xmu).sum(stats_dims(t))
    dt = t.dtype

    def fill(c):
        if ig:
            c.output("sum_dy", sum_dy.to(dt))
            c.output("sum_dy_xmu", sum_dy_xmu.to(dt))
        if wg:
            c.output("grad_weight", (sum_dy_xmu * invstd.double()).to(dt))
        if bg:
            c.output("grad_bias", sum_dy.to(dt))
        return c.input("grad_out", dy).input("input", t).input(
            "mean", mean).input("invstd", invstd).input("weight", w).attr(
            "input_g", ig).attr("weight_g", wg).attr("bias_g", bg)
    return [("diopiBatchNormBackwardReduce", fill)]


def build_batch_norm_backward_elemt(name, p, x, inplace):
    """torch.batch_norm_backward_elemt, written out in double: the counts
    of every rank summed give the batch's size."""
    dy, t, mean, invstd, w = (x["grad_out"], x["input"], x["mean"],
                              x["invstd"], x["weight"])
    sum_dy, sum_dy_xmu, count = x["sum_dy"], x["sum_dy_xmu"], x["count"]
    total = float(count.double().sum())
    xmu = t.double() - per_channel(mean.double(), t)
    iv = invstd.double()
    gi = (dy.double() - per_channel(sum_dy.double() / total, t) -
          xmu * per_channel(iv * iv * sum_dy_xmu.double() / total, t)) * \
        per_channel(iv * w.double(), t)
    return [("diopiBatchNormBackwardElemt", lambda c: c.output(
        "grad_input", gi.to(t.dtype)).input("grad_out", dy).input("input", t)
        .input("mean", mean).input("invstd", invstd).input("weight", w)
        .input("sum_dy", sum_dy).input("sum_dy_xmu", sum_dy_xmu)
        .input("count", count))]


def cross_entropy_args(p):
    smooth = float(p.get("label_smoothing", 0.0))
    if smooth < 0:
        raise Unsupported(f"label_smoothing {smooth}: PyTorch documents "
                          "[0, 1] (1.13 checks only <= 1 and computes it "
                          "anyway)")
    return p.get("reduction", "mean"), p.get("ignore_index", -100), smooth


def cross_entropy_fill(p, x, role, value):
    i, t, w = x["input"], x["target"], x.get("weight")
    red, ignore, smooth = cross_entropy_args(p)

    def fill(c):
        c.output(role, value)
        return optional_inputs(c, input=i, target=t, weight=w).attr(
            "reduction", REDUCTION[red]).attr("ignore_index", ignore).attr(
            "label_smoothing", smooth)
    return fill


def build_cross_entropy(name, p, x, inplace):
    t, w = x["target"], x.get("weight")
    red, ignore, smooth = cross_entropy_args(p)
    y = oracle(lambda u, v: F.cross_entropy(
        u, t if not t.is_floating_point() else lifted(t), v,
        ignore_index=ignore, reduction=red, label_smoothing=smooth),
        x["input"], w)
    return [("diopiCrossEntropyLoss", cross_entropy_fill(p, x, "out", y))]


def backward_cross_entropy(name, p, x, wanted):
    t = x["target"]
    red, ignore, smooth = cross_entropy_args(p)
    y, go, g = grads(lambda input, weight: F.cross_entropy(
        input, t if not t.is_floating_point() else lifted(t), weight,
        ignore_index=ignore, reduction=red, label_smoothing=smooth),
        {"input": x["input"], "weight": x.get("weight")}, ("input",))
    fill = cross_entropy_fill(p, x, "grad_input", g["input"])
    return [("diopiCrossEntropyLossBackward",
             lambda c: fill(c).input("grad_output", go))]


def tuple_of(v, n):
    return list(v) if isinstance(v, (list, tuple)) else [v] * n


def conv3d_args(p):
    return (tuple_of(p.get("stride", 1), 3), tuple_of(p.get("padding", 0), 3),
            tuple_of(p.get("dilation", 1), 3), p.get("groups", 1))


def build_conv3d(name, p, x, inplace):
    i, w, b = x["input"], x["weight"], x.get("bias")
    st, pad, dil, groups = conv3d_args(p)
    y = oracle(lambda u, v, z: F.conv3d(u, v, z, st, pad, dil, groups), i, w,
               b)
    return [("diopiConvolution3d", conv_forward_fill(
        y, i, w, b, [("stride", st), ("padding", pad), ("dilation", dil),
                     ("groups", groups)]))]


def backward_conv3d(name, p, x, wanted):
    i, w, b = x["input"], x["weight"], x.get("bias")
    st, pad, dil, groups = conv3d_args(p)
    y, go, g = grads(lambda input, weight, bias: F.conv3d(
        input, weight, bias, st, pad, dil, groups),
        {"input": i, "weight": w, "bias": b}, ("input", "weight", "bias"))
    return [("diopiConvolution3dBackward", conv_backward_fill(
        g, go, i, w, b, [("stride", st), ("padding", pad), ("dilation", dil),
                         ("groups", groups)]))]


POOL_FN = {1: (F.avg_pool1d, F.max_pool1d, F.adaptive_avg_pool1d,
               F.adaptive_max_pool1d),
           3: (F.avg_pool3d, F.max_pool3d, F.adaptive_avg_pool3d,
               F.adaptive_max_pool3d)}


def avg_pool_nd_args(p, n):
    """kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override (3-d only; None when absent) of an avg_pool entry."""
    k = tuple_of(p["kernel_size"], n)
    st = p.get("stride")
    return (k, tuple_of(st, n) if st is not None else k,
            tuple_of(p.get("padding", 0), n), bool(p.get("ceil_mode", False)),
            bool(p.get("count_include_pad", True)),
            p.get("divisor_override") if n == 3 else None)


def avg_pool_nd(n):
    op = f"diopiAvgPool{n}d"

    def call(u, args):
        return POOL_FN[n][0](u, *args[:5], **(
            {"divisor_override": args[5]} if n == 3 else {}))

    def build(name, p, x, inplace):
        t, args = x["input"], avg_pool_nd_args(p, n)
        y = oracle(lambda u: call(u, args), t)
        return [(op, lambda c: avg_pool_attrs(
            c.output("out", y).input("input", t), *args))]

    def backward(name, p, x, wanted):
        t, args = x["input"], avg_pool_nd_args(p, n)
        y, go, g = grads(lambda input: call(input, args), {"input": t},
                         ("input",))
        return [(op + "Backward", lambda c: avg_pool_attrs(
            c.output("grad_input", g["input"]).input("grad_output", go)
            .input("input", t), *args))]
    return build, backward


def max_pool_nd_args(p, n):
    k = tuple_of(p["kernel_size"], n)
    st = p.get("stride")
    return [("kernel_size", k),
            ("stride", tuple_of(st, n) if st is not None else k),
            ("padding", tuple_of(p.get("padding", 0), n)),
            ("dilation", tuple_of(p.get("dilation", 1), n)),
            ("ceil_mode", bool(p.get("ceil_mode", False)))]


def max_pool_nd(n):
    op = f"diopiMaxPool{n}d"

    def call(u, attrs):
        k, st, pad, dil, ceil = (v for _, v in attrs)
        return POOL_FN[n][1](u, k, st, pad, dil, ceil_mode=ceil,
                             return_indices=True)

    def build(name, p, x, inplace):
        t, attrs = x["input"], max_pool_nd_args(p, n)
        y, idx = oracle(lambda u: call(u, attrs), t)
        if p.get("return_indices"):
            return [(op + "WithIndices", lambda c: add_attrs(
                c.output("out", y).output("indices", idx).input("input", t),
                attrs))]
        return [(op, lambda c: add_attrs(c.output("out", y).input("input", t),
                                         attrs))]

    def backward(name, p, x, wanted):
        t, attrs = x["input"], max_pool_nd_args(p, n)
        y, go, g = grads(lambda input: call(input, attrs), {"input": t},
                         ("input",))
        return [(op + "Backward", lambda c: add_attrs(
            c.output("grad_input", g["input"]).input("grad_output", go)
            .input("input", t).input("indices", y[1]), attrs))]
    return build, backward


def adaptive_size(p, t, n):
    size = tuple_of(p["output_size"], n)
    return [t.shape[-n + k] if s is None else s for k, s in enumerate(size)]


def adaptive_pool_nd(kind, n):
    op = f"diopiAdaptive{kind.capitalize()}Pool{n}d"
    fn = POOL_FN[n][2 if kind == "avg" else 3]

    def call(u, size):
        return fn(u, size) if kind == "avg" else fn(u, size, True)

    def build(name, p, x, inplace):
        t, size = x["input"], adaptive_size(p, x["input"], n)
        if kind == "avg":
            y = oracle(lambda u: call(u, size), t)
            return [(op, lambda c: c.output("out", y).input("input", t)
                     .attr("output_size", size))]
        y, idx = oracle(lambda u: call(u, size), t)
        if p.get("return_indices"):
            return [(op + "WithIndices", lambda c: c.output("out", y)
                     .output("indices", idx).input("input", t)
                     .attr("output_size", size))]
        return [(op, lambda c: c.output("out", y).input("input", t)
                 .attr("output_size", size))]

    def backward(name, p, x, wanted):
        t, size = x["input"], adaptive_size(p, x["input"], n)
        y, go, g = grads(lambda input: call(input, size), {"input": t},
                         ("input",))
        fill = (lambda c: c.output("grad_input", g["input"])
                .input("grad_output", go).input("input", t))
        if kind == "avg":
            return [(op + "Backward", fill)]
        return [(op + "Backward", lambda c: fill(c).input("indices", y[1]))]
    return build, backward


def build_unfold(name, p, x, inplace):
    t, dim, size, step = x["input"], p["dimension"], p["size"], p["step"]
    y = t.unfold(dim, size, step).contiguous()
    return [("diopiUnfold", lambda c: c.output("out", y).input("input", t)
             .attr("dim", dim).attr("size", size).attr("step", step))]


def backward_unfold(name, p, x, wanted):
    t, dim, size, step = x["input"], p["dimension"], p["size"], p["step"]
    if not t.is_floating_point():
        return []
    # contiguous: a grad_output of ones is then stored as a constant
    y, go, g = grads(lambda input: input.unfold(dim, size, step).contiguous(),
                     {"input": t}, ("input",))
    return [("diopiUnfoldBackward", lambda c: c.output(
        "grad_input", g["input"]).input("grad_output", go)
        .attr("input_sizes", list(t.shape)).attr("dim", dim)
        .attr("size", size).attr("step", step))]


def fold_args(p):
    return [("kernel_size", pair(p["kernel_size"])),
            ("dilation", pair(p.get("dilation", 1))),
            ("padding", pair(p.get("padding", 0))),
            ("stride", pair(p.get("stride", 1)))]


def build_im2col(name, p, x, inplace):
    t, attrs = x["input"], fold_args(p)
    kw = {k: v for k, v in attrs}
    y = oracle(lambda u: F.unfold(u, **kw), t)
    return [("diopiIm2Col", lambda c: add_attrs(
        c.output("out", y).input("input", t), attrs))]


def build_col2im(name, p, x, inplace):
    t, attrs = x["input"], fold_args(p)
    size = pair(p["output_size"])
    kw = {k: v for k, v in attrs}
    y = oracle(lambda u: F.fold(u, size, **kw), t)
    return [("diopiCol2Im", lambda c: add_attrs(
        c.output("out", y).input("input", t).attr("output_size", size),
        attrs))]


def build_cdist(name, p, x, inplace):
    """cdist (the runner passes no compute_mode: the library computes each
    distance directly, which every mode of PyTorch approximates)."""
    a, b, order = x["x1"], x["x2"], float(p.get("p", 2))
    y = oracle(lambda u, v: torch.cdist(u, v, order,
                                        "donot_use_mm_for_euclid_dist"), a, b)
    return [("diopiCdist", lambda c: c.output("out", y).input("input1", a)
             .input("input2", b).attr("p", order))]


# A backward that takes its forward's result as an input stores it whole
# (no seed makes it): past this size such a case is left out, to keep the
# stored set small.
SAVED_RESULT_BYTES = 16 * 1024


def backward_cdist(name, p, x, wanted):
    a, b, order = x["x1"], x["x2"], float(p.get("p", 2))
    n = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]).numel() * \
        a.shape[-2] * b.shape[-2] * a.element_size()
    if n > SAVED_RESULT_BYTES:
        return [("diopiCdistBackward", f"takes the forward's distances ({n} "
                 f"bytes) whole: past {SAVED_RESULT_BYTES}, left out to keep "
                 "the set small")]
    y, go, g = grads(lambda x1, x2: torch.cdist(
        x1, x2, order, "donot_use_mm_for_euclid_dist"), {"x1": a, "x2": b},
        ("x1",))
    return [("diopiCdistBackward", lambda c: c.output("grad_input", g["x1"])
             .input("grad_output", go).input("input1", a).input("input2", b)
             .attr("p", order).input("cdist", y))]


def build_meshgrid(name, p, x, inplace):
    parts = x["tensors"]
    if not isinstance(parts, list):
        parts = [parts]
    grids = torch.meshgrid(*parts, indexing="ij")

    def fill(c):
        for k, (g, t) in enumerate(zip(grids, parts)):
            c.output(f"outs.{k}", g.contiguous()).input(f"inputs.{k}", t)
        return c
    return [("diopiMeshGrid", fill)]


def build_equal(name, p, x, inplace):
    """torch.equal: the same shape and every element equal (of two dtypes:
    by value)."""
    a, b = x["input"], x["other"]
    y = torch.tensor(a.shape == b.shape and bool(
        (a.double() == b.double()).all()))
    return [("diopiEqual", lambda c: c.output("out", y).input("input", a)
             .input("other", b))]


def build_copy(name, p, x, inplace):
    """dest.copy_(src), src broadcast to dest: every element of dest is
    written, so dest starts as zeros of its dtype (a constant: an in-place
    tensor is stored contiguous, and a transposed draw has no seed)."""
    dest, src = x["input"], x["other"]
    y = dest.clone().copy_(src)
    return [("diopiCopyInp", lambda c: c.input("src", src).inplace(
        "dest", torch.zeros(dest.shape, dtype=dest.dtype), y))]


def build_cast_dtype(name, p, x, inplace):
    t, like = x["input"], x["out"]
    y = t.to(like.dtype)
    return [("diopiCastDtype", lambda c: c.output("out", y).input("input", t))]


def foreach_scalar(name, p, x, inplace):
    parts, value = x["self"], p["scalar"]
    if not isinstance(parts, list):
        parts = [parts]
    fn = torch.add if name == "_foreach_add" else torch.mul
    ys = [oracle(lambda u: fn(u, value), t) for t in parts]
    op = "diopiForeachaddScalar" if name == "_foreach_add" else \
        "diopiForeachmulScalar"

    def fill(c):
        for k, (t, y) in enumerate(zip(parts, ys)):
            c.output(f"outs.{k}", y).input(f"inputs.{k}", t)
        return c.attr("other", value)
    return [(op, fill)]


def build_foreach_norm(name, p, x, inplace):
    parts = x["self"]
    if not isinstance(parts, list):
        parts = [parts]
    # The exact norm rounded: PyTorch's float32 sum of 131072 squares is
    # off by more than the default rtol (1e-5).
    ys = [torch.linalg.vector_norm(t.double()).to(t.dtype) for t in parts]

    def fill(c):
        for k, (t, y) in enumerate(zip(parts, ys)):
            c.output(f"outs.{k}", y).input(f"inputs.{k}", t)
        return c.attr("ord", 2.0)
    return [("diopiForeachnormScalar", fill)]


BUILDERS.update({
    "batch_norm": build_batch_norm,
    "batch_norm_stats": build_batch_norm_stats,
    "batch_norm_gather_stats_with_counts": build_batch_norm_gather,
    "batch_norm_elemt": build_batch_norm_elemt,
    "batch_norm_backward_reduce": build_batch_norm_backward_reduce,
    "batch_norm_backward_elemt": build_batch_norm_backward_elemt,
    "cross_entropy": build_cross_entropy,
    "conv3d": build_conv3d,
    "unfold": build_unfold, "im2col": build_im2col, "col2im": build_col2im,
    "cdist": build_cdist, "meshgrid": build_meshgrid, "equal": build_equal,
    "copy_": build_copy, "cast_dtype": build_cast_dtype,
    "_foreach_add": foreach_scalar, "_foreach_mul": foreach_scalar,
    "_foreach_norm": build_foreach_norm,
})
BACKWARDS.update({
    "batch_norm": backward_batch_norm,
    "cross_entropy": backward_cross_entropy,
    "conv3d": backward_conv3d,
    "unfold": backward_unfold,
    "cdist": backward_cdist,
})
for _n in (1, 3):
    (BUILDERS[f"avg_pool{_n}d"],
     BACKWARDS[f"avg_pool{_n}d"]) = avg_pool_nd(_n)
    (BUILDERS[f"max_pool{_n}d"],
     BACKWARDS[f"max_pool{_n}d"]) = max_pool_nd(_n)
    for _kind in ("avg", "max"):
        (BUILDERS[f"adaptive_{_kind}_pool{_n}d"],
         BACKWARDS[f"adaptive_{_kind}_pool{_n}d"]) = adaptive_pool_nd(_kind,
                                                                      _n)


# ---------------------------------------------------------------- attention

def attention_ref(q, k, v, slopes, scale, causal, left, right):
    """Flash attention's definition in double over (batch, seq, heads, dim)
    tensors, grouped keys repeated to the query heads: out, logsumexp."""
    hq, hk = q.shape[2], k.shape[2]
    kk, vv = (t.repeat_interleave(hq // hk, 2) for t in (k, v))
    s = torch.einsum("bihd,bjhd->bhij", q, kk) * scale
    sq, sk = q.shape[1], k.shape[1]
    i, j = torch.arange(sq).view(-1, 1), torch.arange(sk).view(1, -1)
    diag = i + sk - sq
    if slopes is not None:
        s = s - slopes.double().view(1, -1, 1, 1) * (diag - j).abs()
    mask = torch.zeros(sq, sk, dtype=torch.bool)
    if causal:
        mask |= j > diag
    if left >= 0:
        mask |= j < diag - left
    if right >= 0:
        mask |= j > diag + right
    s = s.masked_fill(mask, float("-inf"))
    return (torch.einsum("bhij,bjhd->bihd", torch.softmax(s, -1), vv),
            torch.logsumexp(s, -1))


def attention_args(p, q):
    scale = p.get("softmax_scale")
    return [("p_dropout", float(p.get("p_dropout", 0))),
            ("softmax_scale", float(q.shape[-1] ** -0.5 if scale is None
                                    else scale)),
            ("is_causal", bool(p.get("is_causal", False))),
            ("window_size_left", int(p.get("window_size_left", -1))),
            ("window_size_right", int(p.get("window_size_right", -1)))]


def build_flash_attention(name, p, x, inplace):
    q, k, v, slopes = x["q"], x["k"], x["v"], x.get("alibi_slopes")
    attrs = attention_args(p, q)
    if attrs[0][1] != 0:
        raise Unsupported("dropout: no reference output for another "
                          "library's random numbers")
    _, scale, causal, left, right = (a for _, a in attrs)
    out, lse = attention_ref(q.double(), k.double(), v.double(), slopes,
                             scale, causal, left, right)
    return [("diopiFlashAttention", lambda c: add_attrs(optional_inputs(
        c.output("attention_out", out.to(q.dtype))
        .output("softmax_lse", lse.float()).input("q", q).input("k", k)
        .input("v", v), alibi_slopes=slopes), attrs))]


def backward_flash_attention(name, p, x, wanted):
    q, k, v, slopes = x["q"], x["k"], x["v"], x.get("alibi_slopes")
    attrs = attention_args(p, q)
    n = q.numel() * q.element_size()
    if attrs[0][1] != 0 or n > SAVED_RESULT_BYTES:
        return [("diopiFlashAttentionBackward",
                 f"takes the forward's attention_out ({n} bytes) whole: past "
                 f"{SAVED_RESULT_BYTES}, left out to keep the set small")]
    _, scale, causal, left, right = (a for _, a in attrs)
    (out, lse), go, g = grads(lambda q, k, v: attention_ref(
        q.double(), k.double(), v.double(), slopes, scale, causal, left,
        right), {"q": q, "k": k, "v": v}, ("q", "k", "v"))
    return [("diopiFlashAttentionBackward", lambda c: add_attrs(
        optional_inputs(
            c.output("grad_q", g["q"]).output("grad_k", g["k"])
            .output("grad_v", g["v"]).input("grad_output", go)
            .input("q", q).input("k", k).input("v", v),
            alibi_slopes=slopes)
        .input("attention_out", out.to(q.dtype).contiguous())
        .input("softmax_lse", lse.float().contiguous()), attrs))]


BUILDERS["flash_attention"] = build_flash_attention
BACKWARDS["flash_attention"] = backward_flash_attention



# ---------------------------------------------------------------- breadth
# The config ops beyond issue 25's list that real models ask for:
# instance_norm, normalize, DIOPI's mode-switched pools, conv_transpose3d,
# grid_sample, rotary_emb (and its second form) and unique.

def build_instance_norm(name, p, x, inplace):
    t, w, b, eps = x["input"], x.get("weight"), x.get("bias"), p["eps"]
    y = oracle(lambda u, v, z: F.instance_norm(u, weight=v, bias=z, eps=eps),
               t, w, b)
    return [("diopiInstanceNorm", lambda c: optional_inputs(
        c.output("out", y).input("input", t), weight=w, bias=b)
        .attr("axis", 2).attr("eps", float(eps)))]


def backward_instance_norm(name, p, x, wanted):
    t, w, b, eps = x["input"], x.get("weight"), x.get("bias"), p["eps"]
    y, go, g = grads(lambda input, weight, bias: F.instance_norm(
        input, weight=weight, bias=bias, eps=eps),
        {"input": t, "weight": w, "bias": b}, ("input", "weight", "bias"))
    return [("diopiInstanceNormBackward", lambda c: optional_inputs(
        affine_grads(c, g, go, t, w, b), weight=w, bias=b)
        .attr("axis", 2).attr("eps", float(eps)))]


def normalize_attrs(p):
    return [("p", float(p.get("p", 2))), ("dim", p.get("dim", 1)),
            ("eps", float(p.get("eps", 1e-12)))]


def build_normalize(name, p, x, inplace):
    t, attrs = x["input"], normalize_attrs(p)
    kw = {k: v for k, v in attrs}
    y = oracle(lambda u: F.normalize(u, **kw), t)
    return [("diopiNormalize", lambda c: add_attrs(
        c.output("out", y).input("input", t), attrs))]


def backward_normalize(name, p, x, wanted):
    t, attrs = x["input"], normalize_attrs(p)
    kw = {k: v for k, v in attrs}
    y, go, g = grads(lambda input: F.normalize(input, **kw), {"input": t},
                     ("input",))
    return [("diopiNormalizeBackward", lambda c: add_attrs(
        c.output("grad_input", g["input"]).input("grad_output", go)
        .input("input", t), attrs))]


POOL_FNS = {1: POOL_FN[1], 3: POOL_FN[3],
            2: (F.avg_pool2d, F.max_pool2d, F.adaptive_avg_pool2d,
                F.adaptive_max_pool2d)}


def mode_pool(n):
    """diopiPool{n}d: DIOPI's pool switched by mode ("max"/"avg") and
    adaptive; the attributes as the config gives them (a stride of None:
    none, the kernel size), PyTorch's pool of that mode the oracle."""
    op = f"diopiPool{n}d"

    def args(p):
        st = p.get("stride")
        attrs = [("mode", p["mode"]),
                 ("kernel_size", tuple_of(p["kernel_size"], n)),
                 ("stride", tuple_of(st, n) if st is not None else []),
                 ("padding", tuple_of(p.get("padding", 0), n)),
                 ("dilation", tuple_of(p.get("dilation", 1), n)),
                 ("ceil_mode", bool(p.get("ceil_mode", False))),
                 ("exclusive", not p.get("count_include_pad", True)),
                 ("adaptive", bool(p.get("adaptive", False)))]
        return attrs, {k: v for k, v in attrs}

    def call(u, a, size):
        avg, mx, aavg, amax = POOL_FNS[n]
        k, st = a["kernel_size"], a["stride"] or a["kernel_size"]
        if a["adaptive"]:
            return aavg(u, size) if a["mode"] == "avg" else amax(u, size, True)
        if a["mode"] == "avg":
            return avg(u, k, st, a["padding"], a["ceil_mode"],
                       not a["exclusive"])
        return mx(u, k, st, a["padding"], a["dilation"], a["ceil_mode"],
                  True)

    def build(name, p, x, inplace):
        t, (attrs, a) = x["input"], args(p)
        size = tuple_of(p.get("output_size", 0), n)
        y = oracle(lambda u: call(u, a, size), t)
        y = y[0] if isinstance(y, tuple) else y
        return [(op, lambda c: add_attrs(
            c.output("out", y).input("input", t), attrs)
            .attr("output_size", size))]

    def backward(name, p, x, wanted):
        t, (attrs, a) = x["input"], args(p)
        size = tuple_of(p.get("output_size", 0), n)
        y, go, g = grads(lambda input: call(input, a, size), {"input": t},
                         ("input",))

        def fill(c):
            c.output("grad_input", g["input"]).input("grad_output", go)
            c.input("input", t)
            if a["mode"] == "max":
                c.input("indices", y[1])
            return add_attrs(c, attrs)
        return [(op + "Backward", fill)]
    return build, backward


def conv_transpose(n):
    """The forward and backward builders of conv_transpose{n}d."""
    conv = getattr(F, f"conv_transpose{n}d")
    op = f"diopiConvTranspose{n}d"

    def args(p):
        return (tuple_of(p.get("stride", 1), n),
                tuple_of(p.get("padding", 0), n),
                tuple_of(p.get("output_padding", 0), n), p.get("groups", 1),
                tuple_of(p.get("dilation", 1), n))

    def build(name, p, x, inplace):
        i, w, b = x["input"], x["weight"], x.get("bias")
        st, pad, opad, groups, dil = args(p)
        y = oracle(lambda u, v, z: conv(u, v, z, st, pad, opad, groups, dil),
                   i, w, b)
        return [(op, conv_forward_fill(
            y, i, w, b, [("stride", st), ("padding", pad),
                         ("output_padding", opad), ("groups", groups),
                         ("dilation", dil)]))]

    def backward(name, p, x, wanted):
        i, w, b = x["input"], x["weight"], x.get("bias")
        st, pad, opad, groups, dil = args(p)
        y, go, g = grads(lambda input, weight, bias: conv(
            input, weight, bias, st, pad, opad, groups, dil),
            {"input": i, "weight": w, "bias": b}, ("input", "weight", "bias"))
        return [(op + "Backward", conv_backward_fill(
            g, go, i, w, b, [("stride", st), ("padding", pad),
                             ("dilation", dil), ("output_padding", opad),
                             ("groups", groups)]))]
    return build, backward


GRID_SAMPLERS = (("zeros", False), ("border", True), ("reflection", False))


def build_grid_sample(name, p, x, inplace):
    """DIOPI's diopiGridSample (zeros padding, align_corners false), and
    the extension diopiGridSampler in each padding mode, with its backward
    (DIOPI has none): the same inputs, PyTorch the oracle."""
    t, grid, mode = x["input"], x["grid"], p["mode"]
    y = oracle(lambda u, g: F.grid_sample(u, g, mode=mode,
                                          align_corners=False), t, grid)
    cases = [("diopiGridSample", lambda c: c.output("out", y).input(
        "input", t).input("grid", grid).attr("mode", mode))]
    for padding, align in GRID_SAMPLERS:
        attrs = [("mode", mode), ("padding_mode", padding),
                 ("align_corners", align)]
        kw = dict(mode=mode, padding_mode=padding, align_corners=align)
        ys = oracle(lambda u, g: F.grid_sample(u, g, **kw), t, grid)
        _, go, g = grads(lambda input, grid: F.grid_sample(input, grid, **kw),
                         {"input": t, "grid": grid}, ("input", "grid"))
        cases.append(("diopiGridSampler", lambda c, ys=ys, attrs=attrs:
                      add_attrs(c.output("out", ys).input("input", t)
                                .input("grid", grid), attrs)))
        cases.append(("diopiGridSamplerBackward",
                      lambda c, g=g, go=go, attrs=attrs: add_attrs(
                          c.output("grad_input", g["input"])
                          .output("grad_grid", g["grid"])
                          .input("grad_output", go).input("input", t)
                          .input("grid", grid), attrs)))
    return cases


def rotary_ref(u, cos, sin, conj, interleaved):
    a, b = (u[..., 0::2], u[..., 1::2]) if interleaved else u.chunk(2, -1)
    s = -sin if conj else sin
    ra, rb = a * cos - b * s, a * s + b * cos
    return torch.stack((ra, rb), -1).flatten(-2) if interleaved else \
        torch.cat((ra, rb), -1)


def build_rotary_emb(name, p, x, inplace):
    t, cos, sin = x["input"], x["cos"], x["sin"]
    conj, inter = bool(p["conj"]), bool(p["interleaved"])
    y = oracle(lambda u, c, s: rotary_ref(u, c, s, conj, inter), t, cos, sin)
    return [("diopiRotaryEmbedding", lambda c: c.output("out", y).input(
        "input", t).input("cos", cos).input("sin", sin).attr("conj", conj)
        .attr("interleaved", inter))]


def rotate_half_ref(u, cos, sin, dim):
    """lightllm's no-pad rotary embedding: u (..., heads x dim) seen as
    (..., heads, dim) becomes u cos + rotate_half(u) sin."""
    v = u.reshape(*u.shape[:-1], -1, dim)
    a, b = v.chunk(2, -1)
    return (v * cos + torch.cat((-b, a), -1) * sin).reshape(u.shape)


def build_rotary_emb_v2(name, p, x, inplace):
    """DIOPI's diopiRotaryEmbeddingV2: query and key turned in place."""
    q, k, cos, sin, dim = x["query"], x["key"], x["cos"], x["sin"], p["dim"]
    turn = (lambda u, c, s: rotate_half_ref(u, c, s, dim))
    yq, yk = oracle(turn, q, cos, sin), oracle(turn, k, cos, sin)
    return [("diopiRotaryEmbeddingV2", lambda c: c.inplace(
        "query", q.contiguous(), yq).inplace("key", k.contiguous(), yk)
        .input("cos", cos).input("sin", sin).attr("dim", int(dim)))]


def build_unique(name, p, x, inplace):
    """unique: the library sorts whether sorted is asked or not (PyTorch
    leaves an unsorted unique's order unspecified), so the oracle is the
    sorted one; the inverse is given as an output tensor, the counts
    returned. 16-bit floats are computed in float32 (exact)."""
    t, dim = x["input"], p.get("dim")
    inverse, counts = bool(p.get("return_inverse")), bool(
        p.get("return_counts"))
    half = t.dtype in (torch.float16, torch.bfloat16)  # PyTorch has none
    y, inv, cnt = torch.unique(t.float() if half else t, sorted=True,
                               return_inverse=True, return_counts=True,
                               dim=dim)
    y = y.to(t.dtype)

    def fill(c):
        c.output("out", y)
        if counts:
            c.output("counts", cnt)
        if inverse:
            c.output("indices", inv)
        c.input("input", t).attr("sorted", bool(p.get("sorted", True)))
        return c.attr("dim", dim) if dim is not None else c
    return [("diopiUnique", fill)]


BUILDERS.update({"instance_norm": build_instance_norm,
                 "normalize": build_normalize,
                 "grid_sample": build_grid_sample,
                 "rotary_emb": build_rotary_emb,
                 "rotary_emb_v2": build_rotary_emb_v2,
                 "unique": build_unique})
BACKWARDS.update({"instance_norm": backward_instance_norm,
                  "normalize": backward_normalize})
for _n in (1, 2, 3):
    BUILDERS[f"pool{_n}d"], BACKWARDS[f"pool{_n}d"] = mode_pool(_n)
for _n in (2, 3):
    BUILDERS[f"conv_transpose{_n}d"], BACKWARDS[f"conv_transpose{_n}d"] = \
        conv_transpose(_n)


# ---------------------------------------------------------------- unbuilt
# The config ops with no builder: the DIOPI function each would call, and
# what it is. None of them is exported by the reference library nor named
# by issue 25's list; SKIPPED.txt says so per op (and says "no builder yet"
# should the library come to export one).
_COMPLEX = "complex tensors: Backplane's DIOPI runtime has no complex dtype"
_LLM = "an LLM inference kernel of DIOPI's extension headers"
_ATTENTION = "an attention variant beside diopiFlashAttention"
_DETECTION = "a detection kernel of mmcv"
_LINALG = "a linear-algebra decomposition or solve"
NOT_BUILT = {
    "complex": ("diopiComplex", _COMPLEX),
    "conj": ("diopiConj", _COMPLEX),
    "imag": ("diopiImag", _COMPLEX),
    "real": ("diopiReal", _COMPLEX),
    "polar": ("diopiPolar", _COMPLEX),
    "apply_penalty": ("diopiApplyPenalty", _LLM),
    "apply_penalty_v2": ("diopiApplyPenaltyV2", _LLM),
    "context_attention": ("diopiContextAttentionInference", _LLM),
    "token_attention": ("diopiTokenAttentionInference", _LLM),
    "token_softmax_reducev": ("diopiTokenSoftmaxReduceVInference", _LLM),
    "destindex_copy_kv": ("diopiDestIndexCopyKV", _LLM),
    "paged_attention": ("diopiPagedAttention", _LLM),
    "prompt_flash_attention": ("diopiPromptFlashAttention", _LLM),
    "customized_flash_attention": ("diopiCustomizedFlashAttention",
                                   _ATTENTION),
    "customized_flash_attention_varlen": (
        "diopiCustomizedFlashAttentionVarLen", _ATTENTION),
    "flash_attention_varlen": ("diopiFlashAttentionVarLen", _ATTENTION),
    "multihead_attention": ("diopiMultiHeadAttention", _ATTENTION),
    "multihead_attention_varlen": ("diopiMultiHeadAttentionVarLen",
                                   _ATTENTION),
    "scaled_masked_softmax": ("diopiScaledMaskedSoftmax", _ATTENTION),
    "nms": ("diopiNms", _DETECTION),
    "roi_align": ("diopiRoiAlign", _DETECTION),
    "sigmoid_focal_loss": ("diopiSigmoidFocalLoss", _DETECTION),
    "cholesky_ex": ("diopiCholesky", _LINALG),
    "linalgqr": ("diopiLinalgQR", _LINALG),
    "triangular_solve": ("diopiTriangularSolve", _LINALG),
    "spmm": ("diopiSpMM", "a sparse matrix product"),
    "ctc_loss": ("diopiCTCLoss", "the connectionist temporal loss"),
    "layer_normGB": ("diopiLayerNormGB", "layer_norm of another layout"),
}


def why_unbuilt(name, has):
    """SKIPPED.txt's reason for config op `name`, which has no builder."""
    fn, what = NOT_BUILT.get(name, (None, None))
    if fn is None:
        return "no builder in the generator"
    if has(fn):
        return f"no builder yet (the reference library exports {fn})"
    return (f"the reference library exports no {fn} ({what}), which issue "
            "25's list does not name")


# ---------------------------------------------------------------- driver

def tolerances(entry, ins, dtype):
    """The entry's tolerances for a case: the 16-bit ones when its first
    floating-point input is 16-bit (an embedding's indices come first: its
    weight decides), else when `dtype`, the case's, is."""
    dtype = next((a["dtype"] for a in ins.values()
                  if a["dtype"].is_floating_point), dtype)
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


def make_cases(configs, has, max_case_bytes, name):
    """The stored cases of config op `name` (every entry naming it): its
    file's records, and the cases not stored: {tag: why} skipped, the ops
    `has` lacks, {tag: [(repeat, first)]} repeats. Each config op's cases
    depend on it alone, so they can be made in any order, in parallel."""
    torch.set_num_threads(1)
    build = BUILDERS[name]
    cases, skipped, missing, repeats, first_of = CaseFile(), {}, set(), {}, {}
    for key, entry in configs.items():
        if name not in entry["name"]:
            continue
        rng = np.random.default_rng([25, zlib.crc32(f"{key}/{name}"
                                                    .encode())])
        try:
            expanded = expand(entry)
        except Unsupported as e:
            skipped[f"{name}/{key}"] = str(e)
            continue
        for n, (tdt, p, ins) in enumerate(expanded):
            if tdt is None:  # a dtype this generator cannot make: p says
                skipped[f"{name}/{key}/{n}"] = p
                continue
            tag = f"{name}/{key}/{n}/{SHORT[tdt]}"
            wanted = tuple(k for k, a in ins.items() if a["requires_grad"])
            size = input_bytes(ins)
            hows = ["large"] if size > max_case_bytes else ["seeded"] if (
                size > SEED_MIN_BYTES and name not in TIES_MATTER) else []
            # A case PyTorch refuses with seeded values (an integer divisor
            # of 0) is drawn again the plain way.
            for how in hows + ["integral", "plain"]:
                seeded = Seeded(zlib.crc32(tag.encode()))
                try:
                    # a creation op's only input is its dtype
                    x = make_inputs(ins, rng, seeded, how) if ins else {
                        "dtype": tdt}
                    made = build(name, p, x, entry.get("is_inplace", False))
                    if wanted and name in BACKWARDS:
                        made += BACKWARDS[name](name, p, x, wanted)
                    break
                except Unsupported as e:
                    made, why = None, str(e)
                except (RuntimeError, ValueError, TypeError,
                        IndexError) as e:
                    made = None
                    why = "PyTorch refuses: " + str(e).split("\n")[0]
                if how == "large":
                    break
            if made is None:
                skipped[tag] = why
                continue
            for op, fill in made:
                if isinstance(fill, str):  # a call the builder left out
                    skipped[f"{tag}/{op[5:]}"] = fill
                    continue
                if not has(op):
                    missing.add(op)
                    continue
                atol, rtol = tolerances(entry, ins, tdt)
                c = fill(StoredCase(f"diopi/{tag}/{op[5:]}", op, tdt))
                c.atol, c.rtol, c.seeded = atol, rtol, seeded
                sig = c.signature(repr((sorted(p.items()), [
                    (k, a["gen_fn"], a["value"]) for k, a in ins.items()])))
                if sig in first_of:
                    repeats.setdefault(f"{name}/{key}", []).append(
                        (c.name, first_of[sig]))
                    continue
                c.large = sum(t.numel() * t.element_size() for _, _, t, _, _
                              in c.tensors) > max_case_bytes
                if c.large:
                    c.name += "/large"
                size = cases.add(c, LARGE_CASE_BYTES)
                if size > LARGE_CASE_BYTES:
                    skipped[f"{tag}/{op[5:]}"] = (
                        f"{size} bytes even seeded and sampled (inputs made "
                        "from PyTorch's results are stored whole)")
                    continue
                first_of[sig] = c.name
    return name, cases.blob() if cases.cases else None, len(cases.cases), \
        skipped, missing, repeats


WORK = None  # make_cases' first arguments, for the worker processes


def make_cases_of(name):
    return make_cases(*WORK, name)


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
    ap.add_argument("--jobs", type=int, default=1,
                    help="worker processes (the files are the same)")
    opts = ap.parse_args()
    source = os.environ.get("BP_DIOPI_SOURCE_DIR")
    if not source:
        sys.exit("BP_DIOPI_SOURCE_DIR must name a DIOPI checkout")
    configs = load_configs(source)
    has = exported(opts.lib)
    names = sorted({n for e in configs.values() for n in e["name"]
                    if opts.only is None or n in opts.only})
    unknown = {n for n in names if n not in BUILDERS}
    global WORK
    WORK = (configs, has, opts.max_case_bytes)
    todo = [n for n in names if n in BUILDERS]
    if opts.jobs > 1:  # forked: the workers inherit WORK
        with multiprocessing.get_context("fork").Pool(opts.jobs) as pool:
            made = pool.map(make_cases_of, todo, chunksize=1)
    else:
        made = [make_cases_of(n) for n in todo]
    skipped, missing, repeats = {}, set(), {}
    os.makedirs(opts.out, exist_ok=True)
    for old in os.listdir(opts.out):
        if old.endswith(".bin.gz"):
            os.remove(os.path.join(opts.out, old))
    total = stored = 0
    for name, blob, count, s, m, r in made:
        skipped.update(s)
        missing |= m
        repeats.update(r)
        if blob is None:
            continue
        packed = gzip.compress(blob, 9, mtime=0)
        with open(os.path.join(opts.out, name + ".bin.gz"), "wb") as f:
            f.write(packed)
        total += len(packed)
        stored += count
        print(f"{name:24s} {count:4d} cases {len(packed):8d} bytes")
    print(f"total {stored} cases, {total} bytes compressed; "
          f"{len(skipped)} configured cases not stored, "
          f"{sum(map(len, repeats.values()))} repeats of a stored case",
          file=sys.stderr)
    with open(os.path.join(opts.out, "SKIPPED.txt"), "w") as f:
        f.write("# Configured cases not stored, and why (generated by "
                "scripts/make_diopi_config_cases.py).\n")
        for op in sorted(missing):
            f.write(f"op {op}: not exported by the reference library\n")
        for name in sorted(unknown):
            f.write(f"config op {name}: {why_unbuilt(name, has)}\n")
        for tag, why in sorted(skipped.items()):
            f.write(f"case {tag}: {why}\n")
        for entry, cases in sorted(repeats.items()):
            f.write(f"entry {entry}: {len(cases)} cases repeat a stored "
                    f"case's op, shapes, dtypes, layout, attributes and "
                    f"input draws (first: {cases[0][0]} repeats "
                    f"{cases[0][1]})\n")


if __name__ == "__main__":
    main()
