"""The idioms of the course scripts students meet first (a character-level language model's
batches built in Python, a names classifier's split and per-example loop, an endless loader
over a sampler with replacement), written here as small functions of the framework and run
with glassgrad.torch and, where installed, torch: the same shapes, dtypes, printed text and
split sizes (docs/porting.md lists the tutorials these come from)."""
import os
import warnings

import numpy as np
import pytest

import glassgrad.torch as gt

try:
    import torch
    FRAMEWORKS = [gt, torch]
except ImportError:  # torch is optional: glassgrad alone is still checked
    FRAMEWORKS = [gt]


def _char_lm(fw, text, block_size=8, batch_size=4, steps=30):
    """A bigram model trained on `text` as the GPT lecture trains it: get_batch stacks slices
    taken at random 0-d tensor offsets, estimate_loss runs under no_grad in eval mode, and
    generation samples with multinomial and concatenates."""
    fw.manual_seed(0)
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = fw.tensor([stoi[c] for c in text], dtype=fw.long)

    def get_batch():
        ix = fw.randint(len(data) - block_size, (batch_size,))
        x = fw.stack([data[i:i + block_size] for i in ix])
        y = fw.stack([data[i + 1:i + block_size + 1] for i in ix])
        return x, y, ix

    x, y, ix = get_batch()
    rows = [text_ids[i:i + block_size] for text_ids in [data.tolist()] for i in ix.tolist()]
    np.testing.assert_array_equal(x.numpy(), np.array(rows))
    np.testing.assert_array_equal(y[:, :-1].numpy(), x[:, 1:].numpy())
    table = fw.nn.Embedding(len(chars), len(chars))
    opt = fw.optim.AdamW(table.parameters(), lr=1e-2)

    @fw.no_grad()
    def estimate_loss():
        table.eval()
        losses = fw.zeros(3)
        for k in range(3):
            xb, yb, _ = get_batch()
            logits = table(xb)
            B, T, C = logits.shape
            losses[k] = fw.nn.functional.cross_entropy(logits.view(B * T, C), yb.view(B * T)).item()
        table.train()
        return losses.mean()

    first = estimate_loss()
    for _ in range(steps):
        xb, yb, _ = get_batch()
        logits = table(xb)
        B, T, C = logits.shape
        loss = fw.nn.functional.cross_entropy(logits.view(B * T, C), yb.view(B * T))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    idx = fw.zeros((1, 1), dtype=fw.long)
    for _ in range(5):
        probs = fw.nn.functional.softmax(table(idx)[:, -1, :], dim=-1)
        idx = fw.cat((idx, fw.multinomial(probs, num_samples=1)), dim=1)
    last = estimate_loss()
    return f"{last:.4f}" == f"{last.item():.4f}", bool(last < first), tuple(idx.shape), str(idx.dtype)[-5:], len(chars)


@pytest.mark.parametrize("fw", FRAMEWORKS, ids=lambda m: m.__name__)
def test_a_char_language_model_built_in_python_loops(fw):
    text = "first citizen: before we proceed any further, hear me speak. all: speak, speak.\n" * 3
    assert _char_lm(fw, text) == (True, True, (1, 6), "int64", len(set(text)))


def _names_classifier(fw, names):
    """The names tutorial's loop: a fractional random_split with a seeded generator, batches of
    indices from np.array_split (NumPy integers index the Subset), one RNN step per name,
    losses summed from 0, clipping, and a confusion matrix filled by chained indexing."""
    labels = sorted(names)
    letters = "abcdefghijklmnopqrstuvwxyz"

    def line_tensor(line):
        t = fw.zeros(len(line), 1, len(letters))
        for li, letter in enumerate(line):
            t[li][0][letters.find(letter)] = 1
        return t

    data = [(fw.tensor([labels.index(k)], dtype=fw.long), line_tensor(n), k, n) for k in labels for n in names[k]]
    train_set, test_set = fw.utils.data.random_split(
        data, [.85, .15], generator=fw.Generator(device="cpu").manual_seed(2024))
    fw.manual_seed(0)
    rnn, h2o = fw.nn.RNN(len(letters), 16), fw.nn.Linear(16, len(labels))
    params = list(rnn.parameters()) + list(h2o.parameters())
    opt = fw.optim.SGD(params, lr=0.15)

    def forward(t):
        _, hidden = rnn(t)
        return fw.nn.functional.log_softmax(h2o(hidden[0]), dim=1)

    for batch in np.array_split(list(range(len(train_set))), 3):
        batch_loss = 0
        for i in batch:
            label_tensor, text_tensor, _, _ = train_set[i]
            batch_loss += fw.nn.NLLLoss()(forward(text_tensor), label_tensor)
        batch_loss.backward()
        fw.nn.utils.clip_grad_norm_(params, 3)
        opt.step()
        opt.zero_grad()
    confusion = fw.zeros(len(labels), len(labels))
    with fw.no_grad():
        for i in range(len(test_set)):
            label_tensor, text_tensor, label, _ = test_set[i]
            _, top_i = forward(text_tensor).topk(1)
            confusion[labels.index(label)][top_i[0].item()] += 1
    for i in range(len(labels)):
        denom = confusion[i].sum()
        if denom > 0:
            confusion[i] = confusion[i] / denom
    seen = {test_set[i][2] for i in range(len(test_set))}
    # each row of a label seen sums to 1; f"{label_tensor[0]}" prints the number (a 0-d tensor)
    return len(train_set), len(test_set), float(confusion.sum()) == len(seen), f"{train_set[0][0][0]}".isdigit()


@pytest.mark.parametrize("fw", FRAMEWORKS, ids=lambda m: m.__name__)
def test_a_names_classifier_split_and_loop(fw):
    names = {"italian": ["rossi", "bianchi", "romano", "colombo", "ricci", "greco"],
             "english": ["smith", "jones", "taylor", "brown", "wilson", "evans"],
             "german": ["muller", "schmidt", "fischer", "weber", "meyer", "wagner"]}
    assert _names_classifier(fw, names) == (16, 2, True, True)  # 18 * .85 floored, the rest round-robin


def _endless_loader(fw, tmp_path):
    """makemore's loader: a sampler drawing with replacement 1e10 times, pin_memory on a CPU
    (PyTorch's warning), batches taken with next(); the model saved and loaded back."""
    fw.manual_seed(0)
    ds = fw.utils.data.TensorDataset(fw.arange(20).view(10, 2), fw.arange(10))
    sampler = fw.utils.data.RandomSampler(ds, replacement=True, num_samples=int(1e10))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        it = iter(fw.utils.data.DataLoader(ds, sampler=sampler, batch_size=4, pin_memory=True, num_workers=0))
        batches = [next(it) for _ in range(3)]
    pinned = [w for w in caught if "pin_memory" in str(w.message)]
    model = fw.nn.Linear(2, 3)
    path = os.path.join(str(tmp_path), f"model_{fw.__name__}.pt")
    fw.save(model.state_dict(), path)
    model.load_state_dict(fw.load(path))
    return [tuple(b.shape) for b in batches[0]], str(batches[0][0].dtype)[-5:], bool(pinned)


@pytest.mark.parametrize("fw", FRAMEWORKS, ids=lambda m: m.__name__)
def test_an_endless_loader_over_a_sampler_with_replacement(fw, tmp_path):
    assert _endless_loader(fw, tmp_path) == ([(4, 2), (4,)], "int64", not _has_accelerator(fw))


def _has_accelerator(fw):
    return bool(fw.cuda.is_available())
