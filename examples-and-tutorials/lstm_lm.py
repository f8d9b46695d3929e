"""A word-level LSTM language model (pytorch/examples' word_language_model: its RNNModel, its
batching, truncated backpropagation through time and learning-rate annealing) trained on fortune
cookies, then sampled.

The model reads a word at a time: nn.Embedding turns each word id into a vector, a stack of
nn.LSTM layers carries a hidden and a cell state from word to word, and a Linear decoder scores
every word of the vocabulary as the next one. The loss is the cross-entropy of the next word; its
exponential is the perplexity (how many words the model is choosing between, on average).
--tied shares the embedding and the decoder's weight (Press & Wolf; then --emsize must equal
--nhid).

The text is Debian's `fortunes` package (public-domain fortune cookies; tools/setup.sh installs
it), cut into words; nothing is downloaded. docs/recurrent.md says what the LSTM computes, its
gradient and its kernels; docs/embedding.md the embedding's.

    python examples-and-tutorials/lstm_lm.py                     # word_language_model's small model
    python examples-and-tutorials/lstm_lm.py --nhid 650 --emsize 650 --dropout 0.5 --tied   # medium
    python examples-and-tutorials/lstm_lm.py --tiny               # seconds on a CPU (CI)
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
from collections import Counter

import numpy as np

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_corpus import FORTUNES_DIR, load_fortunes


# --8<-- [start:corpus]
class Corpus:
    """The words of a text (lower-cased; punctuation marks are words; a line ends with <eos>),
    the `vocab` most frequent ones numbered, the others <unk>; 90/5/5 % train/valid/test."""

    def __init__(self, text: str, vocab: int):
        words = []
        for line in text.split("\n"):
            words += re.findall(r"[a-z0-9']+|[^\sa-z0-9']", line.lower()) + ["<eos>"]
        kept = [w for w, _ in Counter(words).most_common(vocab - 1)]
        self.idx2word = ["<unk>"] + sorted(kept)
        self.word2idx = {w: i for i, w in enumerate(self.idx2word)}
        ids = np.array([self.word2idx.get(w, 0) for w in words], dtype=np.int64)
        a, b = int(0.9 * len(ids)), int(0.95 * len(ids))
        self.train, self.valid, self.test = ids[:a], ids[a:b], ids[b:]
# --8<-- [end:corpus]


# --8<-- [start:model]
class RNNModel(nn.Module):
    """word_language_model's model: encoder (Embedding) -> dropout -> LSTM -> dropout -> decoder."""

    def __init__(self, ntoken: int, ninp: int, nhid: int, nlayers: int, dropout: float = 0.5, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError("When using the tied flag, nhid must be equal to emsize")
            self.decoder.weight = self.encoder.weight
        self.nhid, self.nlayers = nhid, nlayers
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))              # [T, B] word ids -> [T, B, ninp]
        output, hidden = self.rnn(emb, hidden)            # [T, B, nhid], (h_n, c_n)
        output = self.drop(output)
        decoded = self.decoder(output).reshape(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz: int):
        shape = (self.nlayers, bsz, self.nhid)
        return gg.zeros(*shape), gg.zeros(*shape)
# --8<-- [end:model]


# --8<-- [start:bptt]
def batchify(data: np.ndarray, bsz: int) -> np.ndarray:
    """The word stream cut into bsz columns [len / bsz, bsz]: each column is read top to bottom,
    the columns side by side (a batch of bsz independent streams)."""
    n = len(data) // bsz
    return data[:n * bsz].reshape(bsz, n).T.copy()


def get_batch(source: np.ndarray, i: int, bptt: int):
    """Rows i .. i+bptt of the columns as input, the same shifted one word down as the target."""
    seq_len = min(bptt, len(source) - 1 - i)
    return gg.tensor(source[i:i + seq_len]), gg.tensor(source[i + 1:i + 1 + seq_len].reshape(-1))


def repackage_hidden(h):
    """The state's values without its history: backpropagation stops at the window's start
    (truncated BPTT), while the state itself carries on from window to window."""
    return tuple(v.detach() for v in h)
# --8<-- [end:bptt]


def evaluate(model, source: np.ndarray, bsz: int, bptt: int) -> float:
    model.eval()
    total, hidden = 0.0, model.init_hidden(bsz)
    with gg.no_grad():
        for i in range(0, len(source) - 1, bptt):
            data, targets = get_batch(source, i, bptt)
            output, hidden = model(data, hidden)
            total += len(data) * F.nll_loss(output, targets).item()
    model.train()
    return total / (len(source) - 1)


def generate(model, corpus: Corpus, words: int, temperature: float = 1.0, seed: int = 0) -> str:
    """`words` words drawn one at a time from the model's next-word distribution (softmax of the
    scores / temperature), each fed back as the next input; the state carries the context."""
    rng = np.random.default_rng(seed)
    model.eval()
    hidden = model.init_hidden(1)
    word = np.array([[corpus.word2idx["<eos>"]]])
    out = []
    with gg.no_grad():
        for _ in range(words):
            output, hidden = model(gg.tensor(word), hidden)
            logits = output.cpu().numpy()[0].astype(np.float64) / temperature
            p = np.exp(logits - logits.max())
            word[0, 0] = rng.choice(len(p), p=p / p.sum())
            out.append(corpus.idx2word[word[0, 0]])
    model.train()
    return " ".join(out).replace(" <eos> ", "\n").replace("<eos>", "\n")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="A word-level LSTM language model on Debian's fortune cookies.")
    p.add_argument("--emsize", type=int, default=200, help="size of word embeddings")
    p.add_argument("--nhid", type=int, default=200, help="number of hidden units per layer")
    p.add_argument("--nlayers", type=int, default=2)
    p.add_argument("--lr", type=float, default=20.0, help="initial learning rate (plain SGD)")
    p.add_argument("--clip", type=float, default=0.25, help="gradient clipping")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=20)
    p.add_argument("--bptt", type=int, default=35, help="sequence length of truncated BPTT")
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--tied", action="store_true", help="tie the word embedding and softmax weights")
    p.add_argument("--vocab", type=int, default=10000, help="words kept; the rest are <unk>")
    p.add_argument("--files", nargs="*", default=None, help="fortune files to read (default: all)")
    p.add_argument("--data", default=FORTUNES_DIR, help="a directory of fortune files")
    p.add_argument("--words", type=int, default=40, help="words to sample at the end")
    p.add_argument("--device", default=None, help="cpu or cuda (default: the GPU when one is usable)")
    p.add_argument("--seed", type=int, default=1111)
    p.add_argument("--tiny", action="store_true", help="2 layers of 32, one fortune file, 2 epochs")
    args = p.parse_args(argv)
    if args.tiny:
        args.emsize = args.nhid = 32
        args.epochs, args.bptt, args.vocab, args.words, args.dropout = 2, 20, 800, 20, 0.0
        args.files = args.files or ["fortunes"]
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.device:
        gg.set_default_device(args.device)
    gg.manual_seed(args.seed)
    corpus = Corpus(load_fortunes(args.data, args.files), args.vocab)
    train = batchify(corpus.train, args.batch_size)
    valid, test = batchify(corpus.valid, 10), batchify(corpus.test, 10)
    ntokens = len(corpus.idx2word)
    model = RNNModel(ntokens, args.emsize, args.nhid, args.nlayers, args.dropout, args.tied)
    params = list({id(p): p for p in model.parameters()}.values())  # a tied weight once
    print(f"glassgrad {gg.__version__} on {gg.default_device()}: {len(corpus.train)} training words, vocabulary "
          f"{ntokens}; LSTM {args.nlayers} x {args.nhid}, embedding {args.emsize}: "
          f"{sum(p.numel() for p in params) / 1e6:.2f} M parameters")
    # --8<-- [start:train]
    optimizer = gg.optim.SGD(params, lr=args.lr)
    lr, best_val, first_val = args.lr, None, evaluate(model, valid, 10, args.bptt)
    for epoch in range(1, args.epochs + 1):
        start, hidden, total = time.perf_counter(), model.init_hidden(args.batch_size), 0.0
        for batch, i in enumerate(range(0, train.shape[0] - 1, args.bptt)):
            data, targets = get_batch(train, i, args.bptt)
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
            loss = F.nll_loss(output, targets)
            loss.backward()
            nn.utils.clip_grad_norm_(params, args.clip)   # against exploding gradients through time
            optimizer.step()
            optimizer.zero_grad()
            total += loss.item()
        val_loss = evaluate(model, valid, 10, args.bptt)
        print(f"| end of epoch {epoch:3d} | time: {time.perf_counter() - start:5.2f}s | train loss "
              f"{total / (batch + 1):5.2f} | valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}")
        if best_val is None or val_loss < best_val:
            best_val = val_loss
        else:                                                   # no progress: anneal the learning rate
            lr /= 4.0
            optimizer.param_groups[0]["lr"] = lr
    # --8<-- [end:train]
    test_loss = evaluate(model, test, 10, args.bptt)
    print(f"| End of training | test loss {test_loss:5.2f} | test ppl {math.exp(test_loss):8.2f}")
    print("sample:\n" + generate(model, corpus, args.words, temperature=0.8, seed=args.seed))
    print(f"validation perplexity {math.exp(first_val):.1f} -> {math.exp(best_val):.1f} "
          f"(vocabulary {ntokens})")
    return first_val, best_val


if __name__ == "__main__":
    main()
