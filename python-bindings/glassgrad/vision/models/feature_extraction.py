"""torchvision.models.feature_extraction.create_feature_extractor, resolved through module calls.

torchvision traces the model with torch.fx and names each node by the module it runs in: a module
called once is its qualified name ("layer1.0.conv1"), the k-th further call of one module gets
"_k" ("layer1.0.relu_1", BasicBlock's second ReLU). A return node names one of those nodes, or a
module whose last node it wants ("layer1": the output of layer1, the last node inside it). Here
the same names are resolved while the model runs: forward hooks on every submodule count the
calls, record the outputs that return_nodes name, and stop the forward once the last of them is
recorded (torchvision's graph ends there too: the layers after it never run). The returned
module holds the model's children under their own names, so `extractor.layer1` and its
parameters are the model's.

Nodes of functional calls inside a forward ("layer1.0.add", "flatten") and the input placeholder
("x") have no module to hook: naming one raises ValueError, with the module names that can be
asked for (docs/porting.md). get_graph_node_names, which needs the whole traced graph, is not
there."""
from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Union

from ... import _C, nn

__all__ = ["create_feature_extractor"]

_Nodes = Union[List[str], Dict[str, str]]


class _Done(Exception):
    """Raised by the last hook a forward needs: the rest of the model does not run."""


def _to_strdict(nodes: _Nodes) -> Dict[str, str]:
    if isinstance(nodes, (list, tuple)):
        return {str(n): str(n) for n in nodes}
    return {str(k): str(v) for k, v in nodes.items()}


def _module_of(query: str, names: set) -> Optional[str]:
    """The module a node name asks for: the name itself, or the module of a numbered call ("relu_1")."""
    if query in names:
        return query
    match = re.fullmatch(r"(.*)_([1-9]\d*)", query)
    return match.group(1) if match and match.group(1) in names else None


class _FeatureExtractor(nn.Module):
    """forward(*args) -> OrderedDict {output name: the named node's output}, in the model's call order."""

    def __init__(self, model: nn.Module, train_nodes: Dict[str, str], eval_nodes: Dict[str, str]) -> None:
        super().__init__()
        for name, child in model.named_children():
            self.add_module(name, child)
        for name, p in model.named_parameters(recurse=False):
            self.register_parameter(name, p)
        for name, b in model.named_buffers(recurse=False):
            self.register_buffer(name, b)
        object.__setattr__(self, "_model", model)
        self._nodes = {"train": train_nodes, "eval": eval_nodes}
        self.training = model.training

    def train(self, mode: bool = True):
        super().train(mode)
        self._model.training = mode
        return self

    def forward(self, *args: Any, **kwargs: Any) -> "OrderedDict[str, Any]":
        wanted = dict(self._nodes["train" if self.training else "eval"])
        calls: Dict[str, int] = {}
        found: Dict[str, Any] = {}
        order: List[str] = []

        def record(qualname: str):
            def hook(module, inputs, output):
                k = calls.get(qualname, 0)
                calls[qualname] = k + 1
                node = qualname if k == 0 else f"{qualname}_{k}"
                if node in wanted and node not in found:
                    found[node] = output
                    order.append(node)
                    if len(found) == len(wanted):
                        raise _Done
            return hook

        handles = [m.register_forward_hook(record(name)) for name, m in self._model.named_modules() if name]
        try:
            self._model(*args, **kwargs)
        except _Done:
            pass
        finally:
            for h in handles:
                h.remove()
        missing = [n for n in wanted if n not in found]
        if missing:
            raise _C.InvalidArgumentError(
                f"create_feature_extractor: the nodes {missing} were not reached by this forward of "
                f"{type(self._model).__name__} (a module called fewer times than the name's _k says, or not "
                f"called in {'training' if self.training else 'eval'} mode)\n  fix: name module calls the "
                f"forward makes, or give train_return_nodes and eval_return_nodes")
        return OrderedDict((wanted[n], found[n]) for n in order)


def create_feature_extractor(model: nn.Module, return_nodes: Optional[_Nodes] = None,
                             train_return_nodes: Optional[_Nodes] = None, eval_return_nodes: Optional[_Nodes] = None,
                             tracer_kwargs: Optional[Dict[str, Any]] = None, suppress_diff_warning: bool = False,
                             concrete_args: Optional[Dict[str, Any]] = None) -> nn.Module:
    """torchvision's create_feature_extractor(model, return_nodes=['layer1', ...] or {'layer1': 'feat1'},
    train_return_nodes=, eval_return_nodes=): a module whose forward returns the named nodes'
    outputs. tracer_kwargs, suppress_diff_warning and concrete_args are accepted and change nothing
    (nothing is traced)."""
    if all(arg is None for arg in (return_nodes, train_return_nodes, eval_return_nodes)):
        raise _C.InvalidArgumentError("Either `return_nodes` or `train_return_nodes` and `eval_return_nodes` "
                                      "together, should be specified")
    if (train_return_nodes is None) ^ (eval_return_nodes is None):
        raise _C.InvalidArgumentError("If any of `train_return_nodes` and `eval_return_nodes` are specified, then "
                                      "both should be specified")
    if not ((return_nodes is None) ^ (train_return_nodes is None)):
        raise _C.InvalidArgumentError("If `train_return_nodes` and `eval_return_nodes` are specified, then both "
                                      "should be specified")
    if return_nodes is not None:
        train = eval_ = _to_strdict(return_nodes)
    else:
        train, eval_ = _to_strdict(train_return_nodes or {}), _to_strdict(eval_return_nodes or {})
    names = {name for name, _ in model.named_modules() if name}
    for query in list(train) + list(eval_):
        if _module_of(query, names) is None:
            raise _C.InvalidArgumentError(
                f"node: '{query}' is not present in model. Hint: use `get_graph_node_names` to make sure the "
                f"`return_nodes` you specified are present. It may even be that you need to specify "
                f"`train_return_nodes` and `eval_return_nodes` separately.\n  glassgrad resolves nodes through "
                f"module calls: a submodule's name (e.g. {sorted(names)[:4]}), or its k-th further call as "
                f"'<name>_k'; nodes of functional calls (add, flatten) and the input are not there\n  fix: return "
                f"the module whose output you want, or wrap the functional call in a module")
    return _FeatureExtractor(model, train, eval_)
