"""torch.utils.model_zoo: the old spelling of torch.hub's loader, which model files copied from
torchvision before 0.13 import (`model_zoo.load_url(model_urls['resnet50'])`). `load_url` is
glassgrad.hub.load_state_dict_from_url: a file in the hub's checkpoint folder (PyTorch's own
cache, so files PyTorch downloaded are read) loads; a missing one is downloaded there, and
without a network the OSError says where to copy the file (docs/porting.md)."""
from ..hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
