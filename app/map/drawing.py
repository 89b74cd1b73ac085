"""A map of the papers: every paper at one place in a single 2-D layout of the whole catalog
(map/layout.py), so that a paper sits at the same place on every page.

The papers in question are those of a search request (a query and facet filters: an edition,
a series, a topic) or of a reading list. Drawn here as a PNG, the whole field faint and the
papers in question in their topic's colour: what a page shows without JavaScript. With it,
static/app.js keeps the image of the field alone and draws the papers over it from `points`.
The image is transparent and the field a grey that reads in both themes.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numpy as np

SIZE = 640  # pixels a side
MARGIN = 8
FIELD = (128, 134, 146, 70)  # every paper: grey, mostly transparent
# Topic colours, in the order of the taxonomy (cycled): distinct on white and on dark grey.
PALETTE = np.array([
    (31, 95, 191), (217, 72, 15), (43, 138, 62), (134, 46, 156), (194, 37, 92),
    (16, 152, 173), (230, 119, 0), (95, 61, 196), (112, 72, 60), (92, 148, 13),
    (201, 42, 42), (24, 100, 171), (166, 30, 77), (8, 127, 91), (132, 94, 247),
    (95, 95, 95), (214, 51, 108), (12, 133, 153), (145, 115, 0), (55, 178, 77),
    (204, 93, 232),
], dtype=np.uint8)


MAX_POINTS = 20_000  # papers in question drawn (a search for "learning" matches 33,000)


@dataclass(frozen=True)
class MapPoints:
    """The papers in question: document numbers, positions in [0, 1]² and colour numbers
    (their topic's place in the taxonomy)."""

    docs: np.ndarray
    xy: np.ndarray
    topics: np.ndarray


def palette() -> list[str]:
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in PALETTE.tolist()]


def pixels(xy: np.ndarray, size: int = SIZE) -> np.ndarray:
    """Positions in [0, 1]² as pixel columns and rows (y grows upwards on the map)."""
    inner = size - 2 * MARGIN - 1
    cols = np.clip(np.rint(MARGIN + xy[:, 0] * inner), 0, size - 1).astype(np.int64)
    rows = np.clip(np.rint(MARGIN + (1 - xy[:, 1]) * inner), 0, size - 1).astype(np.int64)
    return np.stack([cols, rows], axis=1)


def render(field: np.ndarray, chosen: MapPoints | None, size: int = SIZE) -> bytes:
    """The PNG of every position in `field` faint, and the chosen papers over it, each a
    2 × 2 dot in its topic's colour."""
    image = np.zeros((size, size, 4), dtype=np.uint8)
    at = pixels(field, size)
    image[at[:, 1], at[:, 0]] = FIELD
    if chosen is not None and len(chosen.docs):
        at = pixels(chosen.xy, size)
        colours = np.concatenate([PALETTE[chosen.topics % len(PALETTE)],
                                  np.full((len(at), 1), 255, np.uint8)], axis=1)
        for dx in (0, 1):
            for dy in (0, 1):
                image[np.minimum(at[:, 1] + dy, size - 1), np.minimum(at[:, 0] + dx, size - 1)] = (
                    colours)
    return png(image)


def png(image: np.ndarray) -> bytes:
    """An RGBA image (rows × columns × 4, uint8) as PNG bytes."""
    height, width, _ = image.shape
    raw = np.concatenate([np.zeros((height, 1), np.uint8), image.reshape(height, -1)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))
