"""pytorch/examples folders beyond test_pytorch_examples_ports.py and test_ported_scripts.py,
ported on the fly from $GLASSGRAD_SCRIPT_SOURCES/pytorch-examples (script_sources.py; without it
these tests skip).

language_translation/ (a German-English nn.Transformer translator: main.py trains, validates,
saves best.pt and last.pt, then --inference translates the lines it reads until input ends,
greedily): its src/data.py takes Multi30k, spacy tokenizers and vocabularies from torchtext
(Multi30k is downloaded, spacy's models too; torchtext is not installed here), so a stand-in
torchtext package in the run folder gives six sentence pairs in memory, space-split tokens and a
vocabulary with torchtext's calls (TORCHTEXT below). main.py and src/ run as written, with
a small model chosen by its arguments. Under PyTorch 2.14.1 the same run trains alike, and
glassgrad's inference, reading the checkpoint PyTorch's run saved, prints PyTorch's translations
(test_inference_translates_pytorchs_checkpoint_as_pytorch_does, where torch is installed). Both
end at input's end with EOFError (the loop reads until the user quits).

distributed/ddp/example.py needs two GPUs and exits, printing so, without them (as under
PyTorch); legacy/snli needs torchtext's removed legacy API, distributed/minGPT-ddp hydra and
boto3, and distributed/FSDP, FSDP2, rpc and tensor_parallelism modules glassgrad leaves out
(docs/porting.md): not run."""
import os
import shutil
import subprocess
import sys

import pytest

from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "pytorch-examples"
# the stand-in torchtext package (module docstring), file -> text
TORCHTEXT = {
    'torchtext/__init__.py': '',
    'torchtext/data/__init__.py': '',
    'torchtext/data/utils.py': 'def get_tokenizer(tokenizer, language="en"):\n    """Stand-in for torchtext\'s spacy tokenizer (its models are downloaded): words split on spaces."""\n    return lambda text: text.split()\n',
    'torchtext/datasets/__init__.py': 'from . import multi30k\nfrom .multi30k import Multi30k\n',
    'torchtext/datasets/multi30k.py': '"""Stand-in for torchtext\'s Multi30k (downloaded): a few German-English pairs in memory."""\nURL = {}\nPAIRS = [("ein mann fährt rad", "a man rides a bike"), ("eine frau liest ein buch", "a woman reads a book"),\n         ("zwei hunde spielen", "two dogs play"), ("ein kind lacht", "a child laughs"),\n         ("der mann liest", "the man reads"), ("die frau fährt rad", "the woman rides a bike")]\n\n\ndef Multi30k(split="train", language_pair=("de", "en")):\n    pairs = PAIRS * 4 if split == "train" else PAIRS[:3]\n    return [(s + "\\n", t + "\\n") if language_pair == ("de", "en") else (t + "\\n", s + "\\n") for s, t in pairs]\n',
    'torchtext/vocab.py': 'from collections import Counter\n\n\nclass Vocab:\n    def __init__(self, itos):\n        self.itos = itos\n        self.stoi = {t: i for i, t in enumerate(itos)}\n        self.default = None\n\n    def set_default_index(self, index):\n        self.default = index\n\n    def __len__(self):\n        return len(self.itos)\n\n    def __call__(self, tokens):\n        return [self.stoi.get(t, self.default) for t in tokens]\n\n    def lookup_tokens(self, ids):\n        return [self.itos[i] for i in ids]\n\n    def get_itos(self):\n        return list(self.itos)\n\n\ndef build_vocab_from_iterator(iterator, min_freq=1, specials=None, special_first=True):\n    counts = Counter(t for tokens in iterator for t in tokens)\n    words = sorted((t for t, c in counts.items() if c >= min_freq and t not in (specials or [])),\n                   key=lambda t: (-counts[t], t))\n    return Vocab((specials or []) + words if special_first else words + (specials or []))\n',
}
SMALL = ["--batch", "8", "--attn_heads", "2", "--enc_layers", "2", "--dec_layers", "2", "--embed_size", "32",
         "--dim_feedforward", "64"]
SENTENCES = "ein mann liest\nzwei hunde spielen\n"


def _translation_folder(tmp_path, name, ported=True):
    folder = str(tmp_path / name)
    source = os.path.join(checkout(REPO), "language_translation")
    if ported:
        port_script.port_tree(source, folder)
    else:
        shutil.copytree(source, folder)
    for rel, text in TORCHTEXT.items():
        os.makedirs(os.path.dirname(os.path.join(folder, rel)), exist_ok=True)
        with open(os.path.join(folder, rel), "w", encoding="utf-8") as f:
            f.write(text)
    os.makedirs(os.path.join(folder, "out"))
    return folder


def _main(folder, *args, stdin=None, env=None):
    return subprocess.run([sys.executable, "main.py", *args, *SMALL], cwd=folder, input=stdin, capture_output=True,
                          text=True, timeout=600, env=env or _env())


def _translations(proc):
    """The translated lines main.py printed before input ended (EOFError, as under PyTorch)."""
    assert proc.returncode != 0 and proc.stderr.strip().endswith("EOFError: EOF when reading a line"), \
        proc.stderr[-3000:]
    # each output line starts with the prompt "> " (printed without a newline); the last prompt
    # meets the end of input
    lines = proc.stdout.split("\n")
    assert all(line.startswith("> ") for line in lines), proc.stdout
    return [line[2:].strip() for line in lines[:-1]]


@needs(REPO)
def test_language_translation_trains_saves_and_translates(tmp_path):
    folder = _translation_folder(tmp_path, "run")
    proc = _main(folder, "--epochs", "2", "--logging_dir", "out/")
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = open(os.path.join(folder, "out", "log.txt")).read()
    assert "Translation task: de -> en" in log and "de vocab size: 19" in log and "en vocab size: 17" in log, log
    assert log.count("Train loss: ") == 2 and log.count("Val loss: ") == 2
    assert sorted(os.listdir(os.path.join(folder, "out"))) == ["best.pt", "last.pt", "log.txt"]
    translations = _translations(_main(folder, "--inference", "--model_path", "out/best.pt", stdin=SENTENCES))
    assert len(translations) == 2, translations  # words of the target vocabulary (an untrained model's)


@needs(REPO)
def test_inference_translates_pytorchs_checkpoint_as_pytorch_does(tmp_path):
    pytest.importorskip("torch")
    theirs = _translation_folder(tmp_path, "theirs", ported=False)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    assert _main(theirs, "--epochs", "2", "--logging_dir", "out/", env=env).returncode == 0
    checkpoint = os.path.join(theirs, "out", "best.pt")
    want = _translations(_main(theirs, "--inference", "--model_path", checkpoint, stdin=SENTENCES, env=env))
    ours = _translation_folder(tmp_path, "ours")
    got = _translations(_main(ours, "--inference", "--model_path", checkpoint, stdin=SENTENCES))
    assert got == want and len(got) == 2


@needs(REPO)
def test_ddp_example_exits_without_two_gpus_as_under_pytorch(tmp_path):
    import glassgrad
    if glassgrad.cuda.device_count() >= 2:
        pytest.skip("two GPUs: example.py would train on them")
    port_script.port_file(os.path.join(checkout(REPO), "distributed", "ddp", "example.py"), str(tmp_path / "example.py"))
    proc = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=_env())
    assert proc.returncode == 0 and "Unable to locate sufficient 2 gpus to run this example. Exiting." in proc.stdout
