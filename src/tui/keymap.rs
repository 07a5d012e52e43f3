//! Key bindings: one table used both by the key handler and by the `?` help screen.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Step(u64),
    Continue,
    ReverseStep,
    ReverseContinue,
    Run,
    CommandLine,
    BreakPrompt,
    Help,
    FocusNext,
    FocusPrev,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Drill,
    Prev,
    Next,
    NextLayout,
    Machine,
    Interrupt,
    Quit,
}

/// A key as written in the help screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Ctrl(char),
    Code(KeyCode),
}

impl Key {
    pub fn label(self) -> String {
        match self {
            Key::Char(' ') => "Space".into(),
            Key::Char(c) => c.to_string(),
            Key::Ctrl(c) => format!("Ctrl-{c}"),
            Key::Code(KeyCode::Enter) => "Enter".into(),
            Key::Code(KeyCode::Esc) => "Esc".into(),
            Key::Code(KeyCode::Tab) => "Tab".into(),
            Key::Code(KeyCode::BackTab) => "Shift-Tab".into(),
            Key::Code(KeyCode::Up) => "↑".into(),
            Key::Code(KeyCode::Down) => "↓".into(),
            Key::Code(KeyCode::Left) => "←".into(),
            Key::Code(KeyCode::Right) => "→".into(),
            Key::Code(KeyCode::PageUp) => "PgUp".into(),
            Key::Code(KeyCode::PageDown) => "PgDn".into(),
            Key::Code(KeyCode::Home) => "Home".into(),
            Key::Code(KeyCode::End) => "End".into(),
            Key::Code(other) => format!("{other:?}"),
        }
    }

    fn matches(self, e: &KeyEvent) -> bool {
        let ctrl = e.modifiers.contains(KeyModifiers::CONTROL);
        match self {
            Key::Char(c) => !ctrl && e.code == KeyCode::Char(c),
            Key::Ctrl(c) => ctrl && e.code == KeyCode::Char(c),
            Key::Code(code) => e.code == code,
        }
    }
}

pub struct Binding {
    pub keys: &'static [Key],
    pub action: Action,
    pub help: &'static str,
}

use Key::{Char, Code, Ctrl};

pub const BINDINGS: &[Binding] = &[
    Binding { keys: &[Char('s')], action: Action::Step(1), help: "step one core cycle" },
    Binding { keys: &[Char('S')], action: Action::Step(100), help: "step 100 cycles" },
    Binding { keys: &[Char('c')], action: Action::Continue, help: "continue to the next breakpoint" },
    Binding {
        keys: &[Char('p')],
        action: Action::ReverseStep,
        help: "step back one cycle (:reverse-step, :rs)",
    },
    Binding {
        keys: &[Char('P')],
        action: Action::ReverseContinue,
        help: "go back to the previous breakpoint hit (:reverse-continue, :rc)",
    },
    Binding { keys: &[Char('r')], action: Action::Run, help: "run to the end, ignoring breakpoints" },
    Binding {
        keys: &[Char(':')],
        action: Action::CommandLine,
        help: "command line (Enter on empty repeats, ↑↓ history, Tab completes)",
    },
    Binding {
        keys: &[Char('b')],
        action: Action::BreakPrompt,
        help: "set a breakpoint: opens the command line at `break ` (as gdb's b)",
    },
    Binding {
        keys: &[Char('?')],
        action: Action::Help,
        help: "this help, after the focused pane's legend in full",
    },
    Binding {
        keys: &[Code(KeyCode::Tab), Char('l'), Code(KeyCode::Right)],
        action: Action::FocusNext,
        help: "focus the next pane",
    },
    Binding {
        keys: &[Code(KeyCode::BackTab), Char('h'), Code(KeyCode::Left)],
        action: Action::FocusPrev,
        help: "focus the previous pane",
    },
    Binding {
        keys: &[Char('j'), Code(KeyCode::Down)],
        action: Action::Down,
        help: "next row, or scroll down a line",
    },
    Binding {
        keys: &[Char('k'), Code(KeyCode::Up)],
        action: Action::Up,
        help: "previous row, or scroll up a line",
    },
    Binding {
        keys: &[Code(KeyCode::PageDown), Ctrl('d')],
        action: Action::PageDown,
        help: "page down (the mouse wheel scrolls the pane under it)",
    },
    Binding { keys: &[Code(KeyCode::PageUp), Ctrl('u')], action: Action::PageUp, help: "page up" },
    Binding { keys: &[Char('g'), Code(KeyCode::Home)], action: Action::Top, help: "first row / top" },
    Binding { keys: &[Char('G'), Code(KeyCode::End)], action: Action::Bottom, help: "last row / bottom" },
    Binding {
        keys: &[Code(KeyCode::Enter)],
        action: Action::Drill,
        help: "drill in: a warp opens the inspector, a bank its queue, an SM or channel becomes the focus",
    },
    Binding {
        keys: &[Char('[')],
        action: Action::Prev,
        help: "previous core / channel / set / warp in this pane",
    },
    Binding {
        keys: &[Char(']')],
        action: Action::Next,
        help: "next core / channel / set / warp in this pane",
    },
    Binding {
        keys: &[Char('L')],
        action: Action::NextLayout,
        help: "next layout (default, dram, cache, warp)",
    },
    Binding {
        keys: &[Char('v')],
        action: Action::Machine,
        help: "with --vs: the focused pane shows machine A, B, or both with differences marked ≠",
    },
    Binding {
        keys: &[Code(KeyCode::Esc), Ctrl('c')],
        action: Action::Interrupt,
        help: "stop a running command; close a popup",
    },
    Binding { keys: &[Char('q')], action: Action::Quit, help: "quit" },
];

/// The action bound to a key, if any.
pub fn action(e: &KeyEvent) -> Option<Action> {
    BINDINGS.iter().find(|b| b.keys.iter().any(|k| k.matches(e))).map(|b| b.action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_a_key_and_keys_are_unique() {
        let mut seen = Vec::new();
        for b in BINDINGS {
            assert!(!b.keys.is_empty());
            for k in b.keys {
                assert!(!seen.contains(k), "{k:?} bound twice");
                seen.push(*k);
            }
        }
        let e = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(&e), Some(Action::Interrupt));
        let e = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE);
        assert_eq!(action(&e), Some(Action::Continue));
    }
}
