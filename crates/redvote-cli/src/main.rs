//! `redvote`: the command line over the library. Parse, call, print.
//!
//! Exit codes: 0 on success (and on --help, --version), 1 on any error (a
//! one-line message on stderr naming the problem), 2 on a command line clap
//! rejects (one line too: clap's message, then where to look).

mod audit;
mod campaign;
mod campaigns;
mod demo;
mod export;
mod fold;
mod keys;
mod serve;
mod stats;
mod void;

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};
use redvote::reply::Reply;
use redvote::{Article, Call, ConfigUpdate, Order, Page, PageCall, Ranking, Site, Vote};
use serde::Serialize;
use serde_json::json;

/// The Redis the CLI talks to when neither --url nor REDVOTE_URL is given (the default).
const DEFAULT_URL: &str = "redis://127.0.0.1:6379";

#[derive(Parser, Debug)]
#[command(
    name = "redvote",
    version,
    about = "Atomic article voting and ranking in Redis"
)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

/// The help heading of the options every command takes: each command's
/// `--help` lists its own options first, these after them.
const GLOBAL: &str = "Global options";

/// Options every command takes.
#[derive(Args, Debug, Clone)]
pub struct Global {
    /// Redis URL: redis://, rediss:// (TLS), redis+unix://,
    /// redis+sentinel://[:pass@]s1:26379,s2:26379/MASTER,
    /// redis+cluster://[:pass@]n1:7000,n2:7001 (docs/connecting.md)
    /// [default: redis://127.0.0.1:6379; demo starts a throwaway server instead]
    #[arg(long, env = "REDVOTE_URL", hide_env_values = true, global = true, help_heading = GLOBAL)]
    pub url: Option<String>,
    /// PEM file of the CA that signed the servers' TLS certificates (rediss)
    #[arg(long, env = "REDVOTE_TLS_CA", global = true, help_heading = GLOBAL)]
    pub tls_ca: Option<std::path::PathBuf>,
    /// PEM file of a TLS client certificate (with --tls-key)
    #[arg(long, env = "REDVOTE_TLS_CERT", global = true, requires = "tls_key", help_heading = GLOBAL)]
    pub tls_cert: Option<std::path::PathBuf>,
    /// PEM file of the TLS client certificate's key (with --tls-cert)
    #[arg(long, env = "REDVOTE_TLS_KEY", global = true, requires = "tls_cert", help_heading = GLOBAL)]
    pub tls_key: Option<std::path::PathBuf>,
    /// After each write, wait until this many replicas acknowledged it
    /// (WAIT); fewer within --wait-timeout fail the call (exit 1)
    #[arg(long, default_value_t = 0, global = true, help_heading = GLOBAL)]
    pub wait_replicas: u32,
    /// Seconds --wait-replicas waits at most
    #[arg(long, default_value_t = 1.0, value_parser = seconds, global = true, help_heading = GLOBAL)]
    pub wait_timeout: f64,
    /// Key prefix of the site (e.g. "{site1}:" to keep it in one cluster slot)
    #[arg(long, default_value = "", global = true, help_heading = GLOBAL)]
    pub prefix: String,
    /// Machine-readable JSON output
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,
    /// Seconds each Redis call may take in all (connecting, Sentinel
    /// discovery, cluster routing, retries and the waits between them);
    /// past it the command fails
    #[arg(long, default_value_t = 5.0, value_parser = seconds, global = true, help_heading = GLOBAL)]
    pub timeout: f64,
    /// Retries of a call that failed before running (LOADING, BUSY, refused
    /// connection) or, when it cannot count twice, with an unknown outcome
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=10), global = true, help_heading = GLOBAL)]
    pub retries: u32,
}

/// A `--timeout`: positive seconds, at most a day.
pub(crate) fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 86400.0 => Ok(t),
        _ => Err(format!("{s:?} is not a number of seconds in (0, 86400]")),
    }
}

impl Global {
    fn site(&self) -> Site {
        Site::new(self.prefix.clone())
    }

    fn url(&self) -> &str {
        self.url.as_deref().unwrap_or(DEFAULT_URL)
    }

    fn connect(&self) -> Result<redvote::Connection> {
        connect(self.url(), self)
    }

    /// A connection to the one server that holds `key`: on a cluster, the
    /// primary of its slot (for the `SCAN`-based checks, which see one
    /// node's keys); otherwise as [`Global::connect`].
    fn connect_for(&self, key: &str) -> Result<redvote::Connection> {
        connect_with(self.url(), self, |c| c.for_key(key)?.connect())
    }

    /// Connect and run `call` (retried per --retries); an error that leaves
    /// the outcome unknown says so.
    pub fn run<T: Reply + Send>(&self, call: &Call<T>) -> Result<T> {
        self.run_on(&mut self.connect()?, call)
    }

    /// Run `call` on `con`, as [`Global::run`].
    pub fn run_on<T: Reply + Send>(
        &self,
        con: &mut redvote::Connection,
        call: &Call<T>,
    ) -> Result<T> {
        con.run(call)
            .map_err(|err| self.failed(call.script().name(), call.writes(), err))
    }

    /// A failed call's error as the CLI tells it: a write whose outcome is
    /// unknown says what happened (no reply within --timeout, the
    /// connection lost after it was sent, applied but not replicated) and
    /// carries [`Unknown`]; a read never "may have been applied"; the
    /// driver's cluster hint for Rust users becomes `--prefix`.
    fn failed(&self, name: &str, writes: bool, err: redvote::Error) -> anyhow::Error {
        use redvote::Error as E;
        if let E::Config(m) = &err {
            if m.contains("no hash tag") {
                return no_hash_tag(&self.prefix);
            }
        }
        let t = self.timeout;
        // the driver's deadline, told without its "(the call may have been
        // applied)", which this message says (or, for a read, denies)
        let late = |err: &E| match err {
            E::Timeout { last, .. } => Some(format!(
                "no reply within --timeout {t} s{}",
                last.as_ref()
                    .map_or(String::new(), |l| format!(", last failure: {l}"))
            )),
            E::Redis(e) if e.is_timeout() => Some(format!("no reply within --timeout {t} s")),
            _ => None,
        };
        if !writes {
            let what = match late(&err) {
                Some(late) => late,
                None if err.may_have_applied() => "the connection was lost".to_string(),
                None => return anyhow::Error::new(err),
            };
            let text = format!("{name} failed ({what}; a read: nothing was written)");
            return anyhow::Error::new(Told { text, err });
        }
        if !err.may_have_applied() {
            return anyhow::Error::new(err);
        }
        let what = match (&err, late(&err)) {
            (E::NotReplicated { .. }, _) => format!("{name} was applied, but not replicated"),
            (_, Some(late)) => format!("{name} may have been applied (sent, then {late})"),
            _ => format!("{name} may have been applied (sent, then the connection was lost)"),
        };
        let err = match err {
            E::Timeout { .. } => anyhow::Error::new(Told {
                text: what.clone(),
                err,
            }),
            err => anyhow::Error::new(err).context(what.clone()),
        };
        err.context(Unknown(what))
    }

    /// Connect and read a page: its script call, then the articles' hashes
    /// in one MULTI/EXEC, the two retried together per --retries.
    pub fn page(&self, page: &PageCall) -> Result<Page> {
        self.connect()?
            .page(page)
            .map_err(|err| self.failed("page", false, err))
    }
}

/// A driver error told in the CLI's words (the driver's own message left
/// out): the error itself kept for its code.
#[derive(Debug)]
pub struct Told {
    text: String,
    err: redvote::Error,
}

impl std::fmt::Display for Told {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for Told {}

/// The driver's error in `err`'s chain, if any.
pub fn driver_error(err: &anyhow::Error) -> Option<&redvote::Error> {
    err.chain().find_map(|e| {
        e.downcast_ref::<redvote::Error>()
            .or_else(|| e.downcast_ref::<Told>().map(|t| &t.err))
    })
}

/// The context of an error whose call may have been applied (a write that
/// was sent, then failed): what happened. A call that was never sent (a
/// connection that failed) and a read never carry it.
#[derive(Debug)]
pub struct Unknown(String);

impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `err` is a call that may have been applied.
pub fn may_have_applied(err: &anyhow::Error) -> bool {
    err.downcast_ref::<Unknown>().is_some()
}

/// The error of a site prefix without a hash tag on a cluster: the
/// command line's words for it (`--prefix`).
fn no_hash_tag(prefix: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "site prefix {prefix:?} has no hash tag, so its keys are on every node of a \
         cluster (and its scripts refuse to run there): give it one, e.g. \
         --prefix \"{{news}}:\""
    )
}

/// The client of `url` with the global options: TLS files, timeouts,
/// retries and the wait for replicas.
pub fn client(url: &str, g: &Global) -> redvote::Result<redvote::Client> {
    let timeout = Duration::from_secs_f64(g.timeout);
    let retry = redvote::Retry::new(g.retries + 1, Duration::from_millis(100));
    let tls = redvote::Tls::from_files(
        g.tls_ca.as_deref(),
        g.tls_cert.as_deref(),
        g.tls_key.as_deref(),
    )?;
    Ok(redvote::Client::open_tls(url, &tls)?
        .timeouts(timeout, timeout)
        .deadline(timeout)
        .retry(retry)
        .wait_for_replicas(g.wait_replicas, Duration::from_secs_f64(g.wait_timeout)))
}

/// A sync connection with the options of `g`, with an error that names the
/// URL (its password redacted).
pub fn connect(url: &str, g: &Global) -> Result<redvote::Connection> {
    connect_with(url, g, |c| c.connect())
}

/// [`connect`], the connection made from the client by `how`.
fn connect_with(
    url: &str,
    g: &Global,
    how: impl FnOnce(redvote::Client) -> redvote::Result<redvote::Connection>,
) -> Result<redvote::Connection> {
    client(url, g)
        .and_then(how)
        .map_err(|err| match err {
            // nothing was sent on a connection that was not made: the
            // driver's "(the call may have been applied)" does not apply
            redvote::Error::Timeout { ref last, .. } => {
                let last = last
                    .as_ref()
                    .map_or(String::new(), |l| format!(" (last failure: {l})"));
                let text = format!("no answer within --timeout {} s{last}", g.timeout);
                anyhow::Error::new(Told { text, err })
            }
            redvote::Error::Redis(e) if e.is_timeout() => {
                anyhow::Error::new(e).context(format!("no answer within --timeout {} s", g.timeout))
            }
            err => anyhow::Error::new(err),
        })
        .with_context(|| format!("cannot connect to Redis at {}", redact(url)))
}

pub use redvote::client::redact;

#[derive(Subcommand, Debug)]
enum Command {
    /// Post an article; prints its id
    Post(PostArgs),
    /// Import an article with an explicit publish time (migration/backfill)
    Import {
        #[command(flatten)]
        post: PostArgs,
        /// Publish time, Unix seconds
        #[arg(long)]
        time: u64,
    },
    /// Upvote an article
    Vote(VoteArgs),
    /// Downvote an article
    Downvote(VoteArgs),
    /// Retract a vote
    Unvote(VoteArgs),
    /// Show one article, its score and rank (and a user's vote)
    Article {
        /// Article id: 7 or article:7
        id: String,
        /// Also show this user's vote
        #[arg(long)]
        user: Option<String>,
    },
    /// List a page of articles
    Articles(PageArgs),
    /// Group membership and group pages
    #[command(subcommand)]
    Group(GroupCommand),
    /// Show or change the site's settings (stored in Redis)
    Config {
        /// Score of one net vote (fixed once the site has articles)
        #[arg(long)]
        vote_score: Option<u32>,
        /// Voting window, seconds
        #[arg(long)]
        window: Option<u64>,
        /// Default page size (1..100)
        #[arg(long)]
        page_size: Option<u32>,
        /// Extra rankings, comma-separated subset of hot,best ("" for none)
        #[arg(long)]
        rankings: Option<String>,
    },
    /// Rank every article in hot:/best: (after switching those rankings on)
    Rerank {
        /// Articles per atomic call (1..1000)
        #[arg(long, default_value_t = 500)]
        batch: u32,
    },
    /// Move the site to data layout 2 (group boards kept up to date), in batches, once no redvote 0.5 client writes it (docs/versions.md)
    Upgrade {
        /// Keys or group members visited per atomic call (1..5000; about 25 µs a member)
        #[arg(long, default_value_t = 100)]
        batch: u32,
    },
    /// List the embedded scripts and their SHA1s (for redis-cli EVALSHA)
    Scripts,
    /// SCRIPT LOAD every script; prints names and SHA1s
    Load,
    /// Run the site's whole flow (on a throwaway redis-server unless --url)
    Demo,
    /// Scan the site's keys (read-only) and report every broken invariant; exit 1 if any
    Check,
    /// Campaign leaderboards: configure, vote, import, top, standing, around, participants
    Campaign(campaign::CampaignArgs),
    /// List the registered campaigns, or register them (NAME..., or --scan for those made before the registry)
    Campaigns(campaigns::CampaignsArgs),
    /// Team keys of the service: add NAME --campaigns PATTERN --role read|vote|admin, list, revoke NAME (docs/teams.md)
    Keys(keys::KeysArgs),
    /// Serve the article site and the campaigns as a JSON API over HTTP (docs/service.md)
    Serve(serve::ServeArgs),
}

#[derive(Args, Debug)]
struct PostArgs {
    /// Poster
    #[arg(long)]
    user: String,
    /// Title
    #[arg(long)]
    title: String,
    /// Link
    #[arg(long)]
    link: String,
}

#[derive(Args, Debug)]
struct VoteArgs {
    /// Voter
    #[arg(long)]
    user: String,
    /// Article id: 7 or article:7
    id: String,
}

#[derive(Args, Debug)]
struct PageArgs {
    /// Order: score, time, hot or best
    #[arg(long, default_value = "score")]
    order: Order,
    /// Page number, from 1
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    page: u32,
    /// Articles per page (default: the site's page_size)
    #[arg(long, allow_negative_numbers = true)]
    per_page: Option<u32>,
    /// Also read each article's score (costs Redis about a third more)
    #[arg(long)]
    scores: bool,
}

impl PageArgs {
    /// The page call these options ask for.
    fn call(&self, page: PageCall) -> PageCall {
        if self.scores {
            page.with_scores()
        } else {
            page
        }
    }
}

#[derive(Subcommand, Debug)]
enum GroupCommand {
    /// Add an article to groups
    Add {
        /// Article id: 7 or article:7
        id: String,
        /// Group names
        #[arg(required = true)]
        groups: Vec<String>,
    },
    /// Remove an article from groups
    Remove {
        /// Article id: 7 or article:7
        id: String,
        /// Group names
        #[arg(required = true)]
        groups: Vec<String>,
    },
    /// List a page of a group's articles
    Articles {
        /// Group name
        group: String,
        #[command(flatten)]
        page: PageArgs,
    },
}

fn main() -> ExitCode {
    // --json before any `--`: errors, even clap's, are JSON too
    let json = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => match err.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => err.exit(),
            _ => {
                let message = usage_error(&err);
                fail(json, "REDVOTE_USAGE".into(), &message, false);
                return ExitCode::from(2);
            }
        },
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let code = driver_error(&err).map(error_code);
            let code = code.map_or(serde_json::Value::Null, Into::into);
            fail(json, code, &one_line(&err), may_have_applied(&err));
            ExitCode::FAILURE
        }
    }
}

/// Tell an error on stderr: `redvote: MESSAGE`, or with --json one object
/// `{"error": {"code", "message", "may_have_applied"}}`.
fn fail(json: bool, code: serde_json::Value, message: &str, may_have_applied: bool) {
    if json {
        let error = json!({ "error": {
            "code": code,
            "message": message,
            "may_have_applied": may_have_applied,
        }});
        eprintln!("{error}");
    } else {
        eprintln!("redvote: {message}");
    }
}

/// The stable code of a driver error: a script's (`REDVOTE_UNKNOWN_BOARD`,
/// ...) or the CLI's for the others (docs/cli.md).
fn error_code(err: &redvote::Error) -> &'static str {
    use redvote::Error as E;
    match err {
        E::MayHaveApplied { source } => error_code(source),
        E::Timeout { .. } => "REDVOTE_TIMEOUT",
        E::NotReplicated { .. } => "REDVOTE_NOT_REPLICATED",
        E::Redis(_) => "REDVOTE_REDIS",
        E::Config(_) => "REDVOTE_CONNECTION_SETTING",
        E::Reply { .. } => "REDVOTE_UNEXPECTED_REPLY",
        err => err.code().map_or("REDVOTE_INTERNAL", redvote::Code::as_str),
    }
}

/// A command line clap rejects, on one line: clap's message (a list it
/// gives on the lines below, such as missing arguments, joined with ", "),
/// then where to look: `(see redvote SUBCOMMAND --help)`.
fn usage_error(err: &clap::Error) -> String {
    let text = err.render().to_string();
    let command = command_path(std::env::args().skip(1));
    let message = if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        "a command is required".to_string()
    } else {
        let mut lines = text.lines().take_while(|l| !l.trim().is_empty());
        let first = lines.next().unwrap_or_default();
        let first = first.strip_prefix("error: ").unwrap_or(first).trim();
        let rest: Vec<&str> = lines.map(str::trim).collect();
        if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first} {}", rest.join(", "))
        }
    };
    format!("{message} (see {command} --help)")
}

/// The subcommands of a command line, with the words between them (a
/// campaign's name): `campaign t vote --user u x` gives `redvote campaign
/// t vote`, the command whose `--help` tells the arguments it takes.
fn command_path(args: impl Iterator<Item = String>) -> String {
    let mut cmd = Cli::command();
    cmd.build(); // global options reach the subcommands
    let mut path = vec!["redvote".to_string()];
    let mut between = Vec::new();
    let mut value_next = false;
    for word in args.take_while(|w| w != "--") {
        if std::mem::take(&mut value_next) {
            continue; // an option's value, such as --url's
        }
        if let Some(long) = word.strip_prefix("--") {
            value_next = !long.contains('=')
                && cmd
                    .get_arguments()
                    .any(|a| a.get_long() == Some(long) && a.get_action().takes_values());
            continue;
        }
        if word.starts_with('-') {
            continue;
        }
        match cmd.find_subcommand(&word).cloned() {
            Some(sub) => {
                path.append(&mut between);
                path.push(word);
                cmd = sub;
            }
            None if cmd.has_subcommands() => between.push(word),
            None => break,
        }
    }
    path.join(" ")
}

/// The error and its causes on one line, each cause once (redis-rs repeats
/// its io source in its own message).
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line.replace('\n', " ")
}

/// Run one command: the site's short ones here, the longer ones in a
/// function each below (the campaigns, the demo and the service in their
/// modules).
fn run(cli: Cli) -> Result<()> {
    let g = &cli.global;
    let site = g.site();
    match cli.command {
        Command::Post(p) => {
            let id = g.run(&site.post(&p.user, &p.title, &p.link))?;
            print(g, &json!({ "id": id.to_string() }), |_| id.to_string())
        }
        Command::Import { post: p, time } => {
            let call = site.import(&p.user, &p.title, &p.link, time);
            let id = g.run(&call)?;
            print(g, &json!({ "id": id.to_string() }), |_| id.to_string())
        }
        Command::Vote(v) => vote(g, &site, v, Vote::Up),
        Command::Downvote(v) => vote(g, &site, v, Vote::Down),
        Command::Unvote(v) => vote(g, &site, v, Vote::None),
        Command::Article { id, user } => {
            let a = g.run(&site.article(&id, user.as_deref()))?;
            print(g, &a, show_article)
        }
        Command::Articles(p) => {
            let page = g.page(&p.call(site.page(p.order, p.page, p.per_page)))?;
            print_page(g, &page)
        }
        Command::Group(command) => group(g, &site, command),
        Command::Config {
            vote_score,
            window,
            page_size,
            rankings,
        } => config(g, &site, vote_score, window, page_size, rankings),
        Command::Rerank { batch } => rerank(g, &site, batch),
        Command::Upgrade { batch } => upgrade(g, &site, batch),
        Command::Scripts => {
            let list: Vec<ScriptLine> = redvote::scripts::all()
                .iter()
                .map(|s| ScriptLine {
                    name: s.name().to_string(),
                    sha1: s.sha1().to_string(),
                })
                .collect();
            print(g, &json!({ "scripts": list }), |_| show_scripts(&list))
        }
        Command::Load => {
            let loaded = redvote::scripts::load_all(g.connect()?.redis()?)?;
            let list: Vec<ScriptLine> = loaded
                .into_iter()
                .map(|(name, sha1)| ScriptLine { name, sha1 })
                .collect();
            print(g, &json!({ "scripts": list }), |_| show_scripts(&list))
        }
        Command::Demo => demo::run(g),
        Command::Check => check(g, &site),
        Command::Campaign(args) => campaign::run(g, &args),
        Command::Campaigns(args) => campaigns::run(g, &args),
        Command::Keys(args) => keys::run(g, &args),
        Command::Serve(args) => serve::run(g, &args),
    }
}

/// `group add|remove|articles`: an article's groups, a group's page.
fn group(g: &Global, site: &Site, command: GroupCommand) -> Result<()> {
    match command {
        GroupCommand::Add { id, groups } => {
            let names: Vec<&str> = groups.iter().map(String::as_str).collect();
            let c = g.run(&site.groups(&id, &names, &[]))?;
            print(g, &c, |c| format!("joined {} group(s)", c.added))
        }
        GroupCommand::Remove { id, groups } => {
            let names: Vec<&str> = groups.iter().map(String::as_str).collect();
            let c = g.run(&site.groups(&id, &[], &names))?;
            print(g, &c, |c| format!("left {} group(s)", c.removed))
        }
        GroupCommand::Articles { group, page: p } => {
            let call = p.call(site.group_page(&group, p.order, p.page, p.per_page));
            print_page(g, &g.page(&call)?)
        }
    }
}

/// `config`: the site's settings, changed first when any is given (else
/// the read-only read); `rankings` is a comma-separated list.
fn config(
    g: &Global,
    site: &Site,
    vote_score: Option<u32>,
    window: Option<u64>,
    page_size: Option<u32>,
    rankings: Option<String>,
) -> Result<()> {
    let rankings = rankings
        .map(|r| {
            r.split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse::<Ranking>().map_err(anyhow::Error::msg))
                .collect::<Result<Vec<_>>>()
        })
        .transpose()
        .context("--rankings")?;
    let update = ConfigUpdate {
        vote_score,
        window,
        page_size,
        rankings,
    };
    // no change asked: the read-only read (config.lua, no-writes)
    let config = if update == ConfigUpdate::default() {
        g.run(&site.config())?
    } else {
        g.run(&site.configure(&update))?
    };
    print(g, &config, |c| {
        let rankings: Vec<&str> = c.rankings.iter().map(|r| r.as_str()).collect();
        format!(
            "vote_score {}\nwindow {}\npage_size {}\nrankings {}",
            c.vote_score,
            c.window,
            c.page_size,
            rankings.join(",")
        )
    })
}

/// `rerank`: rerank calls of `batch` articles until the last one, then how
/// many were ranked.
fn rerank(g: &Global, site: &Site, batch: u32) -> Result<()> {
    let mut con = g.connect()?;
    let (mut start, mut ranked) = (0, 0);
    loop {
        let done = g.run_on(&mut con, &site.rerank(start, batch))?;
        ranked += done.ranked;
        if done.next == 0 {
            break;
        }
        start = done.next;
    }
    print(g, &json!({ "ranked": ranked }), |_| {
        format!("ranked {ranked} article(s)")
    })
}

/// `upgrade`: upgrade calls of `batch` keys or members until the site is at
/// layout 2; prints the layouts and the number of calls.
fn upgrade(g: &Global, site: &Site, batch: u32) -> Result<()> {
    let mut con = g.connect()?;
    let mut cursor = "0".to_string();
    let (mut from, mut calls) = (0, 0u64);
    let to = loop {
        let step = g.run_on(&mut con, &site.upgrade(&cursor, batch))?;
        if calls == 0 {
            from = step.from;
        }
        calls += 1;
        if step.is_done() {
            break step.to;
        }
        cursor = step.next;
    };
    let done = json!({ "from": from, "to": to, "calls": calls });
    print(g, &done, |_| {
        format!("site data layout {from} -> {to} in {calls} call(s)")
    })
}

/// `check`: the site's keys checked (read-only); refused up front for an
/// untagged prefix on a cluster.
fn check(g: &Global, site: &Site) -> Result<()> {
    let tagged = redvote::client::hash_tag(site.prefix().as_bytes()).is_some();
    if !tagged && client(g.url(), g)?.is_cluster() {
        return Err(no_hash_tag(site.prefix()));
    }
    let mut con = g.connect_for(site.root_key())?;
    let mut found = redvote_check::check_site(con.redis()?, site)?;
    if found.checked.is_empty() {
        found.warnings.extend(campaigns_not_checked(g));
    }
    report(g, &found)
}

/// When `check` found no site: the registered campaigns it did not check,
/// in words (none when the registry is empty or cannot be read).
fn campaigns_not_checked(g: &Global) -> Option<String> {
    let key = redvote::campaign::REGISTRY_KEY;
    let mut con = g.connect_for(key).ok()?;
    let n: u64 = redis::cmd("ZCARD").arg(key).query(con.redis().ok()?).ok()?;
    (n > 0).then(|| {
        format!(
            "`check` checks the site only; this database holds {n} registered campaign(s), \
             each checked by `redvote campaign NAME check` (`redvote campaigns` lists them)"
        )
    })
}

#[derive(Serialize)]
struct ScriptLine {
    name: String,
    sha1: String,
}

fn show_scripts(list: &[ScriptLine]) -> String {
    let lines: Vec<String> = list
        .iter()
        .map(|s| format!("{}\t{}", s.name, s.sha1))
        .collect();
    lines.join("\n")
}

fn vote(g: &Global, site: &Site, v: VoteArgs, want: Vote) -> Result<()> {
    let o = g.run(&site.set_vote(&v.user, &v.id, want))?;
    print(g, &o, |o| {
        let what = if o.changed {
            format!("vote {} (was {})", o.vote, o.previous)
        } else {
            format!("unchanged: already {}", o.vote)
        };
        format!(
            "{what}: score {}, votes {}, downvotes {}",
            score(o.score),
            o.votes,
            o.downvotes
        )
    })
}

/// Print a check's report (one line per violation, then a summary; the
/// report as JSON with --json); an error, so exit 1, when it found any.
pub fn report(g: &Global, report: &redvote_check::Report) -> Result<()> {
    print(g, report, |r| r.to_string())?;
    match report.violations.len() {
        0 => Ok(()),
        1 => anyhow::bail!("1 invariant violation"),
        n => anyhow::bail!("{n} invariant violations"),
    }
}

/// Print `value` as JSON with --json, else as `human` renders it.
pub fn print<T: Serialize>(g: &Global, value: &T, human: impl Fn(&T) -> String) -> Result<()> {
    if g.json {
        out(&serde_json::to_string(value)?)
    } else {
        out(&human(value))
    }
}

/// Write `text` and a newline on stdout. When stdout is closed (`redvote
/// scripts | head -1`), exit 0 quietly, as a reader that had enough is not
/// an error (println! would panic with "Broken pipe").
pub fn out(text: &str) -> Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        other => Ok(other?),
    }
}

/// A page prints as a JSON object with --json: `order`, `group` (a
/// group's page), `page`, `per_page`, `total`, `articles`.
pub fn print_page(g: &Global, page: &Page) -> Result<()> {
    print(g, page, |page| {
        let articles = &page.articles;
        let mut out = format!(
            "page {} of {} ({} articles, by {})",
            page.page,
            page.total.div_ceil(page.per_page.max(1) as u64).max(1),
            page.total,
            page.order
        );
        let first = (page.page as u64 - 1) * page.per_page as u64;
        for (i, a) in articles.iter().enumerate() {
            let score = a.score.map_or(String::new(), |s| format!("score {s}, "));
            out.push_str(&format!(
                "\n{:>4}. [{}] {}  {}  ({score}+{} -{}, by {})",
                first + i as u64 + 1,
                a.id,
                a.title,
                a.link,
                a.votes,
                a.downvotes,
                a.poster
            ));
        }
        out
    })
}

fn show_article(a: &Article) -> String {
    let mut out = format!(
        "id {}\ntitle {}\nlink {}\nposter {}\ntime {}\nvotes {}\ndownvotes {}\nscore {}\nrank {}",
        a.id,
        a.title,
        a.link,
        a.poster,
        a.time,
        a.votes,
        a.downvotes,
        score(a.score),
        a.rank.map_or("-".to_string(), |r| r.to_string())
    );
    if let Some(v) = a.user_vote {
        out.push_str(&format!("\nuser_vote {v}"));
    }
    for (k, v) in &a.extra {
        out.push_str(&format!("\n{k} {v}"));
    }
    out
}

fn score(s: Option<f64>) -> String {
    s.map_or("-".to_string(), |s| s.to_string())
}
