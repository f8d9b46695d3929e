# "Training hangs at epoch 0": importing glassgrad never touches the GPU driver; CUDA is
# initialized on first use, and when it cannot be, glassgrad says why and uses the CPU.
import glassgrad

print("CUDA available:", glassgrad.cuda.is_available())
if not glassgrad.cuda.is_available():
    print("why not:", glassgrad.cuda.why_unavailable())
print("default device:", glassgrad.default_device())
