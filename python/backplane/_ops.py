"""backplane.ops' machinery: marshalling arguments through ctypes to the
loaded DIOPI library, and one Python function per op. It lives apart from
backplane.ops so that op names (sum, max, ...) never shadow the built-ins
this code calls."""
import ctypes
import inspect
import os

from . import _backplane
from ._op_signatures import (ALLOCATING, CREATES, HOST_OUTPUTS, OPTIONAL,
                             OPTIONAL_KINDS, PYTHON_NAMES, PYTHON_TYPES,
                             RETURNS, SECTIONS, SIGNATURES)


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
    "const double *": ctypes.POINTER(ctypes.c_double),
    "const bool *": ctypes.POINTER(ctypes.c_bool),
    "int32_t": ctypes.c_int32,
    "bool": ctypes.c_bool,
    "double": ctypes.c_double,
    "float": ctypes.c_float,
    "const diopiScalar_t *": ctypes.POINTER(_Scalar),
    "const char *": ctypes.c_char_p,
    "diopiConstTensorHandle_t *": ctypes.POINTER(ctypes.c_void_p),
    "diopiTensorHandle_t *": ctypes.POINTER(ctypes.c_void_p),
    "bool *": ctypes.POINTER(ctypes.c_bool),
    "double *": ctypes.POINTER(ctypes.c_double),
    "diopiReduction_t": ctypes.c_int,
    "diopiRoundMode_t": ctypes.c_int,
    "diopiMemoryFormat_t": ctypes.c_int,
}
# The ctypes type of each host output's value.
_HOST_VALUES = {"bool *": ctypes.c_bool, "double *": ctypes.c_double}
_LISTS = ("diopiConstTensorHandle_t *", "diopiTensorHandle_t *")
_BY_NAME = dict(zip(SIGNATURES, SIGNATURES))
_BY_NAME.update((snake, op) for op, snake in PYTHON_NAMES.items())


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


def _is_list_count(params, i):
    return (params[i][0] == "int64_t" and i > 0 and
            params[i - 1][0] in _LISTS)


# An output tensor the op creates itself, through the context (CREATES).
_CREATED_OUTPUT = ("diopiTensorHandle_t *", "out")


def _visible(params):
    """The parameters a caller passes: host outputs and a created output
    are returned, a tensor list's count is its length."""
    return tuple(p for i, p in enumerate(params)
                 if p[0] not in HOST_OUTPUTS and not _is_list_count(params, i)
                 and p != _CREATED_OUTPUT)


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
    for kind, pname in params:
        if pname not in values and kind not in OPTIONAL_KINDS:
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
    target = kwargs.pop("out", None) if op in CREATES else None
    if target is not None and not isinstance(target, _backplane.Tensor):
        raise TypeError(f"{op}: out must be a backplane.Tensor, not "
                        f"{type(target).__name__}")
    values = _bind(op, _visible(params), args, kwargs)
    fn = _function(op)
    ctx = _backplane.OpsContext(_device_of(values))
    keep = []  # ctypes objects that must outlive the call
    passed = {}  # handle -> Tensor, of every tensor argument
    cargs = [ctx.handle]
    first_out = host_out = created = None
    for i, (kind, pname) in enumerate(params):
        v = values.get(pname)
        if (kind, pname) == _CREATED_OUTPUT:  # the op fills in the handle
            created = ctypes.c_void_p()
            cargs.append(ctypes.pointer(created))
        elif kind in ("diopiTensorHandle_t", "diopiConstTensorHandle_t"):
            if kind == "diopiTensorHandle_t" and first_out is None:
                first_out = v
            cargs.append(None if v is None else _use(ctx, v, passed))
        elif kind in _LISTS:  # a list (diopiCat); its count follows it
            handles = (ctypes.c_void_p * max(len(v), 1))(
                *[None if t is None else _use(ctx, t, passed) for t in v])
            keep.append(handles)
            cargs.append(handles)
            if i + 1 < len(params) and _is_list_count(params, i + 1):
                values[params[i + 1][1]] = len(v)
        elif kind in _HOST_VALUES:  # the op writes the value returned
            host_out = _HOST_VALUES[kind]()
            cargs.append(ctypes.pointer(host_out))
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
        elif kind == "const double *":
            cargs.append(None if v is None else
                         ctypes.pointer(ctypes.c_double(float(v))))
        elif kind == "const bool *":
            cargs.append(None if v is None else
                         ctypes.pointer(ctypes.c_bool(bool(v))))
        elif kind == "const char *":
            cargs.append(None if v is None else str(v).encode())
        elif kind == "diopiGeneratorHandle_t":
            cargs.append(None if v is None else v.handle)
        elif kind in _ENUMS:
            cargs.append(_ENUMS[kind][v] if isinstance(v, str) else int(v))
        else:  # int64_t, int32_t, bool, double, float
            cargs.append(v)
    error = fn(*cargs)
    if error == 0 and created is not None:
        first_out = _created(op, ctx, created.value, passed)
    del ctx  # scratch goes back to the allocator in stream order
    if error != 0:
        library().raise_error(op, error, [n for _, n in params])
    if target is not None:
        return _copy_into(op, target, first_out)
    return host_out.value if host_out is not None else first_out


def _use(ctx, tensor, passed):
    """The DIOPI handle of a tensor argument, noted in passed."""
    handle = ctx.use(tensor)
    passed[handle] = tensor
    return handle


def _created(op, ctx, handle, passed):
    """The Tensor an op created through ctx (taken from it: the Tensor
    owns the memory); an argument the op handed back as its output is
    that argument."""
    if not handle:
        raise _backplane.PluginError(
            f"{op}: the op succeeded without creating its output 'out'")
    if handle in passed:
        return passed[handle]
    return ctx.take(handle)


def _copy_into(op, target, result):
    """out=target: the created result copied into target, which must have
    its shape and dtype; returns target."""
    if target.shape != result.shape or target.dtype != result.dtype:
        raise _backplane.InvalidArgumentError(
            f"{op}: out: {target.dtype} {list(target.shape)} given, the "
            f"result is {result.dtype} {list(result.shape)}")
    if result.numel:
        call("diopiCopyInp", result, target)
    return target


def _allocate_out(op, args, kwargs):
    """The result tensor of an out-of-place call: the broadcast shape of the
    input tensors, the first one's dtype and device."""
    import numpy
    tensors = [v for v in list(args) + list(kwargs.values())
               if isinstance(v, _backplane.Tensor)]
    if not tensors:
        raise TypeError(f"{op}: no input tensor to shape the result by")
    try:
        shape = numpy.broadcast_shapes(*(t.shape for t in tensors))
    except ValueError:
        raise _backplane.InvalidArgumentError(
            f"{op}: the input shapes "
            f"{', '.join(str(t.shape) for t in tensors)} do not broadcast"
        ) from None
    return _backplane.empty(shape, tensors[0].dtype, tensors[0].device)


def _make(op):
    params = _visible(SIGNATURES[op])
    snake = PYTHON_NAMES[op]
    allocating = op in ALLOCATING
    required = [name for (_, name), optional in zip(params, OPTIONAL[op])
                if not optional]

    def fn(*args, **kwargs):
        # Out-of-place when the required parameters are one short (no out).
        given = len(args) + sum(name in kwargs for name in required[1:])
        if allocating and "out" not in kwargs and given < len(required):
            out = _allocate_out(op, args, kwargs)
            call(op, out, *args, **kwargs)
            return out
        return call(op, *args, **kwargs)

    parameters = [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=None if optional else
                          inspect.Parameter.empty, annotation=py_type)
        for (_, name), optional, py_type in zip(params, OPTIONAL[op],
                                                PYTHON_TYPES[op])]
    if op in CREATES:  # out=: where the created tensor is copied
        parameters.append(inspect.Parameter(
            "out", inspect.Parameter.KEYWORD_ONLY, default=None,
            annotation="Optional[Tensor]"))
    fn.__signature__ = inspect.Signature(
        parameters, return_annotation="Tensor" if op in CREATES else
        RETURNS.get(op, inspect.Signature.empty))
    fn.__name__ = fn.__qualname__ = snake
    fn.__module__ = "backplane.ops"
    lines = [f"{op} ({SECTIONS[op] or 'DIOPI'}): enqueues the op on the "
             f"active stream of its tensors' device.", ""]
    lines += [f"    {name}: {py_type} ({kind})" for (kind, name), py_type
              in zip(params, PYTHON_TYPES[op])]
    if op in CREATES:
        lines += ["", "Returns the tensor the op creates (through the "
                  "context; its shape may depend on the values), on the "
                  "inputs' device; out=TENSOR (keyword only) copies it into "
                  "TENSOR instead, which needs its shape and dtype, and "
                  "returns TENSOR."]
    elif op in RETURNS:
        lines += ["", f"Returns the {RETURNS[op]} the op computes (on the "
                  "host, when the call returns)."]
    else:
        lines += ["", "Returns the first output tensor."]
    if allocating:
        lines += [f"Out-of-place: {snake}({', '.join(n for _, n in params[1:])})"
                  " allocates out (the inputs' broadcast shape, the first "
                  "input's dtype and device) and returns it."]
    fn.__doc__ = "\n".join(lines)
    return fn


def functions():
    """{name: function} for every op, under its DIOPI and snake_case
    names."""
    table = {}
    for op in SIGNATURES:
        table[op] = table[PYTHON_NAMES[op]] = _make(op)
    return table
