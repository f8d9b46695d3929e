"""A word-level GPT pretrained on a short story in the form of the "LLMs from scratch" course:
a sliding-window data set (windows of max_length tokens every stride tokens), causal multi-head
attention with a triu mask buffer filled in place with -inf, LayerNorm and GELU (tanh form, from
torch.pi) written out, position embeddings from arange on the input's device, AdamW, evaluation
under no_grad, greedy and temperature/top-k generation (topk, where, multinomial, an end token),
a model-and-optimizer checkpoint read back with weights_only=True to resume, and weights assigned
from NumPy arrays as new Parameters (a fused query-key-value matrix split and transposed), which
must reproduce the model's outputs."""
import argparse
import re

import numpy as np

import glassgrad.nn as nn
import glassgrad.torch as torch
from glassgrad.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self, ids, max_length, stride):
        starts = range(0, len(ids) - max_length, stride)
        self.inputs = [torch.tensor(ids[i:i + max_length]) for i in starts]
        self.targets = [torch.tensor(ids[i + 1:i + max_length + 1]) for i in starts]

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, i):
        return self.inputs[i], self.targets[i]


class CausalHeads(nn.Module):
    def __init__(self, d, context, heads, drop):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.W_query, self.W_key, self.W_value = (nn.Linear(d, d, bias=True) for _ in range(3))
        self.out_proj, self.dropout = nn.Linear(d, d), nn.Dropout(drop)
        self.register_buffer("mask", torch.triu(torch.ones(context, context), diagonal=1))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (w(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
                   for w in (self.W_query, self.W_key, self.W_value))
        scores = q @ k.transpose(2, 3)
        scores.masked_fill_(self.mask.bool()[:t, :t], -torch.inf)
        weights = self.dropout(torch.softmax(scores / k.shape[-1] ** 0.5, dim=-1))
        return self.out_proj((weights @ v).transpose(1, 2).contiguous().view(b, t, d))


class Norm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.eps, self.scale, self.shift = 1e-5, nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))

    def forward(self, x):
        mean, var = x.mean(dim=-1, keepdim=True), x.var(dim=-1, keepdim=True, unbiased=False)
        return self.scale * (x - mean) / torch.sqrt(var + self.eps) + self.shift


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class Block(nn.Module):
    def __init__(self, d, context, heads, drop):
        super().__init__()
        self.att, self.norm1, self.norm2 = CausalHeads(d, context, heads, drop), Norm(d), Norm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), GELU(), nn.Linear(4 * d, d))
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        x = x + self.drop(self.att(self.norm1(x)))
        return x + self.drop(self.ff(self.norm2(x)))


class GPT(nn.Module):
    def __init__(self, vocab, context, d=32, heads=4, layers=2, drop=0.1):
        super().__init__()
        self.tok_emb, self.pos_emb = nn.Embedding(vocab, d), nn.Embedding(context, d)
        self.blocks = nn.Sequential(*[Block(d, context, heads, drop) for _ in range(layers)])
        self.final_norm, self.out_head = Norm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok_emb(idx) + self.pos_emb(torch.arange(idx.shape[1], device=idx.device))
        return self.out_head(self.final_norm(self.blocks(x)))


def generate(model, idx, new, context, temperature=0.0, top_k=None, eos_id=None):
    for _ in range(new):
        with torch.no_grad():
            logits = model(idx[:, -context:])[:, -1, :]
        if top_k is not None:
            top, _ = torch.topk(logits, top_k)
            logits = torch.where(logits < top[:, -1], torch.tensor(float("-inf")).to(logits.device), logits)
        if temperature > 0.0:
            nxt = torch.multinomial(torch.softmax(logits / temperature, dim=-1), num_samples=1)
        else:
            nxt = torch.argmax(logits, dim=-1, keepdim=True)
        if eos_id is not None and nxt.item() == eos_id:
            break
        idx = torch.cat((idx, nxt), dim=1)
    return idx


def loss_of(model, loader, batches=None):
    total, n = 0.0, 0
    for i, (x, y) in enumerate(loader):
        if batches is not None and i >= batches:
            break
        logits = model(x)
        total += torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten()).item()
        n += 1
    return total / n


def train(model, optimizer, loader, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            print(f"epoch {epoch + 1}: train loss {loss_of(model, loader, 4):.4f}")


def assign_from_arrays(model, state):
    """Parameters replaced by new ones made from NumPy arrays; the attention's query, key and value
    weights come from one fused (d, 3d) matrix, split and transposed."""
    for b, block in enumerate(model.blocks):
        prefix = f"blocks.{b}.att."
        fused = np.concatenate([state[prefix + n + ".weight"].T for n in ("W_query", "W_key", "W_value")], axis=-1)
        for name, part in zip(("W_query", "W_key", "W_value"), np.split(fused, 3, axis=-1)):
            getattr(block.att, name).weight = nn.Parameter(torch.tensor(part.T))
    for name, param in list(model.named_parameters()):
        if ".att.W_" not in name or not name.endswith(".weight"):
            owner = model.get_submodule(name.rpartition(".")[0]) if "." in name else model
            setattr(owner, name.rpartition(".")[2], nn.Parameter(torch.tensor(state[name])))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--text", default="story.txt")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--context", type=int, default=8)
    args = parser.parse_args()

    torch.random.manual_seed(123)
    words = re.findall(r"\w+|[^\w\s]", open(args.text, encoding="utf-8").read())
    vocab = {w: i for i, w in enumerate(sorted(set(words)) + ["<|endoftext|>"])}
    ids = [vocab[w] for w in words]
    loader = DataLoader(Windows(ids, args.context, args.context // 2), batch_size=4, shuffle=True, drop_last=True)
    model = GPT(len(vocab), args.context)
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=0.1)
    train(model, optimizer, loader, args.epochs)

    torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()}, "gpt.pth")
    checkpoint = torch.load("gpt.pth", weights_only=True)
    model = GPT(len(vocab), args.context)
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=0.1)
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    train(model, optimizer, loader, 1)  # resumed

    model.eval()
    start = torch.tensor([[vocab[words[0]]]])
    greedy = generate(model, start, 6, args.context)
    torch.manual_seed(0)
    sampled = generate(model, start, 6, args.context, temperature=1.4, top_k=5, eos_id=vocab["<|endoftext|>"])
    inverse = {i: w for w, i in vocab.items()}
    print("greedy:", " ".join(inverse[i] for i in greedy[0].tolist()))
    print("sampled:", " ".join(inverse[i] for i in sampled[0].tolist()))

    copy = GPT(len(vocab), args.context)
    assign_from_arrays(copy, {k: np.asarray(v) for k, v in model.state_dict().items()})
    copy.eval()
    with torch.no_grad():
        same = torch.allclose(copy(greedy), model(greedy), atol=1e-5)
    print("assigned weights reproduce the model:", same)


if __name__ == "__main__":
    main()
