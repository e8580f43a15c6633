//! [`words!`]: the one macro for the small enums whose values travel as
//! words (`up`, `score`, `shown`, `day`, `first`, ...): their wire and CLI
//! spelling, `Display` and `FromStr`, from one list. Serde spells them the
//! same way through `#[serde(rename_all = "lowercase")]` on each enum.

/// `words!(Type { Variant => "word", ... })`: `as_str`, `Display`, `FromStr`.
macro_rules! words {
    ($ty:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $ty {
            /// The wire and CLI spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $text),+ }
            }
        }
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($text => Ok($ty::$variant),)+
                    _ => Err(format!(
                        "expected one of {}, got {s:?}",
                        [$($text),+].join(", ")
                    )),
                }
            }
        }
    };
}
pub(crate) use words;
