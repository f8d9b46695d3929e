"""A word-level language model: a vocabulary read from text files, the token stream cut into
batch columns, truncated backpropagation through time, gradients clipped by norm, a plain SGD
update of p.data, the best model saved by validation loss, then text generated one word at a time
by torch.multinomial. --model LSTM (the hidden state detached between chunks) or Transformer (an
encoder under a square subsequent mask with sinusoidal positions written into a buffer); the
Transformer is saved whole (torch.save of the module, read back with weights_only=False)."""
import argparse
import math
import os

import glassgrad.nn as nn
import glassgrad.torch as torch


class Vocabulary:
    def __init__(self):
        self.index, self.words = {}, []

    def ids(self, path):
        out = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                for w in line.split() + ["<eos>"]:
                    if w not in self.index:
                        self.index[w] = len(self.words)
                        self.words.append(w)
                    out.append(self.index[w])
        return torch.tensor(out, dtype=torch.int64)


def columns(ids, bsz):
    n = ids.size(0) // bsz
    return ids[:n * bsz].view(bsz, n).t().contiguous()  # [steps, bsz]


class LanguageModel(nn.Module):
    def __init__(self, ntoken, emb, hidden, layers, dropout):
        super().__init__()
        self.embed = nn.Embedding(ntoken, emb)
        self.drop = nn.Dropout(dropout)
        self.lstm = nn.LSTM(emb, hidden, layers, dropout=dropout)
        self.out = nn.Linear(hidden, ntoken)
        self.layers, self.hidden = layers, hidden

    def forward(self, x, state):
        y, state = self.lstm(self.drop(self.embed(x)), state)
        return self.out(self.drop(y)), state

    def init_state(self, bsz):
        w = next(self.parameters())
        return (w.new_zeros(self.layers, bsz, self.hidden), w.new_zeros(self.layers, bsz, self.hidden))


class Positions(nn.Module):
    def __init__(self, dim, longest=256):
        super().__init__()
        pos = torch.arange(0, longest, dtype=torch.float).unsqueeze(1)
        rate = torch.exp(torch.arange(0, dim, 2).float() * (-math.log(10000.0) / dim))
        table = torch.zeros(longest, 1, dim)
        table[:, 0, 0::2] = torch.sin(pos * rate)
        table[:, 0, 1::2] = torch.cos(pos * rate)
        self.register_buffer("table", table)

    def forward(self, x):
        return x + self.table[:x.size(0)]


class TransformerModel(nn.Module):
    def __init__(self, ntoken, dim, heads, hidden, layers, dropout):
        super().__init__()
        self.embed = nn.Embedding(ntoken, dim)
        self.pos = Positions(dim)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, heads, hidden, dropout), layers)
        self.out = nn.Linear(dim, ntoken)
        self.dim = dim

    def forward(self, x, state=None):
        mask = nn.Transformer.generate_square_subsequent_mask(x.size(0))
        h = self.encoder(self.pos(self.embed(x) * math.sqrt(self.dim)), mask=mask)
        return self.out(h), None

    def init_state(self, bsz):
        return None


def detach(state):
    if state is None:
        return None
    return tuple(s.detach() for s in state)


def evaluate(model, data, bptt, criterion):
    model.eval()
    state, total = model.init_state(data.size(1)), 0.0
    with torch.no_grad():
        for i in range(0, data.size(0) - 1, bptt):
            x, y = data[i:i + bptt], data[i + 1:i + 1 + bptt]
            x = x[:y.size(0)]
            logits, state = model(x, state)
            total += x.size(0) * criterion(logits.view(-1, logits.size(-1)), y.reshape(-1)).item()
    return total / (data.size(0) - 1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="corpus")
    p.add_argument("--model", default="LSTM", choices=["LSTM", "Transformer"])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--bptt", type=int, default=8)
    p.add_argument("--lr", type=float, default=5.0)
    p.add_argument("--clip", type=float, default=0.25)
    p.add_argument("--save", default="lm.pt")
    p.add_argument("--words", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)
    vocab = Vocabulary()
    train, valid = (columns(vocab.ids(os.path.join(args.data, f"{s}.txt")), 4) for s in ("train", "valid"))
    if args.model == "LSTM":
        model = LanguageModel(len(vocab.words), 16, 16, 2, 0.2)
    else:
        model = TransformerModel(len(vocab.words), 16, 2, 32, 2, 0.1)
    criterion = nn.CrossEntropyLoss()
    best = None
    for epoch in range(1, args.epochs + 1):
        model.train()
        state = model.init_state(train.size(1))
        for i in range(0, train.size(0) - 1, args.bptt):
            x, y = train[i:i + args.bptt], train[i + 1:i + 1 + args.bptt]
            x = x[:y.size(0)]
            state = detach(state)
            model.zero_grad()
            logits, state = model(x, state)
            loss = criterion(logits.view(-1, len(vocab.words)), y.reshape(-1))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            for param in model.parameters():
                param.data.add_(param.grad, alpha=-args.lr)
        val = evaluate(model, valid, args.bptt, criterion)
        print(f"epoch {epoch} valid loss {val:.3f} ppl {math.exp(val):.2f}")
        if best is None or val < best:
            best = val
            with open(args.save, "wb") as f:
                torch.save(model.state_dict() if args.model == "LSTM" else model, f)
    if args.model == "LSTM":
        model.load_state_dict(torch.load(args.save))
    else:
        model = torch.load(args.save, weights_only=False)
    model.eval()
    state = model.init_state(1)
    words = torch.randint(len(vocab.words), (1, 1), dtype=torch.int64)
    out = []
    with torch.no_grad():
        for _ in range(args.words):
            if state is None:  # the Transformer reads the whole text so far
                logits, _ = model(words)
            else:
                logits, state = model(words[-1:], state)
            weights = logits[-1].squeeze().div(0.8).exp()
            idx = torch.multinomial(weights, 1)
            words = torch.cat([words, idx.view(1, 1)], 0)
            out.append(vocab.words[int(idx)])
    print("generated:", " ".join(out))


if __name__ == "__main__":
    main()
