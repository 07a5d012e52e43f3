//! `repro --since OLD`: the claims whose verdict differs between two sets of a study's runs —
//! the stored runs of an earlier simulator and today's — as a Markdown table (issue 35.8: every
//! verdict a model change moved, listed by the tool rather than by hand).

use super::repro::{Outcome, Repro, show, yes_no};

/// One table row per claim whose "same direction" or "within 2×" differs between `before`
/// and `after` (both [`super::repro::outcomes`] of `r`), then a line counting them.
pub fn changes_markdown(r: &Repro, before: &[Outcome], after: &[Outcome]) -> String {
    let value = |c, o: &Outcome| {
        let capped = if o.capped { " *capped*" } else { "" };
        o.ours.map_or("–".to_string(), |v| format!("{}{capped}", show(c, v)))
    };
    let mut md = String::from(
        "| source | claim | paper | warpscope before → now | same direction before → now | within 2× before → now |\n|---|---|---|---|---|---|\n",
    );
    let mut changed = 0;
    for ((c, b), a) in r.spec.claims.iter().zip(before).zip(after) {
        if (b.same_direction, b.within_2x) == (a.same_direction, a.within_2x) {
            continue;
        }
        changed += 1;
        md.push_str(&format!(
            "| {} | {} | {} | {} → {} | {} → {} | {} → {} |\n",
            c.source,
            c.what,
            show(c, c.paper),
            value(c, b),
            value(c, a),
            yes_no(b.same_direction),
            yes_no(a.same_direction),
            yes_no(b.within_2x),
            yes_no(a.within_2x),
        ));
    }
    let total = r.spec.claims.len();
    if changed == 0 {
        return format!("No verdict of the {total} claims changed.\n");
    }
    md.push_str(&format!("\n{changed} of the {total} claims changed verdict.\n"));
    md
}
