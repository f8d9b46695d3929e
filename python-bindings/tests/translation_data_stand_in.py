"""A stand-in for hyunwoongko/transformer's data.py, whose Multi30k pipeline needs torchtext's
legacy Field/BucketIterator and spacy's German and English models: tests copy this file over the
ported data.py. It defines the same names (conf's settings, `loader` with source/target vocabularies
as torchtext's Field.build_vocab orders them: <unk>, <pad>, <sos>, <eos>, then words; train_iter,
valid_iter and test_iter yielding batches with .src and .trg [batch, length] LongTensors, padded
with <pad>, batch first) over a small synthetic task: the target sentence is the source reversed,
with each word's German stand-in."""
import random

from conf import *  # noqa: F403  (the original's first line: train.py reads conf's settings from here)
from conf import device, torch

WORDS = ["a", "man", "woman", "dog", "runs", "sits", "on", "the", "street", "in", "park", "red", "blue", "ball"]
GERMAN = {w: w.upper() + "_de" for w in WORDS}
SPECIALS = ["<unk>", "<pad>", "<sos>", "<eos>"]
SENTENCES = {"train": 48, "valid": 16, "test": 16}
PAIRS_PER_BATCH = 8


class Vocab:
    def __init__(self, words):
        self.itos = SPECIALS + sorted(words)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)


class Field:
    def __init__(self, words):
        self.vocab = Vocab(words)

    def numericalize(self, sentences):
        """[batch, longest + 2] ids: <sos> words <eos>, padded with <pad> (batch first)."""
        longest = max(len(s) for s in sentences)
        rows = [[self.vocab.stoi["<sos>"]] + [self.vocab.stoi[w] for w in s] + [self.vocab.stoi["<eos>"]] +
                [self.vocab.stoi["<pad>"]] * (longest - len(s)) for s in sentences]
        return torch.tensor(rows, dtype=torch.long, device=device)


class Batch:
    def __init__(self, src, trg):
        self.src, self.trg = src, trg


class Iterator:
    def __init__(self, pairs, source, target):
        self.batches = [Batch(source.numericalize([p[0] for p in pairs[i:i + PAIRS_PER_BATCH]]),
                              target.numericalize([p[1] for p in pairs[i:i + PAIRS_PER_BATCH]]))
                        for i in range(0, len(pairs), PAIRS_PER_BATCH)]

    def __iter__(self):
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)


class Loader:
    def __init__(self):
        self.source, self.target = Field(WORDS), Field(GERMAN.values())


rng = random.Random(0)


def _pairs(n):
    sentences = [[rng.choice(WORDS) for _ in range(rng.randint(3, 7))] for _ in range(n)]
    return [(s, [GERMAN[w] for w in reversed(s)]) for s in sentences]


loader = Loader()
train_iter, valid_iter, test_iter = (Iterator(_pairs(SENTENCES[k]), loader.source, loader.target)
                                     for k in ("train", "valid", "test"))

src_pad_idx = loader.source.vocab.stoi['<pad>']
trg_pad_idx = loader.target.vocab.stoi['<pad>']
trg_sos_idx = loader.target.vocab.stoi['<sos>']

enc_voc_size = len(loader.source.vocab)
dec_voc_size = len(loader.target.vocab)
