"""A character-level GPT (decoder-only transformer) trained on fortune cookies, then sampled.

The model is the GPT-2 layout at a small size (nanoGPT's "shakespeare_char" configuration is the
default: 6 layers, 6 heads, 384 features, a context of 256 characters): token and position
embeddings, pre-norm blocks x + attention(LN(x)) and x + MLP(LN(x)), a final LayerNorm and a
linear head over the characters. Attention is F.scaled_dot_product_attention with
is_causal=True: one fused op that never stores the [T, T] attention matrix (docs/attention.md).

The text is Debian's `fortunes` package (public-domain fortune cookies; tools/setup.sh installs
it), read as characters; nothing is downloaded.

    python examples-and-tutorials/char_gpt.py                       # the full size (a GPU: minutes)
    python examples-and-tutorials/char_gpt.py --layers 2 --heads 2 --dim 64 --block 64 --iters 300
    python examples-and-tutorials/char_gpt.py --tiny                  # seconds on a CPU (CI)
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_corpus import FORTUNES_DIR, CharVocab, load_fortunes


# --8<-- [start:model]
class TokenEmbedding(nn.Module):
    """weight[idx] for int64 ids: a row per token (nn.Embedding's parameter and result), computed
    as one_hot(idx) @ weight, whose gradient is the rows' sums."""

    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.weight = nn.Parameter(np.random.default_rng(0).standard_normal((num_embeddings, embedding_dim))
                                   .astype(np.float32) * 0.02)

    def forward(self, idx):
        return F.one_hot(idx, self.num_embeddings).to(dtype=self.weight.dtype) @ self.weight


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention in which position t sees positions <= t."""

    def __init__(self, dim: int, heads: int, dropout: float):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.c_attn = nn.Linear(dim, 3 * dim)   # query, key and value projections in one matmul
        self.c_proj = nn.Linear(dim, dim)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        qkv = self.c_attn(x)                    # [B, T, 3C]; q, k, v are column blocks (views)
        q, k, v = (qkv[:, :, i * C:(i + 1) * C].view(B, T, self.heads, C // self.heads).transpose(1, 2)
                   for i in range(3))          # [B, heads, T, C / heads], strided views: no copies
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                           is_causal=True)
        y = y.transpose(1, 2).reshape(B, T, C)  # heads side by side again
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, dropout: float):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, dropout)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim), nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int, block: int, layers: int, heads: int, dim: int, dropout: float):
        super().__init__()
        self.block = block
        self.wte = TokenEmbedding(vocab, dim)
        self.wpe = nn.Parameter(np.random.default_rng(1).standard_normal((block, dim)).astype(np.float32) * 0.02)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList([Block(dim, heads, dropout) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        x = self.drop(self.wte(idx) + self.wpe[:T])
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))   # [B, T, vocab]
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(B * T))
# --8<-- [end:model]


# --8<-- [start:sample]
def generate(model, idx: np.ndarray, new_tokens: int, temperature: float = 1.0, top_k=None, seed: int = 0):
    """Appends new_tokens characters to idx [B, T], each drawn from the model's next-character
    distribution (divided by temperature, cut to the top_k most likely); the context is the last
    `block` characters."""
    rng = np.random.default_rng(seed)
    model.eval()
    with gg.no_grad():
        for _ in range(new_tokens):
            context = idx[:, -model.block:]
            logits, _ = model(gg.tensor(context))
            last = logits[:, -1, :].cpu().numpy().astype(np.float64) / temperature
            if top_k is not None:
                kth = np.sort(last, axis=1)[:, -min(top_k, last.shape[1])][:, None]
                last = np.where(last < kth, -np.inf, last)
            p = np.exp(last - last.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            nxt = np.array([[rng.choice(p.shape[1], p=row)] for row in p], dtype=np.int64)
            idx = np.concatenate([idx, nxt], axis=1)
    model.train()
    return idx
# --8<-- [end:sample]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="A character-level GPT on Debian's fortune cookies.")
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--heads", type=int, default=6)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--block", type=int, default=256, help="context length in characters")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--iters", type=int, default=2000)
    p.add_argument("--eval-every", type=int, default=250)
    p.add_argument("--sample", type=int, default=300, help="characters to sample at the end")
    p.add_argument("--data", default=FORTUNES_DIR, help="a directory of fortune files")
    p.add_argument("--device", default=None, help="cpu or cuda (default: the GPU when one is usable)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tiny", action="store_true", help="2 layers, 2 heads, 32 features, context 32, 60 steps")
    args = p.parse_args(argv)
    if args.tiny:
        args.layers, args.heads, args.dim, args.block, args.batch_size = 2, 2, 32, 32, 16
        args.iters, args.eval_every, args.sample, args.dropout = 60, 30, 80, 0.0
    return args


def batches(data: np.ndarray, block: int, batch_size: int, rng):
    """Random windows: inputs data[i:i+block], targets data[i+1:i+block+1]."""
    starts = rng.integers(0, len(data) - block - 1, batch_size)
    x = np.stack([data[s:s + block] for s in starts])
    y = np.stack([data[s + 1:s + block + 1] for s in starts])
    return gg.tensor(x), gg.tensor(y)


def evaluate(model, data, args, rng, batches_=4) -> float:
    model.eval()
    with gg.no_grad():
        losses = [model(*batches(data, args.block, args.batch_size, rng))[1].item() for _ in range(batches_)]
    model.train()
    return float(np.mean(losses))


def main(argv=None):
    args = parse_args(argv)
    if args.device:
        gg.set_default_device(args.device)
    gg.manual_seed(args.seed)
    text = load_fortunes(args.data)
    vocab = CharVocab(text)
    data = vocab.encode(text)
    split = int(0.9 * len(data))
    train, val = data[:split], data[split:]
    model = GPT(len(vocab), args.block, args.layers, args.heads, args.dim, args.dropout)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"glassgrad {gg.__version__} on {gg.default_device()}: {len(text)} characters, vocabulary "
          f"{len(vocab)}; GPT {args.layers} layers, {args.heads} heads, {args.dim} features, context "
          f"{args.block}: {n_params / 1e6:.2f} M parameters")
    optimizer = gg.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.99), weight_decay=0.1)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    first = None
    for it in range(args.iters + 1):
        if it % args.eval_every == 0 or it == args.iters:
            val_loss = evaluate(model, val, args, rng)
            first = val_loss if first is None else first
            print(f"step {it:5d}  validation loss {val_loss:.4f}  ({time.perf_counter() - start:.1f} s)")
        if it == args.iters:
            break
        # Cosine learning-rate decay to a tenth: lr is data in the plan, so it never recompiles.
        optimizer.param_groups[0]["lr"] = args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * it / args.iters)))
        _, loss = model(*batches(train, args.block, args.batch_size, rng))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    prompt = vocab.encode("\n")[None, :]
    out = generate(model, prompt, args.sample, temperature=0.8, top_k=20, seed=args.seed)
    print("sample:\n" + vocab.decode(out[0]))
    print(f"validation loss {first:.4f} -> {val_loss:.4f} (uniform guessing: {math.log(len(vocab)):.4f})")
    return first, val_loss


if __name__ == "__main__":
    main()
