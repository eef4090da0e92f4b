"""Standard ops: any DIOPI op of the loaded operator library, by name.

    backplane.ops.add(out, a, b, alpha=1.0)          # diopiAdd
    backplane.ops.linear(out, x, w, b)               # diopiLinear
    backplane.ops.call("diopiAddInpScalar", t, other=2.0)

Names are the DIOPI names (``diopiAdd``) or their snake_case form without
the prefix (``add``, ``add_inp_scalar``, ``nll_loss``, ``adamw``).
Arguments follow the DIOPI signature after the context: Tensors (or None
for an optional one), sequences of ints for diopiSize_t, numbers for
scalars, strings for reductions ("none", "mean", "sum") and round modes
("none", "trunc", "floor"), a list of Tensors for a tensor list (its count
is filled in). The op is enqueued on the active stream of the first tensor
that lives on a device, and returns before it runs; the call returns the
op's first output tensor. A failing op raises the backplane.Error subclass
of its status with the library's message; an op the library leaves out is
UnsupportedError (diopiNoImplement).

The library is Backplane's reference library unless load() (or the
BACKPLANE_OPS_LIBRARY variable) names another. Calls go through ctypes,
which releases the GIL while the op enqueues.
"""
import ctypes
import os
import re

from . import _backplane
from ._op_signatures import SIGNATURES

__all__ = ["call", "library", "load", "names"]


class _ScalarValue(ctypes.Union):
    _fields_ = [("fval", ctypes.c_double), ("ival", ctypes.c_int64)]


class _Scalar(ctypes.Structure):
    _anonymous_ = ("value",)
    _fields_ = [("stype", ctypes.c_int), ("value", _ScalarValue)]


class _Size(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_int64)),
                ("len", ctypes.c_int64)]


_DIOPI_INT64, _DIOPI_FLOAT64 = 6, 10
_ENUMS = {
    "diopiReduction_t": {"none": 0, "mean": 1, "sum": 2},
    "diopiRoundMode_t": {"none": 0, "trunc": 1, "floor": 2},
    "diopiMemoryFormat_t": {"contiguous": 0, "channels_last": 1,
                            "channels_last_3d": 2, "preserve": 3,
                            "channels_last_1d": 4},
}
_CTYPES = {
    "diopiTensorHandle_t": ctypes.c_void_p,
    "diopiConstTensorHandle_t": ctypes.c_void_p,
    "diopiGeneratorHandle_t": ctypes.c_void_p,
    "diopiSize_t": _Size,
    "diopiSize_t *": ctypes.POINTER(_Size),
    "int64_t": ctypes.c_int64,
    "const int64_t *": ctypes.POINTER(ctypes.c_int64),
    "bool": ctypes.c_bool,
    "double": ctypes.c_double,
    "float": ctypes.c_float,
    "const diopiScalar_t *": ctypes.POINTER(_Scalar),
    "const char *": ctypes.c_char_p,
    "diopiConstTensorHandle_t *": ctypes.POINTER(ctypes.c_void_p),
    "diopiReduction_t": ctypes.c_int,
    "diopiRoundMode_t": ctypes.c_int,
    "diopiMemoryFormat_t": ctypes.c_int,
}
# Kinds a caller may leave out (passed as NULL).
_OPTIONAL = {"const diopiScalar_t *", "const int64_t *", "diopiSize_t *",
             "diopiGeneratorHandle_t"}


def _snake(name):
    name = name[len("diopi"):]
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z][a-z])|(?<=[A-Z])(?=[A-Z][a-z])",
                  "_", name)
    return name.lower()


_BY_NAME = {}
for _name in SIGNATURES:
    _BY_NAME[_name] = _name
    _BY_NAME[_snake(_name)] = _name


def names():
    """Every op Backplane knows the signature of (DIOPI names)."""
    return sorted(SIGNATURES)


_library = None
_functions = {}


def load(path):
    """Makes the operator library at path the one ops are called in."""
    global _library
    _library = _backplane.OpsLibrary(path)
    _functions.clear()
    return _library


def library():
    """The operator library in use (opened on first use)."""
    if _library is None:
        path = os.environ.get("BACKPLANE_OPS_LIBRARY") or os.path.join(
            _backplane.library_dir(), "backplane", "ops",
            "libbackplane_ops_ref.so")
        load(path)
    return _library


def _function(name):
    fn = _functions.get(name)
    if fn is None:
        lib = library()
        argtypes = [ctypes.c_void_p] + [_CTYPES[k] for k, _ in
                                        SIGNATURES[name]]
        proto = ctypes.CFUNCTYPE(ctypes.c_int, *argtypes)
        fn = _functions[name] = proto(lib.find(name))
    return fn


def _scalar(value):
    s = _Scalar()
    if isinstance(value, float):
        s.stype, s.fval = _DIOPI_FLOAT64, value
    else:
        s.stype, s.ival = _DIOPI_INT64, int(value)
    return ctypes.pointer(s)


def _size(values):
    values = [int(v) for v in values]
    array = (ctypes.c_int64 * max(len(values), 1))(*values)
    return _Size(ctypes.cast(array, ctypes.POINTER(ctypes.c_int64)),
                 len(values)), array


def _bind(op, params, args, kwargs):
    """The value of every parameter, by position then by name."""
    if len(args) > len(params):
        raise TypeError(f"{op}: {len(params)} arguments at most after the "
                        f"context, {len(args)} given")
    values = dict(zip((n for _, n in params), args))
    for key, value in kwargs.items():
        if key not in (n for _, n in params):
            raise TypeError(f"{op}: no parameter {key!r}")
        if key in values:
            raise TypeError(f"{op}: {key!r} given twice")
        values[key] = value
    for i, (kind, pname) in enumerate(params):
        if pname in values:
            continue
        after_list = i > 0 and params[i - 1][0].endswith("TensorHandle_t *")
        if not (kind in _OPTIONAL or (after_list and kind == "int64_t")):
            raise TypeError(f"{op}: missing argument {pname!r}")
    return values


def _device_of(values):
    for v in values.values():
        items = v if isinstance(v, (list, tuple)) else (v,)
        for t in items:
            if isinstance(t, _backplane.Tensor) and t.device is not None:
                return t.device
    raise ValueError("backplane.ops: no tensor argument lives on a device")


def call(name, *args, **kwargs):
    """Calls the op `name` (DIOPI or snake_case name); see the module doc."""
    op = _BY_NAME.get(name)
    if op is None:
        raise AttributeError(f"backplane.ops: no op {name!r}")
    params = SIGNATURES[op]
    for kind, pname in params:
        if kind not in _CTYPES:
            raise _backplane.UnsupportedError(
                f"{op}: parameter {pname!r} of type {kind} cannot be passed "
                f"from Python")
    values = _bind(op, params, args, kwargs)
    fn = _function(op)
    ctx = _backplane.OpsContext(_device_of(values))
    keep = []  # ctypes objects that must outlive the call
    cargs = [ctx.handle]
    first_out = None
    for i, (kind, pname) in enumerate(params):
        v = values.get(pname)
        if kind in ("diopiTensorHandle_t", "diopiConstTensorHandle_t"):
            if kind == "diopiTensorHandle_t" and first_out is None:
                first_out = v
            cargs.append(None if v is None else ctx.use(v))
        elif kind == "diopiConstTensorHandle_t *":  # a list (diopiCat)
            handles = (ctypes.c_void_p * max(len(v), 1))(
                *[ctx.use(t) for t in v])
            keep.append(handles)
            cargs.append(handles)
            count = params[i + 1][1]
            values.setdefault(count, len(v))
        elif kind == "diopiSize_t":
            size, array = _size(v)
            keep.append(array)
            cargs.append(size)
        elif kind == "diopiSize_t *":
            if v is None:
                cargs.append(None)
            else:
                size, array = _size(v)
                keep += [size, array]
                cargs.append(ctypes.pointer(size))
        elif kind == "const diopiScalar_t *":
            cargs.append(None if v is None else _scalar(v))
        elif kind == "const int64_t *":
            cargs.append(None if v is None else
                         ctypes.pointer(ctypes.c_int64(int(v))))
        elif kind == "const char *":
            cargs.append(None if v is None else str(v).encode())
        elif kind == "diopiGeneratorHandle_t":
            cargs.append(None if v is None else v.handle)
        elif kind in _ENUMS:
            cargs.append(_ENUMS[kind][v] if isinstance(v, str) else int(v))
        else:  # int64_t, bool, double, float
            cargs.append(v)
    error = fn(*cargs)
    del ctx  # scratch goes back to the allocator in stream order
    if error != 0:
        library().raise_error(op, error)
    return first_out


def __getattr__(name):
    op = _BY_NAME.get(name)
    if op is None:
        raise AttributeError(f"module 'backplane.ops' has no op {name!r}")

    def bound(*args, **kwargs):
        return call(op, *args, **kwargs)
    bound.__name__ = name
    bound.__doc__ = f"{op}({', '.join(n for _, n in SIGNATURES[op])})"
    globals()[name] = bound  # later lookups skip __getattr__
    return bound
