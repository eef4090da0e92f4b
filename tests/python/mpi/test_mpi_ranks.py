"""Run under `mpirun -np 2 python -m pytest` (CTest does): each process is
one rank on its own vcpu device, joined through init_mpi's file exchange."""
import os

import numpy as np
import pytest

import backplane

if "OMPI_COMM_WORLD_SIZE" not in os.environ:
    pytest.skip("needs mpirun", allow_module_level=True)

RANK = int(os.environ["OMPI_COMM_WORLD_RANK"])
SIZE = int(os.environ["OMPI_COMM_WORLD_SIZE"])


@pytest.fixture(scope="module")
def comm():
    vcpus = [d for d in backplane.devices() if d.type == "vcpu"]
    device = vcpus[RANK % len(vcpus)]
    return backplane.comm.init_mpi(device, os.environ["BP_TEST_UID_DIR"])


def test_rank_and_size(comm):
    assert (comm.rank, comm.size) == (RANK, SIZE)


def test_all_reduce_across_processes(comm):
    t = backplane.from_numpy(np.full(1000, RANK + 1, np.float32), comm.device)
    comm.all_reduce(t)
    expected = SIZE * (SIZE + 1) / 2
    assert (backplane.to_numpy(t) == expected).all()
    comm.async_error()


def test_broadcast_and_all_gather_across_processes(comm):
    t = backplane.from_numpy(np.full(4, RANK, np.int64), comm.device)
    comm.broadcast(t, root=SIZE - 1)
    assert (backplane.to_numpy(t) == SIZE - 1).all()
    send = backplane.from_numpy(np.full(2, RANK, np.int32), comm.device)
    recv = backplane.empty((2 * SIZE,), "int32", comm.device)
    comm.all_gather(send, recv)
    assert backplane.to_numpy(recv).tolist() == [r for r in range(SIZE)
                                                 for _ in range(2)]
