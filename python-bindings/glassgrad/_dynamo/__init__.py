"""torch._dynamo's names that scripts use around torch.compile: config (its settings module) and
reset() (drops every compiled plan, as glassgrad.compiler.reset)."""
from ..compiler import reset
from . import config
