//! The site's ranking formulas, computed the way the tests check them.

/// The Wilson bound's z (80% confidence).
const Z: f64 = 1.281551565545;

/// The hot ranking's score (Reddit's formula over net votes and time).
pub fn hot(up: i64, down: i64, time: i64) -> f64 {
    let s = up - down;
    let sign = s.signum() as f64;
    sign * (s.abs().max(1) as f64).log10() + (time - 1134028003) as f64 / 45000.0
}

/// The best ranking's score (the Wilson lower bound at 80%).
pub fn best(up: i64, down: i64) -> f64 {
    let n = (up + down) as f64;
    if n <= 0.0 {
        return 0.0;
    }
    let p = up as f64 / n;
    (p + Z * Z / (2.0 * n) - Z * ((p * (1.0 - p) + Z * Z / (4.0 * n)) / n).sqrt())
        / (1.0 + Z * Z / n)
}
