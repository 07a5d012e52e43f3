//! GPGPU-Sim's cache description string (`-gpgpu_cache:dl1`, `-gpgpu_cache:dl2`):
//! `[T:]sets:line:ways,rep:write:alloc:write_alloc[:index],mshr_type:entries:merge,miss_queue[:fifo][,data_port]`
//! where T is `N` (normal) or `S` (sectored), as GPGPU-Sim 3.x and 4.x write it.

/// The fields of one cache string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheSpec {
    pub sectored: bool,
    pub sets: u32,
    pub line_bytes: u32,
    pub ways: u32,
    /// Replacement: `L` LRU, `F` FIFO.
    pub replacement: char,
    /// Write policy: `R` read-only, `B` write-back, `T` write-through, `E` write-evict,
    /// `L` local write-back / global write-through.
    pub write: char,
    /// Allocation: `m` on miss, `f` on fill, `s` streaming.
    pub alloc: char,
    /// Write allocation: `N` none, `W` write-allocate, `F` fetch on write, `L` lazy fetch on read.
    pub write_alloc: char,
    /// Set index: `L` linear, `H` Fermi hash, `P` IPOLY hash, `X` custom.
    pub index: char,
    pub mshr_entries: u32,
    pub mshr_merge: u32,
    pub miss_queue: u32,
    /// Bytes per cycle of the data port (GPGPU-Sim 4's last field).
    pub data_port: Option<u32>,
}

/// What a cache string looks like, for error messages.
pub const SHAPE: &str = "expected [N|S:]<sets>:<line bytes>:<ways>,<replacement>:<write>:<alloc>:<write alloc>[:<index>],<mshr type>:<entries>:<merge>,<miss queue>[:<fifo>][,<data port bytes>], e.g. N:64:128:6,L:L:m:N:H,A:128:8,8";

/// Parses a cache string; the error says which field is wrong.
pub fn parse(text: &str) -> Result<CacheSpec, String> {
    let groups: Vec<Vec<&str>> = text.split(',').map(|g| g.split(':').map(str::trim).collect()).collect();
    if !(4..=5).contains(&groups.len()) {
        return Err(format!("has {} comma-separated groups; {SHAPE}", groups.len()));
    }
    let num = |s: &str, what: &str| -> Result<u32, String> {
        s.parse().map_err(|_| format!("`{s}` is not a number (the {what} field); {SHAPE}"))
    };
    let letter = |s: &str, what: &str, valid: &str| -> Result<char, String> {
        let mut c = s.chars();
        match (c.next(), c.next()) {
            (Some(l), None) if valid.contains(l) => Ok(l),
            _ => Err(format!(
                "`{s}` is not a valid {what} (one of {})",
                valid.chars().map(String::from).collect::<Vec<_>>().join(", ")
            )),
        }
    };
    let geometry = &groups[0];
    let (sectored, dims) = match geometry.as_slice() {
        [t, rest @ ..] if t.len() == 1 && t.chars().all(|c| c.is_ascii_alphabetic()) => {
            (letter(t, "cache type", "NS")? == 'S', rest)
        }
        all => (false, all),
    };
    let [sets, line, ways] = dims else {
        return Err(format!(
            "first group `{}` needs <sets>:<line bytes>:<ways>; {SHAPE}",
            groups[0].join(":")
        ));
    };
    let policy = &groups[1];
    if !(4..=5).contains(&policy.len()) {
        return Err(format!(
            "second group `{}` needs <replacement>:<write>:<alloc>:<write alloc>[:<index>]; {SHAPE}",
            policy.join(":")
        ));
    }
    let mshr = &groups[2];
    let [_, entries, merge] = mshr.as_slice() else {
        return Err(format!("third group `{}` needs <mshr type>:<entries>:<merge>; {SHAPE}", mshr.join(":")));
    };
    letter(mshr[0], "MSHR type", "AFTS")?;
    let queue = &groups[3];
    if queue.is_empty() || queue.len() > 2 {
        return Err(format!("fourth group `{}` needs <miss queue>[:<fifo>]; {SHAPE}", queue.join(":")));
    }
    let data_port = match groups.get(4) {
        Some(g) if g.len() == 1 => Some(num(g[0], "data port")?),
        Some(g) => return Err(format!("fifth group `{}` needs <data port bytes>; {SHAPE}", g.join(":"))),
        None => None,
    };
    Ok(CacheSpec {
        sectored,
        sets: num(sets, "sets")?,
        line_bytes: num(line, "line bytes")?,
        ways: num(ways, "ways")?,
        replacement: letter(policy[0], "replacement", "LF")?,
        write: letter(policy[1], "write policy", "RBTEL")?,
        alloc: letter(policy[2], "allocation", "mfs")?,
        write_alloc: letter(policy[3], "write allocation", "NWFL")?,
        index: match policy.get(4) {
            Some(i) => letter(i, "set index function", "LHPX")?,
            None => 'L',
        },
        mshr_entries: num(entries, "MSHR entries")?,
        mshr_merge: num(merge, "MSHR merge")?,
        miss_queue: num(queue[0], "miss queue")?,
        data_port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fermi_and_volta_strings() {
        let fermi = parse("N:32:128:4,L:L:m:N:H,A:32:8,8").unwrap();
        assert_eq!((fermi.sets, fermi.line_bytes, fermi.ways, fermi.index), (32, 128, 4, 'H'));
        assert_eq!(
            (fermi.mshr_entries, fermi.mshr_merge, fermi.miss_queue, fermi.data_port),
            (32, 8, 8, None)
        );
        assert!(!fermi.sectored);
        let volta_l2 = parse("S:32:128:24,L:B:m:L:P,A:192:4,32:0,32").unwrap();
        assert!(volta_l2.sectored);
        assert_eq!((volta_l2.sets, volta_l2.ways, volta_l2.write, volta_l2.write_alloc), (32, 24, 'B', 'L'));
        assert_eq!((volta_l2.mshr_entries, volta_l2.miss_queue, volta_l2.data_port), (192, 32, Some(32)));
        let old = parse("32:128:4,L:L:m:N,A:32:8,8").unwrap();
        assert_eq!((old.sets, old.index), (32, 'L'), "3.x strings without type or index field");
    }

    #[test]
    fn bad_strings_say_which_field() {
        assert!(parse("N:32:oops").unwrap_err().starts_with("has 1 comma-separated groups"));
        assert!(
            parse("N:32:12x:4,L:L:m:N:H,A:32:8,8")
                .unwrap_err()
                .starts_with("`12x` is not a number (the line bytes field)")
        );
        assert!(
            parse("N:32:128:4,Q:L:m:N:H,A:32:8,8")
                .unwrap_err()
                .starts_with("`Q` is not a valid replacement (one of L, F)")
        );
        assert!(parse("N:32:128:4,L:L:m:N:H,A:32,8").unwrap_err().starts_with("third group `A:32`"));
    }
}
