//! The name rule of `lua/src/lib/names.lua`, for Rust code that must accept
//! exactly the names the scripts accept (the CLI's import pre-check, the
//! checker).

/// Whether `s` is a valid board, option, group or rate-limit rule name: 1..64
/// bytes, none of `: { } * ? [ ] \ ,`, whitespace or control characters
/// (Lua's `%c` and `%s`: bytes 0..31, 127 and space), so that a name can never
/// address another key.
///
/// ```
/// assert!(redvote::is_valid_name("male-stars"));
/// assert!(!redvote::is_valid_name("a:b") && !redvote::is_valid_name("{x}"));
/// ```
pub fn is_valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s
            .bytes()
            .any(|b| b <= b' ' || b == 127 || b":{}*?[]\\,".contains(&b))
}
