//! `--set key.path=value` overrides.
//!
//! The config is serialized to canonical RON, the value at `key.path` is replaced textually,
//! and the text is parsed again. So any value RON can express works (`Ck(18)`, `Some((..))`,
//! lists), type errors come from the same serde path as file errors, and an unknown key is
//! reported with the keys that exist at that level. A bare word given for a string-valued key
//! (`--set dram.scheduler=frfcfs`) is quoted for the user.

use super::error::{ConfigError, Origin};
use super::locate::{Segment, fields_at, locate, parse_path, render_path};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Applies `key=value` assignments in order to a serializable config value.
pub fn apply<T: Serialize + DeserializeOwned + Clone>(value: &T, sets: &[String]) -> Result<T, ConfigError> {
    if sets.is_empty() {
        return Ok(value.clone());
    }
    let mut text = canonical(value);
    let mut result = None;
    for arg in sets {
        let origin = Origin::Override(arg.clone());
        let err = |key: &str, message: String| ConfigError {
            origin: origin.clone(),
            position: None,
            key: key.to_string(),
            message,
        };
        let (key, new_value) =
            arg.split_once('=').ok_or_else(|| err("", "expected key.path=value".into()))?;
        let key = key.trim();
        let path = parse_path(key).ok_or_else(|| {
            err(key, "malformed key path; expected names separated by dots, e.g. l1.sets".into())
        })?;
        let located = locate(&text, &path).ok_or_else(|| err(key, unknown_key_message(&text, &path)))?;
        let old = &text[located.value.clone()];
        let new_value = new_value.trim();
        if old.parse::<i128>().is_ok() && new_value.parse::<i128>().is_err() {
            return Err(err(key, format!("expected a whole number, not `{new_value}`")));
        }
        let replacement = if old.starts_with('"') && !new_value.starts_with('"') {
            format!("{new_value:?}")
        } else {
            new_value.to_string()
        };
        text.replace_range(located.value, &replacement);
        // Re-parse after each assignment so an error names the argument that caused it.
        result = Some(super::parse_ron::<T>(&text, &origin).map_err(|mut e| {
            e.position = None;
            // The replaced text may not parse far enough to say where it broke: the key set is.
            if e.key.contains('?') || e.key.is_empty() {
                e.key = key.to_string();
            }
            // RON's "Integer is out of bounds" for a number the key's type cannot hold.
            if e.message.contains("out of bounds") && new_value.parse::<i128>().is_ok() {
                let side =
                    if new_value.starts_with('-') { "below its smallest" } else { "above its largest" };
                e.message = format!("= {new_value}: out of range, {side} whole number");
            }
            e
        })?);
    }
    Ok(result.expect("at least one override"))
}

/// The canonical RON text of a value (every key present, no struct names).
pub fn canonical<T: Serialize>(value: &T) -> String {
    ron::ser::to_string_pretty(value, ron::ser::PrettyConfig::default())
        .expect("config values always serialize")
}

fn unknown_key_message(text: &str, path: &[Segment]) -> String {
    // Find the deepest existing prefix and list what is valid there.
    for depth in (0..path.len()).rev() {
        let prefix = &path[..depth];
        if depth > 0 {
            let Some(l) = locate(text, prefix) else { continue };
            let v = &text[l.value];
            if v == "None" {
                return format!(
                    "`{}` is None; set the whole value, e.g. --set '{}=Some(( ... ))'",
                    render_path(prefix),
                    render_path(prefix)
                );
            }
        }
        let fields = fields_at(text, prefix);
        if fields.is_empty() {
            return format!("`{}` has no sub-keys", render_path(prefix));
        }
        let at = if prefix.is_empty() {
            "at the top level".to_string()
        } else {
            format!("in `{}`", render_path(prefix))
        };
        return format!("unknown key; valid keys {at}: {}", fields.join(", "));
    }
    "unknown key".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, DramSchedulerName, Time};

    fn set(args: &[&str]) -> Result<Config, ConfigError> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        apply(&Config::default(), &args)
    }

    #[test]
    fn overrides_numbers_names_and_enums() {
        let c =
            set(&["l1.sets=64", "dram.scheduler=fcfs", "dram.timing.t_rcd=Ck(20)", "clocks.core_mhz=1000"])
                .unwrap();
        assert_eq!(c.l1.sets, 64);
        assert_eq!(c.dram.scheduler, DramSchedulerName::Fcfs);
        assert_eq!(c.dram.timing.t_rcd, Time::Ck(20));
        assert_eq!(c.clocks.core_mhz, 1000.0);
    }

    #[test]
    fn unknown_key_lists_valid_keys() {
        let e = set(&["l1.sest=4"]).unwrap_err();
        assert_eq!(e.origin, Origin::Override("l1.sest=4".into()));
        assert!(e.message.contains("valid keys in `l1`: sets, ways"), "{e}");
    }

    #[test]
    fn a_count_set_to_a_fraction_or_a_word_says_a_whole_number_is_expected() {
        for v in ["1.5", "1e3", "4x", "many"] {
            let e = set(&[&format!("core.count={v}")]).unwrap_err();
            assert_eq!(
                (e.key.as_str(), e.message.clone()),
                ("core.count", format!("expected a whole number, not `{v}`"))
            );
        }
    }

    /// A whole number the key's type cannot hold says so, and which side it is out on (RON
    /// says only "Integer is out of bounds").
    #[test]
    fn a_whole_number_out_of_the_keys_range_says_so() {
        for (arg, side) in [
            ("core.count=99999999999999999999", "above its largest"),
            ("l1.sets=4294967296", "above its largest"),
            ("l1.sets=-1", "below its smallest"),
            ("dram.read_queue=-99999999999999999999", "below its smallest"),
        ] {
            let e = set(&[arg]).unwrap_err().to_string();
            let (key, value) = arg.split_once('=').unwrap();
            assert_eq!(e, format!("--set {arg}: {key} = {value}: out of range, {side} whole number"));
        }
    }

    #[test]
    fn wrong_type_and_bad_name_are_reported() {
        let e = set(&["l1.sets=many"]).unwrap_err();
        assert_eq!(e.key, "l1.sets");
        let e = set(&["dram.scheduler=magic"]).unwrap_err();
        assert!(e.to_string().contains("valid: fcfs, frfcfs"), "{e}");
        let e = set(&["l1.sets"]).unwrap_err();
        assert!(e.message.contains("key.path=value"));
    }

    #[test]
    fn none_values_must_be_set_whole() {
        let e = set(&["dram.refresh.t_refi=Ns(1.0)"]).unwrap_err();
        assert!(e.message.contains("`dram.refresh` is None"), "{e}");
        let c = set(&["dram.refresh=Some((t_rfc: Ck(100)))"]).unwrap();
        assert_eq!(c.dram.refresh.unwrap().t_rfc, Time::Ck(100));
    }
}
