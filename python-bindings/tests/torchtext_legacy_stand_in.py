"""A stand-in for torchtext's legacy data API (torchtext.data's Field, Example, Dataset,
BucketIterator; torchtext.datasets' TranslationDataset), enough for scripts that train on a
pickle of Fields and Examples as jadore801120/attention-is-all-you-need-pytorch's preprocess.py
writes it. Tests copy this file, ported, as torchtext/__init__.py, with data.py and datasets.py
importing from it and torchtext_stand_in.py as torchtext/vocab.py. write_translation_pickle()
writes such a pickle for a synthetic reversal task in place of preprocess.py, which needs spacy's
language models and the Multi30k download.

Semantics kept from torchtext 0.4-0.8's documented legacy API: a Field's vocabulary puts its
specials first, in the order unk, pad, init, eos, then the words by descending count (vocab.py);
stoi maps unknown words to <unk>'s index; process() pads each sequence, between its init and eos
tokens, to the batch's longest and gives a LongTensor [length, batch] (batch_first=False) or
[batch, length]; BucketIterator batches `batch_size` examples, shuffled when train=True."""
import argparse
import pickle
import random
from collections import Counter, defaultdict

import torch

from torchtext.vocab import Vocab


class Field:
    def __init__(self, tokenize=str.split, lower=False, pad_token="<pad>", unk_token="<unk>", init_token=None,
                 eos_token=None, batch_first=False):
        self.tokenize, self.lower, self.batch_first = tokenize, lower, batch_first
        self.pad_token, self.unk_token, self.init_token, self.eos_token = pad_token, unk_token, init_token, eos_token

    def preprocess(self, text):
        tokens = self.tokenize(text) if isinstance(text, str) else list(text)
        return [t.lower() for t in tokens] if self.lower else tokens

    def build_vocab(self, *sources, min_freq=1):
        counter = Counter(t for source in sources for seq in source for t in seq)
        specials = [t for t in (self.unk_token, self.pad_token, self.init_token, self.eos_token) if t is not None]
        self.vocab = Vocab(counter, min_freq, specials)
        self.vocab.stoi = defaultdict(int, self.vocab.stoi)  # unknown words -> <unk> (index 0)

    def process(self, batch, device=None):
        ends = [t for t in (self.init_token,) if t], [t for t in (self.eos_token,) if t]
        longest = max(len(x) for x in batch)
        rows = [[self.vocab.stoi[t] for t in ends[0] + list(x) + ends[1]] +
                [self.vocab.stoi[self.pad_token]] * (longest - len(x)) for x in batch]
        ids = torch.tensor(rows, dtype=torch.long, device=device)
        return ids if self.batch_first else ids.t().contiguous()


class Example:
    @classmethod
    def fromlist(cls, data, fields):
        ex = cls()
        for (name, field), value in zip(fields, data):
            setattr(ex, name, field.preprocess(value))
        return ex


class Dataset:
    def __init__(self, examples, fields, filter_pred=None):
        self.examples = [e for e in examples if filter_pred is None or filter_pred(e)]
        self.fields = dict(fields)

    def __iter__(self):
        return iter(self.examples)

    def __len__(self):
        return len(self.examples)

    def __getattr__(self, name):
        if name in self.__dict__.get("fields", {}):
            return (getattr(e, name) for e in self.examples)
        raise AttributeError(name)


class TranslationDataset(Dataset):
    def __init__(self, path, exts, fields, filter_pred=None):
        with open(path + exts[0], encoding="utf-8") as src, open(path + exts[1], encoding="utf-8") as trg:
            pairs = list(zip(src.read().splitlines(), trg.read().splitlines()))
        names = [("src", fields[0]), ("trg", fields[1])]
        super().__init__([Example.fromlist(p, names) for p in pairs], names, filter_pred)


class Batch:
    def __init__(self, examples, dataset, device):
        for name, field in dataset.fields.items():
            setattr(self, name, field.process([getattr(e, name) for e in examples], device))


class BucketIterator:
    def __init__(self, dataset, batch_size, device=None, train=True, seed=0):
        self.dataset, self.batch_size, self.device, self.train = dataset, batch_size, device, train
        self.rng = random.Random(seed)

    def __len__(self):
        return -(-len(self.dataset) // self.batch_size)

    def __iter__(self):
        examples = list(self.dataset)
        if self.train:
            self.rng.shuffle(examples)
        for i in range(0, len(examples), self.batch_size):
            yield Batch(examples[i:i + self.batch_size], self.dataset, self.device)


WORDS = ["a", "man", "woman", "dog", "runs", "sits", "on", "the", "street", "in", "park", "red", "blue", "ball"]


def write_translation_pickle(path, sizes=(64, 16, 8), max_len=100, seed=0):
    """preprocess.py's pickle for sentences whose 'translation' is the words reversed and upper-cased."""
    rng = random.Random(seed)
    src_field = Field(lower=True, pad_token="<blank>", init_token="<s>", eos_token="</s>")
    trg_field = Field(lower=False, pad_token="<blank>", init_token="<s>", eos_token="</s>")
    names = [("src", src_field), ("trg", trg_field)]
    splits = []
    for n in sizes:
        sentences = [[rng.choice(WORDS) for _ in range(rng.randint(3, 7))] for _ in range(n)]
        splits.append([Example.fromlist((" ".join(s), " ".join(w.upper() for w in reversed(s))), names)
                       for s in sentences])
    src_field.build_vocab([e.src for e in splits[0]])
    trg_field.build_vocab([e.trg for e in splits[0]])
    data = {"settings": argparse.Namespace(max_len=max_len), "vocab": {"src": src_field, "trg": trg_field},
            "train": splits[0], "valid": splits[1], "test": splits[2]}
    with open(path, "wb") as f:
        pickle.dump(data, f)
