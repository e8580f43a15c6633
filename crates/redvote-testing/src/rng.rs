//! [`Rng`]: the seeded generator of the randomised tests (differential
//! tests, models): xorshift64*, small, deterministic, no crate, so a
//! failure replays from its seed.

/// xorshift64*: the same sequence from the same seed on every run.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator for `seed` (mixed with a constant, so small seeds such
    /// as 1, 2, 3 start far apart and none is the all-zero state).
    pub fn seeded(seed: u64) -> Rng {
        Rng(0x9E37_79B9_7F4A_7C15 ^ seed)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
