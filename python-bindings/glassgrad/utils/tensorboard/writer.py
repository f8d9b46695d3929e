"""SummaryWriter with torch.utils.tensorboard.SummaryWriter's arguments, defaults and methods."""
from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from typing import Dict, Optional

import numpy as np
from tensorboard.compat.proto import event_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from ... import _C
from ..._tensor import Tensor
from . import summaries
from .hparams import hparams

__all__ = ["SummaryWriter", "FileWriter"]


def _array(value, what: str) -> np.ndarray:
    if isinstance(value, Tensor):
        return value.numpy(force=True)
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], Tensor):
        return np.stack([_array(v, what) for v in value])
    try:
        return np.asarray(value)
    except Exception as e:  # pragma: no cover
        raise TypeError(f"{what}: expected a glassgrad Tensor, a NumPy array or numbers, got {type(value).__name__}") from e


def _number(value, what: str) -> float:
    arr = _array(value, what)
    if arr.size != 1:
        raise ValueError(f"{what}: expected one number, got an array of shape {list(arr.shape)}\n"
                         f"  fix: pass loss.item(), or reduce the tensor first (x.mean().item())")
    return float(arr.reshape(()))


class FileWriter:
    """One event file in log_dir (TensorBoard's EventFileWriter), events stamped with a step and a time."""

    def __init__(self, log_dir: str, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = ""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event, step: Optional[int] = None, walltime: Optional[float] = None) -> None:
        event.wall_time = time.time() if walltime is None else float(walltime)
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step: Optional[int] = None, walltime: Optional[float] = None) -> None:
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_def, walltime: Optional[float] = None) -> None:
        self.add_event(event_pb2.Event(graph_def=graph_def.SerializeToString()), None, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()


class SummaryWriter:
    """Writes scalars, images, histograms, text and the model's graph into event files under
    log_dir (default runs/<date>_<host><comment>), for TensorBoard.

        writer = SummaryWriter()
        writer.add_scalar("loss/train", loss.item(), step)
        writer.close()
    """

    def __init__(self, log_dir: Optional[str] = None, comment: str = "", purge_step: Optional[int] = None,
                 max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = ""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, filename_suffix
        self.file_writer: Optional[FileWriter] = None
        self.all_writers: Dict[str, FileWriter] = {}
        self._get_file_writer()

    def _get_file_writer(self) -> FileWriter:
        if self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:  # a restarted run: TensorBoard drops events at and after it
                self.file_writer.add_event(event_pb2.Event(step=self.purge_step,
                                                           session_log=event_pb2.SessionLog(
                                                               status=event_pb2.SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value, global_step: Optional[int] = None, walltime: Optional[float] = None,
                   new_style: bool = False, double_precision: bool = False) -> None:
        """One value of the curve `tag` at global_step."""
        value = _number(scalar_value, f"add_scalar('{tag}')")
        self._get_file_writer().add_summary(summaries.scalar(tag, value, double_precision or new_style), global_step,
                                            walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: Dict[str, float], global_step: Optional[int] = None,
                    walltime: Optional[float] = None) -> None:
        """Several curves in one chart: each goes into its own event file, log_dir/<main_tag>_<tag>."""
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(self._get_file_writer().get_logdir(), f"{main_tag}_{tag}".replace("/", "_"))
            writer = self.all_writers.get(path)
            if writer is None:
                writer = self.all_writers[path] = FileWriter(path, self.max_queue, self.flush_secs,
                                                             self.filename_suffix)
            writer.add_summary(summaries.scalar(main_tag, _number(value, f"add_scalars('{main_tag}')")), global_step,
                               walltime)

    def add_image(self, tag: str, img_tensor, global_step: Optional[int] = None, walltime: Optional[float] = None,
                  dataformats: str = "CHW") -> None:
        """One image: floats in [0, 1] or uint8, laid out as dataformats says (CHW, HWC or HW)."""
        self._get_file_writer().add_summary(summaries.image(tag, _array(img_tensor, "add_image"), dataformats),
                                            global_step, walltime)

    def add_images(self, tag: str, img_tensor, global_step: Optional[int] = None, walltime: Optional[float] = None,
                   dataformats: str = "NCHW") -> None:
        """A batch of images, shown as one grid (make_grid)."""
        from ...vision.utils import make_grid
        arr = _array(img_tensor, "add_images")
        if dataformats.upper() == "NHWC":
            arr = arr.transpose(0, 3, 1, 2)
        grid = make_grid(_C_tensor(arr), padding=0).numpy()
        self.add_image(tag, grid, global_step, walltime, "CHW")

    def add_histogram(self, tag: str, values, global_step: Optional[int] = None, bins="tensorflow",
                      walltime: Optional[float] = None, max_bins: Optional[int] = None) -> None:
        """The distribution of `values` (e.g. a layer's weights) at global_step."""
        self._get_file_writer().add_summary(
            summaries.histogram(tag, _array(values, f"add_histogram('{tag}')"), bins, max_bins), global_step, walltime)

    def add_pr_curve(self, tag: str, labels, predictions, global_step: Optional[int] = None,
                     num_thresholds: int = 127, weights=None, walltime: Optional[float] = None) -> None:
        """A precision-recall curve of a binary classifier: labels (true/false, 1/0) against
        predictions, probabilities in [0, 1] of labels' shape, at num_thresholds (at most 127)
        thresholds evenly spaced over [0, 1]; predictions outside [0, 1] count nowhere, as in PyTorch."""
        where = f"add_pr_curve('{tag}')"
        labels_np = _array(labels, where)
        predictions_np = _array(predictions, where)
        if labels_np.shape != predictions_np.shape:
            raise ValueError(f"{where}: labels {list(labels_np.shape)} and predictions {list(predictions_np.shape)} "
                             "must have one shape (a label per prediction)\n  fix: labels == class_index, "
                             "predictions = probs[:, class_index]")
        if int(num_thresholds) < 2:
            raise ValueError(f"{where}: num_thresholds must be at least 2, got {num_thresholds}\n"
                             "  fix: leave the default, 127")
        w = None if weights is None else _array(weights, where)
        self._get_file_writer().add_summary(
            summaries.pr_curve(tag, labels_np, predictions_np, num_thresholds, w), global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step: Optional[int] = None,
                 walltime: Optional[float] = None) -> None:
        self._get_file_writer().add_summary(summaries.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict: Dict[str, object], metric_dict: Dict[str, float],
                    hparam_domain_discrete: Optional[Dict[str, list]] = None, run_name: Optional[str] = None,
                    global_step: Optional[int] = None) -> None:
        """One trial for TensorBoard's HPARAMS tab: the hyperparameters and the metrics it reached,
        written (with each metric as a scalar) into the run log_dir/run_name (default: the time)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries_ = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        log_dir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=log_dir) as run:
            for summary in summaries_:
                run._get_file_writer().add_summary(summary, global_step)
            for tag, value in metric_dict.items():
                run.add_scalar(tag, value, global_step)

    def add_graph(self, model, input_to_model=None, verbose: bool = False, use_strict_trace: bool = True) -> None:
        """The model's graph as glassgrad compiles it: model(*input_to_model) is recorded (nothing
        runs) and the plan that would compute it, without fusion, becomes a GraphDef: a node per
        op, grouped by layer, with the shapes each makes."""
        from ... import _runtime
        if input_to_model is None:
            raise ValueError("add_graph: pass an example input, e.g. writer.add_graph(model, images[:1]): the graph is "
                             "recorded by calling the model on it")
        args = input_to_model if isinstance(input_to_model, (list, tuple)) else (input_to_model,)
        with _runtime.no_grad():
            out = model(*args)
        outs = [o for o in (out if isinstance(out, (list, tuple)) else (out,)) if isinstance(o, Tensor)]
        if not outs:
            raise TypeError(f"add_graph: the model returned {type(out).__name__}, not tensors")
        fusion = _C.fusion_enabled()
        _C.set_fusion(False)
        try:
            plan = _C.plan_for([o._h for o in outs])
        finally:
            _C.set_fusion(fusion)
        graph = summaries.graph_def(list(plan.steps), list(plan.slots))
        if verbose:
            print(graph)
        self._get_file_writer().add_graph(graph)

    def flush(self) -> None:
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        if self.file_writer is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = None
        self.all_writers = {}

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _C_tensor(arr: np.ndarray) -> Tensor:
    from ..data._utils.pin_memory import new_tensor
    return new_tensor(np.ascontiguousarray(arr))
