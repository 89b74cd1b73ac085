"""Chart geometry for the SVG charts of `templates/_charts.html`: computed here, in Python, so
that templates only place what is computed and the arithmetic is tested.

Every chart is static SVG with a <title> that states its numbers and a table or list beside
it on the page, so nothing depends on seeing the picture.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

WIDTH = 760
LEFT = 60  # room for the y-axis labels ("12.5%", "1,004"), at a phone's larger text
RIGHT = 24  # room for the last year's label
TOP = 10
BOTTOM = 22  # room for the year labels
LINE_COLOURS = 6  # .line-0 ... .line-5 in style.css


def _year_ticks(first: int, last: int, x: Callable[[float], float],
                max_ticks: int = 10) -> list[tuple[float, str]]:
    step = max(1, -(-(last - first + 1) // max_ticks))
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50) if s >= step)
    start = first + (-first) % step
    return [(round(x(year), 1), str(year)) for year in range(start, last + 1, step)]


@dataclass(frozen=True)
class Column:
    x: float
    y: float
    width: float
    height: float
    year: int
    label: str  # the value as the chart states it
    href: str


@dataclass(frozen=True)
class ColumnChart:
    title: str
    width: int
    height: int
    columns: list[Column]
    x_ticks: list[tuple[float, str]]
    top_label: str
    baseline: float
    left: int = LEFT  # where the plot starts: the y-axis labels end just before


def column_chart(title: str, points: list[tuple[int, float, str]], height: int = 150,
                 as_share: bool = False) -> ColumnChart:
    """Vertical bars per year (year, value, link) on a continuous year axis: a gap in the
    years shows as a gap. `as_share`: the values are shares (0-1), labelled in percent."""
    years = [year for year, _, _ in points] or [0]
    first, last = min(years), max(years)
    slot = (WIDTH - LEFT - RIGHT) / (last - first + 1)
    top = max((value for _, value, _ in points), default=0) or 1
    plot = height - TOP - BOTTOM

    def label(value: float) -> str:
        return _percent(value) if as_share else f"{value:,.0f}"

    columns = []
    for year, value, href in points:
        h = round(plot * value / top, 1)
        columns.append(Column(round(LEFT + (year - first) * slot + slot * 0.1, 1),
                              round(TOP + plot - h, 1), round(max(slot * 0.8, 1), 1),
                              max(h, 0.5), year, label(value), href))
    return ColumnChart(title, WIDTH, height, columns,
                       _year_ticks(first, last, lambda y: LEFT + (y - first + 0.5) * slot),
                       label(top), TOP + plot)


@dataclass(frozen=True)
class Line:
    name: str
    colour: int
    points: str  # "x,y x,y ..." for <polyline>
    dots: list[tuple[float, float, str]]  # x, y, "year: value"


@dataclass(frozen=True)
class LineChart:
    title: str
    width: int
    height: int
    lines: list[Line]
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]]
    baseline: float
    left: int = LEFT


def line_chart(title: str, years: list[int], lines: list[tuple[str, list[float]]],
               height: int = 220) -> LineChart:
    """Lines of shares (0-1) per year, with a y axis in percent."""
    first, last = (years[0], years[-1]) if years else (0, 0)
    span = max(last - first, 1)
    plot = height - TOP - BOTTOM
    top = max((max(values, default=0) for _, values in lines), default=0) or 0.01
    top = _nice_ceiling(top)

    def x(year: float) -> float:
        return LEFT + (year - first) / span * (WIDTH - LEFT - RIGHT)

    def y(share: float) -> float:
        return round(TOP + plot - plot * share / top, 1)

    drawn = []
    for i, (name, values) in enumerate(lines):
        coords = [(round(x(year), 1), y(v)) for year, v in zip(years, values, strict=True)]
        drawn.append(Line(name, i % LINE_COLOURS, " ".join(f"{a},{b}" for a, b in coords),
                          [(a, b, f"{year}: {100 * v:.1f}%") for (a, b), year, v
                           in zip(coords, years, values, strict=True)]))
    y_ticks = [(y(top * k / 4), _percent(top * k / 4)) for k in range(5)]
    return LineChart(title, WIDTH, height, drawn, _year_ticks(first, last, x), y_ticks,
                     TOP + plot)


def _nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × a power of ten that is at least `value`."""
    scale = 1e-4
    while True:
        for step in (1, 2, 2.5, 5):
            if step * scale >= value:
                return step * scale
        scale *= 10


def _percent(share: float) -> str:
    return f"{100 * share:.{0 if share >= 0.1 or share == 0 else 1}f}%"


@dataclass(frozen=True)
class HeatCell:
    x: float
    width: float
    opacity: float
    title: str


@dataclass(frozen=True)
class HeatRow:
    y: float
    label: str
    href: str  # the whole row links: a link per cell would double the page's size
    cells: list[HeatCell]


@dataclass(frozen=True)
class Heatmap:
    title: str
    width: int
    height: int
    row_height: int
    label_width: int
    rows: list[HeatRow]
    x_ticks: list[tuple[float, str]]


def heatmap(title: str, years: list[int],
            rows: list[tuple[str, str, list[float], list[int]]]) -> Heatmap:
    """One row per (label, link, shares per year, counts per year); a cell's shade is its
    share relative to the largest share of the chart."""
    label_width, row_height = 250, 18
    first, last = (years[0], years[-1]) if years else (0, 0)
    slot = (WIDTH - label_width - RIGHT) / (last - first + 1)
    top = max((max(shares, default=0) for _, _, shares, _ in rows), default=0) or 1
    drawn = []
    for r, (label, href, shares, counts) in enumerate(rows):
        drawn.append(HeatRow(TOP + r * row_height, label, href, [
            HeatCell(round(label_width + (year - first) * slot, 1), round(slot - 1, 1),
                     round(0.08 + 0.92 * share / top, 2),
                     f"{year}: {count} ({100 * share:.1f}%)")
            for year, share, count in zip(years, shares, counts, strict=True) if count]))
    height = TOP + len(rows) * row_height + BOTTOM
    return Heatmap(title, WIDTH, height, row_height, label_width, drawn,
                   _year_ticks(first, last, lambda year: label_width + (year - first + 0.5) * slot,
                               max_ticks=8))
