"""The three summaries of TensorBoard's hparams plugin that SummaryWriter.add_hparams writes into
a run of its own: the experiment (the hyperparameters' names and types, the metrics' tags), the
session's start (the hyperparameters' values) and its end (succeeded). PyTorch's add_hparams
writes the same protos."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto import summary_pb2
from tensorboard.plugins.hparams import api_pb2, metadata, plugin_data_pb2

from ..._tensor import Tensor

# A value's hparams type and how it is stored, by Python type, tried in order. bool is an int in
# Python: as in PyTorch, True is the number 1.
_KINDS = ((int, "DATA_TYPE_FLOAT64", "number_value"), (float, "DATA_TYPE_FLOAT64", "number_value"),
          (str, "DATA_TYPE_STRING", "string_value"))


def _summary(tag: str, data: plugin_data_pb2.HParamsPluginData) -> summary_pb2.Summary:
    data.version = metadata.PLUGIN_DATA_VERSION
    plugin = summary_pb2.SummaryMetadata.PluginData(plugin_name=metadata.PLUGIN_NAME, content=data.SerializeToString())
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(
        tag=tag, metadata=summary_pb2.SummaryMetadata(plugin_data=plugin))])


def _check_discrete(hparam_dict: Dict[str, Any], discrete: Dict[str, List[Any]]) -> None:
    for name, values in discrete.items():
        if name not in hparam_dict or not isinstance(values, list) or \
                not all(isinstance(v, type(hparam_dict[name])) for v in values):
            raise TypeError(f"parameter: hparam_domain_discrete[{name}] should be a list of same type as "
                            f"hparam_dict[{name}].")


def hparams(hparam_dict: Dict[str, Any], metric_dict: Dict[str, Any],
            hparam_domain_discrete: Optional[Dict[str, List[Any]]] = None
            ) -> Tuple[summary_pb2.Summary, summary_pb2.Summary, summary_pb2.Summary]:
    """(experiment, session start, session end). A hyperparameter is an int, float, bool, str or
    a one-element tensor; None leaves it out; anything else is a ValueError, as in PyTorch."""
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    discrete = hparam_domain_discrete or {}
    if not isinstance(discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    _check_discrete(hparam_dict, discrete)
    start = plugin_data_pb2.SessionStartInfo()
    infos = []
    for name, value in hparam_dict.items():
        if value is None:
            continue
        if isinstance(value, Tensor):
            value = float(np.asarray(value.numpy(force=True)).reshape(-1)[0])
        kind = next(((t, f) for c, t, f in _KINDS if isinstance(value, c)), None)
        if kind is None:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        type_name, field = kind
        setattr(start.hparams[name], field, value)
        domain = None
        if name in discrete:
            domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: v}) for v in discrete[name]])
        infos.append(api_pb2.HParamInfo(name=name, type=api_pb2.DataType.Value(type_name), domain_discrete=domain))
    experiment = api_pb2.Experiment(hparam_infos=infos,
                                    metric_infos=[api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k))
                                                  for k in metric_dict])
    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.Status.Value("STATUS_SUCCESS"))
    return (_summary(metadata.EXPERIMENT_TAG, plugin_data_pb2.HParamsPluginData(experiment=experiment)),
            _summary(metadata.SESSION_START_INFO_TAG, plugin_data_pb2.HParamsPluginData(session_start_info=start)),
            _summary(metadata.SESSION_END_INFO_TAG, plugin_data_pb2.HParamsPluginData(session_end_info=end)))
