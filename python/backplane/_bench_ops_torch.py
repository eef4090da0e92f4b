"""PyTorch's side of `backplane bench ops`: times the same op cases on the
CPU with the same thread count, in the same run. Run by the bench
(tools/backplane/bench/bench_ops.c, with BACKPLANE_PYTHON) by path, so the
baseline process never imports the backplane package:
    python .../backplane/_bench_ops_torch.py THREADS REPS [--no-isa] < cases
where each line of `cases` is "NAME OP NINPUTS SPEC..." (the tensors, inputs
first, as tools/backplane/bench/bench_ops_cases.h describes their specs).
Prints one line per case: "NAME SECONDS..." (REPS timings, after 20 ms of
warm-up calls), and PyTorch's instruction sets on stderr unless --no-isa (the
bench runs the script once per round). Exits 3 if torch cannot be imported
(the bench then reports no PyTorch baseline).
"""
import os
import sys
import time
import warnings

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit(3)


def tensor(spec, seed):
    """A tensor as bench_ops_cases.h's spec KIND:DIM,... describes it."""
    kind, dims = spec.split(":")
    shape = [int(d) for d in dims.split(",")] if dims else []
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(shape, generator=g)
    if kind == "b":
        return u < 0.5
    if kind.startswith("i"):
        return torch.randint(0, int(kind[1:]), shape, generator=g)
    if kind == "n":
        return torch.randint(0, 1024, shape, generator=g, dtype=torch.int32)
    if kind == "p":
        return u + 0.5
    if kind == "h":
        return 0.001 + 0.998 * u
    return 2 * u - 1


def adam_step(i, weight_decay, cls):
    """One optimizer step of torch.optim's single-tensor implementation on
    (param, grad): PyTorch's optimizers keep their own state."""
    p = torch.nn.Parameter(i[0])
    p.grad = i[1]
    opt = cls([p], lr=1e-3, weight_decay=weight_decay, foreach=False)
    opt.step()
    return opt.step


def silu_out(i, o):
    return torch._C._nn.silu(i[0], out=o[0])


def rms_norm(i, o):
    """torch 1.13 has no rms_norm: the composed form."""
    x = i[0]
    inv = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    return torch.mul(x * inv, i[1], out=o[0])


def attention(i, o):
    """torch 1.13 has no scaled_dot_product_attention: the composed
    matmul-softmax-matmul on (B, S, H, D) tensors viewed as (B, H, S, D)."""
    q, k, v = (t.transpose(1, 2) for t in i)
    p = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.125, -1)
    return torch.matmul(p, v, out=o[0].view(2, 8, 512, 64))


def attention_dropout(i, o):
    """attention() with dropout 0.1 on the probabilities."""
    q, k, v = (t.transpose(1, 2) for t in i)
    p = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.125, -1)
    return torch.matmul(F.dropout(p, 0.1, True), v,
                        out=o[0].view(2, 8, 512, 64))


OPS = {
    "mm": lambda i, o: torch.mm(i[0], i[1], out=o[0]),
    "add": lambda i, o: torch.add(i[0], i[1], out=o[0]),
    "add_bcast": lambda i, o: torch.add(i[0], i[1], out=o[0]),
    "sub": lambda i, o: torch.sub(i[0], i[1], out=o[0]),
    "mul": lambda i, o: torch.mul(i[0], i[1], out=o[0]),
    "mul_bcast": lambda i, o: torch.mul(i[0], i[1], out=o[0]),
    "div": lambda i, o: torch.div(i[0], i[1], out=o[0]),
    "maximum": lambda i, o: torch.maximum(i[0], i[1], out=o[0]),
    "pow_tensor": lambda i, o: torch.pow(i[0], i[1], out=o[0]),
    "relu": lambda i, o: torch.clamp(i[0], min=0, out=o[0]),
    "copy": lambda i, o: o[0].copy_(i[0]),
    "softmax": lambda i, o: torch._softmax(i[0], -1, False, out=o[0]),
    "log_softmax": lambda i, o: torch._log_softmax(i[0], -1, False, out=o[0]),
    "sum": lambda i, o: torch.sum(i[0], 0, out=o[0]),
    "conv2d": lambda i, o: F.conv2d(i[0], i[1], padding=1),
    "layer_norm": lambda i, o: F.layer_norm(i[0], i[0].shape[-1:]),
    "silu": silu_out,
    "hardswish": lambda i, o: torch._C._nn.hardswish(i[0], out=o[0]),
    "gelu": lambda i, o: torch._C._nn.gelu(i[0], out=o[0]),
    "leaky_relu": lambda i, o: torch._C._nn.leaky_relu(i[0], 0.01, out=o[0]),
    "hardtanh": lambda i, o: torch._C._nn.hardtanh(i[0], -1.0, 1.0, out=o[0]),
    "threshold": lambda i, o: torch.threshold(i[0], 0.1, 20.0, out=o[0]),
    "clamp": lambda i, o: torch.clamp(i[0], -0.5, 0.5, out=o[0]),
    "clamp_min": lambda i, o: torch.clamp(i[0], min=0.0, out=o[0]),
    "pow": lambda i, o: torch.pow(i[0], 2.0, out=o[0]),
    "mul_scalar": lambda i, o: torch.mul(i[0], 1.5, out=o[0]),
    "add_scalar": lambda i, o: torch.add(i[0], 1.5, out=o[0]),
    "where": lambda i, o: torch.where(i[0], i[1], i[2]),
    "masked_fill": lambda i, o: o[0].copy_(i[0]).masked_fill_(i[1], 0.0),
    "addcmul": lambda i, o: torch.addcmul(i[0], i[1], i[2], value=0.5,
                                          out=o[0]),
    "addcdiv": lambda i, o: torch.addcdiv(i[0], i[1], i[2], value=0.5,
                                          out=o[0]),
    "lerp": lambda i, o: torch.lerp(i[0], i[1], 0.3, out=o[0]),
    "clamp_tensor": lambda i, o: torch.clamp(i[0], i[1], i[2], out=o[0]),
    "eq": lambda i, o: torch.eq(i[0], i[1], out=o[0]),
    "lt": lambda i, o: torch.lt(i[0], i[1], out=o[0]),
    "ge_scalar": lambda i, o: torch.ge(i[0], 0.0, out=o[0]),
    "logical_and": lambda i, o: torch.logical_and(i[0], i[1], out=o[0]),
    "logical_not": lambda i, o: torch.logical_not(i[0], out=o[0]),
    "bitwise_and": lambda i, o: torch.bitwise_and(i[0], i[1], out=o[0]),
    "isnan": lambda i, o: torch.isnan(i[0]),
    "sum_last": lambda i, o: torch.sum(i[0], -1, out=o[0]),
    "sum_all": lambda i, o: torch.sum(i[0]),
    "mean": lambda i, o: torch.mean(i[0], -1, out=o[0]),
    "max_dim": lambda i, o: torch.max(i[0], -1, out=(o[0], o[1])),
    "min_dim": lambda i, o: torch.min(i[0], -1, out=(o[0], o[1])),
    "amax": lambda i, o: torch.amax(i[0], -1, out=o[0]),
    "argmax": lambda i, o: torch.argmax(i[0], -1, out=o[0]),
    "max_all": lambda i, o: torch.max(i[0]),
    "min_all": lambda i, o: torch.min(i[0]),
    "prod": lambda i, o: torch.prod(i[0], -1, out=o[0]),
    "any": lambda i, o: torch.any(i[0], -1, out=o[0]),
    "all": lambda i, o: torch.all(i[0], -1, out=o[0]),
    "norm": lambda i, o: torch.norm(i[0], 2, -1, out=o[0]),
    "vector_norm_inf": lambda i, o: torch.linalg.vector_norm(
        i[0], float("inf"), -1, out=o[0]),
    "std": lambda i, o: torch.std(i[0], -1, out=o[0]),
    "var": lambda i, o: torch.var(i[0], -1, out=o[0]),
    "logsumexp": lambda i, o: torch.logsumexp(i[0], -1, out=o[0]),
    "cumsum": lambda i, o: torch.cumsum(i[0], -1, out=o[0]),
    "topk": lambda i, o: torch.topk(i[0], 16, -1, out=(o[0], o[1])),
    "sort": lambda i, o: torch.sort(i[0], -1, out=(o[0], o[1])),
    "group_norm": lambda i, o: F.group_norm(i[0], 8, i[1], i[2]),
    "rms_norm": rms_norm,
    "avg_pool2d": lambda i, o: F.avg_pool2d(i[0], 3, 2, 1),
    "max_pool2d": lambda i, o: F.max_pool2d(i[0], 3, 2, 1),
    "adaptive_max_pool2d": lambda i, o: F.adaptive_max_pool2d(i[0], 7),
    "adaptive_avg_pool2d": lambda i, o: F.adaptive_avg_pool2d(i[0], 7),
    "upsample_nearest": lambda i, o: F.interpolate(i[0], (130, 130)),
    "upsample_bilinear": lambda i, o: F.interpolate(
        i[0], (130, 130), mode="bilinear", align_corners=False),
    "pad_constant": lambda i, o: F.pad(i[0], (1, 1, 1, 1)),
    "pad_reflect": lambda i, o: F.pad(i[0], (1, 1, 1, 1), mode="reflect"),
    "pad_replicate": lambda i, o: F.pad(i[0], (1, 1, 1, 1), mode="replicate"),
    "stack": lambda i, o: torch.stack(i, 0, out=o[0]),
    "split": lambda i, o: [t.contiguous() for t in torch.split(i[0], 1536, -1)],
    "expand": lambda i, o: o[0].copy_(i[0].expand(o[0].shape)),
    "repeat": lambda i, o: i[0].repeat(1, 1, 2, 2),
    "flip": lambda i, o: torch.flip(i[0], (-1,)),
    "roll": lambda i, o: torch.roll(i[0], 1, -1),
    "tril": lambda i, o: torch.tril(i[0], out=o[0]),
    "triu": lambda i, o: torch.triu(i[0], out=o[0]),
    "one_hot": lambda i, o: F.one_hot(i[0], 1000),
    "arange": lambda i, o: torch.arange(0, 1 << 20, 1, out=o[0]),
    "linspace": lambda i, o: torch.linspace(0, 1, 1 << 20, out=o[0]),
    "fill": lambda i, o: o[0].fill_(1.5),
    "eye": lambda i, o: torch.eye(2048, out=o[0]),
    "gather": lambda i, o: torch.gather(i[0], -1, i[1], out=o[0]),
    "index_select": lambda i, o: torch.index_select(i[0], 0, i[1], out=o[0]),
    "embedding": lambda i, o: F.embedding(i[1], i[0]),
    "scatter": lambda i, o: o[0].copy_(i[0]).scatter_(-1, i[2], i[1]),
    "scatter_add": lambda i, o: o[0].copy_(i[0]).scatter_add_(-1, i[2], i[1]),
    "index_put_acc": lambda i, o: o[0].copy_(i[0]).index_put_(
        (i[2],), i[1], accumulate=True),
    "masked_select": lambda i, o: torch.masked_select(i[0], i[1]),
    "nonzero": lambda i, o: torch.nonzero(i[0]),
    "gather_backward": lambda i, o: o[0].zero_().scatter_add_(-1, i[2], i[0]),
    "index_select_backward": lambda i, o: o[0].zero_().index_add_(0, i[1],
                                                                  i[0]),
    "conv3d_k511": lambda i, o: F.conv3d(i[0], i[1], i[2], (2, 1, 1),
                                         (1, 0, 1), (2, 1, 1), 2),
    "conv3d_k133": lambda i, o: F.conv3d(i[0], i[1], i[2], 3, 0, 1, 2),
    "conv3d_k111": lambda i, o: F.conv3d(i[0], i[1], i[2], 1, (1, 0, 1),
                                         (2, 1, 1), 1),
    "conv3d_backward_k133": lambda i, o: torch.ops.aten.convolution_backward(
        i[2], i[0], i[1], [64], [3] * 3, [0] * 3, [1] * 3, False, [0] * 3, 2,
        [True] * 3),
    "conv_transpose2d": lambda i, o: F.conv_transpose2d(
        i[0], i[1], stride=2, padding=1, output_padding=1),
    "baddbmm": lambda i, o: torch.baddbmm(i[0], i[1], i[2], out=o[0]),
    "linear": lambda i, o: F.linear(i[0], i[1], i[2]),
    "attention": attention,
    "attention_dropout": attention_dropout,
    "dropout": lambda i, o: F.dropout(i[0], 0.5, True),
    "dropout2d": lambda i, o: F.dropout2d(i[0], 0.5, True),
    "clip_grad_norm": None,  # built in make(): it needs parameters
    "mse_loss": lambda i, o: F.mse_loss(i[0], i[1]),
    "smooth_l1_loss": lambda i, o: F.smooth_l1_loss(i[0], i[1]),
    "bce": lambda i, o: F.binary_cross_entropy(i[0], i[1]),
    "bce_with_logits": lambda i, o: F.binary_cross_entropy_with_logits(i[0],
                                                                       i[1]),
    "nll_loss": lambda i, o: F.nll_loss(i[0], i[1]),
    "nll_loss2d": lambda i, o: F.nll_loss(i[0], i[1]),
    "kl_div": lambda i, o: F.kl_div(i[0], i[1]),
    "cross_entropy": lambda i, o: F.cross_entropy(i[0], i[1]),
    "normal": lambda i, o: o[0].normal_(),
    "uniform": lambda i, o: o[0].uniform_(),
    "bernoulli": lambda i, o: o[0].bernoulli_(0.5),
    "randperm": lambda i, o: torch.randperm(1 << 20, out=o[0]),
    "multinomial": lambda i, o: torch.multinomial(i[0], 16, out=o[0]),
}
for name in ("exp", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "neg",
             "abs", "reciprocal", "sign", "sin", "cos", "erf", "floor", "ceil",
             "sigmoid", "tanh", "digamma"):
    OPS[name] = (lambda fn: lambda i, o: fn(i[0], out=o[0]))(
        getattr(torch, name))


def make(op, nin, specs):
    """A closure running `op` once on the case's tensors (inputs, then
    preallocated outputs, as bench_ops_cases.c gives them), writing into
    the preallocated output where PyTorch has an out= form. Each is the
    reference library's case: same op, shapes, dims and attributes."""
    t = [tensor(s, 1234 + k) for k, s in enumerate(specs)]
    i, o = t[:nin], t[nin:]
    if op in ("adam", "adamw"):
        cls = torch.optim.Adam if op == "adam" else torch.optim.AdamW
        return adam_step(i, 0.0 if op == "adam" else 0.01, cls)
    if op == "sgd_momentum":
        p = torch.nn.Parameter(i[0])
        p.grad = i[1]
        return torch.optim.SGD([p], lr=0.01, momentum=0.9).step
    if op == "rmsprop":
        p = torch.nn.Parameter(i[0])
        p.grad = i[1]
        return torch.optim.RMSprop([p], lr=0.01, alpha=0.99,
                                   eps=1e-8, foreach=False).step
    if op == "adagrad":
        p = torch.nn.Parameter(i[0])
        p.grad = i[1]
        opt = torch.optim.Adagrad([p], lr=0.01, eps=1e-10, foreach=False)
        opt.state[p] = {"step": torch.tensor(0.0), "sum": i[2]}
        return opt.step
    if op == "fused_adamw":
        ps = [torch.nn.Parameter(x) for x in i[0:2]]
        for p, g in zip(ps, i[2:4]):
            p.grad = g
        return torch.optim.AdamW(ps, lr=1e-3, weight_decay=0.01,
                                 foreach=True).step
    if op == "clip_grad_norm":
        ps = [torch.nn.Parameter(torch.empty_like(g)) for g in i]
        for p, g in zip(ps, i):
            p.grad = g
        return lambda: torch.nn.utils.clip_grad_norm_(ps, 1.0, 2.0)
    if op not in OPS:
        raise SystemExit(f"unknown op {op}")
    fn = OPS[op]
    return lambda: fn(i, o)


def warm_up(run):
    """Calls `run` for at least 20 ms (at most 200 times), as the bench warms
    its own side up: PyTorch's threads may have slept since its last op."""
    start = time.perf_counter()
    for _ in range(200):
        run()
        if time.perf_counter() - start >= 0.02:
            break


def describe_isa():
    """PyTorch's instruction sets, for the bench's log (stderr): ATen's
    kernels as PyTorch reports them, oneDNN's and OpenBLAS's caps."""
    aten = next((line.split(":", 1)[1].strip()
                 for line in torch.__config__.show().splitlines()
                 if "CPU capability usage" in line), "unknown")
    print(f"bench ops: PyTorch {torch.__version__}: ATen {aten}, oneDNN "
          f"{os.environ.get('DNNL_MAX_CPU_ISA', 'native')}, OpenBLAS core "
          f"{os.environ.get('OPENBLAS_CORETYPE', 'native')}", file=sys.stderr)


def main():
    # PyTorch's notes on deprecated defaults (kl_div's 'mean') would repeat
    # in every round: the cases are fixed, the notes are not news.
    warnings.simplefilter("ignore", UserWarning)
    threads, reps = int(sys.argv[1]), int(sys.argv[2])
    torch.set_num_threads(threads)
    if "--no-isa" not in sys.argv[3:]:
        describe_isa()
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        name, op, nin = fields[0], fields[1], int(fields[2])
        try:
            run = make(op, nin, fields[3:])
            warm_up(run)
        except (RuntimeError, TypeError, ValueError) as error:
            print(f"bench ops: PyTorch: {name}: {error}", file=sys.stderr)
            continue
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        print(name, " ".join(f"{t:.9f}" for t in times), flush=True)


if __name__ == "__main__":
    with torch.no_grad():
        main()
