"""Names that hold a device by convention, for the LibCST tier (`devices`) and the project
index (`dataset_items`), which must not load LibCST."""

from __future__ import annotations

import re

# Ranks and GPU ids are CUDA ordinals; matched case-insensitively (`DEVICE` too).
DEVICE_NAME = re.compile(r"^(device|dev|.*_device|device_.*|(local_)?rank|gpu|gpu_id)$", re.IGNORECASE)
