"""A custom attention layer: multi-head self-attention written with glassgrad's batched matmul,
softmax and layer norm, in a small transformer that classifies scikit-learn's handwritten digits.

Each 8x8 digit image is read as a sequence of 8 tokens (its rows), each token 8 pixel values.
The model embeds every row, adds a learned position embedding, runs `--layers` pre-norm
transformer blocks (x + attention(LN(x)), then x + MLP(LN(x))), averages the tokens and
classifies. Nothing here is a built-in attention op: the layer below is ~25 lines of matmuls,
reshapes and a softmax, and its backward graph comes from those ops' gradient rules.

    python examples-and-tutorials/attention.py                       # about 95% test accuracy, ~40 s on 2 cores
    python examples-and-tutorials/attention.py --epochs 3 --dim 16   # a quick run (CI)

Needs scikit-learn (the digits data set ships inside it; nothing is downloaded).
"""
import argparse
import math
import sys
import time

import numpy as np

import glassgrad as gg


# --8<-- [start:attention]
class MultiHeadSelfAttention(gg.Module):
    """softmax(Q K^T / sqrt(d_head)) V for `heads` heads of size d_head = dim / heads.

    x [B, T, dim] -> q, k, v [B, heads, T, d_head] -> weights [B, heads, T, T] (each row a
    softmax: sums to 1) -> weights @ v [B, heads, T, d_head] -> out [B, T, dim]. The matmuls are
    batched over the two leading axes (MatMul broadcasts batch axes like numpy.matmul)."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        if dim % heads:
            raise ValueError(f"dim {dim} must be a multiple of heads {heads}")
        self.dim, self.heads, self.d_head = dim, heads, dim // heads
        self.qkv = gg.Linear(dim, 3 * dim)   # the three projections in one matmul
        self.out = gg.Linear(dim, dim)

    def split_heads(self, t, B, T):
        # [B, T, dim] -> [B, T, heads, d_head] -> [B, heads, T, d_head]  (views: no copy yet)
        return t.reshape(B, T, self.heads, self.d_head).permute(0, 2, 1, 3)

    def forward(self, x):
        B, T, _ = x.shape
        qkv = self.qkv(x)                                              # [B, T, 3 * dim]
        q = self.split_heads(qkv[:, :, :self.dim], B, T)
        k = self.split_heads(qkv[:, :, self.dim:2 * self.dim], B, T)
        v = self.split_heads(qkv[:, :, 2 * self.dim:], B, T)
        scores = (q @ k.transpose(2, 3)) * (1.0 / math.sqrt(self.d_head))  # [B, heads, T, T]
        weights = gg.softmax(scores, dim=-1)
        mixed = weights @ v                                            # [B, heads, T, d_head]
        return self.out(mixed.permute(0, 2, 1, 3).reshape(B, T, self.dim))
# --8<-- [end:attention]


# --8<-- [start:block]
class TransformerBlock(gg.Module):
    """Pre-norm block: x + Attention(LN(x)), then x + MLP(LN(x))."""

    def __init__(self, dim: int, heads: int, hidden: int, dropout: float):
        super().__init__()
        self.ln1 = gg.LayerNorm(dim)
        self.attn = MultiHeadSelfAttention(dim, heads)
        self.ln2 = gg.LayerNorm(dim)
        self.fc1 = gg.Linear(dim, hidden)
        self.fc2 = gg.Linear(hidden, dim)
        self.drop = gg.Dropout(dropout)

    def forward(self, x):
        x = x + self.drop(self.attn(self.ln1(x)))
        return x + self.drop(self.fc2(gg.relu(self.fc1(self.ln2(x)))))


class DigitTransformer(gg.Module):
    """[B, 8 rows, 8 pixels] -> row embedding + position embedding -> blocks -> mean over rows
    -> LayerNorm -> Linear -> [B, 10]."""

    def __init__(self, tokens=8, features=8, dim=32, heads=4, layers=2, dropout=0.1, classes=10):
        super().__init__()
        self.embed = gg.Linear(features, dim)
        self.pos = gg.Parameter(gg.randn(tokens, dim).cpu().numpy() * 0.1)  # learned position embedding
        self.blocks = gg.Sequential(*[TransformerBlock(dim, heads, 2 * dim, dropout) for _ in range(layers)])
        self.ln = gg.LayerNorm(dim)
        self.head = gg.Linear(dim, classes)

    def forward(self, x):
        h = self.embed(x) + self.pos                        # [B, T, dim] + [T, dim] broadcasts
        h = self.blocks(h)
        return self.head(self.ln(h.mean(dim=1)))
# --8<-- [end:block]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="A small transformer on scikit-learn's digits (rows as tokens).")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--dim", type=int, default=32, help="model width")
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=2, help="transformer blocks")
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--device", default=None, help="cpu or cuda (default: the GPU when one is usable)")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def load_digits_as_sequences(seed):
    """scikit-learn's 1797 digits, pixels 0..16 scaled to [0, 1], as [N, 8, 8] sequences of rows;
    a stratified 80/20 split."""
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError:
        sys.exit("attention.py needs scikit-learn for its data set: python3 -m pip install scikit-learn")
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)          # [1797, 8, 8]
    y = digits.target.astype(np.int64)
    return train_test_split(x, y, test_size=0.2, random_state=seed, stratify=y)


def accuracy(model, x, y):
    model.eval()
    with gg.no_grad():
        pred = model(gg.tensor(x)).argmax(dim=1).cpu().numpy()
    model.train()
    return float((pred == y).mean())


def main(argv=None):
    args = parse_args(argv)
    if args.device:
        gg.set_default_device(args.device)
    gg.manual_seed(args.seed)
    print(f"glassgrad {gg.__version__} on {gg.default_device()}")
    x_train, x_test, y_train, y_test = load_digits_as_sequences(args.seed)
    model = DigitTransformer(dim=args.dim, heads=args.heads, layers=args.layers, dropout=args.dropout)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"DigitTransformer: {args.layers} blocks, width {args.dim}, {args.heads} heads, {n_params} parameters; "
          f"{len(x_train)} training and {len(x_test)} test digits")
    optimizer = gg.Adam(model.parameters(), lr=args.lr)
    loader = gg.data.DataLoader(x_train, y_train, batch_size=args.batch_size, shuffle=True, seed=args.seed,
                                drop_last=True)
    start = time.perf_counter()
    for epoch in range(args.epochs):
        # Cosine learning-rate decay: lr is data in the plan, so changing it does not recompile.
        optimizer.lr = args.lr * 0.5 * (1 + math.cos(math.pi * epoch / args.epochs))
        total = 0.0
        for xb, yb in loader:
            loss = gg.cross_entropy(model(gg.tensor(xb)), gg.tensor(yb))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            total += loss.item()
        if epoch % 5 == 4 or epoch == args.epochs - 1:
            print(f"epoch {epoch + 1:3d}  loss {total / len(loader):.4f}  test accuracy "
                  f"{accuracy(model, x_test, y_test):.4f}")
    test_acc = accuracy(model, x_test, y_test)
    print(f"trained in {time.perf_counter() - start:.1f} s; test accuracy {test_acc:.4f} (chance: 0.1)")
    return test_acc


if __name__ == "__main__":
    main()
