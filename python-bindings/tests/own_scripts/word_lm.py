"""A word-level LSTM language model: a vocabulary read from text files, the token stream cut
into batch columns, truncated backpropagation through time (the hidden state detached between
chunks), gradients clipped by norm, a plain SGD update of p.data, the best model saved by
validation loss, then text generated one word at a time by torch.multinomial."""
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


def detach(state):
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
    model = LanguageModel(len(vocab.words), 16, 16, 2, 0.2)
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
                torch.save(model.state_dict(), f)
    model.load_state_dict(torch.load(args.save))
    model.eval()
    state = model.init_state(1)
    word = torch.randint(len(vocab.words), (1, 1), dtype=torch.int64)
    out = []
    with torch.no_grad():
        for _ in range(args.words):
            logits, state = model(word, state)
            weights = logits.squeeze().div(0.8).exp()
            idx = torch.multinomial(weights, 1)[0]
            word.fill_(idx)
            out.append(vocab.words[int(idx)])
    print("generated:", " ".join(out))


if __name__ == "__main__":
    main()
