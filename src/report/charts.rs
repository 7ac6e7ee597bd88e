//! Bar charts as inline SVG, drawn with plotters' SVG backend (no fonts
//! needed: labels are SVG text the browser sets). Horizontal bars, so
//! long category names (tools, subsets) read without rotation. Each bar
//! is labelled with its value (and the units it is over), a zero is drawn
//! as a thin mark labelled 0, and a missing value says "no data": the
//! three never look alike.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{pct, Chart, Scale};

/// Colours of the series, in order (a colour-blind-safe palette).
const COLOURS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

const WIDTH: u32 = 760;
const LABEL_WIDTH: u32 = 210;
/// Room at the right of the plot for the value labels.
const VALUE_WIDTH: u32 = 110;
const BAR: u32 = 14;
const GAP: u32 = 10;
const TOP: u32 = 30;
const LEGEND_ROW: u32 = 18;

/// The top of the value axis: 1 for shares; for plain numbers the largest
/// value rounded up to a round figure (1 when there is none).
fn axis_max(chart: &Chart) -> f64 {
    match chart.scale {
        Scale::Percent => 1.0,
        Scale::Plain => {
            let largest = chart
                .series
                .iter()
                .flat_map(|s| s.values.iter().flatten())
                .fold(0.0f64, |a, &b| a.max(b));
            if largest <= 0.0 {
                return 1.0;
            }
            let step = 10f64.powf(largest.log10().floor());
            ((largest / step).ceil() * step).max(largest)
        }
    }
}

/// The text beside a bar.
fn value_label(chart: &Chart, value: Option<f64>, count: Option<usize>) -> String {
    let Some(value) = value else {
        return "no data".to_string();
    };
    let shown = match chart.scale {
        Scale::Percent => format!("{}%", pct(value)),
        Scale::Plain if value.fract() == 0.0 => format!("{value:.0}"),
        Scale::Plain => format!("{value:.2}"),
    };
    match count {
        Some(n) => format!("{shown} (n={n})"),
        None => shown,
    }
}

/// `chart` as an SVG element whose root has `class="chart"`.
pub fn svg(chart: &Chart) -> Result<String, String> {
    let max = axis_max(chart);
    let series = &chart.series;
    let rows = chart.categories.len().max(1) as u32;
    let per_row = BAR * series.len().max(1) as u32 + GAP;
    let legend = LEGEND_ROW * series.len() as u32;
    let height = TOP + legend + rows * per_row + 36;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let text_style = |size: u32, h: HPos| {
            TextStyle::from(("sans-serif", size).into_font())
                .pos(Pos::new(h, VPos::Top))
                .color(&BLACK)
        };
        root.draw(&Text::new(
            chart.title.clone(),
            (8, 6),
            text_style(20, HPos::Left),
        ))
        .map_err(|e| e.to_string())?;
        // The legend, one row per series.
        for (i, s) in series.iter().enumerate() {
            let y = (TOP + LEGEND_ROW * i as u32) as i32;
            let colour = COLOURS[i % COLOURS.len()];
            root.draw(&Rectangle::new(
                [
                    (LABEL_WIDTH as i32, y + 2),
                    (LABEL_WIDTH as i32 + 12, y + 14),
                ],
                colour.filled(),
            ))
            .map_err(|e| e.to_string())?;
            root.draw(&Text::new(
                s.name.clone(),
                (LABEL_WIDTH as i32 + 18, y + 2),
                text_style(16, HPos::Left),
            ))
            .map_err(|e| e.to_string())?;
        }
        let plot = root.margin((TOP + legend) as i32, 10, 0, VALUE_WIDTH as i32);
        let mut cartesian = ChartBuilder::on(&plot)
            .x_label_area_size(30)
            .y_label_area_size(LABEL_WIDTH - 20)
            .build_cartesian_2d(0f64..max, 0f64..rows as f64)
            .map_err(|e| e.to_string())?;
        let percent = chart.scale == Scale::Percent;
        cartesian
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(6)
            .label_style(("sans-serif", 15))
            .x_label_formatter(&|x| {
                if percent {
                    format!("{:.0}%", x * 100.0)
                } else if max < 5.0 {
                    format!("{x:.1}")
                } else {
                    format!("{x:.0}")
                }
            })
            .draw()
            .map_err(|e| e.to_string())?;
        let slot = 1.0 / (series.len().max(1) as f64 + GAP as f64 / BAR as f64);
        // A zero's bar: wide enough to see, narrower than any real one.
        let zero_width = max / 300.0;
        for (s_index, s) in series.iter().enumerate() {
            let colour = COLOURS[s_index % COLOURS.len()];
            for (r, value) in s.values.iter().enumerate() {
                let top = rows as f64 - r as f64 - slot * s_index as f64 - slot * 0.5;
                if let Some(v) = *value {
                    let end = if v <= 0.0 { zero_width } else { v.min(max) };
                    cartesian
                        .draw_series(std::iter::once(Rectangle::new(
                            [(0.0, top), (end, top - slot)],
                            colour.filled(),
                        )))
                        .map_err(|e| e.to_string())?;
                }
                let end = value.map_or(0.0, |v| v.clamp(0.0, max));
                let (x, y) = cartesian.backend_coord(&(end, top - slot * 0.5));
                let label = value_label(chart, *value, s.counts.get(r).copied().flatten());
                let style = TextStyle::from(("sans-serif", 12).into_font())
                    .pos(Pos::new(HPos::Left, VPos::Center))
                    .color(if value.is_some() {
                        &BLACK
                    } else {
                        &RGBColor(120, 120, 120)
                    });
                root.draw(&Text::new(label, (x + 4, y), style))
                    .map_err(|e| e.to_string())?;
            }
        }
        // Category names at the left of their rows.
        for (r, name) in chart.categories.iter().enumerate() {
            let (x0, y) = cartesian.backend_coord(&(0.0, rows as f64 - r as f64 - 0.5));
            let style = TextStyle::from(("sans-serif", 16).into_font())
                .pos(Pos::new(HPos::Right, VPos::Center))
                .color(&BLACK);
            root.draw(&Text::new(name.clone(), (x0 - 6, y), style))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg.replacen("<svg ", "<svg class=\"chart\" role=\"img\" ", 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Series;

    fn chart(scale: Scale, values: [Vec<Option<f64>>; 2]) -> Chart {
        let [a, b] = values;
        Chart {
            title: "Success rate".into(),
            categories: vec!["easy".to_string(), "hard".to_string()],
            series: vec![
                Series {
                    name: "run 1".into(),
                    values: a,
                    counts: vec![Some(2), Some(4)],
                },
                Series {
                    name: "run 2".into(),
                    values: b,
                    counts: Vec::new(),
                },
            ],
            scale,
        }
    }

    #[test]
    fn a_chart_has_a_bar_per_value_a_mark_for_zero_and_says_what_is_missing() {
        let svg = svg(&chart(
            Scale::Percent,
            [vec![Some(0.5), Some(1.0)], vec![None, Some(0.0)]],
        ))
        .unwrap();
        assert!(svg.starts_with("<svg class=\"chart\""), "{svg}");
        for text in [
            "Success rate",
            "easy",
            "hard",
            "run 1",
            "run 2",
            "20%",
            "100%",
            "50.0% (n=2)",
            "100.0% (n=4)",
            "no data",
            "0.0%",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        // Two bars and a zero's mark in the series colours, beside the
        // legend swatches; the missing value has none.
        let blue = svg.matches("fill=\"#0072B2\"").count();
        let orange = svg.matches("fill=\"#E69F00\"").count();
        assert_eq!((blue, orange), (3, 2), "{svg}");
    }

    #[test]
    fn a_plain_axis_fits_the_largest_value() {
        let turns = chart(Scale::Plain, [vec![Some(3.0), Some(7.0)], vec![None, None]]);
        assert_eq!(axis_max(&turns), 7.0);
        let rouge = chart(Scale::Plain, [vec![Some(0.42), None], vec![None, None]]);
        assert_eq!(axis_max(&rouge), 0.5);
        let empty = chart(Scale::Plain, [vec![None, None], vec![None, None]]);
        assert_eq!(axis_max(&empty), 1.0);
    }
}
