"""Collectives: communicators over any plugin's xccl functions (NCCL's
semantics, docs/collectives.md).

One process, several devices::

    comms = backplane.comm.init_all(backplane.devices())
    with backplane.comm.group():          # one thread drives every rank
        for c, t in zip(comms, tensors):
            c.all_reduce(t)               # in place, sum

Several processes (rank r of n; the id's bytes travel by any means)::

    uid = backplane.comm.unique_id(dev)   # on rank 0, then share it
    c = backplane.comm.init_rank(dev, n, r, uid)

Under ``mpirun``, init_mpi() does the exchange through a file.
Collectives are enqueued on the active stream of the communicator's device
and return at once; synchronize the stream (or device) before reading, then
async_error() reports a failure that happened later.
"""
import contextlib
import os
import time

from . import _backplane
from ._backplane import Comm

__all__ = ["Comm", "group", "init_all", "init_mpi", "init_rank", "unique_id"]


def unique_id(device):
    """A fresh unique id (bytes) from device's plugin."""
    return _backplane.comm_unique_id(device)


def init_all(devices):
    """One communicator per device (one plugin), rank i on devices[i]."""
    return _backplane.comm_init_all(list(devices))


def init_rank(device, nranks, rank, uid):
    """Rank `rank` of `nranks` on `device`, from unique_id()'s bytes."""
    return Comm(device, nranks, uid, rank)


@contextlib.contextmanager
def group():
    """Calls inside are issued together at the end (per thread, nestable),
    so one thread can drive several ranks and sends/recvs never block each
    other."""
    _backplane.comm_group_start()
    try:
        yield
    finally:
        _backplane.comm_group_end()


def init_mpi(device, directory, timeout=60.0):
    """This process's rank of an `mpirun` job (Open MPI's
    OMPI_COMM_WORLD_RANK/SIZE): rank 0 writes a fresh unique id to a file in
    `directory` named after the job, the others wait for it. `directory`
    must be visible to every rank (one host: any local directory)."""
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    size = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    job = (os.environ.get("PMIX_NAMESPACE") or
           os.environ.get("OMPI_MCA_ess_base_jobid") or "job")
    path = os.path.join(directory, "backplane-uid-" + job.replace("/", "_"))
    if rank == 0:
        uid = unique_id(device)
        with open(path + ".tmp", "wb") as f:
            f.write(uid)
        os.replace(path + ".tmp", path)  # readers see it whole or not at all
    else:
        deadline = time.monotonic() + timeout
        while not os.path.exists(path):
            if time.monotonic() > deadline:
                raise TimeoutError(f"backplane.comm.init_mpi: no {path} "
                                   f"from rank 0 after {timeout} s")
            time.sleep(0.01)
        with open(path, "rb") as f:
            uid = f.read()
    return init_rank(device, size, rank, uid)
