"""Pause points for crash tests. With CATALOG_PAUSE_AT set to a point's name, the process
writes that name to the file CATALOG_PAUSE_FILE names and waits there to be killed, so a
test kills it at a known moment instead of after a guessed delay. Unset, as everywhere but
in tests, a pause point is one environment lookup."""

from __future__ import annotations

import os
import time
from pathlib import Path


def pause_point(name: str) -> None:
    if os.environ.get("CATALOG_PAUSE_AT") != name:
        return
    Path(os.environ["CATALOG_PAUSE_FILE"]).write_text(name)
    time.sleep(3600)
