"""Standard ops: any DIOPI op of the loaded operator library, by name.

    backplane.ops.add(out, a, b, alpha=1.0)          # diopiAdd
    backplane.ops.linear(out, x, w, b)               # diopiLinear
    backplane.ops.call("diopiAddInpScalar", t, other=2.0)

Names are the DIOPI names (``diopiAdd``) or their snake_case form without
the prefix (``add``, ``add_inp_scalar``, ``nll_loss``, ``adamw``): one
function per op of backplane/diopi/functions.h and functions_backplane.h,
generated at build time with the op's signature, docstring and type stub
(ops.pyi). Elementwise ops with
one output ``out`` also have an out-of-place form that allocates it:
``ops.add(a, b)`` returns a new tensor. An op that creates its output
itself (``diopiTensorHandle_t *out``: ``masked_select``, ``nonzero``,
``index``, ``contiguous``) allocates it through the call's context and
returns it as a Tensor that owns the memory (``ops.masked_select(x, m)``);
``out=t`` copies it into ``t`` (same shape and dtype) instead.
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
from ._op_signatures import PYTHON_NAMES as _PYTHON_NAMES
from ._ops import call, functions as _functions, library, load, names

__all__ = ["call", "library", "load", "names"]
__all__ += sorted(_PYTHON_NAMES) + sorted(_PYTHON_NAMES.values())
globals().update(_functions())
