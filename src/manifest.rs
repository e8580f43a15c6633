//! Test only: what `Cargo.toml` promises about features. Without `async`
//! the crate pulls in no tokio: redis-rs's `tokio-comp` and the
//! optional tokio dependency (the retry wait) come only through the `async`
//! feature.

const MANIFEST: &str = include_str!("../Cargo.toml");

/// The lines of one `[section]` of the manifest.
fn section(name: &str) -> Vec<&'static str> {
    let header = format!("[{name}]");
    MANIFEST
        .lines()
        .skip_while(|l| l.trim() != header)
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .collect()
}

#[test]
fn only_the_async_feature_brings_tokio() {
    for line in section("dependencies") {
        assert!(
            !line.starts_with("tokio") || line.contains("optional = true"),
            "tokio is a non-optional dependency: {line}"
        );
        if line.starts_with("redis ") {
            assert!(!line.contains("tokio") && !line.contains("aio"), "{line}");
        }
    }
    let features = section("features");
    let feature = |name: &str| {
        features
            .iter()
            .find(|l| l.starts_with(&format!("{name} =")))
            .unwrap_or_else(|| panic!("no feature {name}"))
            .to_string()
    };
    assert!(feature("async").contains("redis/tokio-comp"));
    assert!(feature("async").contains("dep:tokio"));
    assert_eq!(feature("default"), r#"default = ["async"]"#);
    assert!(
        !feature("openapi").contains("tokio"),
        "{}",
        feature("openapi")
    );
}
