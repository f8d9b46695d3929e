"""A character bigram model of names, built two ways as a lecture notebook builds it: counts
accumulated one pair at a time in a Python loop (`N[i, j] += 1`, thousands of in-place writes
recorded before anything is read), normalized into probabilities and sampled with a seeded
Generator; then the same model learned as one Linear layer of one-hot rows by hand-written
gradient descent. Prints both negative log-likelihoods, a histogram of the learned logits
(torch.histogram) and what picking elements with index tensors of two lengths raises."""
import argparse

import glassgrad.nn.functional as F
import glassgrad.torch as torch


def read_words(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--names", default="names.txt")
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    words = read_words(args.names)
    chars = sorted(set("".join(words)))
    stoi = {c: i + 1 for i, c in enumerate(chars)}
    stoi["."] = 0
    itos = {i: c for c, i in stoi.items()}
    V = len(stoi)

    N = torch.zeros((V, V), dtype=torch.int32)
    xs, ys = [], []
    for w in words:
        chs = ["."] + list(w) + ["."]
        for a, b in zip(chs, chs[1:]):
            N[stoi[a], stoi[b]] += 1
            xs.append(stoi[a])
            ys.append(stoi[b])
    print("pairs", int(N.sum().item()), "of", len(xs))
    P = (N + 1).float()
    P /= P.sum(1, keepdim=True)
    g = torch.Generator().manual_seed(2147483647)
    for _ in range(3):
        out, ix = [], 0
        while True:
            ix = torch.multinomial(P[ix], num_samples=1, replacement=True, generator=g).item()
            if ix == 0:
                break
            out.append(itos[ix])
        print("sample", "".join(out) + ".")
    xs_t, ys_t = torch.tensor(xs), torch.tensor(ys)
    counted = -P[xs_t, ys_t].log().mean()
    print(f"counts nll {counted.item():.4f}")

    W = torch.randn((V, V), generator=g, requires_grad=True)
    xenc = F.one_hot(xs_t, num_classes=V).float()
    for _ in range(args.steps):
        logits = xenc @ W
        probs = logits.exp() / logits.exp().sum(1, keepdim=True)
        loss = -probs[torch.arange(len(ys)), ys_t].log().mean() + 0.01 * (W ** 2).mean()
        W.grad = None
        loss.backward()
        W.data += -50 * W.grad
    print(f"learned nll {loss.item():.4f}")
    hist, edges = torch.histogram(W.detach(), bins=5)
    print("logit histogram", [int(h) for h in hist.tolist()], "over", [round(e, 3) for e in edges.tolist()])
    try:
        probs[torch.arange(5), ys_t]
    except IndexError as e:
        print("IndexError:", str(e).splitlines()[0])


if __name__ == "__main__":
    main()
