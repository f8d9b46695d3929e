"""torch._inductor's settings module (config), for scripts that tune PyTorch's compiler; see
glassgrad/_inductor/config.py."""
from . import config
