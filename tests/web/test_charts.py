"""Chart geometry: bars and points where their numbers say, on a continuous year axis."""

from app.web.charts import column_chart, heatmap, line_chart


def test_column_chart_puts_years_in_order_with_gaps_and_heights_by_value():
    chart = column_chart("Papers", [(2010, 50, "/a"), (2011, 100, "/b"), (2014, 25, "/c")])
    a, b, c = chart.columns
    assert a.x < b.x < c.x
    assert abs((c.x - b.x) - 3 * (b.x - a.x)) < 0.3  # 2012 and 2013 stay empty
    assert b.height == 2 * a.height == 4 * c.height
    assert b.y + b.height == chart.baseline == a.y + a.height
    assert [x.label for x in chart.columns] == ["50", "100", "25"] and chart.top_label == "100"
    assert {label for _, label in chart.x_ticks} >= {"2010", "2014"}


def test_shares_are_labelled_in_percent():
    chart = column_chart("Share", [(2020, 0.25, ""), (2021, 0.05, "")], as_share=True)
    assert [c.label for c in chart.columns] == ["25%", "5.0%"]


def test_line_chart_scales_every_line_to_one_axis():
    chart = line_chart("Trends", [2000, 2001, 2002],
                       [("a", [0.1, 0.2, 0.0]), ("b", [0.0, 0.0, 0.4])])
    a, b = chart.lines
    ys = [y for _, y, _ in a.dots]
    assert ys[1] < ys[0] < ys[2] == chart.baseline
    assert b.dots[2][1] < ys[1]  # 40 % is above 20 %
    assert chart.y_ticks[0][1] == "0%" and chart.y_ticks[-1][1] == "50%"
    assert (a.colour, b.colour) == (0, 1)
    assert a.dots[1][2] == "2001: 20.0%"


def test_heatmap_shades_by_share_and_skips_empty_cells():
    chart = heatmap("Topics", [2019, 2020, 2021],
                    [("Optimization", "/t/o", [0.5, 0.0, 0.25], [10, 0, 5]),
                     ("Robotics", "/t/r", [0.1, 0.2, 0.0], [2, 4, 0])])
    optimization, robotics = chart.rows
    assert [cell.title for cell in optimization.cells] == ["2019: 10 (50.0%)", "2021: 5 (25.0%)"]
    assert optimization.cells[0].opacity == 1.0 > optimization.cells[1].opacity
    assert robotics.y > optimization.y and robotics.href == "/t/r"
