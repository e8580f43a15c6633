//! A server that may evict: with `allkeys-lru` a campaign and its vote-id
//! records were evicted silently, and the `volatile-*` policies evict the
//! vote-id records first (a resent vote then counts twice). Both checks
//! warn, naming the policy, unless it is `noeviction`; the warning is not a
//! violation.

use redvote::{Campaign, Period, Site};
use redvote_check::{check_campaign, check_site};
use redvote_testing::{board, boards, con, options, TempServer};

fn checks(policy: &str) -> [redvote_check::Report; 2] {
    let server = TempServer::start_with(&["--maxmemory-policy", policy]).unwrap();
    let mut con = con(&server);
    let site = Site::new("{ev}:");
    site.post("u1", "t", "https://e.x").run(&mut con).unwrap();
    let campaign = Campaign::new("ev");
    let settings = boards([("b", board(&[Period::Total], options([("x", 1)])))]);
    campaign.configure(&settings).run(&mut con).unwrap();
    campaign.vote("u1", &[("b", "x")]).run(&mut con).unwrap();
    [
        check_site(&mut con, &site).unwrap(),
        check_campaign(&mut con, &campaign).unwrap(),
    ]
}

#[test]
fn a_policy_that_evicts_is_a_warning_named_in_the_report() {
    for policy in ["allkeys-lru", "volatile-lru", "volatile-ttl"] {
        for report in checks(policy) {
            assert!(report.is_clean(), "{policy}: {report}");
            assert_eq!(report.warnings.len(), 1, "{policy}: {report}");
            let w = &report.warnings[0];
            assert!(
                w.contains(&format!("maxmemory-policy is {policy}, not noeviction"))
                    && w.contains("vote-id records")
                    && w.contains("counts")
                    && w.contains("twice"),
                "{policy}: {w}"
            );
            assert!(
                report.to_string().contains("warning: maxmemory-policy is"),
                "{report}"
            );
        }
    }
}

#[test]
fn noeviction_gives_no_warning() {
    for report in checks("noeviction") {
        assert!(report.warnings.is_empty(), "{report}");
        assert!(!report.to_string().contains("warning"), "{report}");
    }
}
