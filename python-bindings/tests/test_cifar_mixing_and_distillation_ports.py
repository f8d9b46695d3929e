"""CIFAR-10 training recipes, ported on the fly from $GLASSGRAD_SCRIPT_SOURCES (script_sources.py;
without the checkouts these tests skip):

- facebookresearch/mixup-cifar10 (train.py: mixup of inputs and two-target losses, SGD with
  weight decay, the whole model pickled in a checkpoint, a CSV log of tensors' reprs);
- clovaai/CutMix-PyTorch (train.py: PyramidNet with zero-padded shortcuts, a random box of
  another image pasted in place, nesterov SGD, top-1/top-5 errors);
- haitongli/knowledge-distillation-pytorch (train.py: a ResNet-18 teacher trained and saved,
  then a 5-layer CNN distilled from it with KLDivLoss of temperature-scaled softmaxes).

CIFAR-10 is written small in torchvision's folder layout (data_fixtures.write_cifar). Lines
changed beyond the imports are those PyTorch 0.3 wrote and PyTorch 0.4 and later refuse alike
(`loss.data[0]` of a 0-d loss; `.cuda(async=True)`, a syntax error since Python 3.7), NumPy's
removed `np.int`, `.cuda()` on this CPU-only run, and the loader's workers (0 here). The
knowledge-distillation utils.py imports TensorFlow for an unused logger: a stand-in module is
written beside it."""
import csv
import json
import os
import re
import sys

from data_fixtures import write_cifar
from script_sources import needs, port_script, source
from test_ported_scripts import _run

MIXUP, CUTMIX, KD = "mixup-cifar10", "CutMix-PyTorch", "knowledge-distillation-pytorch"


def _port(repo, folder, changes):
    """The checkout ported into folder, `changes` ({file: {line: new}}) made to the files named."""
    port_script.port_tree(source(repo, ""), str(folder))
    for rel, lines in changes.items():
        port_script.port_file(source(repo, rel), str(folder / rel), lines)


def _ok(proc):
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc.stdout


@needs(MIXUP)
def test_mixup_trains_lenet_logs_each_epoch_and_checkpoints_the_model(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    _port(MIXUP, folder, {"train.py": {
        "        train_loss += loss.data[0]": "        train_loss += loss.item()",
        "        test_loss += loss.data[0]": "        test_loss += loss.item()",
        "                                          shuffle=True, num_workers=8)":
            "                                          shuffle=True, num_workers=0)",
        "                                         shuffle=False, num_workers=8)":
            "                                         shuffle=False, num_workers=0)"}})
    monkeypatch.setenv("HOME", str(folder))  # the script reads ~/data
    write_cifar(str(folder / "data"), n_per_batch=16, n_test=200)
    out = _ok(_run([sys.executable, "train.py", "--model", "LeNet", "--epoch", "2", "--batch-size", "16",
                    "--seed", "1"], str(folder), tty=True))
    assert "==> Building model.." in out and out.count("Saving..") >= 1
    with open(folder / "results" / "log_LeNet_0_1.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["epoch", "train loss", "reg loss", "train acc", "test loss", "test acc"]
    assert [r[0] for r in rows[1:]] == ["0", "1"]
    for row in rows[1:]:
        assert float(row[1]) >= 0 and float(row[4]) >= 0
        # accuracies are 0-d tensors written by their repr, as PyTorch writes them
        assert re.fullmatch(r"tensor\(\d+\.\d{4}\)|tensor\(\d+\.\)", row[3]), row[3]
        assert re.fullmatch(r"tensor\(\d+\.\d{4}\)|tensor\(\d+\.\)", row[5]), row[5]
    assert (folder / "checkpoint" / "ckpt.t70_1").exists()


CUTMIX_CHANGES = {
    "train.py": {
        "    model = torch.nn.DataParallel(model).cuda()": "    model = torch.nn.DataParallel(model)",
        "    criterion = nn.CrossEntropyLoss().cuda()": "    criterion = nn.CrossEntropyLoss()",
        "        input = input.cuda()": None,
        "        target = target.cuda()": None,
        "            rand_index = torch.randperm(input.size()[0]).cuda()":
            "            rand_index = torch.randperm(input.size()[0])",
        "    cut_w = np.int(W * cut_rat)": "    cut_w = int(W * cut_rat)",
        "    cut_h = np.int(H * cut_rat)": "    cut_h = int(H * cut_rat)",
        # the script's accuracy() views a transposed tensor, which PyTorch refuses too
        "        correct_k = correct[:k].view(-1).float().sum(0, keepdim=True)":
            "        correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)"},
}


@needs(CUTMIX)
def test_cutmix_trains_a_pyramidnet_with_every_batch_mixed(tmp_path):
    folder = tmp_path / "run"
    with open(source(CUTMIX, "pyramidnet.py")) as f:
        cuda_line = next(line for line in f.read().split("\n") if "torch.cuda.FloatTensor(" in line)
    _port(CUTMIX, folder, {**CUTMIX_CHANGES, "pyramidnet.py": {
        cuda_line: cuda_line.replace("torch.cuda.FloatTensor(", "torch.FloatTensor(")}})
    write_cifar(str(tmp_path / "data"), n_per_batch=16, n_test=64)  # the script reads ../data
    out = _ok(_run([sys.executable, "train.py", "--net_type", "pyramidnet", "--dataset", "cifar10", "--depth", "11",
                    "--alpha", "24", "--batch_size", "32", "--epochs", "2", "--beta", "1.0", "--cutmix_prob", "1.0",
                    "-j", "0", "--no-verbose"], str(folder)))
    assert "the number of model parameters: 54202" in out  # PyTorch's count for this PyramidNet
    epochs = re.findall(r"\* Epoch: \[(\d)/2\]\t Top 1-err ([\d.]+)  Top 5-err ([\d.]+)\t (Train|Test) Loss ([\d.]+)",
                        out)
    assert [(e[0], e[3]) for e in epochs] == [("0", "Train"), ("0", "Test"), ("1", "Train"), ("1", "Test")]
    assert all(0 <= float(e[1]) <= 100 and 0 <= float(e[2]) <= float(e[1]) for e in epochs)
    assert "Best accuracy (top-1 and 5 error):" in out
    assert (folder / "runs" / "TEST" / "model_best.pth.tar").exists()


KD_CHANGES = {
    "train.py": {
        "                train_batch, labels_batch = train_batch.cuda(async=True), \\":
            "                train_batch, labels_batch = train_batch.cuda(non_blocking=True), \\",
        "                                            labels_batch.cuda(async=True)":
            "                                            labels_batch.cuda(non_blocking=True)",
        "                output_teacher_batch = output_teacher_batch.cuda(async=True)":
            "                output_teacher_batch = output_teacher_batch.cuda(non_blocking=True)",
        "                summary_batch['loss'] = loss.data[0]": "                summary_batch['loss'] = loss.item()",
        "            loss_avg.update(loss.data[0])": "            loss_avg.update(loss.item())"},
    "evaluate.py": {
        "            data_batch, labels_batch = data_batch.cuda(async=True), labels_batch.cuda(async=True)":
            "            data_batch, labels_batch = data_batch.cuda(non_blocking=True), "
            "labels_batch.cuda(non_blocking=True)",
        "        summary_batch['loss'] = loss.data[0]": "        summary_batch['loss'] = loss.item()"},
}


def _small(params_path):
    with open(params_path) as f:
        params = json.load(f)
    params.update(num_epochs=2, batch_size=32, num_workers=0)
    with open(params_path, "w") as f:
        json.dump(params, f)


@needs(KD)
def test_knowledge_distillation_trains_a_teacher_then_distills_a_cnn_from_it(tmp_path):
    folder = tmp_path / "run"
    _port(KD, folder, KD_CHANGES)
    (folder / "tensorflow.py").write_text("# stand-in: utils.py's unused TensorBoard logger imports TensorFlow\n")
    write_cifar(str(folder / "data-cifar10"), n_per_batch=16, n_test=64)
    for experiment in ("base_resnet18", "cnn_distill"):
        # the repository carries its own runs' logs and metrics: this run's are new
        for name in ("train.log", "metrics_val_last_weights.json", "metrics_val_best_weights.json"):
            if os.path.exists(folder / "experiments" / experiment / name):
                os.remove(folder / "experiments" / experiment / name)
        _small(folder / "experiments" / experiment / "params.json")
        _ok(_run([sys.executable, "train.py", "--model_dir", f"experiments/{experiment}"], str(folder)))
        with open(folder / "experiments" / experiment / "train.log") as f:
            log = f.read()
        assert log.count("- Train metrics: accuracy:") == 2 and "Epoch 2/2" in log
        with open(folder / "experiments" / experiment / "metrics_val_last_weights.json") as f:
            metrics = json.load(f)
        assert 0 <= metrics["accuracy"] <= 1 and metrics["loss"] >= 0
    assert "loading the teacher model" in log
    assert os.path.exists(folder / "experiments" / "cnn_distill" / "best.pth.tar")
