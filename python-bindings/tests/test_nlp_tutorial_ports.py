"""graykode/nlp-tutorial (self-contained NLP models, one script each: NNLM, skip-gram Word2Vec,
TextCNN, TextRNN, TextLSTM, Bi-LSTM, Seq2Seq with and without attention, Bi-LSTM with attention,
the Transformer and BERT), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/nlp-tutorial (script_sources.py; without it these tests skip). Each
script runs as published (its sentences are written in it; no data files, no arguments) in a
ported copy of its folder, to its end.

Every script here also ran under PyTorch 2.14.1 (a driver outside the repository) to its end. The
scripts seed nothing, so the lines checked are the ones both runs print alike: each training
loop's last report, and the predictions of the models that fit their few sentences exactly (a
five-word vocabulary learnt over thousands of steps gives the same answer from any start).
Not run: 1-3.FastText (a notebook calling the fastText command-line tool) and archive/ (TensorFlow)."""
import os
import subprocess
import sys

import pytest

from script_sources import checkout, needs, port_script, slow_params
from test_ported_scripts import _env

REPO = "nlp-tutorial"
ATTENTION_PLOTS = ("first head of last state enc_self_attns\nfirst head of last state dec_self_attns\n"
                   "first head of last state dec_enc_attns\n")
FIT = "[['i', 'like'], ['i', 'love'], ['i', 'hate']] -> ['dog', 'coffee', 'milk']"

# script -> lines its printout has, as PyTorch's run printed them
SCRIPTS = {
    "1-1.NNLM/NNLM.py": ["Epoch: 5000 cost = ", FIT],
    # plt.annotate of each word's 2-d embedding (Agg backend)
    "1-2.Word2Vec/Word2Vec-Skipgram(Softmax).py": ["Epoch: 5000 cost = "],
    "2-1.TextCNN/TextCNN.py": ["Epoch: 5000 cost = ", "sorry hate you is Bad Mean..."],
    "3-1.TextRNN/TextRNN.py": ["Epoch: 5000 cost = ", FIT],
    "3-2.TextLSTM/TextLSTM.py": ["Epoch: 1000 cost = ", "['mak', 'nee', 'coa', 'wor', 'lov', 'hat', 'liv', 'hom', "
                                "'has', 'sta'] -> ['e', 'd', 'l', 'd', 'e', 'e', 'e', 'e', 'h', 'r']"],
    # the next word of a 27-word sentence at each position: neither run fits it exactly
    "3-3.Bi-LSTM/Bi-LSTM.py": ["Epoch: 10000 cost = ", "Lorem ipsum dolor sit amet consectetur adipisicing elit "
                               "sed do eiusmod tempor incididunt ut labore et dolore magna aliqua Ut enim ad minim "
                               "veniam quis nostrud exercitation\n['ipsum', "],
    "4-1.Seq2Seq/Seq2Seq.py": ["Epoch: 5000 cost = ", "man -> women\nmans -> women\nking -> queen\n"
                               "black -> white\nupp -> down\n"],
    # attention scores written one by one into a zeros tensor, the decoder's outputs into torch.empty
    "4-2.Seq2Seq(Attention)/Seq2Seq(Attention).py": ["Epoch: 2000 cost = ",
                                                     "ich mochte ein bier P -> ['i', 'want', 'a', 'beer', 'E']"],
    "4-3.Bi-LSTM(Attention)/Bi-LSTM(Attention).py": ["Epoch: 5000 cost = ", "sorry hate you is Bad Mean..."],
    # 20 steps of a 6-layer Transformer on one sentence pair: the translation differs from run to run
    "5-1.Transformer/Transformer.py": ["Epoch: 0020 cost = ", "ich mochte ein bier P -> [", ATTENTION_PLOTS],
    "5-1.Transformer/Transformer(Greedy_decoder).py": ["Epoch: 0020 cost = ", "ich mochte ein bier P -> [",
                                                       ATTENTION_PLOTS],
    # masked-token and next-sentence heads after 100 steps: the predictions differ from run to run
    "5-2.BERT/BERT.py": ["Epoch: 0100 cost = ", "\nmasked tokens list :  [", "\npredict masked tokens list :  [",
                         "\nisNext :  ", "\npredict isNext :  "],
}
SLOW = {"3-3.Bi-LSTM/Bi-LSTM.py", "4-2.Seq2Seq(Attention)/Seq2Seq(Attention).py", "5-2.BERT/BERT.py"}


def _run(tmp_path, script):
    folder = tmp_path / "run"
    port_script.port_tree(os.path.join(checkout(REPO), os.path.dirname(script)), str(folder))
    return subprocess.run([sys.executable, os.path.basename(script)], cwd=str(folder), capture_output=True,
                          text=True, timeout=900, env=_env(MPLBACKEND="Agg"))


@needs(REPO)
@pytest.mark.parametrize("script", slow_params(SCRIPTS, SLOW))
def test_script_runs_to_its_end_as_under_pytorch(tmp_path, script):
    pytest.importorskip("matplotlib")
    proc = _run(tmp_path, script)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    for line in SCRIPTS[script]:
        assert line in proc.stdout, (line, proc.stdout[-3000:])
