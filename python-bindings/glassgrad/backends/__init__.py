"""glassgrad.backends: torch.backends' switches, for what glassgrad has.

    import glassgrad.backends.cudnn as cudnn
    cudnn.benchmark = True           # the CUDA convolutions' autotuner (glassgrad.cuda.set_conv_autotune)
    glassgrad.backends.mps.is_available()   # False: glassgrad runs on CPUs and NVIDIA GPUs

See docs/porting.md for what each switch does here."""
from . import cuda, cudnn, mps, openmp

__all__ = ["cuda", "cudnn", "mps", "openmp"]
