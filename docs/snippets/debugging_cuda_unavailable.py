# "Training hangs at epoch 0": nothing in glassgrad waits on the GPU driver. Importing it does
# not initialize CUDA; asking whether CUDA is usable gives an answer and, if not, the reason.
import os
import subprocess
import sys

import glassgrad

print("CUDA available:", glassgrad.cuda.is_available())
if not glassgrad.cuda.is_available():
    print("why not:", glassgrad.cuda.why_unavailable())

# GLASSGRAD_DEVICE=cpu keeps a whole run off the GPU: here a fresh process (as a data-loading
# worker would be) imports glassgrad and computes, under a timeout.
code = ("import numpy as np, glassgrad\n"
        "x = glassgrad.tensor(np.ones((2, 3), np.float32))\n"
        "print(glassgrad.default_device(), (x * 2).sum().item())\n")
env = dict(os.environ, GLASSGRAD_DEVICE="cpu")
run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
print("worker with GLASSGRAD_DEVICE=cpu:", run.stdout.strip())
