//! Pane layouts from `layouts/*.ron`: a tree of splits with sizes (as ratatui names its
//! constraints; [`super::split`] divides the space) whose leaves are panes with parameters. The four shipped layouts are embedded; a file in `layouts/`
//! with the same name overrides one, and a broken file is reported (file, line:column) and
//! replaced by the default layout. The panes, [`PaneKind`], come from the view catalogue.

pub use crate::debug::views::PaneKind;

use crate::config::{ConfigError, Origin, parse_ron, read_file};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A part's size along its split, in cells (see [`super::split`] for how a split shares its
/// room).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Size {
    /// Exactly n cells.
    Length(u16),
    /// A share of the split's cells.
    Percentage(u16),
    /// At least n cells; more when no part fills.
    Min(u16),
    /// A share of what the other parts leave, by weight.
    Fill(u16),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    Horizontal,
    Vertical,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    pub size: Size,
    pub node: Node,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Node {
    Split { dir: Direction, parts: Vec<Part> },
    Pane(PaneKind),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    pub name: String,
    pub root: Node,
}

/// The shipped layouts (name, RON text).
pub const BUILTIN: &[(&str, &str)] = &[
    ("default", include_str!("../../layouts/default.ron")),
    ("dram", include_str!("../../layouts/dram.ron")),
    ("cache", include_str!("../../layouts/cache.ron")),
    ("warp", include_str!("../../layouts/warp.ron")),
];

impl Layout {
    /// Panes in drawing order (depth first).
    pub fn panes(&self) -> Vec<PaneKind> {
        fn walk(n: &Node, out: &mut Vec<PaneKind>) {
            match n {
                Node::Pane(p) => out.push(p.clone()),
                Node::Split { parts, .. } => parts.iter().for_each(|p| walk(&p.node, out)),
            }
        }
        let mut out = Vec::new();
        walk(&self.root, &mut out);
        out
    }

    pub fn parse(text: &str, origin: &Origin) -> Result<Layout, ConfigError> {
        let l: Layout = parse_ron(text, origin)?;
        if l.panes().is_empty() {
            return Err(crate::config::error_at_path(
                text,
                origin,
                "root",
                "a layout needs at least one pane",
            ));
        }
        Ok(l)
    }

    /// The built-in default layout.
    pub fn default_layout() -> Layout {
        Layout::parse(BUILTIN[0].1, &Origin::File("layouts/default.ron (built-in)".into()))
            .expect("the built-in default layout parses (tested)")
    }

    /// Loads a layout by name or path: a file (`path.ron` or `layouts/NAME.ron`) if there is
    /// one, else the built-in layout of that name.
    pub fn load(name: &str, dir: &Path) -> Result<Layout, ConfigError> {
        let path = if name.ends_with(".ron") { PathBuf::from(name) } else { dir.join(format!("{name}.ron")) };
        if path.exists() {
            let text = read_file(&path)?;
            return Layout::parse(&text, &Origin::File(path.display().to_string()));
        }
        match BUILTIN.iter().find(|(n, _)| *n == name) {
            Some((n, text)) => Layout::parse(text, &Origin::File(format!("layouts/{n}.ron (built-in)"))),
            None => Err(ConfigError {
                origin: Origin::File(path.display().to_string()),
                position: None,
                key: String::new(),
                message: format!(
                    "no such layout; built-in layouts: {}",
                    BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_layout_parses_and_matches_its_file() {
        for (name, text) in BUILTIN {
            let l = Layout::parse(text, &Origin::File(name.to_string())).unwrap();
            assert_eq!(&l.name, name);
            let file = Layout::load(name, Path::new("layouts")).unwrap();
            assert_eq!(l, file);
        }
    }

    #[test]
    fn broken_layouts_name_file_and_position() {
        let e = Layout::parse("(name: \"x\", root: Pane(Warpz))", &Origin::File("l.ron".into())).unwrap_err();
        assert!(e.to_string().starts_with("l.ron:1:"), "{e}");
        assert!(e.to_string().contains("Warpz"), "{e}");
        let e = Layout::load("nope", Path::new("layouts")).unwrap_err();
        assert!(e.to_string().contains("built-in layouts: default, dram, cache, warp"), "{e}");
    }
}
