"""VisionDataset: torchvision's base class of data sets (root, transform, target_transform)."""
from __future__ import annotations

import os
from typing import Any, Callable, List, Optional, Tuple

from ...utils.data import Dataset

__all__ = ["VisionDataset", "StandardTransform"]


class StandardTransform:
    """transform on the input and target_transform on the target."""

    def __init__(self, transform: Optional[Callable] = None, target_transform: Optional[Callable] = None):
        self.transform, self.target_transform = transform, target_transform

    def __call__(self, input: Any, target: Any) -> Tuple[Any, Any]:
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    @staticmethod
    def _format(transform: Callable, head: str) -> List[str]:
        lines = repr(transform).splitlines()
        return [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]

    def __repr__(self) -> str:
        body = [self.__class__.__name__]
        if self.transform is not None:
            body += self._format(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += self._format(self.target_transform, "Target transform: ")
        return "\n".join(body)


class VisionDataset(Dataset):
    _repr_indent = 4

    def __init__(self, root=None, transforms: Optional[Callable] = None, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None) -> None:
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        separate = transform is not None or target_transform is not None
        if transforms is not None and separate:
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.transform = transform
        self.target_transform = target_transform
        self.transforms = StandardTransform(transform, target_transform) if separate else transforms

    def __getitem__(self, index: int):
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def _apply_transforms(self, sample, target):
        """(transform(sample), target_transform(target)), each when given."""
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return sample, target

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if getattr(self, "transforms", None) is not None:
            body += [repr(self.transforms)]  # torchvision indents its first line only
        return "\n".join(["Dataset " + self.__class__.__name__] + [" " * self._repr_indent + line for line in body])
