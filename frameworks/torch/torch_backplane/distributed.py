"""torch.distributed backend "backplane": collectives over bp_comm on the
device of the process (torch_backplane.set_device(local_rank) before
init_process_group, as with NCCL and torch.cuda.set_device)."""
import torch.distributed as dist

from . import _C

NAME = "backplane"


def _create(store, rank, world_size, timeout):
    return _C.ProcessGroupBackplane(store, rank, world_size)


if not hasattr(dist.Backend, NAME.upper()):
    dist.Backend.register_backend(NAME, _create)
