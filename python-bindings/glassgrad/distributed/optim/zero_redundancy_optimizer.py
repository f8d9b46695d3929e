"""torch.distributed.optim.ZeroRedundancyOptimizer: an optimizer whose state is split across the
ranks of a process group (ZeRO stage 1). Each parameter belongs to one rank, chosen as PyTorch
chooses it: group by group, the parameters largest first, each to the rank with the fewest
elements so far (ties to the lowest rank). A rank's own optimizer (`optim`, of optimizer_class)
updates only its parameters; after each step every parameter is broadcast from its owner, so
every rank ends the step with the same parameters as one optimizer over them all would give.

param_groups are the whole groups (with every parameter): hyperparameters set on them (a learning
rate schedule's `group['lr'] = lr`) reach the local optimizer at the next step. state_dict() needs
consolidate_state_dict(to=rank) first on every rank, as PyTorch's; the state it returns is indexed
as one optimizer over all the parameters would index it. parameters_as_bucket_view and
overlap_with_ddp are memory and overlap choices of PyTorch's; the steps' results do not depend on
them (overlap_with_ddp=True, which steps from a DDP communication hook, is refused)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from ... import _C
from ...optim.optimizer import Optimizer
from .. import _collectives, _group, _objects


class ZeroRedundancyOptimizer(Optimizer):
    def __init__(self, params, optimizer_class: type, process_group=None, parameters_as_bucket_view: bool = False,
                 overlap_with_ddp: bool = False, **defaults: Any):
        if overlap_with_ddp:
            raise _C.InvalidArgumentError(
                "ZeroRedundancyOptimizer: overlap_with_ddp=True steps from a DistributedDataParallel "
                "communication hook, which glassgrad's DDP does not take\n  fix: overlap_with_ddp=False "
                "(the same updates, stepped after backward)")
        if not _group.is_initialized():
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.\n  ZeroRedundancyOptimizer splits the state across the "
                             "ranks of a process group\n  fix: dist.init_process_group(...) first")
        self._optimizer_class = optimizer_class
        self.process_group = process_group
        self.rank = _group.get_rank(process_group)
        self.world_size = _group.get_world_size(process_group)
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._consolidated: Optional[List[Dict[int, Any]]] = None
        self.optim: Optional[Optimizer] = None
        super().__init__(params, defaults)
        self._build_local_optimizer()

    # ---- parameter ownership ----
    def _partition(self) -> List[List[List[Any]]]:
        """[group][rank] -> that rank's parameters of the group (module docstring's rule)."""
        sizes = [0] * self.world_size
        out = []
        for group in self.param_groups:
            per_rank: List[List[Any]] = [[] for _ in range(self.world_size)]
            for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                rank = sizes.index(min(sizes))
                per_rank[rank].append(p)
                sizes[rank] += p.numel()
            out.append(per_rank)
        return out

    def _local_groups(self) -> List[Dict[str, Any]]:
        return [dict({k: v for k, v in group.items() if k != "params"}, params=parts[self.rank])
                for group, parts in zip(self.param_groups, self._partition())]

    def _build_local_optimizer(self) -> None:
        groups = self._local_groups()
        old = self.optim
        # A rank may own no parameter of a group (more ranks than parameters): the local optimizer
        # keeps the group empty, as PyTorch's; optimizer classes refuse an empty first list, so a
        # rank that owns nothing at all steps nothing.
        kept = [g for g in groups if g["params"]]
        self.optim = self._optimizer_class(kept, **self.defaults) if kept else None
        self._local_index = [i for i, g in enumerate(groups) if g["params"]]
        if old is not None and self.optim is not None:
            for p, s in old.state.items():
                if any(p is q for g in self.optim.param_groups for q in g["params"]):
                    self.optim.state[p] = s

    def add_param_group(self, param_group: Dict[str, Any]) -> None:
        """Adds a group to every rank's view; the ownership of every parameter is chosen again."""
        super().add_param_group(param_group)
        if getattr(self, "optim", None) is not None or hasattr(self, "_local_index"):
            self._build_local_optimizer()

    def _check_group(self, group: Dict[str, Any]) -> None:
        """The local optimizer (optimizer_class) checks the hyperparameters."""

    # ---- stepping ----
    def _sync_hyperparameters(self) -> None:
        if self.optim is None:
            return
        for local, index in zip(self.optim.param_groups, self._local_index):
            for k, v in self.param_groups[index].items():
                if k != "params" and local.get(k) is not v:
                    local[k] = v

    def step(self, closure: Optional[Callable[[], Any]] = None, **kwargs: Any):
        """The local optimizer's step on this rank's parameters, then every parameter broadcast
        from its owner. Returns what the local step returns (closure's loss)."""
        self._step_calls += 1
        self._sync_hyperparameters()
        loss = None
        if self.optim is not None:
            loss = self.optim.step(closure=closure, **kwargs) if closure is not None else self.optim.step(**kwargs)
        elif closure is not None:
            from ..._runtime import enable_grad
            with enable_grad():
                loss = closure()
        if self.world_size > 1:
            for parts in self._partition():
                for owner, params in enumerate(parts):
                    for p in params:
                        _collectives.broadcast(p.data, group_src=owner, group=self.process_group)
        return loss

    # ---- state ----
    def _global_index(self) -> Dict[int, int]:
        return {id(p): i for i, p in enumerate(p for g in self.param_groups for p in g["params"])}

    def _local_state(self) -> Dict[int, Any]:
        """This rank's state, keyed by the parameters' positions among all of them."""
        if self.optim is None:
            return {}
        index = self._global_index()
        return {index[id(p)]: s for p, s in self.optim.state.items()}

    def consolidate_state_dict(self, to: int = 0) -> None:
        """Gathers every rank's state on rank `to` (call it on every rank), for state_dict()."""
        gathered: List[Any] = [None] * self.world_size
        if self.world_size > 1:
            _objects.all_gather_object(gathered, self._local_state(), group=self.process_group)
        else:
            gathered[0] = self._local_state()
        self._consolidated = gathered if self.rank == to else None

    def state_dict(self) -> Dict[str, Any]:
        """The whole state as one optimizer over every parameter would give it (after
        consolidate_state_dict on every rank; on the rank it gathered to)."""
        if self._consolidated is None:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please call "
                               "`consolidate_state_dict(to=...)` on all ranks beforehand if you meant to save the "
                               "global state.")
        state: Dict[int, Any] = {}
        for part in self._consolidated:
            state.update(part)
        groups, start = [], 0
        for group in self.param_groups:
            n = len(group["params"])
            groups.append(dict({k: v for k, v in group.items() if k != "params"}, params=list(range(start, start + n))))
            start += n
        return {"state": dict(sorted(state.items())), "param_groups": groups}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Loads a state_dict() (from any number of ranks): each rank keeps its parameters' state,
        and the groups' hyperparameters."""
        if len(state_dict["param_groups"]) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(self.param_groups, state_dict["param_groups"]):
            for k, v in saved.items():
                if k != "params":
                    group[k] = v
        self._sync_hyperparameters()
        if self.optim is None:
            return
        index = self._global_index()
        local = self.optim.state_dict()
        positions = [p for g in self.optim.param_groups for p in g["params"]]
        local["state"] = {j: state_dict["state"][index[id(p)]] for j, p in enumerate(positions)
                          if index[id(p)] in state_dict["state"]}
        for lg, i in zip(local["param_groups"], self._local_index):
            lg.update({k: v for k, v in self.param_groups[i].items() if k != "params"})
        self.optim.load_state_dict(local)
