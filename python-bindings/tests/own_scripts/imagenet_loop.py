"""An ImageNet-style training loop on an ImageFolder tree (or FakeData with --dummy): a
torchvision-layout ResNet-18, loader workers, SGD with StepLR, running averages of the loss and of
top-1 and top-5 accuracy, a checkpoint each epoch copied to model_best.pth.tar when it is the best,
and --resume / --evaluate from it."""
import argparse
import os
import shutil

import glassgrad.nn as nn
import glassgrad.optim as optim
import glassgrad.torch as torch
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, models, transforms


class Meter:
    """The running mean of a value over the samples seen."""

    def __init__(self, name):
        self.name, self.sum, self.count = name, 0.0, 0

    def update(self, value, n):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def accuracy(output, target, topk=(1,)):
    """Percent of rows whose target is among the k largest outputs, for each k."""
    with torch.no_grad():
        _, pred = output.topk(max(topk), 1, True, True)
        hit = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
        return [hit[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / target.size(0)) for k in topk]


def run_epoch(loader, model, criterion, opt, train):
    model.train(train)
    meters = [Meter("loss"), Meter("acc1"), Meter("acc5")]
    with torch.set_grad_enabled(train):
        for images, target in loader:
            output = model(images)
            loss = criterion(output, target)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))
            for m, v in zip(meters, (loss.item(), acc1[0].item(), acc5[0].item())):
                m.update(v, images.size(0))
            if train:
                opt.zero_grad()
                loss.backward()
                opt.step()
    return meters


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data", nargs="?", default="images")
    p.add_argument("--dummy", action="store_true")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("-b", "--batch-size", type=int, default=8)
    p.add_argument("-j", "--workers", type=int, default=0)
    p.add_argument("--resume", default="")
    p.add_argument("-e", "--evaluate", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)
    norm = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    if args.dummy:
        train_set = datasets.FakeData(16, (3, 32, 32), 10, transforms.ToTensor())
        val_set = datasets.FakeData(8, (3, 32, 32), 10, transforms.ToTensor())
    else:
        train_set = datasets.ImageFolder(os.path.join(args.data, "train"), transforms.Compose([
            transforms.RandomResizedCrop(32), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
        val_set = datasets.ImageFolder(os.path.join(args.data, "val"), transforms.Compose([
            transforms.Resize(36), transforms.CenterCrop(32), transforms.ToTensor(), norm]))
    classes = 10 if args.dummy else len(train_set.classes)
    model = models.resnet18(num_classes=classes)
    criterion = nn.CrossEntropyLoss()
    opt = optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
    start, best = 0, 0.0
    if args.resume:
        ckpt = torch.load(args.resume)
        model.load_state_dict(ckpt["state_dict"])
        opt.load_state_dict(ckpt["optimizer"])
        sched.load_state_dict(ckpt["scheduler"])
        start, best = ckpt["epoch"], ckpt["best_acc1"]
        print(f"loaded checkpoint '{args.resume}' (epoch {start})")
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, num_workers=args.workers)
    if args.evaluate:
        loss, acc1, acc5 = run_epoch(val_loader, model, criterion, opt, False)
        print(f" * Acc@1 {acc1.avg:.3f} Acc@5 {acc5.avg:.3f}")
        return
    for epoch in range(start, args.epochs):
        loss, acc1, acc5 = run_epoch(train_loader, model, criterion, opt, True)
        print(f"Epoch {epoch}: loss {loss.avg:.4f} Acc@1 {acc1.avg:.3f} Acc@5 {acc5.avg:.3f} lr {sched.get_last_lr()[0]:g}")
        _, val1, val5 = run_epoch(val_loader, model, criterion, opt, False)
        print(f" * Acc@1 {val1.avg:.3f} Acc@5 {val5.avg:.3f}")
        sched.step()
        is_best, best = val1.avg >= best, max(val1.avg, best)
        torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "best_acc1": best,
                    "optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, "checkpoint.pth.tar")
        if is_best:
            shutil.copyfile("checkpoint.pth.tar", "model_best.pth.tar")


if __name__ == "__main__":
    main()
