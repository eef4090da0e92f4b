"""One rank of frameworks.torch_ddp's collective checks: every collective of
the backplane process group on this rank's device, with values whose
expected results are written out by hand. Prints "ok" when all match."""
import os

import torch
import torch.distributed as dist
import torch_backplane

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch_backplane.set_device(rank)
dev = f"privateuseone:{rank}"
dist.init_process_group("backplane")
assert world == 2

t = torch.tensor([1.0, 2.0], device=dev) * (rank + 1)
dist.all_reduce(t)
assert t.cpu().tolist() == [3.0, 6.0], t
m = torch.tensor([5.0 if rank == 0 else 1.0, 2.0 if rank == 0 else 7.0],
                 device=dev)
dist.all_reduce(m, op=dist.ReduceOp.MAX)
assert m.cpu().tolist() == [5.0, 7.0], m
i = torch.tensor([rank + 1], dtype=torch.int64, device=dev)
dist.all_reduce(i, op=dist.ReduceOp.PRODUCT)
assert i.cpu().tolist() == [2], i

b = torch.full((3,), float(rank), device=dev)
dist.broadcast(b, src=1)
assert b.cpu().tolist() == [1.0, 1.0, 1.0], b

outs = [torch.empty(2, device=dev) for _ in range(world)]
dist.all_gather(outs, torch.full((2,), float(rank + 4), device=dev))
assert [o.cpu().tolist() for o in outs] == [[4.0, 4.0], [5.0, 5.0]], outs

out = torch.empty(2, device=dev)
dist.reduce_scatter(out, [torch.full((2,), float(r + 10 * rank), device=dev)
                          for r in range(world)])
# rank r receives the sum over ranks q of q's input r: r + 10 * q.
assert out.cpu().tolist() == [float(rank + rank + 10)] * 2, out

work = dist.all_reduce(torch.ones(4, device=dev), async_op=True)
work.wait()
torch_backplane.synchronize(rank)
assert work.is_completed() and work.is_success()
dist.barrier()
dist.destroy_process_group()
print("ok")
