"""torch.distributed on Backplane: the "backplane" process-group backend
(collectives over bp_comm between two processes, one vcpu device each), and
the training script under DistributedDataParallel on it, whose losses match
the same script's DDP run on PyTorch's CPU with gloo within 1e-4 at every
step of an epoch. Each rank is a process started the way torchrun
starts them (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT).
One epoch each keeps the test short; the single-device test checks the
accuracy the full run reaches."""
import importlib.util
import json
import os
import socket
import subprocess
import sys
import unittest

# The ranks import torch; this process only looks for it (a torch start
# saved), and skips as torch_support does when torch or the bridge is absent.
MISSING = [name for name in ("torch", "torch_backplane")
           if importlib.util.find_spec(name) is None]
if MISSING:
    print(f"SKIP: {' and '.join(MISSING)} cannot be imported")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
WORLD = 2


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(args):
    """Starts WORLD ranks of `python args...`; returns the processes."""
    port = free_port()
    procs = []
    for rank in range(WORLD):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank),
                   WORLD_SIZE=str(WORLD), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable] + args, env=env,
                                      stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    return procs


def finish(procs, test):
    outputs = []
    for p in procs:
        out, err = p.communicate(timeout=100)
        test.assertEqual(p.returncode, 0, err[-3000:])
        outputs.append(out.strip().splitlines()[-1])
    return outputs


class DistributedTest(unittest.TestCase):
    def test_collectives_of_the_backplane_backend(self):
        outputs = finish(start([os.path.join(HERE, "ddp_collectives.py")]),
                         self)
        self.assertEqual(outputs, ["ok"] * WORLD)

    def test_ddp_training_matches_gloo_on_the_cpu(self):
        script = os.path.join(HERE, "train_digits.py")
        ours = start([script, "--device", "privateuseone", "--backend",
                      "backplane", "--json", "--epochs", "1"])
        gloo = start([script, "--device", "cpu", "--backend", "gloo",
                      "--json", "--epochs", "1"])
        ours = [json.loads(line) for line in finish(ours, self)]
        gloo = [json.loads(line) for line in finish(gloo, self)]
        for rank in range(WORLD):
            losses = ours[rank]["losses"]
            self.assertEqual(len(losses), len(gloo[rank]["losses"]))
            self.assertGreater(len(losses), 10)
            for step, (a, b) in enumerate(zip(losses, gloo[rank]["losses"])):
                self.assertAlmostEqual(a, b, delta=1e-4,
                                       msg=f"rank {rank} step {step + 1}")
            # It learns: the last steps' loss is below the first's.
            self.assertLess(sum(losses[-5:]) / 5, losses[0])


if __name__ == "__main__":
    unittest.main()
