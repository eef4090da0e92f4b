"""Writes backplane/_op_signatures.py and backplane/ops.pyi from
backplane/diopi/functions.h and functions_backplane.h (Backplane's own ops),
so every op the headers declare appears in backplane.ops with its own
signature, docstring and type stub.

Usage: gen_op_signatures.py HEADER... SIGNATURES_PY OPS_PYI

Each op declared `DIOPI_API diopiError_t diopiName(params);` becomes, in
SIGNATURES, "diopiName": ((kind, name), ...) with the context parameter left
out, where kind is the C type with whitespace normalized
("diopiTensorHandle_t", "const diopiScalar_t *", ...); backplane.ops
marshals arguments by kind. SECTIONS gives each op the header's section
comment above it ("Arithmetic"), PYTHON_NAMES its snake_case name in
backplane.ops ("add_inp_scalar"), OPTIONAL_KINDS the kinds a caller may leave
out (NULL), OPTIONAL which parameters have a default
(None), PYTHON_TYPES their Python types (host outputs and the counts of
tensor lists, filled in from the list, left out), RETURNS the
Python type of the value an op writes on the host (diopiEqual's bool). ALLOCATING lists the ops that also have an
out-of-place form: a single output `out` first, the other parameters inputs
of the same shape rules as elementwise ops (input, other, alpha, ...), so
the result has the broadcast shape of the input tensors. CREATES lists the
ops that create their output tensor themselves (`diopiTensorHandle_t *out`,
allocated through the context: diopiMaskedSelect): `out` is not a
parameter; the function returns that tensor, or copies it into a keyword
`out=` tensor.
"""
import keyword
import re
import sys

# Parameter kinds a caller may leave out (passed as NULL).
OPTIONAL = {"const diopiScalar_t *", "const int64_t *", "diopiSize_t *",
            "diopiGeneratorHandle_t", "const double *", "const bool *"}
# Kinds through which an op writes a host value back (diopiEqual's bool *,
# diopiClipGradNorm's double *), with the Python type of that value: not a
# parameter in Python; the function returns the value (RETURNS).
HOST_OUTPUTS = {"double *": "float", "bool *": "bool"}
# Spellings that mean the same to a caller: a const on a by-value parameter,
# a scalar pointer the op only reads.
SAME_KIND = {"const diopiSize_t": "diopiSize_t",
             "const diopiConstTensorHandle_t": "diopiConstTensorHandle_t",
             "const int64_t": "int64_t", "const double": "double",
             "const float": "float", "const bool": "bool",
             "diopiScalar_t *": "const diopiScalar_t *"}
# The Python type each kind takes, for the stubs and docstrings.
PYTHON_TYPES = {
    "diopiTensorHandle_t": "Tensor",
    "diopiConstTensorHandle_t": "Tensor",
    "diopiGeneratorHandle_t": "Optional[Generator]",
    "diopiSize_t": "Sequence[int]",
    "diopiSize_t *": "Optional[Sequence[int]]",
    "int64_t": "int",
    "const int64_t *": "Optional[int]",
    "const double *": "Optional[float]",
    "const bool *": "Optional[bool]",
    "int32_t": "int",
    "bool": "bool",
    "double": "float",
    "float": "float",
    "const diopiScalar_t *": "Optional[Union[int, float]]",
    "const char *": "Optional[str]",
    "diopiConstTensorHandle_t *": "Sequence[Tensor]",
    "diopiTensorHandle_t *": "Sequence[Tensor]",
    "diopiReduction_t": "Union[str, int]",
    "diopiRoundMode_t": "Union[str, int]",
    "diopiMemoryFormat_t": "Union[str, int]",
}
# Parameter names of elementwise inputs (see ALLOCATING above).
ELEMENTWISE_INPUTS = {"input", "other", "alpha", "rounding_mode",
                      "approximate"}


def parse(text):
    """({op: params}, {op: section}) of the header's text."""
    ops, sections = {}, {}
    section = ""
    pattern = re.compile(r"/\*\s*(.*?)\s*\*/|DIOPI_API\s+diopiError_t\s+"
                         r"(\w+)\s*\((.*?)\)\s*;", re.S)
    for m in pattern.finditer(text):
        if m.group(1) is not None:
            # A section's comment is short (a few lines at most); the
            # header's preamble and ruler lines are not sections.
            text = " ".join(m.group(1).replace("*", " ").split())
            if len(text) < 200 and not text.startswith("-"):
                section = text.rstrip(".")
            continue
        name, params = m.group(2), []
        for p in m.group(3).split(","):
            p = " ".join(re.sub(r"/\*.*?\*/", "", p, flags=re.S).split())
            pm = re.match(r"(.*?)\s*(\w+)$", p)
            if pm is None:
                raise SystemExit(f"{name}: cannot parse parameter {p!r}")
            kind = re.sub(r"\s*\*", " *", pm.group(1).strip())
            kind = SAME_KIND.get(kind, kind)
            if (kind != "diopiContextHandle_t" and kind not in PYTHON_TYPES
                    and kind not in HOST_OUTPUTS):
                raise SystemExit(f"{name}: unknown parameter type {kind!r}")
            # A Python keyword (diopiUniformInp's `from`) takes a trailing
            # underscore, as PEP 8 suggests.
            pname = pm.group(2) + ("_" if keyword.iskeyword(pm.group(2)) else "")
            params.append((kind, pname))
        if not params or params[0][0] != "diopiContextHandle_t":
            raise SystemExit(f"{name}: the context is not first")
        ops[name] = tuple(params[1:])
        sections[name] = section
    if not ops:
        raise SystemExit("no DIOPI_API op found")
    return ops, sections


def is_list_count(params, i):
    """Whether parameter i is the count of the tensor list before it (the
    length of the list the caller passes)."""
    return (params[i][0] == "int64_t" and i > 0 and
            params[i - 1][0].endswith("TensorHandle_t *"))


# An output tensor the op creates itself (through the context), where other
# `diopiTensorHandle_t *` parameters are tensor lists.
CREATED_OUTPUT = ("diopiTensorHandle_t *", "out")


def creates(params):
    """Whether the op creates its output tensor itself."""
    return CREATED_OUTPUT in params


def visible(params):
    """The parameters a Python caller passes: all but host outputs, list
    counts and an output the op creates."""
    return tuple(p for i, p in enumerate(params)
                 if p[0] not in HOST_OUTPUTS and not is_list_count(params, i)
                 and p != CREATED_OUTPUT)


def returns(params):
    """The Python type of the op's host output, or None."""
    return next((HOST_OUTPUTS[k] for k, _ in params if k in HOST_OUTPUTS),
                None)


def snake(name):
    """diopiAddInpScalar -> add_inp_scalar (backplane.ops' names)."""
    name = name[len("diopi"):]
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z][a-z])|(?<=[A-Z])(?=[A-Z][a-z])",
                  "_", name)
    return name.lower()


def optional_flags(params):
    """Whether each parameter may be left out: an optional kind. Only a
    trailing run of them gets a default, so the signature stays
    positional."""
    flags = [kind in OPTIONAL for kind, _ in params]
    for i in range(len(flags) - 1, -1, -1):
        if not flags[i]:
            flags[:i] = [False] * i
            break
    return flags


# Sections whose ops are not elementwise even with elementwise names
# (diopiMatmul's input and other, diopiCastDtype's dtype change).
NOT_ELEMENTWISE = re.compile(r"product|memory|shape", re.I)


def python_type(kind, name):
    """A parameter's Python type; tensors named like optional ones (bias,
    running statistics) may be None."""
    if kind == "diopiConstTensorHandle_t" and re.search(r"bias|running",
                                                        name):
        return "Optional[Tensor]"
    if kind == "diopiConstTensorHandle_t *" and name == "indices":
        return "Sequence[Optional[Tensor]]"  # None: a dim not indexed
    return PYTHON_TYPES[kind]


def allocating(params, section):
    return (bool(params) and params[0] == ("diopiTensorHandle_t", "out") and
            not NOT_ELEMENTWISE.search(section) and
            all(n in ELEMENTWISE_INPUTS for _, n in params[1:]) and
            any(k == "diopiConstTensorHandle_t" for k, _ in params[1:]))


def python_params(params):
    return ", ".join(f"{n}: {python_type(k, n)}" + (" = ..." if opt else "")
                     for (k, n), opt in zip(params, optional_flags(params)))


def write_signatures(path, ops, sections):
    lines = ['"""Generated by python/tools/gen_op_signatures.py from',
             'backplane/diopi/functions*.h: each op\'s parameters after the',
             'context, as (C type, name); its section of the header; the ops',
             'with an out-of-place form, and those creating their output. Do',
             'not edit."""', "",
             "SIGNATURES = {"]
    lines += [f"    {n!r}: {ops[n]!r}," for n in sorted(ops)]
    lines += ["}", "", "PYTHON_NAMES = {"]
    lines += [f"    {n!r}: {snake(n)!r}," for n in sorted(ops)]
    lines += ["}", "", f"OPTIONAL_KINDS = frozenset({sorted(OPTIONAL)!r})"]
    lines += ["", "# Host-output kinds: the op writes the value the function",
              "# returns (not a Python parameter).",
              f"HOST_OUTPUTS = {HOST_OUTPUTS!r}"]
    lines += ["", "RETURNS = {"]
    lines += [f"    {n!r}: {returns(ops[n])!r}," for n in sorted(ops)
              if returns(ops[n])]
    lines += ["}"]
    lines += ["", "SECTIONS = {"]
    lines += [f"    {n!r}: {sections[n]!r}," for n in sorted(ops)]
    lines += ["}", "", "OPTIONAL = {"]
    lines += [f"    {n!r}: {tuple(optional_flags(visible(ops[n])))!r},"
              for n in sorted(ops)]
    lines += ["}", "", "PYTHON_TYPES = {"]
    lines += [f"    {n!r}: "
              f"{tuple(python_type(k, p) for k, p in visible(ops[n]))!r},"
              for n in sorted(ops)]
    lines += ["}", "", "ALLOCATING = frozenset({"]
    lines += [f"    {n!r}," for n in sorted(ops)
              if allocating(ops[n], sections[n])]
    lines += ["})", "", "CREATES = frozenset({"]
    lines += [f"    {n!r}," for n in sorted(ops) if creates(ops[n])]
    lines += ["})"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_stub(path, ops, sections):
    lines = ['"""Typed stubs of backplane.ops, generated by',
             'python/tools/gen_op_signatures.py from backplane/diopi/',
             'functions*.h. Do not edit."""',
             "from typing import (Any, Callable, Dict, List, Optional, "
             "Sequence, Union,", "                    overload)", "",
             "from ._backplane import Generator, OpsLibrary, Tensor", "",
             "def call(name: str, *args: Any, **kwargs: Any) -> Any: ...",
             "def library() -> OpsLibrary: ...",
             "def load(path: str) -> OpsLibrary: ...",
             "def names() -> List[str]: ...", ""]
    for name in sorted(ops):
        params = visible(ops[name])
        py = snake(name)
        if allocating(params, sections[name]):
            lines += ["@overload",
                      f"def {py}({python_params(params)}) -> Tensor: ...",
                      "@overload",
                      f"def {py}({python_params(params[1:])}) -> Tensor: ..."]
        elif creates(ops[name]):
            lines.append(f"def {py}({python_params(params)}, *, "
                         "out: Optional[Tensor] = ...) -> Tensor: ...")
        else:
            result = returns(ops[name]) or "Any"
            lines.append(f"def {py}({python_params(params)}) -> {result}: ...")
        lines.append(f"{name} = {py}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    *headers, signatures, stub = sys.argv[1:]
    ops, sections = {}, {}
    for header in headers:
        with open(header) as f:
            more_ops, more_sections = parse(f.read())
        ops.update(more_ops)
        sections.update(more_sections)
    write_signatures(signatures, ops, sections)
    write_stub(stub, ops, sections)


if __name__ == "__main__":
    main()
