'use strict';
// Exactly once when the connection drops: a second connection kills the
// voter's connection every 5 ms (CLIENT KILL TYPE normal SKIPME yes) while
// votes without a vote id go out; ioredis resends what was unanswered when
// it reconnects, and the id the package gives each call makes such a resend
// a replay. The vote log says how many times each user's vote was applied.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startServer } = require('./helpers/server');
const { Campaign, RedvoteError } = require('..');

const STORM_MS = 4000;
const WORKERS = 16;
const OPTIONS = ['o1', 'o2', 'o3'];

/** Resolves when `cond()` is true; rejects with `what` after `ms`. */
async function waitFor(cond, what, ms = 15000) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Kills every normal connection but its own every 5 ms until `until`.
async function storm(killer, until) {
  let kills = 0;
  while (Date.now() < until) {
    kills += await killer.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return kills;
}

// Distinct users, each voting once for one option, until `until`, on
// WORKERS concurrent calls shared among `campaigns`.
async function voters(campaigns, until) {
  const outcomes = [];
  let next = 0;
  async function worker(campaign) {
    while (Date.now() < until) {
      const user = `user:${next++}`;
      const option = OPTIONS[next % OPTIONS.length];
      const outcome = { user, option };
      outcomes.push(outcome);
      try {
        const [ballot] = await campaign.vote(user, [['b', option]]);
        outcome.ballot = ballot;
      } catch (err) {
        outcome.error = err;
      }
    }
  }
  await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(campaigns[i % campaigns.length])));
  return outcomes;
}

test('an acknowledged vote without a vote id is applied once though the connection drops', async (t) => {
  const server = await startServer();
  try {
    const admin = server.client({ connectionName: 'admin' });
    await new Campaign(admin, 'storm').configure({
      vote_log: 1000000,
      boards: { b: { periods: ['total'], options: Object.fromEntries(OPTIONS.map((o) => [o, {}])) } },
    });
    const killer = server.client({ connectionName: 'killer' });
    await killer.ping();
    // ioredis's default retries, under which every vote ends acknowledged,
    // and none, under which a vote whose connection drops fails
    const patient = server.client({ maxRetriesPerRequest: 20 });
    const impatient = server.client({ maxRetriesPerRequest: 0 });
    let reconnects = 0;
    for (const c of [patient, impatient]) c.on('reconnecting', () => reconnects++);
    // a dropped connection is an 'error' event of each client the storm hits
    for (const c of [admin, patient, impatient]) c.on('error', () => {});
    await Promise.all([patient.ping(), impatient.ping()]);

    const until = Date.now() + STORM_MS;
    const [kills, outcomes] = await Promise.all([storm(killer, until), voters([patient, impatient].map((c) => new Campaign(c, 'storm')), until)]);
    await waitFor(() => admin.ping().then((r) => r === 'PONG', () => false), 'the admin connection back');

    const entries = await admin.xrange('{c:storm}:log', '-', '+');
    const applied = new Map();
    for (const [, fields] of entries) {
      const f = Object.fromEntries(fields.reduce((acc, v, i) => (i % 2 ? acc : [...acc, [v, fields[i + 1]]]), []));
      applied.set(f.u, [...(applied.get(f.u) || []), f.i]);
    }
    const acked = outcomes.filter((o) => o.ballot);
    const refused = outcomes.filter((o) => o.error);
    const twice = acked.filter((o) => (applied.get(o.user) || []).length !== 1);
    const replays = acked.filter((o) => o.ballot.replay).length;
    t.diagnostic(
      `${kills} connections killed, ${reconnects} reconnects; ${acked.length} votes acknowledged ` +
        `(${replays} answered by a replay), ${twice.length} of them applied other than once; ` +
        `${refused.length} failed, ${refused.filter((o) => applied.has(o.user)).length} of them applied`
    );
    assert.ok(reconnects > 0, 'the storm dropped the voters\' connections');
    assert.ok(acked.length > 0, 'some votes were acknowledged');
    assert.deepEqual(
      twice.map((o) => `${o.user}: applied ${(applied.get(o.user) || []).length} times`),
      [],
      'every acknowledged vote applied exactly once'
    );
    for (const o of acked) assert.deepEqual(applied.get(o.user), [o.ballot.voteId], `${o.user}: logged with the id its reply names`);
    for (const o of refused) assert.ok(!(o.error instanceof RedvoteError), `${o.user}: failed by the connection, not refused: ${o.error.message}`);
    for (const o of refused) assert.ok((applied.get(o.user) || []).length <= 1, `${o.user}: an unacknowledged vote applied at most once`);
    const attempted = new Set(outcomes.map((o) => o.user));
    for (const user of applied.keys()) assert.ok(attempted.has(user), `${user} logged but never sent`);

    // the board counts what the log lists: one per applied vote
    const [page] = await new Campaign(admin, 'storm').top('b', { kind: 'real', perPage: OPTIONS.length });
    const counted = page.members.reduce((sum, m) => sum + Number(m.score), 0);
    assert.equal(counted, entries.length, 'the board counts each applied vote once');
  } finally {
    await server.stop();
  }
});
