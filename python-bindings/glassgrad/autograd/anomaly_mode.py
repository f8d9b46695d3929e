"""torch.autograd.anomaly_mode: the module path of detect_anomaly and set_detect_anomaly (scripts
import `from torch.autograd.anomaly_mode import detect_anomaly`); they live in autograd.anomaly."""
from .anomaly import detect_anomaly, set_detect_anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly"]
