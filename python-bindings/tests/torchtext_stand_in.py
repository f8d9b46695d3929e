"""A stand-in for torchtext.vocab (torchtext is not installed here, and its releases after 0.17
no longer build against current PyTorch): Vocab(counter, min_freq) with the attributes courses of
torchtext 0.4's time read, `itos` (index to string, "<unk>" and "<pad>" first, then the words kept
by descending count, ties by word) and `stoi` (string to index), and len(). Tests write it as
torchtext/vocab.py beside a course's code, so the course's `import torchtext` succeeds under either
framework; vectors (GloVe) are not stood in for."""


class Vocab:
    def __init__(self, counter, min_freq=1, specials=("<unk>", "<pad>")):
        kept = sorted((w for w, n in counter.items() if n >= min_freq), key=lambda w: (-counter[w], w))
        self.itos = list(specials) + [w for w in kept if w not in specials]
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.freqs = counter

    def __len__(self):
        return len(self.itos)
