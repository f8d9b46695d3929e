"""The DataLoader's machinery, at torch.utils.data._utils' module paths (collate, fetch, worker,
pin_memory) so code that imports from there ports too."""
from . import collate, fetch, pin_memory, worker

# Seconds between a worker's checks that the main process is still alive, and between the main
# process's checks that its workers are (as torch.utils.data._utils.MP_STATUS_CHECK_INTERVAL).
MP_STATUS_CHECK_INTERVAL = 5.0
