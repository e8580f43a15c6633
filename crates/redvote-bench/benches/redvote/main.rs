//! The redvote benchmark: redvote's one-call operations against the seeds'
//! client-side flow, on one Redis server, side by side. A `cargo bench`
//! target of its own (`harness = false`), kept out of the `redvote` binary.
//!
//! # How to run
//!
//! ```text
//! cargo bench --bench redvote                     # the full run (a few minutes)
//! cargo bench --bench redvote -- --quick          # or --ops N: less
//! cargo bench --bench redvote -- --json           # one JSON object
//! cargo bench --bench redvote -- --json-file F    # the table, and the JSON in F
//! cargo bench --bench redvote -- --scaling-only   # the scaling section alone
//! cargo bench --bench redvote -- --scaling none   # without it
//! cargo bench --bench redvote -- --cluster-only   # the cluster section alone
//! cargo bench --bench redvote -- --replicas-only  # the replicas section alone
//! cargo bench --bench redvote -- --help           # every option
//! cargo test --bench redvote                      # the smoke run (seconds)
//! ```
//!
//! `cargo bench` runs the binary with an extra `--bench` argument, which
//! selects the benchmark: the options after `--` are parsed as [`BenchArgs`].
//! Run without `--bench` (that is what `cargo test` does: `test = true` on
//! the `[[bench]]`, the criterion convention), the binary is a smoke test
//! instead: every scenario at a tiny size, the report and its checks
//! asserted (see `smoke.rs`).
//!
//! # What runs
//!
//! Against ONE server per run: a throwaway `redis-server` on a free loopback
//! port (the default; FLUSHDB'd first, killed at the end), or `--url` (then
//! the bench writes under `--prefix`, `redvote-bench:` when that is empty,
//! refuses a prefix that already holds a site, and deletes the keys it
//! created when it ends).
//!
//! Setup: `--articles` articles are posted with [`Site::post`]. Every vote of
//! every scenario is a *new* upvote by a distinct user (`user:<n>`, `n`
//! running over the whole run) on an article picked by a fixed hash of `n`,
//! so each scenario does real writes spread over all articles.
//!
//! Vote scenarios, each at 1 connection (a sync `redis::Connection`, ops one
//! after the other: pure latency, what one request handler sees) and with
//! `--tasks` concurrent tokio tasks (throughput, what a busy backend sees):
//!
//! * **(a) seeds**: the seeds' client-side `article_vote`, ZSCORE `time:`,
//!   SADD `voted:ID`, ZINCRBY `score:`, HINCRBY `article:ID votes`: 4 round
//!   trips, not atomic (two clients can interleave: it is the baseline, not
//!   a recommendation). The 1-connection run calls
//!   [`redvote::testing::seed::article_vote`] itself when the prefix is empty;
//!   otherwise, and for the tasks, a twin in `article.rs` sends the same
//!   commands with prefixed keys (members stay `article:ID`). The tasks share
//!   one multiplexed connection, as a redis-rs backend would (`--dedicated`:
//!   one connection each).
//! * **(b) watch**: the same vote made safe the classic way, i.e. what you
//!   would write without scripts: WATCH `voted:ID`, ZSCORE `time:`,
//!   SISMEMBER `voted:ID`, then MULTI SADD ZINCRBY HINCRBY EXEC as one
//!   pipelined request, retried when EXEC aborts because another client voted
//!   on the article in between: 4 round trips per attempt. WATCH state
//!   belongs to a connection, so each task has its own connection here,
//!   always. Aborted attempts are counted as `retries`.
//! * **(c) redvote**: [`Site::vote`], one EVALSHA of `lua/vote.lua`, atomic.
//!   The tasks share one multiplexed connection like (a) (`--dedicated`: one
//!   each); a second row (`own`) always gives each task its own connection,
//!   one request in flight on each, like redis-benchmark (with
//!   `--dedicated` both rows measure that same setup).
//! * **(c) redvote pipelined** (`pipe16`): a backend draining a queue. One
//!   sync connection; the votes go 16 at a time, each a [`Site::vote`] call
//!   joined to one `redis::pipe()` with `Call::add_to` (16 EVALSHAs, one
//!   request, one round trip), each reply read by its call with
//!   `Call::decode` and checked like a single vote's. Every vote of a
//!   pipeline records the pipeline's time as its latency. A second row
//!   (`pipe16_hot`, "1 article") votes the same way on the first article
//!   only, as redis-benchmark does (its command line names one article):
//!   the like-for-like with that ceiling, whose article's keys stay hot in
//!   the server's caches where the spread votes touch all articles.
//!
//! Page scenarios (`--pages` reads each, page `i % pages + 1` of `score:`,
//! 25 articles): the seeds' `get_articles` (ZREVRANGE, then one HGETALL per
//! article: 26 round trips) against
//! [`Site::page`]`(Order::Score, p, Some(25))` (one EVALSHA of
//! `lua/page.lua`), at 1 connection and with the tasks.
//!
//! Campaign scenarios (`--campaign-ops` votes each, default `ops / 4`): a
//! campaign leaderboard vote (seed 002). Setup: the campaign
//! `{<prefix>c:bench}:` (namespace of [`Campaign::with_namespace`]) at offset
//! `+08:00`, one board `stars` keeping all 5 periods (hour, day, week,
//! month, total), ties `competition`, carry `0.1`, 100 options `opt1` ..
//! `opt100` of weight 2. Every vote is by a distinct user on an option picked
//! by a fixed hash, so one vote writes, for each period P: +1 on
//! `<ns>b:stars:real:P`, +2 on `<ns>b:stars:shown:P`, +0.2 (carry) on
//! `<ns>b:stars:shown:<next P>` (not for total), then the user into the
//! option's and the campaign's HyperLogLogs: 5 + 5 + 4 + 2 = 16 writes.
//!
//! * **(a) seed**: the seed's approach, one command per write: the keys are
//!   computed client-side (period names at +08:00 from the client clock, the
//!   same civil-date arithmetic as the Lua; checked against
//!   `campaign_vote.lua` at setup), then 5 ZINCRBY real + 5 ZINCRBY shown +
//!   4 ZINCRBY carry + 2 PFADD, under its own namespace
//!   `{<prefix>c:bench-seed}:` (same key layout, so the checks are exact).
//!   `concurrent` rows send the 16 commands at once, the seed's "parallel
//!   goroutines": `join_all` of 16 `query_async` on one multiplexed
//!   connection, which redis-rs pipelines on the wire (about 1 round trip,
//!   16 commands); the 1-connection row is one such connection with the
//!   votes in sequence (`conns` = `1 async`). The `sequential` row sends the
//!   16 commands one after the other on a sync connection (16 round trips).
//!   The tasks share one multiplexed connection (`--dedicated`: one each).
//! * **(c) redvote**: [`Campaign::vote`]`(user, &[("stars", option)])`, one
//!   EVALSHA of `lua/campaign_vote.lua` (atomic; it also keeps the
//!   `periods:stars` index), at 1 sync connection, with the tasks sharing
//!   one multiplexed connection, (`own`) one connection per task, and
//!   (`pipe16`) pipelined 16 at a time on one connection, as the article
//!   vote's `pipe16` row.
//! * **(c) redvote + id**: what a vote id costs. The same
//!   [`Campaign::vote_by`] on the same campaign, board and option choice as
//!   (c), its [`Voter`] carrying a new vote id on every vote
//!   (`Voter::new(user).id("bench:<n>")`, `n` the user number, so never
//!   repeated in a run): `ARGV[6]`, which makes the script GET
//!   `<ns>vid:bench:<n>` (absent) first and SET it to the request and the
//!   reply as JSON, `EX` the campaign's `vote_id_ttl` (the default, 86400),
//!   in the same atomic call. Still one EVALSHA: 1 round trip a vote. At 1
//!   sync connection and with the tasks sharing one multiplexed connection
//!   (`--dedicated`: one each). Its votes count on the same boards and
//!   HyperLogLogs as (c)'s (the checks add them to redvote's side), so both
//!   write into sets of the same size. Its cost is reported as ops/s of (c)
//!   over ops/s of (c) + id, at 1 connection and with the tasks, and the
//!   server's CPU per vote with the id over without (the tasks' rows); the
//!   human report also prints the server µs per vote of both at each.
//!
//! Rate-limit scenarios (`--limits-ops` votes each, default `ops / 4`): the
//! cost of the rate limits, as the same vote with 0, 4 and 8 rules. Setup:
//! three campaigns `{<prefix>c:bench-limits0}:`, `..limits4}:` and
//! `..limits8}:`, configured identically but for their `limits`: offset
//! `+08:00`, one board `stars` keeping `day` and `total` (a light base vote,
//! so the limits' share shows: 2 real + 2 shown writes and 2 PFADDs), ties
//! `competition`, no carry, options `opt1` .. `opt100` of weight 1. Rules
//! (every vote is by a new user, so the per-user rules keep realistic limits,
//! as `docs/spring2026.json`, and never refuse; option and channel rules get
//! 1e9, which no bench reaches):
//!
//! * 4 rules: `user-minute` (user, minute, 5), `user-hour` (user, hour, 10),
//!   `option-second` (option, second, 1e9), `user-device-day` (user x
//!   device, day, 20);
//! * 8 rules: those 4, then `channel-day` (channel, day, 1e9),
//!   `user-channel-day` (user x channel, day, 20, extra `partner` +5),
//!   `option-hour` (option, hour, 1e9) and `user-rolling` (user, GCRA: 5
//!   per 60 s, burst 5).
//!
//! Each vote is [`Campaign::vote_by`] with a [`Voter`] of its own user
//! (`user:<n>`, as above), channel `web` or `partner` and device `pc` or
//! `mobile` (picked by the same hash as the option), cost 1, for
//! (`stars`, option): every dimension is exercised, one EVALSHA of
//! `lua/campaign_vote.lua` on the same arguments in all three campaigns. At
//! 1 sync connection and with the tasks sharing one multiplexed connection
//! (`--dedicated`: one each). The cost of the limits is reported as
//! throughput ratios ops/s(0 rules) / ops/s(4 rules) and ops/s(0) /
//! ops/s(8), at 1 connection and with the tasks (target: 4 rules cost at most
//! 1.5x the unlimited vote, i.e. that ratio <= 1.5), and the server's CPU per
//! vote with the rules over without (the tasks' rows).
//!
//! Ceilings: when `redis-benchmark` is on PATH (and `--no-redis-benchmark`
//! is not given), it runs against the same server on the same scripts, the
//! server's own speed with a minimal C client: the command is the library's
//! own call (its SHA1, key and arguments) with the user
//! `bench:<ceiling>.<run>:__rand_int__` (`-r 1000000000`). Each run is a
//! FULL run of as many requests as the bench's row (slices of one, as the
//! bench once ran, paid the connection setup and ramp every slice and put
//! the ceiling about 10 % low); each ceiling makes `--ceiling-runs` of them
//! (default 3), spread over the rounds (run j after round (j + 1) x rounds /
//! (runs + 1)), and is the median run's rate (p50: the median run's, p99:
//! the highest), so one slow spell of the machine does not decide it:
//!
//! * `vote_tasks`: `redis-benchmark -c <tasks> -n <ops>` (`-P 1`: one
//!   request in flight per connection) on `lua/vote.lua`: (c) with the tasks
//!   is reported as a ratio of it, both shared and `own` (the like-for-like
//!   one);
//! * `vote_pipe16`: `-c 1 -P 16 -n <ops>`: one connection, 16 requests a
//!   pipeline, beside (c) `pipe16`;
//! * `campaign_pipe16`: `-c 1 -P 16 -n <campaign-ops>` on
//!   `lua/campaign_vote.lua`, beside the campaign's (c) `pipe16`.
//!
//! (`-P 16` runs send whole pipelines: their `-n` is rounded up to a
//! multiple of 16.) The article runs vote on a site of their own,
//! `<prefix>ceiling:` (so the checked articles and pages stay as they are),
//! which holds as many articles as the bench's, so its rankings have the
//! same size and encoding; each run votes on one article of its own (the
//! command line cannot vary the article: that article's voter set and hash
//! stay hot, where the bench's votes spread over all articles). The
//! campaign runs vote on a campaign of their own,
//! `{<prefix>c:bench-ceiling}:`, configured as the campaign section's, every
//! option voted once at setup so its boards hold as many members; all its
//! votes go to `opt1` (its option's HyperLogLog grows alone: not quite the
//! bench's data shape either).
//!
//! Interleaving: the run is cut into `--rounds` rounds (default 10, at most
//! one per 500 votes, so `--ops 200` runs one round); round `r` runs the
//! `r`-th slice of every scenario. On a shared
//! or noisy machine a slow spell then hits every scenario a little instead
//! of one scenario a lot, which keeps the ratios steady. Scenarios compared
//! with one another trade places: the rate-limit scenarios run in two groups
//! of three (0, 4, 8 rules at 1 connection, then with the tasks), and (c)
//! and (c) + id of the campaign section make two pairs (at 1 connection,
//! with the tasks), each group rotated by one every round, so none of them
//! always runs first or last, or right after the same other scenario. Every
//! scenario opens its connections once, before the first round, and keeps
//! them.
//!
//! Each op's latency goes into an HDR histogram (microseconds, from just
//! before the op's first request to its last reply); throughput is ops over
//! the sum of the slices' wall times. A ceiling's throughput, p50 and p99
//! are redis-benchmark's own (it times in whole milliseconds: a run it
//! reports as `inf` requests/s has no rate). Beside them, per row:
//!
//! * the server's CPU time per op (INFO cpu before and after each slice,
//!   network I/O included: what bounds throughput once the server is the
//!   bottleneck);
//! * the server's time in the op's own commands (`cmd µs/op`): the usec
//!   deltas of INFO commandstats over the slice, summed over the commands
//!   the flow sends itself (`Scenario::top_commands`: EVALSHA for redvote's
//!   flows; ZSCORE, SADD, ZINCRBY, HINCRBY for the seeds' vote; WATCH,
//!   ZSCORE, SISMEMBER, MULTI, EXEC for (b); ...), never a command that
//!   also runs inside another (Redis counts a script's `redis.call`s and
//!   EXEC's queued commands in their own lines too), divided by the ops:
//!   command execution only, no network, no client;
//! * round trips per op (`RT/op`), and the median PING round trip (`RTT`,
//!   200 PINGs on a sync connection at the start of every round).
//!
//! # The RTT model
//!
//! A 1-connection row (one op at a time on one connection: not the tasks,
//! not `pipe16`) costs per op, on any network,
//!
//! ```text
//! time per op = round trips x RTT + client + server
//! ```
//!
//! RTT is a PING round trip on that network (it holds both ends' syscalls
//! and the server's request handling, as every round trip does), server the
//! row's `cmd µs/op`, client the rest of the wall time per op measured here
//! (`wall - RT x RTT - server`: building requests, parsing replies, the
//! bench's own checks), reported as `client_us_per_op`. Client and server
//! do not depend on the network; round trips x RTT does, so the ratio of
//! two flows with different round trips depends on where it is measured (a
//! loopback round trip of 20 µs on one machine, 60-70 µs on another gives
//! quite different 1-connection ratios from the same code). Every ratio of
//! two 1-connection rows is therefore also projected with the model at an
//! RTT of 0.05, 0.2 and 1 ms ([`report::MODEL_RTTS_US`]): the measured
//! client and server parts, the round trips counted. What the model leaves
//! out: a bigger reply's transfer time grows with a slower link too (the
//! page's 25 articles), and a server busy with other clients.
//!
//! # The scaling section
//!
//! What the campaign reads (`top`, `standing`, `around`) cost as a board
//! grows from `--scaling` sizes (default 1000, 100000, 1000000), for every
//! tie rule, on a throwaway server of its own after the main section; see
//! `scaling.rs` for the boards, the reads, how each call is timed on the
//! server, the per-cell budget and the targets. `--scaling-only` runs it
//! alone; `--scaling none` skips it.
//!
//! # Checks
//!
//! A benchmark that measures failures is worthless, so: every op's reply is
//! checked (each vote must count as a new upvote, each page must hold the
//! expected articles) and any error aborts the bench (exit 1); after every
//! vote scenario every article is read back and must satisfy
//! `votes == |voted:ID|` and `score == time + 432 * votes`, and the sum of
//! `votes` must equal the posts plus every vote cast so far; both page flows
//! must read the same page 1. After each ceiling run, its article must have
//! gained (all but 1%, for random-user collisions) the votes redis-benchmark
//! sent, the campaign ceiling's `real:total` board exactly the votes its
//! runs sent (no rule limits that campaign) plus the setup's.
//! Campaign: every redvote ballot must name the board, the option and 5
//! periods and must not be a replay, every seed command must succeed; after
//! every campaign slice each side's `real:total` board must sum to the votes
//! that side cast (redvote's: (c)'s and (c) + id's) and its `shown:total` to
//! twice that; at the end, for each side and each period kind, the real
//! boards of that kind (all periods written, found by SCAN) must sum to the
//! votes, the shown boards to 2 x votes (total) or 2.2 x votes (hour, day,
//! week, month: weight plus carry), and the campaign's and the options'
//! HyperLogLogs must count the voters (within 3% + 2). Vote ids, at the end:
//! the campaign's `<ns>vid:*` records (SCAN) must number the votes cast with
//! an id, each `bench:<n>`; then the first of them is replayed (the same
//! voter, id and pair, on the admin connection): it must answer the ballots
//! recorded in the record, marked `replay`, and change nothing: the
//! `total` boards still sum to the votes, the records are the same, the
//! replayed one still has a TTL (at most 86400) and, on the throwaway
//! server only (DEBUG is enabled there; skipped with `--url`), every key of
//! the namespace has the same DEBUG DIGEST-VALUE before and after (the
//! namespace's keys rather than DEBUG DIGEST of the database: the rate-limit
//! counters of 1-second windows may expire in between).
//! Rate limits: at setup, a peek ([`Campaign::limits`]) for a fresh voter on
//! `partner` must list each campaign's rules in order, each leaving its
//! whole allowance (extra included); every vote must pass (a
//! `REDVOTE_RATE_LIMITED` refusal, or any error, fails the bench) and answer
//! one ballot with the day and total scores; after every slice each
//! campaign's `real:total` and `shown:total` boards must sum to the votes
//! cast on it; at the end, for each campaign, the real and shown boards of
//! each period kind (found by SCAN) must sum to its votes, the unlimited
//! campaign must hold no rate-limit counter, and, when all its votes fell
//! on one day (at +08:00) that is still the server's day, the counters of
//! each of its day rules must sum to its votes (every rule was checked and
//! spent by every vote).
//!
//! # JSON (`--json`): one object, on one line
//!
//! * `redis_version` (string), `ping_p50_us` (median PING round trip on a
//!   sync connection, 200 sampled at each round), `server` (`host:port` or
//!   socket path), `throwaway` (bool), `prefix` (string), `articles`, `ops`
//!   (votes per vote scenario), `pages` (reads per page scenario), `tasks`,
//!   `threads` (tokio worker threads), `dedicated` (bool), `seconds` (whole
//!   run), `rounds`.
//! * `campaign`: the campaign section's setup: `ops` (votes per campaign
//!   scenario), `redvote_namespace`, `seed_namespace`, `board`, `options`,
//!   `weight`, `carry` (string), `offset` (string), `periods` (array of
//!   strings), `writes_per_vote` (16).
//! * `limits`: the rate-limit section's setup: `ops` (votes per rate-limit
//!   scenario), `board`, `options`, `weight`, `offset` (string), `periods`,
//!   `channels`, `devices` (arrays of strings), `target` (1.5: the most
//!   ops/s(0 rules) / ops/s(4 rules) wanted), `campaigns`: array of
//!   `rules` (0, 4, 8), `namespace`, `limits` (the rules as
//!   `Campaign::configure` takes them: `name`, `by`, `window` + `limit` or
//!   `rolling` {`limit`, `per`, `burst`}, `extra`).
//! * `rows`: array, in this order, of objects with `id` (`vote_seeds_1`,
//!   `vote_seeds_tasks`, `vote_watch_1`, `vote_watch_tasks`, `vote_redvote_1`,
//!   `vote_redvote_tasks`, `vote_redvote_own`, `vote_redvote_pipe16`,
//!   `vote_redvote_pipe16_hot`,
//!   `page_seeds_1`,
//!   `page_redvote_1`, `page_seeds_tasks`, `page_redvote_tasks`,
//!   `campaign_seeds_sequential_1`, `campaign_seeds_1`,
//!   `campaign_seeds_tasks`, `campaign_redvote_1`, `campaign_redvote_tasks`,
//!   `campaign_redvote_own`, `campaign_redvote_pipe16`,
//!   `campaign_redvote_id_1`,
//!   `campaign_redvote_id_tasks`, `limits_rules0_1`, `limits_rules4_1`,
//!   `limits_rules8_1`, `limits_rules0_tasks`, `limits_rules4_tasks`,
//!   `limits_rules8_tasks`), `op` (`vote` | `page` | `campaign` | `limits`),
//!   `flow` (`seeds` | `seeds_sequential` | `watch` | `redvote`; the
//!   campaign's `seeds` sends its 16 commands concurrently,
//!   `seeds_sequential` one after the other), `rules` (rate-limit rules each
//!   vote checks: 0, 4 or 8 on the `limits` rows, null on the others),
//!   `vote_id` (bool: every vote carries a vote id; true on the
//!   `campaign_redvote_id_*` rows only, whose `flow` is `redvote`),
//!   `label`, `tasks`, `concurrent` (bool: false for the
//!   1-connection rows, whose `tasks` is 1), `connections` (TCP connections
//!   used), `shared` (bool: the tasks multiplex one connection), `client`
//!   (`sync`: a `redis::Connection`; `async`: multiplexed connections, which
//!   `campaign_seeds_1` uses with one connection and votes in sequence),
//!   `pipeline` (ops sent together in one pipeline: 16 on the `pipe16`
//!   rows, else 1), `ops`, `seconds`, `ops_per_sec`, `p50_us`, `p99_us`,
//!   `max_us`, `mean_us`, `round_trips_per_op` (float, retried attempts
//!   included; commands sent concurrently count as one, a pipeline of 16
//!   is 1/16 an op), `commands_per_op` (float, Redis commands sent per op,
//!   MULTI/EXEC included), `retries`, `server_cpu_us_per_op` (float or
//!   null: INFO cpu), `server_cmd_us_per_op` (float: INFO commandstats, the
//!   flow's own commands), `wall_us_per_op` (float: seconds / ops),
//!   `client_us_per_op` (float on the 1-connection rows, the model's client
//!   part; null on the others), all summed over the rounds.
//! * `ceilings`: array (`vote_tasks`, `vote_pipe16`, `campaign_pipe16`) of
//!   objects with `id`, `op` (`vote` | `campaign`), `ran` (bool), `skipped`
//!   (reason string or null), `command` (string or null), `clients`,
//!   `pipeline`, `requests` (of each run), `runs`, `runs_ops_per_sec`
//!   (each run's, null for a run within a millisecond), `ops_per_sec` (the
//!   median run's), `p50_us`, `p99_us`, `server_cpu_us_per_op`,
//!   `server_cmd_us_per_op` (numbers, null when not run).
//! * `ratios`: array, in this order, of objects with `id`
//!   (`vote_redvote_over_seeds_1`, `vote_redvote_over_watch_1`,
//!   `vote_redvote_over_seeds_tasks`, `vote_redvote_over_watch_tasks`,
//!   `page_redvote_over_seeds_1`, `page_redvote_over_seeds_tasks`,
//!   `vote_redvote_tasks_over_redis_benchmark`,
//!   `vote_redvote_own_over_redis_benchmark` (both target 0.8, over the
//!   `vote_tasks` ceiling), `vote_redvote_pipe16_over_redis_benchmark_p16`
//!   (target 0.8: `vote_redvote_pipe16` over the `vote_pipe16` ceiling),
//!   `vote_redvote_pipe16_hot_over_redis_benchmark_p16` (target 0.8:
//!   `vote_redvote_pipe16_hot` over the same ceiling),
//!   `vote_redvote_pipe16_over_1` (`vote_redvote_pipe16` over
//!   `vote_redvote_1`),
//!   `campaign_redvote_over_seeds_1` (target 3: `campaign_redvote_1` over
//!   `campaign_seeds_1`, the seed's 16 concurrent commands on 1 connection),
//!   `campaign_redvote_over_seeds_sequential_1`,
//!   `campaign_redvote_over_seeds_tasks`,
//!   `campaign_redvote_pipe16_over_redis_benchmark_p16` (target 0.8:
//!   `campaign_redvote_pipe16` over the `campaign_pipe16` ceiling), then
//!   the vote id's costs:
//!   `campaign_id_over_plain_1` (ops/s of `campaign_redvote_1` over
//!   `campaign_redvote_id_1`), `campaign_id_over_plain_tasks`
//!   (`campaign_redvote_tasks` over `campaign_redvote_id_tasks`) and
//!   `campaign_id_over_plain_server_cpu` (`server_cpu_us_per_op` of
//!   `campaign_redvote_id_tasks` over `campaign_redvote_tasks`; the server
//!   µs per vote of both are those rows' `server_cpu_us_per_op`), none with
//!   a target, then the limits' costs:
//!   `limits_4_over_0_1` (target 1.5: ops/s of `limits_rules0_1` over
//!   `limits_rules4_1`), `limits_8_over_0_1`, `limits_4_over_0_tasks`
//!   (target 1.5: `limits_rules0_tasks` over `limits_rules4_tasks`),
//!   `limits_8_over_0_tasks`, `limits_4_over_0_server_cpu` and
//!   `limits_8_over_0_server_cpu` (`server_cpu_us_per_op` of
//!   `limits_rules4_tasks`, `limits_rules8_tasks` over
//!   `limits_rules0_tasks`)), `label`, `value` (the ratio, null when not
//!   measured), `goal` (`at_least`: a throughput ratio, higher is better,
//!   `target` is the minimum wanted; `at_most`: a cost, lower is better,
//!   `target` is the maximum wanted), `target` (number or null), `pass`
//!   (bool: `value >= target` or, for `at_most`, `value <= target`; null
//!   without a target or a value), `projected` (on a ratio of two
//!   1-connection rows: array of {`rtt_us`, `value`} at 50, 200 and 1000
//!   µs, the model's; null on the others). Targets are reported, not
//!   enforced: missing one does not fail the run.
//! * `checks`: `ok` (always true: a failed check is an error, exit 1),
//!   `articles`, `votes_cast`, `votes_found`, `campaign`: `redvote` and
//!   `seed`, each with `votes` (cast by that side's scenarios),
//!   `real_total` and `shown_total` (sums of the `total` boards),
//!   `participants` (PFCOUNT of the campaign's HyperLogLog; redvote's also
//!   holds the setup's probe voter) and `boards` (period boards found), and
//!   `vote_ids`: `votes` (cast with an id), `records` (`vid:` records
//!   found, equal to `votes`), `replayed` (the id replayed), `replay` (true:
//!   it answered the recorded ballots marked replay), `ttl` (its record's
//!   TTL after the replay, seconds) and `digest_keys` (keys of the namespace
//!   whose DEBUG DIGEST-VALUE the replay left unchanged; null with `--url`,
//!   not compared); `limits`: array (0, 4, 8 rules) of `rules`, `votes`
//!   (cast on that campaign, every one passed), `real_total` and
//!   `shown_total` (sums of its `total` boards), `boards` (period boards
//!   found), `counters` (rate-limit keys alive at the end: string
//!   counters and voters' hashes), `bytes_per_voter` (MEMORY USAGE of those
//!   keys over `votes`, each by a new voter) and
//!   `day_counters` (object: each day rule -> the sum of its counters, equal
//!   to `votes`; `{}` for the unlimited campaign; null when the votes spread
//!   over two days or the day ended before the check, which then compares
//!   nothing).
//! * `scaling`: `ran` (bool), `skipped` (reason or null), `sizes`,
//!   `namespace`, `scores` (how the boards' votes are drawn), `per_page`,
//!   `calls` (most calls a cell), `budget_ms`, `skip_over_ms`, `builds`
//!   (array: `ties`, `size`, `board`, `configure_calls`, `import_calls`,
//!   `configure_seconds`, `seconds`), `cells` (array, by size, read, rule:
//!   `query` (`top_middle` | `standing_middle` | `standing_last` |
//!   `around_middle`), `ties`, `size`, `calls`, `us_per_call` (mean),
//!   `p50_us`, `max_us` (server µs, null when skipped), `over_budget`
//!   (bool: fewer calls than `calls`), `skipped` (reason or null)),
//!   `targets` (array: `id` (`flat_<query>_<ties>`,
//!   `vs_competition_<query>_<ties>`, `max_call_us`), `kind` (`flat` |
//!   `vs_competition` | `max_call`), `query`, `ties` (null for max_call),
//!   `value`, `target` (2, 2, 5000), `pass`), `max_call_us`, `reindex` (per dense and first board, migrated again from scratch after the reads, 100 members a call: `ties`, `size`, `calls`, `p50_us`, `max_us`, `seconds`), `seconds`.
//!   With `--scaling-only` the output is `{"scaling": ...}` alone.
//!
//! # Modules
//!
//! This file holds the options, `main`, `run` and the round scheduler
//! (`Bench`: setup, the interleaved rounds, each scenario's connections and
//! tasks, the cleanup); the rest is in modules named for what they hold:
//!
//! * `scenario`: what a scenario is (op, flow, connections, its row's
//!   names), the inputs of each op, and one op of each flow, sync and async;
//! * `article`: the article vote and page flows of the seeds: (a) with
//!   prefixed keys and its async twin, (b) WATCH/MULTI/EXEC, the seeds' page
//!   reads, and the checks of their replies;
//! * `campaign`: the campaign section: its constants and names, the seed's
//!   client-side keys and period names, its setup, the check of a reply;
//! * `limits`: the rate-limit section: its rules, campaigns and setup;
//! * `ceiling`: the redis-benchmark ceilings, their targets, one run each
//!   and its check;
//! * `scaling`: the scaling section: its boards, reads, cells and targets;
//! * `checks`: the consistency checks read back from the server (the vote
//!   id records and replay among them), and what they found;
//! * `measure`: latency histograms, wall and server CPU time, the rows;
//! * `report`: the report (the JSON object), the ratios and their
//!   projections, the tables (the main one, the model's, the scaling
//!   section's);
//! * `cluster`: the cluster section (printed after the table; `--json`
//!   leaves it out, `--cluster-only --json` prints it as `{"cluster": ...}`):
//!   campaign votes through `redis+cluster://` on throwaway clusters of 1
//!   and 3 masters, votes/s and server CPU per vote;
//! * `replicas`: the replicas section (printed after the cluster section;
//!   `--replicas-only --json` prints it as `{"replicas": ...}`): campaign
//!   votes on a master with one replica, without and with
//!   `wait_for_replicas(1, ...)`, on one connection and spread over several;
//! * `smoke`: the smoke run `cargo test` makes, and what it asserts.

mod article;
mod campaign;
mod ceiling;
mod checks;
mod cluster;
mod limits;
mod measure;
mod replicas;
mod report;
mod scaling;
mod scenario;
mod serve;
mod smoke;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use clap::Parser;
use redis::aio::MultiplexedConnection;
use redis::Commands;
use redvote::testing::seed::VOTE_SCORE;
use redvote::testing::TempServer;
use redvote::Site;

use campaign::{
    CampaignNames, CAMPAIGN_BOARD, CAMPAIGN_CARRY, CAMPAIGN_OFFSET, CAMPAIGN_OPTIONS,
    CAMPAIGN_WEIGHT, PERIODS, SEED_WRITES,
};
use ceiling::{ceiling_campaign, ceiling_site, Ceiling};
use checks::{scan_keys, CampaignChecks, Checks};
use limits::{
    limit_rules, limits_campaigns, LIMITS_BOARD, LIMITS_CHANNELS, LIMITS_DEVICES, LIMITS_PERIODS,
    LIMITS_TARGET, LIMITS_WEIGHT, LIMIT_RULE_COUNTS,
};
use measure::{command_stats, command_usec, round, server_cpu, Measure, Row};
use report::{
    ratios, redis_version, server_name, write_human, write_scaling, CampaignInfo, LimitsCampaign,
    LimitsInfo, Report,
};
use scaling::{parse_sizes, run_scaling, Scaling, ScalingPlan};
use scenario::{op_async, op_sync, ops_pipelined, Ctx, Flow, Op, Scenario};

/// Benchmark options: the arguments after `--` of `cargo bench --bench
/// redvote -- ...`.
#[derive(Parser, Debug)]
#[command(
    name = "redvote-bench",
    bin_name = "cargo bench --bench redvote --",
    about = "Benchmark redvote against the seeds' client-side flow (run without --bench, as \
             `cargo test` does, it is a small smoke test instead)"
)]
pub struct BenchArgs {
    /// Redis URL [default: a throwaway redis-server on a free loopback port]
    #[arg(long, env = "REDVOTE_URL")]
    pub url: Option<String>,
    /// Key prefix of everything the bench writes [default: none on the
    /// throwaway server, redvote-bench: with --url]
    #[arg(long, default_value = "", hide_default_value = true)]
    pub prefix: String,
    /// Machine-readable JSON output: one object on one line
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON object to this file (whatever the output), e.g.
    /// to sum up several runs
    #[arg(long, value_name = "PATH")]
    pub json_file: Option<std::path::PathBuf>,
    /// Votes per vote scenario [default: 20000, 1000 with --quick]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub ops: Option<u64>,
    /// Page reads per page scenario [default: ops / 10, at least 1]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub pages: Option<u64>,
    /// Votes per campaign scenario [default: ops / 4, at least 1]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub campaign_ops: Option<u64>,
    /// Votes per rate-limit scenario (0, 4 and 8 rules) [default: ops / 4,
    /// at least 1]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub limits_ops: Option<u64>,
    /// A small run: 1000 votes, 100 page reads, 250 campaign votes and 250
    /// rate-limited votes per scenario
    #[arg(long, conflicts_with = "ops")]
    pub quick: bool,
    /// Concurrent tasks in the concurrent scenarios (and redis-benchmark -c)
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub tasks: u64,
    /// Articles posted first; the votes are spread over them
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub articles: u64,
    /// Give every task its own connection in (a) and (c) too [default: the
    /// tasks share one multiplexed connection, as a redis-rs backend does]
    #[arg(long)]
    pub dedicated: bool,
    /// Tokio worker threads for the concurrent scenarios (redis-benchmark
    /// uses one thread)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub threads: u64,
    /// Skip the redis-benchmark ceilings
    #[arg(long)]
    pub no_redis_benchmark: bool,
    /// Full redis-benchmark runs of each ceiling, spread over the rounds
    /// (the ceiling is the median run)
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=10))]
    pub ceiling_runs: u64,
    /// Interleave the scenarios in this many rounds (each runs a slice of
    /// every scenario), so a slow spell of the machine hits all of them; at
    /// most one round per 500 votes
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub rounds: u64,
    /// Board sizes of the scaling section (campaign reads as boards grow),
    /// comma-separated (`1k,100k,1M` works), or `none` [default:
    /// 1000,100000,1000000; 1000,10000 with --quick]
    #[arg(long)]
    pub scaling: Option<String>,
    /// Most calls per scaling cell (one read, one tie rule, one size)
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub scaling_calls: u64,
    /// A scaling cell stops repeating its call once it has run this long
    /// (ms), after at least one call
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub scaling_budget_ms: u64,
    /// Skip a scaling cell whose single call, scaled linearly from the size
    /// before, would take longer than this (ms; 0: never skip)
    #[arg(long, default_value_t = 5000)]
    pub scaling_skip_ms: u64,
    /// Run the scaling section only
    #[arg(long)]
    pub scaling_only: bool,
    /// Votes of each run of the cluster section (campaign votes through
    /// `redis+cluster://` on 1 master, then 3 masters; 0: skip it; not in
    /// the `--json` object) [default: 20000, 2000 with --quick]
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub cluster_votes: Option<u64>,
    /// Campaigns the cluster section's votes are spread over
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub cluster_campaigns: u64,
    /// Run the cluster section only
    #[arg(long)]
    pub cluster_only: bool,
    /// Votes of each mode in each round of the replicas section (campaign
    /// votes on a master with one replica, without and with
    /// wait_for_replicas; 0: skip it; not in the `--json` object)
    /// [default: 10000, 1000 with --quick]
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub replica_votes: Option<u64>,
    /// Alternated rounds of the replicas section
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub replica_rounds: u64,
    /// Connections of the replicas section's spread row
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(2..=1000))]
    pub replica_connections: u64,
    /// Run the replicas section only
    #[arg(long)]
    pub replicas_only: bool,
    /// Passed by `cargo bench`: run the benchmark (without it, the binary
    /// runs the smoke test)
    #[arg(long, hide = true)]
    pub bench: bool,
}

/// Prefix used with `--url` when `--prefix` is empty (never the seeds' keys).
const URL_PREFIX: &str = "redvote-bench:";
/// Votes a pipeline of the `pipe16` rows carries (and redis-benchmark -P).
const PIPELINE: u64 = 16;
/// PINGs timed at the start of every round.
const PINGS_PER_ROUND: u64 = 200;
/// A reply slower than this fails the bench instead of hanging it.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(30);

/// `cargo bench` passes `--bench`: the benchmark, its options parsed from the
/// command line. Without it (`cargo test`): the smoke test.
fn main() -> ExitCode {
    if !std::env::args_os().skip(1).any(|a| a == "--bench") {
        return smoke::main();
    }
    let args = BenchArgs::parse();
    let done = if args.scaling_only {
        scaling_only(&args)
    } else if args.cluster_only {
        cluster_section(&args)
    } else if args.replicas_only {
        replicas_section(&args)
    } else {
        run(&args)
            .and_then(|report| print_report(&args, &report))
            .and_then(|()| match args.json {
                true => Ok(()),
                false => cluster_section(&args).and_then(|()| replicas_section(&args)),
            })
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("redvote bench: {}", one_line(&err));
            ExitCode::FAILURE
        }
    }
}

/// The JSON object (one line) with `--json`, else the table and ratios;
/// the JSON object to `--json-file` too.
fn print_report(args: &BenchArgs, report: &Report) -> Result<()> {
    if let Some(path) = &args.json_file {
        std::fs::write(path, serde_json::to_string(report)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(report)?)?;
    } else {
        write_human(&mut out, report)?;
    }
    out.flush()?;
    Ok(())
}

/// `--scaling-only`: the scaling section alone, as the JSON object
/// `{"scaling": ...}` or its table.
fn scaling_only(args: &BenchArgs) -> Result<()> {
    let plan = scaling_plan(args)?;
    let prefix = if args.url.is_some() && args.prefix.is_empty() {
        URL_PREFIX
    } else {
        &args.prefix
    };
    let scaling = run_scaling(prefix, &plan)?;
    let json = serde_json::json!({ "scaling": serde_json::to_value(&scaling)? });
    if let Some(path) = &args.json_file {
        std::fs::write(path, format!("{json}\n"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{json}")?;
    } else {
        write_scaling(&mut out, &scaling)?;
    }
    out.flush()?;
    Ok(())
}

/// The replicas section (its own throwaway master and replica, whatever
/// `--url` says): its table, or with `--json` the object
/// `{"replicas": [...]}`.
fn replicas_section(args: &BenchArgs) -> Result<()> {
    let votes = args
        .replica_votes
        .unwrap_or(if args.quick { 1000 } else { 10_000 });
    if votes == 0 {
        return Ok(());
    }
    let plan = replicas::ReplicaPlan {
        tasks: args.tasks,
        votes,
        rounds: args.replica_rounds,
        connections: args.replica_connections as usize,
    };
    let rows = replicas::run_replicas(&plan).context("the replicas section")?;
    print_section(args, "replicas", &rows, |out, rows| {
        replicas::write_replicas(out, rows)
    })
}

/// A section printed after the table: with `--json` the object
/// `{"NAME": [rows]}`, else the table `table` writes.
fn print_section<R: serde::Serialize>(
    args: &BenchArgs,
    name: &str,
    rows: &[R],
    table: impl FnOnce(&mut std::io::StdoutLock<'static>, &[R]) -> Result<()>,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::json!({ name: rows }))?;
    } else {
        table(&mut out, rows)?;
    }
    out.flush()?;
    Ok(())
}

/// The cluster section (its own throwaway clusters, whatever `--url`
/// says): its table, or with `--json` the object `{"cluster": [...]}`.
fn cluster_section(args: &BenchArgs) -> Result<()> {
    let votes = args
        .cluster_votes
        .unwrap_or(if args.quick { 2000 } else { 20_000 });
    if votes == 0 {
        return Ok(());
    }
    let plan = cluster::ClusterPlan {
        masters: vec![1, 3],
        campaigns: args.cluster_campaigns as usize,
        tasks: args.tasks,
        votes,
    };
    let rows = cluster::run_cluster(&plan).context("the cluster section")?;
    print_section(args, "cluster", &rows, |out, rows| {
        cluster::write_cluster(out, rows)
    })
}

/// The scaling section's sizes and limits from the options.
fn scaling_plan(args: &BenchArgs) -> Result<ScalingPlan> {
    let sizes = match &args.scaling {
        Some(text) => parse_sizes(text).context("--scaling")?,
        None if args.quick => vec![1000, 10_000],
        None => vec![1000, 100_000, 1_000_000],
    };
    Ok(ScalingPlan {
        sizes,
        calls: args.scaling_calls,
        budget: Duration::from_millis(args.scaling_budget_ms),
        skip_over: Duration::from_millis(args.scaling_skip_ms),
    })
}

/// The error and its causes on one line (anyhow's `{:#}`).
fn one_line(err: &anyhow::Error) -> String {
    format!("{err:#}").replace('\n', " ")
}

/// A sync connection, with an error that names the URL.
fn connect(url: &str) -> Result<redis::Connection> {
    redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .with_context(|| format!("cannot connect to Redis at {url}"))
}

/// Run every scenario against one server (throwaway unless `--url`), check
/// the data, and return the report (the table and ratios, or the JSON object).
fn run(args: &BenchArgs) -> Result<Report> {
    let started = Instant::now();
    let ops = args.ops.unwrap_or(if args.quick { 1000 } else { 20_000 });
    let pages = args.pages.unwrap_or((ops / 10).max(1));
    let campaign_ops = args.campaign_ops.unwrap_or((ops / 4).max(1));
    let limits_ops = args.limits_ops.unwrap_or((ops / 4).max(1));
    let tasks = args.tasks as usize;
    // Slices of at least 500 votes: smaller ones measure little but noise.
    let rounds = args.rounds.min(ops / 500).max(1);

    // One server for the whole run; a throwaway one lives until `run` returns.
    let temp = match args.url {
        None => Some(TempServer::start().context("cannot start a throwaway redis-server")?),
        Some(_) => None,
    };
    let url = match (&temp, &args.url) {
        (Some(server), _) => server.url(),
        (None, Some(url)) => url.clone(),
        (None, None) => unreachable!("a throwaway server is started when there is no URL"),
    };
    let client =
        redis::Client::open(url.as_str()).with_context(|| format!("invalid Redis URL {url}"))?;
    let mut admin = connect(&url)?;

    let prefix = match (&temp, args.prefix.is_empty()) {
        (None, true) => URL_PREFIX.to_string(),
        _ => args.prefix.clone(),
    };
    let site = Site::new(prefix.clone());
    if temp.is_some() {
        redis::cmd("FLUSHDB").exec(&mut admin)?;
    } else {
        let root = site.root_key().to_string();
        let busy: u64 = redis::cmd("EXISTS")
            .arg(&root)
            .arg(format!("{prefix}time:"))
            .arg(format!("{prefix}score:"))
            .arg(ceiling_site(&prefix).root_key())
            .query(&mut admin)?;
        ensure!(
            busy == 0,
            "prefix {prefix:?} already holds a site at {url}; the bench posts articles and votes, \
             so give it an unused --prefix (e.g. --prefix bench:)"
        );
        let names = CampaignNames::new(&prefix);
        let limits = limits_campaigns(&prefix);
        let mut exists = redis::cmd("EXISTS");
        exists
            .arg(names.redvote.root_key())
            .arg(format!("{}boards", names.redvote.namespace()))
            .arg(format!("{}hll", names.seed_ns))
            .arg(format!("{}b:{CAMPAIGN_BOARD}:real:total", names.seed_ns));
        for c in limits.iter().chain([&ceiling_campaign(&prefix)]) {
            exists
                .arg(c.root_key())
                .arg(format!("{}boards", c.namespace()));
        }
        let busy: u64 = exists.query(&mut admin)?;
        ensure!(
            busy == 0,
            "the bench's campaign namespaces {:?}, {:?} or {:?} are in use at {url}; give the \
             bench an unused --prefix (e.g. --prefix bench:)",
            names.redvote.namespace(),
            names.seed_ns,
            limits.iter().map(|c| c.namespace()).collect::<Vec<_>>()
        );
    }
    // (a) and (b) add the seeds' VOTE_SCORE per vote: the site must use it too.
    let vote_score = site.config().run(&mut admin)?.vote_score;
    ensure!(
        f64::from(vote_score) == VOTE_SCORE,
        "the site under {prefix:?} has vote_score {vote_score}; the seeds' flows add {VOTE_SCORE}"
    );
    let version = redis_version(&mut admin)?;

    let mut bench = Bench {
        ctx: Arc::new(Ctx::new(site, Vec::new())),
        client,
        admin,
        next_user: 0,
        votes_cast: 0,
        posts: 0,
        votes_found: 0,
        campaign_votes: [0, 0],
        campaign_id_votes: 0,
        limits_votes: [0; 3],
        threads: args.threads as usize,
        pings: Measure::new()?,
    };
    let plan = Plan {
        ops,
        pages,
        campaign_ops,
        limits_ops,
        tasks,
        rounds,
    };
    let result = bench.all(args, plan, &temp, &url);
    // With --url, remove what the bench wrote (its prefix was empty at start).
    if temp.is_none() {
        let cleaned = bench.cleanup();
        if result.is_ok() {
            cleaned?;
        }
    }
    let (mut rows, ceilings, checks) = result?;
    // The serve section: HTTP against the library, on the same server.
    let serve_ops = campaign_ops;
    let serve = serve::run_serve(
        &url,
        serve_ops,
        tasks,
        args.rounds.min(serve_ops / 500).max(1),
        args.threads as usize,
    )
    .context("the serve section")?;
    // The scaling section, on a throwaway server of its own.
    let scaling_plan = scaling_plan(args)?;
    let scaling = if scaling_plan.sizes.is_empty() {
        Scaling::skipped("--scaling none", &scaling_plan)
    } else {
        run_scaling(&prefix, &scaling_plan)?
    };
    let ping_p50_us = bench.pings.hist.value_at_quantile(0.5);

    // The model's client time of the 1-connection rows, from the RTT.
    for row in &mut rows {
        row.set_client(ping_p50_us as f64);
    }
    let ratios = ratios(&rows, &ceilings);
    let names = &bench.ctx.campaign;
    let campaign = CampaignInfo {
        ops: campaign_ops,
        redvote_namespace: names.redvote.namespace().to_string(),
        seed_namespace: names.seed_ns.clone(),
        board: CAMPAIGN_BOARD,
        options: CAMPAIGN_OPTIONS,
        weight: CAMPAIGN_WEIGHT,
        carry: CAMPAIGN_CARRY,
        offset: CAMPAIGN_OFFSET,
        periods: PERIODS.iter().map(|p| p.as_str()).collect(),
        writes_per_vote: SEED_WRITES,
    };
    let limits = LimitsInfo {
        ops: limits_ops,
        board: LIMITS_BOARD,
        options: CAMPAIGN_OPTIONS,
        weight: LIMITS_WEIGHT,
        offset: CAMPAIGN_OFFSET,
        periods: LIMITS_PERIODS.iter().map(|p| p.as_str()).collect(),
        channels: LIMITS_CHANNELS.to_vec(),
        devices: LIMITS_DEVICES.to_vec(),
        target: LIMITS_TARGET,
        campaigns: LIMIT_RULE_COUNTS
            .iter()
            .zip(&bench.ctx.limits)
            .map(|(&rules, c)| LimitsCampaign {
                rules,
                namespace: c.namespace().to_string(),
                limits: limit_rules(rules),
            })
            .collect(),
    };
    let report = Report {
        redis_version: version,
        ping_p50_us,
        server: server_name(&bench.client),
        throwaway: temp.is_some(),
        prefix,
        articles: args.articles,
        ops,
        pages,
        tasks: args.tasks,
        threads: args.threads,
        dedicated: args.dedicated,
        rounds,
        seconds: round(started.elapsed().as_secs_f64(), 3),
        campaign,
        limits,
        rows,
        ceilings,
        ratios,
        checks,
        serve,
        scaling,
    };
    Ok(report)
}

/// A scenario's connections.
enum Cons {
    /// The 1-connection scenarios.
    Sync(redis::Connection),
    /// One handle per task.
    Tasks(Vec<MultiplexedConnection>),
}

/// How much to run: votes and page reads per scenario, concurrent tasks,
/// interleaved rounds.
#[derive(Clone, Copy, Debug)]
struct Plan {
    ops: u64,
    pages: u64,
    campaign_ops: u64,
    limits_ops: u64,
    tasks: usize,
    rounds: u64,
}

/// The round after which the ceilings' run `run` (of `runs`) is made:
/// evenly apart over the rounds, never after the last.
fn ceiling_due(run: usize, runs: usize, rounds: u64) -> u64 {
    ((run as u64 + 1) * rounds / (runs as u64 + 1)).min(rounds - 1)
}

/// The order of the scenarios in round `round`: as listed, except that the
/// members of each rotation group (`Scenario::rotation_group`: the rate-limit
/// campaigns at the same connections; the redvote campaign vote without and
/// with a vote id at the same connections) trade places, rotated by one
/// every round, so none of them always runs first or last, or right after
/// the same other scenario.
fn round_order(scenarios: &[Scenario], round: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scenarios.len()).collect();
    let mut placed = vec![false; scenarios.len()];
    for i in 0..scenarios.len() {
        let Some(group) = scenarios[i].rotation_group() else {
            continue;
        };
        if placed[i] {
            continue;
        }
        // The group's places, in the listed order; member k of the group
        // runs at place k - round (mod its size).
        let places: Vec<usize> = (i..scenarios.len())
            .filter(|&j| scenarios[j].rotation_group() == Some(group))
            .collect();
        let n = places.len();
        for (k, &place) in places.iter().enumerate() {
            order[place] = places[(k + round as usize) % n];
            placed[place] = true;
        }
    }
    order
}

struct Bench {
    ctx: Arc<Ctx>,
    client: redis::Client,
    /// Setup, checks and cleanup.
    admin: redis::Connection,
    /// Users are `user:<n>`, `n` never reused in a run: every vote is new.
    next_user: u64,
    /// Votes counted by the scenarios so far.
    votes_cast: u64,
    /// Articles posted (each starts with the poster's vote).
    posts: u64,
    /// The votes the last check found on the articles.
    votes_found: u64,
    /// Campaign votes cast by each side: [redvote, seed] (redvote's include
    /// the votes with a vote id).
    campaign_votes: [u64; 2],
    /// Campaign votes cast with a vote id (each recorded at `<ns>vid:<id>`).
    campaign_id_votes: u64,
    /// Votes cast on each rate-limit campaign (0, 4 and 8 rules).
    limits_votes: [u64; 3],
    threads: usize,
    /// PING round trips, sampled at every round.
    pings: Measure,
}

impl Bench {
    fn all(
        &mut self,
        args: &BenchArgs,
        plan: Plan,
        temp: &Option<TempServer>,
        url: &str,
    ) -> Result<(Vec<Row>, Vec<Ceiling>, Checks)> {
        let Plan {
            ops,
            pages,
            campaign_ops,
            limits_ops,
            tasks,
            rounds,
        } = plan;
        let site = self.ctx.site.clone();
        // Warm the script cache so no op pays a NOSCRIPT round trip.
        redvote::scripts::load_all(&mut self.admin)?;
        let mut ids = Vec::with_capacity(args.articles as usize);
        for i in 1..=args.articles {
            let call = site.post(
                &format!("author:{i}"),
                &format!("Bench article {i}"),
                &format!("https://example.com/{i}"),
            );
            ids.push(call.run(&mut self.admin).context("posting the articles")?);
            self.posts += 1;
        }
        self.ctx = Arc::new(Ctx::new(site, ids));
        self.check("setup")?;
        self.campaign_setup()?;
        self.limits_setup()?;

        let many = |op, flow, shared, ops| Scenario {
            op,
            flow,
            concurrent: true,
            tasks,
            shared,
            async_con: false,
            ops,
            pipeline: 1,
            one_article: false,
            suffix: "tasks",
        };
        let one = |op, flow, ops| Scenario {
            op,
            flow,
            concurrent: false,
            tasks: 1,
            shared: false,
            async_con: false,
            ops,
            pipeline: 1,
            one_article: false,
            suffix: "1",
        };
        // One sync connection, the ops sent PIPELINE at a time in one
        // pipeline: a backend draining a queue.
        let piped = |op, ops| Scenario {
            pipeline: PIPELINE,
            suffix: "pipe16",
            ..one(op, Flow::Redvote, ops)
        };
        let shared = !args.dedicated;
        let (plain, with_id) = (
            Op::Campaign { vote_id: false },
            Op::Campaign { vote_id: true },
        );
        let scenarios = [
            one(Op::Vote, Flow::Seeds, ops),
            many(Op::Vote, Flow::Seeds, shared, ops),
            one(Op::Vote, Flow::Watch, ops),
            // WATCH is per connection: one per task, always.
            many(Op::Vote, Flow::Watch, false, ops),
            one(Op::Vote, Flow::Redvote, ops),
            many(Op::Vote, Flow::Redvote, shared, ops),
            // Like for like with redis-benchmark -c <tasks> -P 1: one
            // connection per task, one request in flight on each.
            Scenario {
                suffix: "own",
                ..many(Op::Vote, Flow::Redvote, false, ops)
            },
            // Like for like with redis-benchmark -c 1 -P 16.
            piped(Op::Vote, ops),
            // The same on one article, as redis-benchmark votes.
            Scenario {
                one_article: true,
                suffix: "pipe16_hot",
                ..piped(Op::Vote, ops)
            },
            one(Op::Page, Flow::Seeds, pages),
            one(Op::Page, Flow::Redvote, pages),
            many(Op::Page, Flow::Seeds, shared, pages),
            many(Op::Page, Flow::Redvote, shared, pages),
            // The campaign section: the seed's 16 commands one after the
            // other, then all at once on one multiplexed connection, ...
            one(plain, Flow::SeedsSequential, campaign_ops),
            Scenario {
                async_con: true,
                ..one(plain, Flow::Seeds, campaign_ops)
            },
            many(plain, Flow::Seeds, shared, campaign_ops),
            // ... against one EVALSHA, ...
            one(plain, Flow::Redvote, campaign_ops),
            many(plain, Flow::Redvote, shared, campaign_ops),
            Scenario {
                suffix: "own",
                ..many(plain, Flow::Redvote, false, campaign_ops)
            },
            piped(plain, campaign_ops),
            // ... and the same EVALSHA on the same campaign with a new vote
            // id on every vote: what recording the id costs (each trades
            // places with its plain twin every round).
            one(with_id, Flow::Redvote, campaign_ops),
            many(with_id, Flow::Redvote, shared, campaign_ops),
            // The rate-limit section: the same vote with 0, 4 and 8 rules
            // (each group of three runs in a rotated order every round).
            one(Op::Limits(0), Flow::Redvote, limits_ops),
            one(Op::Limits(1), Flow::Redvote, limits_ops),
            one(Op::Limits(2), Flow::Redvote, limits_ops),
            many(Op::Limits(0), Flow::Redvote, shared, limits_ops),
            many(Op::Limits(1), Flow::Redvote, shared, limits_ops),
            many(Op::Limits(2), Flow::Redvote, shared, limits_ops),
        ];

        // The ceilings: redis-benchmark on the same scripts, full runs
        // spread over the rounds.
        let ceiling_runs = args.ceiling_runs as usize;
        let mut ceiling_plans = if args.no_redis_benchmark {
            Err("--no-redis-benchmark".to_string())
        } else {
            self.ceiling_setup(tasks, ops, campaign_ops, ceiling_runs, temp)?
        };

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(self.threads)
            .enable_all()
            .build()?;
        // Each scenario's users start at its own base: user numbers are
        // never reused, so every vote is new.
        let mut bases = Vec::with_capacity(scenarios.len());
        for s in &scenarios {
            bases.push(self.next_user);
            self.next_user += s.ops;
        }
        // Interleaved rounds: round r runs the r-th slice of every scenario,
        // one scenario after the other, so a slow spell of the machine
        // (shared CPUs, noisy loopback) spreads over all of them instead of
        // skewing one scenario and every ratio built on it.
        let mut totals = scenarios
            .iter()
            .map(|_| Measure::new())
            .collect::<Result<Vec<_>>>()?;
        // Each scenario's connections, opened once and kept over the rounds,
        // as a backend keeps its own.
        let mut cons = Vec::with_capacity(scenarios.len());
        for s in &scenarios {
            cons.push(if s.concurrent || s.async_con {
                Cons::Tasks(runtime.block_on(self.connect_tasks(s))?)
            } else {
                Cons::Sync(self.client.get_connection()?)
            });
        }
        for round in 0..rounds {
            self.ping(PINGS_PER_ROUND)?;
            for k in round_order(&scenarios, round) {
                let s = &scenarios[k];
                let (lo, hi) = (s.ops * round / rounds, s.ops * (round + 1) / rounds);
                if lo == hi {
                    continue;
                }
                let cpu_before = server_cpu(&mut self.admin)?;
                let stats_before = command_stats(&mut self.admin)?;
                let mut m = match &mut cons[k] {
                    Cons::Tasks(tasks) => {
                        runtime.block_on(self.run_tasks(tasks, *s, bases[k], lo, hi))
                    }
                    Cons::Sync(con) => self.run_sequential(con, *s, bases[k], lo, hi),
                }
                .with_context(|| format!("scenario {} (round {})", s.id(), round + 1))?;
                let stats_after = command_stats(&mut self.admin)?;
                let cpu_after = server_cpu(&mut self.admin)?;
                m.server_cpu = cpu_before.zip(cpu_after).map(|(b, a)| (a - b).max(0.0));
                m.server_cmd_us = command_usec(&stats_before, &stats_after, s.top_commands());
                match s.op {
                    Op::Vote => {
                        self.votes_cast += hi - lo;
                        self.check(&format!("{} (round {})", s.id(), round + 1))?;
                    }
                    Op::Campaign { vote_id } => {
                        let side = usize::from(s.flow != Flow::Redvote);
                        self.campaign_votes[side] += hi - lo;
                        if vote_id {
                            self.campaign_id_votes += hi - lo;
                        }
                        self.check_campaign_totals(
                            side,
                            &format!("{} (round {})", s.id(), round + 1),
                        )?;
                    }
                    Op::Limits(c) => {
                        self.limits_votes[c] += hi - lo;
                        self.check_limits_totals(c, &format!("{} (round {})", s.id(), round + 1))?;
                    }
                    Op::Page => {}
                }
                totals[k].add(&m)?;
            }
            // The ceilings' full runs due after this round: run j of each
            // after round (j + 1) x rounds / (runs + 1), the last after the
            // last round at the latest.
            if let Ok(plans) = &mut ceiling_plans {
                for plan in plans.iter_mut() {
                    while plan.runs_made() < ceiling_runs
                        && ceiling_due(plan.runs_made(), ceiling_runs, rounds) <= round
                    {
                        self.ceiling_run(plan, url)
                            .with_context(|| format!("after round {}", round + 1))?;
                    }
                }
            }
        }
        let ceilings = match ceiling_plans {
            Ok(plans) => plans.iter().map(|plan| plan.summary()).collect(),
            Err(reason) => Ceiling::all_skipped(&reason, tasks, ops, campaign_ops),
        };
        let rows = scenarios
            .iter()
            .zip(totals)
            .map(|(s, m)| Row::new(s, &self.ctx, m))
            .collect();
        self.check_pages_agree()?;
        let campaign = CampaignChecks {
            redvote: self.check_campaign(0)?,
            seed: self.check_campaign(1)?,
            vote_ids: self.check_vote_ids(temp.is_some())?,
        };
        let limits = (0..LIMIT_RULE_COUNTS.len())
            .map(|k| self.check_limits(k))
            .collect::<Result<Vec<_>>>()?;
        let checks = Checks {
            ok: true,
            articles: self.ctx.articles.len() as u64,
            votes_cast: self.votes_cast,
            votes_found: self.votes_found,
            campaign,
            limits,
        };
        Ok((rows, ceilings, checks))
    }

    /// `n` PINGs on the sync admin connection, timed into `pings`: the
    /// floor under every round trip the flows pay, sampled every round
    /// (loopback latency drifts on a shared machine).
    fn ping(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let t = Instant::now();
            redis::cmd("PING").exec(&mut self.admin)?;
            self.pings.record(t.elapsed());
        }
        Ok(())
    }

    /// Ops `lo..hi` of a 1-connection scenario: a sync connection, one op
    /// after the other.
    fn run_sequential(
        &self,
        con: &mut redis::Connection,
        s: Scenario,
        base: u64,
        lo: u64,
        hi: u64,
    ) -> Result<Measure> {
        let ctx = &*self.ctx;
        let mut m = Measure::new()?;
        let start = Instant::now();
        if s.pipeline > 1 {
            // Every vote of a pipeline waits for the whole pipeline: each
            // records its time.
            let mut i = lo;
            while i < hi {
                let end = (i + s.pipeline).min(hi);
                let inputs: Vec<_> = (i..end).map(|k| ctx.input(base, k)).collect();
                let t = Instant::now();
                m.retries += ops_pipelined(ctx, con, s, &inputs)?;
                let took = t.elapsed();
                for _ in i..end {
                    m.record(took);
                }
                i = end;
            }
            m.elapsed = start.elapsed();
            return Ok(m);
        }
        for i in lo..hi {
            let input = ctx.input(base, i);
            let t = Instant::now();
            m.retries += op_sync(ctx, con, s, &input)?;
            m.record(t.elapsed());
        }
        m.elapsed = start.elapsed();
        Ok(m)
    }

    /// One connection handle per task: clones of one multiplexed connection
    /// when the scenario shares it, else a connection each.
    async fn connect_tasks(&self, s: &Scenario) -> Result<Vec<MultiplexedConnection>> {
        let config = redis::AsyncConnectionConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(RESPONSE_TIMEOUT));
        let mut cons: Vec<MultiplexedConnection> = Vec::with_capacity(s.tasks);
        for i in 0..s.tasks {
            if s.shared && i > 0 {
                cons.push(cons[0].clone());
            } else {
                let con = self
                    .client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                    .with_context(|| format!("connecting the tasks of {}", s.id()))?;
                cons.push(con);
            }
        }
        Ok(cons)
    }

    /// Ops `lo..hi` of a concurrent scenario: `s.tasks` tokio tasks take op
    /// numbers from a shared counter until it reaches `hi` (or one fails,
    /// which stops all).
    async fn run_tasks(
        &self,
        cons: &[MultiplexedConnection],
        s: Scenario,
        base: u64,
        lo: u64,
        hi: u64,
    ) -> Result<Measure> {
        let next = Arc::new(AtomicU64::new(lo));
        let start = Instant::now();
        let handles: Vec<_> = cons
            .iter()
            .map(|con| {
                // A handle to the task's connection (the shared one, or its
                // own, which no other task touches: WATCH stays per task).
                let mut con = con.clone();
                let ctx = Arc::clone(&self.ctx);
                let next = Arc::clone(&next);
                tokio::spawn(async move {
                    let mut m = Measure::new()?;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= hi {
                            return Ok::<Measure, anyhow::Error>(m);
                        }
                        let input = ctx.input(base, i);
                        let t = Instant::now();
                        match op_async(&ctx, &mut con, s, &input).await {
                            Ok(retries) => m.retries += retries,
                            Err(e) => {
                                next.store(hi, Ordering::Relaxed); // stop the others
                                return Err(e);
                            }
                        }
                        m.record(t.elapsed());
                    }
                })
            })
            .collect();
        let mut total = Measure::new()?;
        let mut first_error = None;
        for handle in handles {
            match handle.await.context("a bench task panicked")? {
                Ok(m) => total.add(&m)?,
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        total.elapsed = start.elapsed();
        match first_error {
            Some(e) => Err(e),
            None => Ok(total),
        }
    }

    /// With `--url`: delete the keys the bench created under its prefix and
    /// the ceiling's (both were empty when it started).
    fn cleanup(&mut self) -> Result<()> {
        let prefix = self.ctx.site.prefix().to_string();
        let mut keys = Vec::new();
        for site in [Site::new(prefix.clone()), ceiling_site(&prefix)] {
            let p = site.prefix();
            let last: Option<u64> = self.admin.get(site.root_key())?;
            for k in ["article:", "time:", "score:", "hot:", "best:"] {
                keys.push(format!("{p}{k}"));
            }
            for id in 1..=last.unwrap_or(0) {
                for k in ["article:", "voted:", "downvoted:"] {
                    keys.push(format!("{p}{k}{id}"));
                }
            }
        }
        // The campaigns' namespaces (unused when the bench started).
        let mut namespaces: Vec<String> = (0..2)
            .map(|side| self.ctx.campaign.ns(side).to_string())
            .collect();
        namespaces.extend(self.ctx.limits.iter().map(|c| c.namespace().to_string()));
        namespaces.push(ceiling_campaign(&prefix).namespace().to_string());
        for ns in namespaces {
            keys.extend(scan_keys(&mut self.admin, &ns)?);
        }
        for chunk in keys.chunks(1000) {
            redis::cmd("UNLINK").arg(chunk).exec(&mut self.admin)?;
        }
        Ok(())
    }
}
