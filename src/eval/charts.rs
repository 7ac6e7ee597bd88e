//! Bar charts as inline SVG, drawn with plotters' SVG backend (no fonts
//! needed: labels are SVG text the browser sets). Horizontal bars, so
//! long category names (tools, subsets) read without rotation.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One series of a chart: its name and a value per category (`None`
/// where the category has nothing to show).
pub struct Series {
    pub name: String,
    pub values: Vec<Option<f64>>,
}

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
const BAR: u32 = 14;
const GAP: u32 = 10;
const TOP: u32 = 30;
const LEGEND_ROW: u32 = 18;

/// A horizontal bar chart of `series` over `categories`, values in
/// 0..=`max`, axis marks as percent when `percent`. The SVG's root has
/// `class="chart"`.
pub fn bar_chart(
    title: &str,
    categories: &[String],
    series: &[Series],
    max: f64,
    percent: bool,
) -> Result<String, String> {
    let rows = categories.len().max(1) as u32;
    let per_row = BAR * series.len().max(1) as u32 + GAP;
    let legend = LEGEND_ROW * series.len() as u32;
    let height = TOP + legend + rows * per_row + 36;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let title_style = TextStyle::from(("sans-serif", 20).into_font())
            .pos(Pos::new(HPos::Left, VPos::Top))
            .color(&BLACK);
        root.draw(&Text::new(title.to_string(), (8, 6), title_style))
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
            let style = TextStyle::from(("sans-serif", 16).into_font())
                .pos(Pos::new(HPos::Left, VPos::Top))
                .color(&BLACK);
            root.draw(&Text::new(
                s.name.clone(),
                (LABEL_WIDTH as i32 + 18, y + 2),
                style,
            ))
            .map_err(|e| e.to_string())?;
        }
        let plot = root.margin((TOP + legend) as i32, 10, 0, 20);
        let mut chart = ChartBuilder::on(&plot)
            .x_label_area_size(30)
            .y_label_area_size(LABEL_WIDTH - 20)
            .build_cartesian_2d(0f64..max, 0f64..rows as f64)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(6)
            .label_style(("sans-serif", 15))
            .x_label_formatter(&|x| {
                if percent {
                    format!("{:.0}%", x * 100.0)
                } else {
                    format!("{x:.0}")
                }
            })
            .draw()
            .map_err(|e| e.to_string())?;
        let slot = 1.0 / (series.len().max(1) as f64 + GAP as f64 / BAR as f64);
        for (s_index, s) in series.iter().enumerate() {
            let colour = COLOURS[s_index % COLOURS.len()];
            // Row r holds category r from the top.
            let bars = s.values.iter().enumerate().filter_map(|(r, v)| {
                let v = (*v)?;
                let top = rows as f64 - r as f64 - slot * s_index as f64 - slot * 0.5;
                Some(Rectangle::new(
                    [(0.0, top), (v.clamp(0.0, max), top - slot)],
                    colour.filled(),
                ))
            });
            chart.draw_series(bars).map_err(|e| e.to_string())?;
        }
        // Category names at the left of their rows.
        for (r, name) in categories.iter().enumerate() {
            let (x0, y) = chart.backend_coord(&(0.0, rows as f64 - r as f64 - 0.5));
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

    #[test]
    fn a_chart_has_a_bar_per_value_and_every_label() {
        let svg = bar_chart(
            "Success rate",
            &["easy".to_string(), "hard".to_string()],
            &[
                Series {
                    name: "run 1".into(),
                    values: vec![Some(0.5), Some(1.0)],
                },
                Series {
                    name: "run 2".into(),
                    values: vec![None, Some(0.25)],
                },
            ],
            1.0,
            true,
        )
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
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        // Three bars in the series colours (and two legend swatches).
        let blue = svg.matches("fill=\"#0072B2\"").count();
        let orange = svg.matches("fill=\"#E69F00\"").count();
        assert_eq!((blue, orange), (3, 2), "{svg}");
    }
}
