//! Styles for tones. Colours are chosen to read on dark and light terminals, and every tone
//! also carries a modifier, so `NO_COLOR` (https://no-color.org) keeps state visible; views put
//! the state into words and symbols as well.

use crate::debug::views::Tone;
use ratatui::style::{Color, Modifier, Style};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to a non-empty value.
    pub fn from_env() -> Theme {
        Theme { color: std::env::var("NO_COLOR").map_or(true, |v| v.is_empty()) }
    }

    pub fn tone(self, t: Tone) -> Style {
        let s = Style::default();
        let (color, modifier) = match t {
            Tone::Normal => (None, Modifier::empty()),
            Tone::Dim => (Some(Color::DarkGray), Modifier::DIM),
            Tone::Good => (Some(Color::Green), Modifier::empty()),
            Tone::Warn => (Some(Color::Yellow), Modifier::BOLD),
            Tone::Bad => (Some(Color::Red), Modifier::BOLD | Modifier::UNDERLINED),
            Tone::Accent => (Some(Color::Cyan), Modifier::BOLD),
            Tone::Changed => (Some(Color::LightMagenta), Modifier::BOLD | Modifier::ITALIC),
            Tone::Differs => (Some(Color::LightYellow), Modifier::UNDERLINED | Modifier::ITALIC),
        };
        let s = s.add_modifier(modifier);
        match (self.color, color) {
            (true, Some(c)) => s.fg(c),
            _ => s,
        }
    }

    /// The selected row of a focused table.
    pub fn selected(self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }

    /// Border of the focused pane.
    pub fn focused_border(self) -> Style {
        let s = Style::default().add_modifier(Modifier::BOLD);
        if self.color { s.fg(Color::Cyan) } else { s }
    }

    pub fn status(self) -> Style {
        let s = Style::default().add_modifier(Modifier::REVERSED);
        if self.color { s.fg(Color::Blue) } else { s }
    }
}
