"""A small residual network on CIFAR-10-format batches: a DataLoader over the dataset with random
crops, flips and normalization, SGD with momentum and weight decay under cosine annealing, a test
pass each epoch, and a checkpoint of the best accuracy ({'net', 'acc', 'epoch'}) that --resume
continues from."""
import argparse
import os

import glassgrad.nn as nn
import glassgrad.nn.functional as F
import glassgrad.optim as optim
import glassgrad.torch as torch
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms

MEAN, STD = (0.49, 0.48, 0.45), (0.25, 0.24, 0.26)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.skip = nn.Sequential()
        if stride != 1 or cin != cout:
            self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.skip(x))


class SmallResNet(nn.Module):
    def __init__(self, width=8, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.layers = nn.Sequential(Block(width, width, 1), Block(width, 2 * width, 2), Block(2 * width, 4 * width, 2))
        self.fc = nn.Linear(4 * width, classes)

    def forward(self, x):
        out = F.adaptive_avg_pool2d(self.layers(self.stem(x)), 1)
        return self.fc(torch.flatten(out, 1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--resume", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)
    train_tf = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train = DataLoader(datasets.CIFAR10(args.data, train=True, download=False, transform=train_tf),
                       batch_size=32, shuffle=True)
    test = DataLoader(datasets.CIFAR10(args.data, train=False, download=False, transform=test_tf), batch_size=50)
    net = SmallResNet()
    best_acc, start_epoch = 0.0, 0
    if args.resume:
        ckpt = torch.load(os.path.join("checkpoint", "ckpt.pth"))
        net.load_state_dict(ckpt["net"])
        best_acc, start_epoch = ckpt["acc"], ckpt["epoch"] + 1
        print(f"resumed at epoch {start_epoch} (best accuracy {best_acc:.1f})")
    criterion = nn.CrossEntropyLoss()
    opt = optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    for epoch in range(start_epoch, start_epoch + args.epochs):
        net.train()
        seen = correct = 0
        for inputs, targets in train:
            opt.zero_grad()
            outputs = net(inputs)
            loss = criterion(outputs, targets)
            loss.backward()
            opt.step()
            correct += outputs.argmax(1).eq(targets).sum().item()
            seen += targets.size(0)
        sched.step()
        net.eval()
        test_correct = test_seen = 0
        with torch.no_grad():
            for inputs, targets in test:
                test_correct += net(inputs).max(1)[1].eq(targets).sum().item()
                test_seen += targets.size(0)
        acc = 100.0 * test_correct / test_seen
        print(f"epoch {epoch} loss {loss.item():.3f} train acc {100.0 * correct / seen:.1f} test acc {acc:.1f} "
              f"lr {sched.get_last_lr()[0]:.4f}")
        if acc >= best_acc:
            print("saving checkpoint")
            os.makedirs("checkpoint", exist_ok=True)
            torch.save({"net": net.state_dict(), "acc": acc, "epoch": epoch}, os.path.join("checkpoint", "ckpt.pth"))
            best_acc = acc


if __name__ == "__main__":
    main()
