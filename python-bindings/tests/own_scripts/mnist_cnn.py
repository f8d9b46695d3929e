"""A convolutional MNIST classifier: two convolutions, max pooling, dropout, log_softmax with
nll_loss, Adadelta under StepLR (gamma 0.7 each epoch), a test pass summing the loss and counting
argmax hits, and the state_dict saved."""
import argparse

import glassgrad.nn as nn
import glassgrad.nn.functional as F
import glassgrad.optim as optim
import glassgrad.torch as torch
from glassgrad.optim.lr_scheduler import StepLR
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.drop1, self.drop2 = nn.Dropout(0.25), nn.Dropout(0.5)
        self.fc1 = nn.Linear(16 * 12 * 12, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.drop1(F.max_pool2d(F.relu(self.conv2(x)), 2))
        x = self.drop2(F.relu(self.fc1(torch.flatten(x, 1))))
        return F.log_softmax(self.fc2(x), dim=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--save-model", action="store_true")
    args = p.parse_args()
    torch.manual_seed(1)
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train = DataLoader(datasets.MNIST(args.data, train=True, transform=tf), batch_size=args.batch_size, shuffle=True)
    test = DataLoader(datasets.MNIST(args.data, train=False, transform=tf), batch_size=args.batch_size)
    model = Net()
    opt = optim.Adadelta(model.parameters(), lr=1.0)
    sched = StepLR(opt, step_size=1, gamma=0.7)
    for epoch in range(1, args.epochs + 1):
        model.train()
        for batch, (x, y) in enumerate(train):
            opt.zero_grad()
            loss = F.nll_loss(model(x), y)
            loss.backward()
            opt.step()
            print(f"Train Epoch: {epoch} [{batch * len(x)}/{len(train.dataset)}] Loss: {loss.item():.6f}")
        model.eval()
        total, correct = 0.0, 0
        with torch.no_grad():
            for x, y in test:
                out = model(x)
                total += F.nll_loss(out, y, reduction="sum").item()
                correct += out.argmax(dim=1, keepdim=True).eq(y.view_as(out.argmax(dim=1, keepdim=True))).sum().item()
        n = len(test.dataset)
        print(f"Test set: Average loss: {total / n:.4f}, Accuracy: {correct}/{n} lr {sched.get_last_lr()[0]:.3f}")
        sched.step()
    if args.save_model:
        torch.save(model.state_dict(), "mnist_cnn.pt")


if __name__ == "__main__":
    main()
