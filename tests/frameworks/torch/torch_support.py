"""What every PyTorch bridge test shares: the environment Backplane reads
(set before torch_backplane is imported) and the skip (exit 77, CTest's
SKIP_RETURN_CODE) when torch or the bridge cannot be imported."""
import os
import sys

os.environ.setdefault("BACKPLANE_VCPU_DEVICES", "2")
os.environ.setdefault("BACKPLANE_VCPU_MEMORY", "256M")

try:
    import torch
    import torch_backplane
except ImportError as e:
    print(f"SKIP: torch or torch_backplane cannot be imported: {e}")
    sys.exit(77)

DEVICE = "privateuseone:0"
__all__ = ["torch", "torch_backplane", "DEVICE"]
