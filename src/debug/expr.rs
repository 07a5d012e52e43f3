//! Expressions for `condition`, `watch` and `print`: integers, strings, comparisons, `&&`,
//! `||`, `!`, arithmetic, parentheses, event fields (`needed`, `reason`) and machine-state paths
//! (`l1[3].mshr.used`, `dram[2].bank[5].queue_len`; see [`super::state`]).

use std::fmt;

/// A value: integers and names (stall reasons, command kinds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    Int(i64),
    Str(String),
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Int(i) => write!(f, "{i}"),
            Val::Str(s) => write!(f, "{s}"),
        }
    }
}

impl Val {
    pub fn truthy(&self) -> bool {
        match self {
            Val::Int(i) => *i != 0,
            Val::Str(s) => !s.is_empty(),
        }
    }
}

/// One step of a path: a name with an optional index (`bank[5]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seg {
    pub name: String,
    pub index: Option<usize>,
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Int(i64),
    Str(String),
    Path(Vec<Seg>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(Box<Expr>, Op, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// Resolves paths while evaluating.
pub trait Lookup {
    fn lookup(&self, path: &[Seg]) -> Result<Val, String>;
}

impl Expr {
    pub fn parse(text: &str) -> Result<Expr, String> {
        let toks = lex(text)?;
        if toks.is_empty() {
            return Err("empty expression".into());
        }
        // The parser and the evaluator recurse once per nesting level and per operator, so a
        // bound on the tokens bounds their depth (no expression a person writes comes close).
        if toks.len() > MAX_TOKENS {
            return Err(format!(
                "the expression has {} tokens; at most {MAX_TOKENS} are allowed",
                toks.len()
            ));
        }
        let mut p = Parser { toks, pos: 0 };
        let e = p.or()?;
        if p.pos < p.toks.len() {
            return Err(format!("unexpected `{}` after the expression", p.toks[p.pos]));
        }
        Ok(e)
    }

    /// Whether the expression reads the plain name `name` (a one-step path without index).
    pub fn reads(&self, name: &str) -> bool {
        match self {
            Expr::Int(_) | Expr::Str(_) => false,
            Expr::Path(p) => matches!(&p[..], [s] if s.name == name && s.index.is_none()),
            Expr::Not(e) | Expr::Neg(e) => e.reads(name),
            Expr::Bin(a, _, b) => a.reads(name) || b.reads(name),
        }
    }

    pub fn eval(&self, ctx: &dyn Lookup) -> Result<Val, String> {
        Ok(match self {
            Expr::Int(i) => Val::Int(*i),
            Expr::Str(s) => Val::Str(s.clone()),
            Expr::Path(p) => ctx.lookup(p)?,
            Expr::Not(e) => Val::Int(i64::from(!e.eval(ctx)?.truthy())),
            Expr::Neg(e) => {
                let x = int(&e.eval(ctx)?)?;
                Val::Int(x.checked_neg().ok_or_else(|| format!("-({x}) overflows a 64-bit integer"))?)
            }
            Expr::Bin(a, Op::And, b) => Val::Int(i64::from(a.eval(ctx)?.truthy() && b.eval(ctx)?.truthy())),
            Expr::Bin(a, Op::Or, b) => Val::Int(i64::from(a.eval(ctx)?.truthy() || b.eval(ctx)?.truthy())),
            Expr::Bin(a, op, b) => apply(*op, &a.eval(ctx)?, &b.eval(ctx)?)?,
        })
    }
}

/// The most tokens an expression may have.
pub const MAX_TOKENS: usize = 1_000;

/// `a op b` on values (`&&` and `||` short-circuit in [`Expr::eval`] before this): `==` and
/// `!=` compare any values, the arithmetic and orderings need numbers.
pub fn apply(op: Op, a: &Val, b: &Val) -> Result<Val, String> {
    Ok(match op {
        Op::Eq => Val::Int(i64::from(a == b)),
        Op::Ne => Val::Int(i64::from(a != b)),
        Op::And => Val::Int(i64::from(a.truthy() && b.truthy())),
        Op::Or => Val::Int(i64::from(a.truthy() || b.truthy())),
        _ => {
            let (x, y) = (int(a)?, int(b)?);
            let overflow = |sym: &str| format!("{x} {sym} {y} overflows a 64-bit integer");
            Val::Int(match op {
                Op::Lt => i64::from(x < y),
                Op::Le => i64::from(x <= y),
                Op::Gt => i64::from(x > y),
                Op::Ge => i64::from(x >= y),
                Op::Add => x.checked_add(y).ok_or_else(|| overflow("+"))?,
                Op::Sub => x.checked_sub(y).ok_or_else(|| overflow("-"))?,
                Op::Mul => x.checked_mul(y).ok_or_else(|| overflow("*"))?,
                Op::Div | Op::Rem if y == 0 => return Err("division by zero".into()),
                Op::Div => x.checked_div(y).ok_or_else(|| overflow("/"))?,
                Op::Rem => x.checked_rem(y).ok_or_else(|| overflow("%"))?,
                Op::Eq | Op::Ne | Op::And | Op::Or => unreachable!("handled above"),
            })
        }
    })
}

fn int(v: &Val) -> Result<i64, String> {
    match v {
        Val::Int(i) => Ok(*i),
        Val::Str(s) => Err(format!("\"{s}\" is a name, not a number (names compare only with == and !=)")),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Int(i64),
    Str(String),
    Ident(String),
    Sym(&'static str),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Int(i) => write!(f, "{i}"),
            Tok::Str(s) => write!(f, "\"{s}\""),
            Tok::Ident(s) => write!(f, "{s}"),
            Tok::Sym(s) => write!(f, "{s}"),
        }
    }
}

const SYMS: [&str; 19] =
    ["==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "*", "/", "%", "(", ")", "[", "]", "."];

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let t = s[start..i].replace('_', "");
            let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                i64::from_str_radix(h, 16)
            } else {
                t.parse()
            };
            out.push(Tok::Int(v.map_err(|_| format!("`{}` is not a number", &s[start..i]))?));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[start..i].to_string()));
        } else if c == '"' {
            let start = i + 1;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += 1;
            }
            if i >= b.len() {
                return Err("unterminated string".into());
            }
            out.push(Tok::Str(s[start..i].to_string()));
            i += 1;
        } else if let Some(sym) = SYMS.iter().find(|sym| s[i..].starts_with(**sym)) {
            out.push(Tok::Sym(sym));
            i += sym.len();
        } else {
            return Err(format!("unexpected character `{c}`"));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn eat(&mut self, sym: &str) -> bool {
        if self.toks.get(self.pos) == Some(&Tok::Sym(SYMS.iter().find(|s| **s == sym).copied().unwrap_or("")))
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn binary(
        &mut self,
        ops: &[(&str, Op)],
        next: fn(&mut Parser) -> Result<Expr, String>,
    ) -> Result<Expr, String> {
        let mut e = next(self)?;
        'outer: loop {
            for (sym, op) in ops {
                if self.eat(sym) {
                    e = Expr::Bin(Box::new(e), *op, Box::new(next(self)?));
                    continue 'outer;
                }
            }
            return Ok(e);
        }
    }

    fn or(&mut self) -> Result<Expr, String> {
        self.binary(&[("||", Op::Or)], Parser::and)
    }

    fn and(&mut self) -> Result<Expr, String> {
        self.binary(&[("&&", Op::And)], Parser::cmp)
    }

    fn cmp(&mut self) -> Result<Expr, String> {
        let ops =
            [("==", Op::Eq), ("!=", Op::Ne), ("<=", Op::Le), (">=", Op::Ge), ("<", Op::Lt), (">", Op::Gt)];
        let a = self.sum()?;
        for (sym, op) in ops {
            if self.eat(sym) {
                return Ok(Expr::Bin(Box::new(a), op, Box::new(self.sum()?)));
            }
        }
        Ok(a)
    }

    fn sum(&mut self) -> Result<Expr, String> {
        self.binary(&[("+", Op::Add), ("-", Op::Sub)], Parser::prod)
    }

    fn prod(&mut self) -> Result<Expr, String> {
        self.binary(&[("*", Op::Mul), ("/", Op::Div), ("%", Op::Rem)], Parser::unary)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let t = self.toks.get(self.pos).cloned().ok_or("the expression ends too early")?;
        self.pos += 1;
        match t {
            Tok::Int(i) => Ok(Expr::Int(i)),
            Tok::Str(s) => Ok(Expr::Str(s)),
            Tok::Sym("(") => {
                let e = self.or()?;
                if !self.eat(")") {
                    return Err("missing `)`".into());
                }
                Ok(e)
            }
            Tok::Ident(name) => {
                let mut path = vec![self.seg(name)?];
                while self.eat(".") {
                    match self.toks.get(self.pos).cloned() {
                        Some(Tok::Ident(n)) => {
                            self.pos += 1;
                            path.push(self.seg(n)?);
                        }
                        _ => return Err("expected a name after `.`".into()),
                    }
                }
                Ok(Expr::Path(path))
            }
            other => Err(format!("unexpected `{other}`")),
        }
    }

    fn seg(&mut self, name: String) -> Result<Seg, String> {
        if !self.eat("[") {
            return Ok(Seg { name, index: None });
        }
        let Some(Tok::Int(i)) = self.toks.get(self.pos).cloned() else {
            return Err(format!("expected an index after `{name}[`"));
        };
        self.pos += 1;
        if !self.eat("]") {
            return Err(format!("missing `]` after `{name}[{i}`"));
        }
        Ok(Seg { name, index: Some(i.max(0) as usize) })
    }
}

/// Renders a path back as text.
pub fn path_text(path: &[Seg]) -> String {
    path.iter()
        .map(|s| match s.index {
            Some(i) => format!("{}[{i}]", s.name),
            None => s.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Vars;
    impl Lookup for Vars {
        fn lookup(&self, path: &[Seg]) -> Result<Val, String> {
            match path_text(path).as_str() {
                "needed" => Ok(Val::Int(24)),
                "free" => Ok(Val::Int(6)),
                "reason" => Ok(Val::Str("data-mem".into())),
                "l1[3].mshr.used" => Ok(Val::Int(30)),
                other => Err(format!("unknown `{other}`")),
            }
        }
    }

    fn eval(s: &str) -> Result<Val, String> {
        Expr::parse(s)?.eval(&Vars)
    }

    #[test]
    fn arithmetic_comparison_and_logic() {
        assert_eq!(eval("needed - free * 2 == 12"), Ok(Val::Int(1)));
        assert_eq!(eval("(needed - free) * 2"), Ok(Val::Int(36)));
        assert_eq!(eval("needed > 20 && free == 0 || l1[3].mshr.used >= 30"), Ok(Val::Int(1)));
        assert_eq!(eval("!(needed > 20)"), Ok(Val::Int(0)));
        assert_eq!(eval("0x10 + 1_000"), Ok(Val::Int(1016)));
        assert_eq!(eval("reason == \"data-mem\""), Ok(Val::Int(1)));
        assert_eq!(eval("-needed % 5"), Ok(Val::Int(-4)));
    }

    #[test]
    fn errors_are_plain() {
        assert_eq!(eval("needed >"), Err("the expression ends too early".into()));
        assert_eq!(eval("needed $ 2"), Err("unexpected character `$`".into()));
        assert_eq!(
            eval("reason > 3"),
            Err("\"data-mem\" is a name, not a number (names compare only with == and !=)".into())
        );
        assert_eq!(eval("nope"), Err("unknown `nope`".into()));
        assert_eq!(eval("needed / (free - 6)"), Err("division by zero".into()));
        assert_eq!(eval("1 2"), Err("unexpected `2` after the expression".into()));
    }

    /// Issue 37.1's cases: overflow is an error, never a wrapped number or a panic, and an
    /// expression too long to nest safely is refused before it is parsed.
    #[test]
    fn overflow_and_huge_expressions_are_errors() {
        let min = "(0 - 9223372036854775807 - 1)";
        assert_eq!(
            eval(&format!("{min} / -1")),
            Err("-9223372036854775808 / -1 overflows a 64-bit integer".into())
        );
        assert_eq!(
            eval(&format!("{min} % -1")),
            Err("-9223372036854775808 % -1 overflows a 64-bit integer".into())
        );
        assert_eq!(
            eval("9223372036854775807 + 1"),
            Err("9223372036854775807 + 1 overflows a 64-bit integer".into())
        );
        assert_eq!(
            eval(&format!("-{min}")),
            Err("-(-9223372036854775808) overflows a 64-bit integer".into())
        );
        assert_eq!(eval("4611686018427387904 * 2").map_err(|e| e.contains("overflows")), Err(true));
        for huge in [
            "(".repeat(6_000) + "1" + &")".repeat(6_000),
            "-".repeat(100_000) + "1",
            vec!["1"; 50_000].join("+"),
        ] {
            let e = eval(&huge).unwrap_err();
            assert!(e.contains("at most 1000 are allowed"), "{e}");
        }
        assert_eq!(eval(&vec!["1"; 500].join("+")), Ok(Val::Int(500)), "long but allowed");
    }

    /// The class: any expression over numbers near the 64-bit limits, with any operators and
    /// nesting (deeper than allowed included), evaluates to a value or an error, never a panic.
    fn expression() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let edge = prop_oneof![Just(i64::MAX), Just(i64::MIN), Just(0i64), Just(1), Just(-1), any::<i64>()]
            .prop_map(|v| match v {
                i64::MIN => "(0 - 9223372036854775807 - 1)".to_string(),
                v if v < 0 => format!("(0 - {})", -v),
                v => v.to_string(),
            });
        edge.prop_recursive(8, 64, 4, |inner| {
            let ops = prop_oneof![
                Just("+"), Just("-"), Just("*"), Just("/"), Just("%"), Just("<"), Just("=="), Just("&&"), Just("||")
            ];
            prop_oneof![
                8 => (inner.clone(), ops, inner.clone()).prop_map(|(a, op, b)| format!("{a} {op} {b}")),
                1 => inner.clone().prop_map(|a| format!("-({a})")),
                1 => inner.clone().prop_map(|a| format!("!{a}")),
                1 => (inner, 0usize..2_000).prop_map(|(a, n)| format!("{}{a}{}", "(".repeat(n), ")".repeat(n))),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(crate::cases::config(crate::cases::EXPRESSIONS))]
        #[test]
        fn no_expression_panics(text in expression()) {
            let _ = eval(&text);
        }
    }
}
