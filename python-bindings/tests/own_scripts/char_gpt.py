"""A character-level GPT: causal self-attention written out (a lower-triangular buffer,
masked_fill with -inf, softmax), pre-norm blocks, the output layer sharing the embedding's weight,
cross entropy over the flattened logits, AdamW with weight decay for matrices only, a learning rate
warmed up and decayed by hand, gradient clipping, a checkpoint, and sampling under no_grad from the
top k characters. With --workers N the batches come from loader workers drawing chunks without
end (RandomSampler with replacement and 10^10 samples)."""
import argparse
import math

import glassgrad.nn as nn
import glassgrad.nn.functional as F
import glassgrad.torch as torch
from glassgrad.utils.data import DataLoader, Dataset, RandomSampler


class Chunks(Dataset):
    """Chunk i: the block of characters from i and the same block one character later."""

    def __init__(self, data, block):
        self.data, self.block = data, block

    def __len__(self):
        return len(self.data) - self.block - 1

    def __getitem__(self, i):
        chunk = self.data[i:i + self.block + 1]
        return chunk[:-1], chunk[1:]


class Attention(nn.Module):
    def __init__(self, dim, heads, block):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.heads = heads
        self.register_buffer("mask", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(b, t, c))


class Block(nn.Module):
    def __init__(self, dim, heads, block):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim, heads, block)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim), nn.Dropout(0.1))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab, block, layers=2, heads=2, dim=32):
        super().__init__()
        self.block = block
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(block, dim)
        self.blocks = nn.ModuleList([Block(dim, heads, block) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def forward(self, idx, targets=None):
        t = idx.size(1)
        x = self.tok(idx) + self.pos(torch.arange(0, t, dtype=torch.long))
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln(x))
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    def optimizer(self, lr, weight_decay):
        params = [p for p in self.parameters() if p.requires_grad]
        groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
                  {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))

    @torch.no_grad()
    def generate(self, idx, n, top_k):
        for _ in range(n):
            logits, _ = self(idx[:, -self.block:])
            logits = logits[:, -1, :]
            v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
            logits[logits < v[:, [-1]]] = -float("inf")
            idx = torch.cat((idx, torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)), dim=1)
        return idx


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--text", default="input.txt")
    p.add_argument("--iters", type=int, default=12)
    p.add_argument("--block", type=int, default=16)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--compile", action="store_true")
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--out", default="gpt.pt")
    args = p.parse_args()
    torch.manual_seed(0)
    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    data = torch.tensor([chars.index(c) for c in text], dtype=torch.long)
    model = GPT(len(chars), args.block)
    opt = model.optimizer(args.lr, 0.1)
    step = torch.compile(model) if args.compile else model
    batches = None
    if args.workers:
        chunks = Chunks(data, args.block)
        batches = iter(DataLoader(chunks, sampler=RandomSampler(chunks, replacement=True, num_samples=int(1e10)),
                                  batch_size=args.batch, num_workers=args.workers, pin_memory=True))
    for it in range(args.iters):
        lr = args.lr * min(1.0, (it + 1) / 4) * 0.5 * (1 + math.cos(math.pi * it / args.iters))
        for group in opt.param_groups:
            group["lr"] = lr
        if batches is not None:
            x, y = next(batches)
        else:
            ix = torch.randint(len(data) - args.block - 1, (args.batch,))
            x = torch.stack([data[i:i + args.block] for i in ix])
            y = torch.stack([data[i + 1:i + 1 + args.block] for i in ix])
        _, loss = step(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"iter {it}: loss {loss.item():.4f} lr {lr:.5f}")
    torch.save({"model": model.state_dict(), "chars": chars}, args.out)
    model.eval()
    start = torch.tensor([[chars.index(text[0])]], dtype=torch.long)
    print("sample:", "".join(chars[i] for i in model.generate(start, 24, top_k=5)[0].tolist()))


if __name__ == "__main__":
    main()
