//! DRAM commands as issued on a channel's command bus.

use std::fmt;

/// The kind of a DRAM command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CommandKind {
    /// Activate: open a row into the bank's row buffer.
    Act,
    /// Precharge: close the bank's open row.
    Pre,
    /// Column read (one burst).
    Rd,
    /// Column write (one burst).
    Wr,
    /// All-bank refresh.
    Ref,
}

impl CommandKind {
    /// Every kind, in declaration order (`ALL[k as usize] == k`).
    pub const ALL: [CommandKind; 5] =
        [CommandKind::Act, CommandKind::Pre, CommandKind::Rd, CommandKind::Wr, CommandKind::Ref];

    pub fn name(self) -> &'static str {
        match self {
            CommandKind::Act => "ACT",
            CommandKind::Pre => "PRE",
            CommandKind::Rd => "RD",
            CommandKind::Wr => "WR",
            CommandKind::Ref => "REF",
        }
    }

    /// Column commands move data.
    pub fn is_cas(self) -> bool {
        matches!(self, CommandKind::Rd | CommandKind::Wr)
    }
}

impl fmt::Display for CommandKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One command for one bank (REF applies to all banks; its bank is 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Command {
    pub kind: CommandKind,
    pub bank: u8,
    pub row: u32,
    pub col: u32,
}
