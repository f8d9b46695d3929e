"""Fitting a random cubic polynomial with one Linear layer over the features x, x^2, x^3, updated
by hand: loss.backward(), then each parameter's data moved against its gradient and the gradients
zeroed, until the smooth L1 loss is below 1e-3."""
import glassgrad.nn as nn
import glassgrad.nn.functional as F
import glassgrad.torch as torch

DEGREE = 3


def features(x):
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, DEGREE + 1)], 1)


def main():
    torch.manual_seed(0)
    w_true = torch.randn(DEGREE, 1) * 0.5
    b_true = torch.randn(1) * 0.5
    model = nn.Linear(DEGREE, 1)
    for step in range(1, 5001):
        x = features(torch.randn(32))
        y = x.mm(w_true) + b_true.item()
        model.zero_grad()
        loss = F.smooth_l1_loss(model(x), y)
        loss.backward()
        for param in model.parameters():
            param.data.add_(-0.1 * param.grad)
        if loss.item() < 1e-3:
            break
    print(f"Loss: {loss.item():.6f} after {step} batches")
    print("learned:", " ".join(f"{v:+.3f}" for v in model.weight.view(-1).tolist()), f"{model.bias.item():+.3f}")
    print("actual: ", " ".join(f"{v:+.3f}" for v in w_true.view(-1).tolist()), f"{b_true.item():+.3f}")


if __name__ == "__main__":
    main()
