"""Trusted: CPU time and torch op count of one dnnlpy MiniGPT forward, fused modules against the written-out maths.

The modules of ``dnnlpy.nn`` run torch's fused kernels; ``dnnlpy.nn.functional`` (dF) writes the same maths
out, and that is what the modules ran before. This script times both forwards on one model, interleaved, one
thread (as the grader runs), and prints the ratio: a figure measured on a shared machine is only meaningful
next to its peer from the same run. It prints figures and asserts nothing.

    python scripts/bench_dnnlpy_forward.py [--rounds 15] [--no-grad]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch

from dnnlpy.models.gpt import MiniGPT
from dnnlpy.nn import functional as dF

# the grader's plan size (weight_tying, seed 7): ids (8, 6)
CONFIG = dict(vocab_size=26, block_size=6, embed_dim=12, num_layers=2, num_heads=4, hidden_dim=20, dropout=0.0)


def written_out(model: MiniGPT, ids: torch.Tensor) -> torch.Tensor:
    """The forward on dF alone, checks included: what the modules computed before they ran fused kernels."""
    model._check_input_ids(ids)
    b, t = ids.shape
    lo, hi = int(ids.min()), int(ids.max())  # the token Embedding's own range check
    assert 0 <= lo and hi < model.vocab_size
    x = model.token_embed.weight.index_select(0, ids.reshape(-1)).view(b, t, -1)
    x = x + model.pos_embed.weight.index_select(0, torch.arange(t)).view(t, -1)
    for block in model.blocks:
        attn = block.attn.attn
        h = dF.layer_norm(x, block.ln1.normalized_shape, block.ln1.weight, block.ln1.bias, block.ln1.eps)
        q, k, v = (attn._split_heads(dF.linear(h, p.weight, p.bias)) for p in (attn.q_proj, attn.k_proj, attn.v_proj))
        heads = dF.attention_weights(q, k, None, True) @ v
        merged = heads.transpose(1, 2).reshape(b, t, attn.embed_dim)
        x = x + dF.linear(merged, attn.out_proj.weight, attn.out_proj.bias)
        h = dF.layer_norm(x, block.ln2.normalized_shape, block.ln2.weight, block.ln2.bias, block.ln2.eps)
        mlp = block.mlp
        h = dF.gelu(dF.linear(h, mlp.fc1.weight, mlp.fc1.bias))
        x = x + dF.linear(h, mlp.fc2.weight, mlp.fc2.bias)
    norm = model.final_norm
    x = dF.layer_norm(x, norm.normalized_shape, norm.weight, norm.bias, norm.eps)
    return dF.linear(x, model.lm_head.weight)


def cpu_ms(fn, n: int = 200) -> float:
    start = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - start) / n * 1e3


def op_count(fn) -> int:
    with torch.autograd.profiler.profile() as prof:
        fn()
    return len(prof.function_events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds of 200 forwards each")
    parser.add_argument("--no-grad", action="store_true", help="time under torch.no_grad()")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = MiniGPT(**CONFIG, weight_tying=True).eval()
    ids = torch.randint(0, CONFIG["vocab_size"], (8, 6))
    sides = {"modules (fused)": lambda: model(ids), "dF written out": lambda: written_out(model, ids)}
    gap = (sides["modules (fused)"]() - sides["dF written out"]()).abs().max().item()
    print(f"load average {os.getloadavg()[0]:.2f}; max |logits difference| {gap:.2e}")
    with torch.set_grad_enabled(not args.no_grad):
        for fn in sides.values():
            cpu_ms(fn, 50)  # warm up
        times: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.rounds):
            for name, fn in sides.items():
                times[name].append(cpu_ms(fn))
        ops = {name: op_count(fn) for name, fn in sides.items()}
    for name, got in times.items():
        median, least = statistics.median(got), min(got)
        print(f"{name:16s} median {median:.3f} ms, min {least:.3f} ms CPU per forward, {ops[name]} ops")
    fused, plain = (statistics.median(times[name]) for name in sides)
    print(f"written out / fused: {plain / fused:.2f}x (median), load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
