'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { withServer } = require('./helpers/context');
const { Campaign, CampaignRegistry } = require('..');

const ctx = withServer();
const T = 1767225600; // 2026-01-01T00:00:00Z

const SETTINGS = {
  vote_log: 1000,
  boards: {
    stars: { periods: ['day', 'total'], options: { a: { weight: 2 }, b: {}, c: {} } },
    other: { periods: ['total'], options: { x: {}, y: {} } },
  },
};

async function configured() {
  const c = new Campaign(ctx.redis, 'g');
  assert.deepEqual(await c.configure(SETTINGS), { boards: 2, options: 5 });
  return c;
}

test('votes, batch pairs and the reads answer typed objects', async () => {
  const c = await configured();
  const ballots = await c.vote('u1', [['stars', 'a'], ['other', 'x']], { time: T, channel: 'web', device: 'pc' });
  const { voteId } = ballots[0];
  assert.deepEqual(ballots, [
    { board: 'stars', option: 'a', scores: { 'day:2026-01-01': '2.00', total: '2.00' }, replay: false, voteId, folded: null },
    { board: 'other', option: 'x', scores: { total: '1.00' }, replay: false, voteId, folded: null },
  ]);
  await c.vote('u2', [{ board: 'stars', option: 'b' }], { time: T });
  await c.vote('u3', ['stars', 'b'], { time: T + 10, cost: 1 });

  const [page] = await c.top('stars', { time: T });
  assert.deepEqual(page, {
    board: 'stars',
    period: 'total',
    size: 2,
    members: [
      { member: 'b', score: '2.00', rank: 1 },
      { member: 'a', score: '2.00', rank: 1 },
    ],
    folded: null,
  });
  const [real] = await c.top(['stars'], { kind: 'real', period: 'day', time: T });
  assert.equal(real.period, 'day:2026-01-01');
  assert.deepEqual(real.members.map((m) => [m.member, m.score]), [['b', '2'], ['a', '1']]);

  const standing = await c.standing('stars', ['b', 'c'], { kind: 'real', time: T });
  assert.equal(standing[0].member, 'b');
  assert.equal(standing[0].rank, 1);
  assert.equal(standing[1].rank, null);
  assert.ok('previousRank' in standing[0] && 'gap' in standing[0]);

  const around = await c.around('stars', 'a', { kind: 'real', window: 3, perPage: 10, time: T });
  assert.equal(around.size, 2);
  assert.equal(around.rank, 2);
  assert.deepEqual(around.window.map((e) => e.member), ['b', 'a']);

  const part = await c.participants('stars', ['a', 'b']);
  assert.deepEqual(part, { campaign: 3, options: [{ option: 'a', participants: 1 }, { option: 'b', participants: 2 }] });

  const stats = await c.stats('stars', { granularity: 'day', from: T, to: T + 86400 });
  assert.equal(stats[0].bucket, 'day:2026-01-01');
  assert.equal(stats[0].votes, 3);
  assert.deepEqual(stats[0].channels, { web: 1 });
  assert.equal(typeof stats[0].amount, 'number');

  const settings = await c.settings();
  assert.deepEqual(Object.keys(settings.boards).sort(), ['other', 'stars']);
  assert.equal(settings.boards.stars.options.a.weight, 2);

  assert.deepEqual(await c.limits('u1', [['stars', 'a']], { time: T }), []);
  assert.equal(await c.limitsReset('u1', [], { time: T }), 0);

  const imported = await c.import('other', { x: 10, y: '5' }, { time: T });
  assert.deepEqual(imported, { changed: 2, unchanged: 0, rest: 0 });
  assert.deepEqual(await c.import('other', [['x', 10]], { time: T }), { changed: 0, unchanged: 1, rest: 0 });

  const re = await c.reindex('stars', { count: 100 });
  assert.equal(re.next, '0');

  await c.configure({ boards: { stars: { remove: ['b'] } } });
  let step = await c.removeStep('stars', { count: 1 });
  while (step.next !== '0') step = await c.removeStep('stars', { cursor: step.next, count: 1 });
  assert.deepEqual(await c.removeStep('stars'), { removed: 0, finished: 0, next: '0' });
  const up = await c.upgrade();
  assert.equal(up.next, '0');
});

test('a vote id is counted once: the resend is a replay', async () => {
  const c = await configured();
  const first = await c.vote('u1', [['stars', 'b']], { voteId: 'req-1', time: T });
  const again = await c.vote('u1', [['stars', 'b']], { voteId: 'req-1', time: T });
  assert.equal(first[0].replay, false);
  assert.equal(again[0].replay, true);
  assert.deepEqual(again[0].scores, first[0].scores);
  const [page] = await c.top('stars', { kind: 'real', time: T });
  assert.deepEqual(page.members, [{ member: 'b', score: '1', rank: 1 }]);
  await assert.rejects(c.vote('u1', [['stars', 'a']], { voteId: 'req-1', time: T }), { code: 'REDVOTE_VOTE_ID_REUSED' });
});

test('a vote without an id gets one of its own, once per call, which void takes', async () => {
  const c = await configured();
  const [first] = await c.vote('u1', [['stars', 'b']], { time: T });
  const [second] = await c.vote('u1', [['stars', 'b']], { time: T });
  assert.match(first.voteId, /^auto-[0-9a-f]{32}$/);
  assert.notEqual(second.voteId, first.voteId, 'each call its own id: two calls are two votes');
  assert.equal(second.replay, false);
  assert.equal(await ctx.redis.exists(`{c:g}:vid:${first.voteId}`), 1, 'the script recorded the id');
  const ttl = await ctx.redis.ttl(`{c:g}:vid:${first.voteId}`);
  assert.ok(ttl > 86000 && ttl <= 86400, `kept vote_id_ttl (default 86400 s), ttl ${ttl}`);
  assert.equal((await c.void(first.voteId)).status, 'voided');
  const [page] = await c.top('stars', { kind: 'real', time: T });
  assert.deepEqual(page.members, [{ member: 'b', score: '1', rank: 1 }]);

  // in a pipeline too, each call its own id
  const pipe = ctx.redis.pipeline();
  const queued = ['u2', 'u3'].map((u) => c.on(pipe).vote(u, [['stars', 'c']], { time: T }));
  await pipe.exec();
  const [[a], [b]] = await Promise.all(queued);
  assert.notEqual(a.voteId, b.voteId);
  for (const ballot of [a, b]) assert.equal(await ctx.redis.exists(`{c:g}:vid:${ballot.voteId}`), 1);
});

test('a caller-given vote id is the one sent; an empty one is refused, not sent as "no id"', async () => {
  const c = await configured();
  const [ballot] = await c.vote('u1', [['stars', 'b']], { voteId: 'req-7', time: T });
  assert.equal(ballot.voteId, 'req-7');
  assert.equal(await ctx.redis.exists('{c:g}:vid:req-7'), 1);
  const before = await ctx.redis.call('DEBUG', 'DIGEST');
  await assert.rejects(c.vote('u1', [['stars', 'b']], { voteId: '', time: T }), { code: 'REDVOTE_INVALID_VOTE_ID' });
  assert.equal(await ctx.redis.call('DEBUG', 'DIGEST'), before, 'nothing written');
});

test('void and voidRange take votes back', async () => {
  const c = await configured();
  await c.vote('u1', [['stars', 'a']], { voteId: 'v1', time: T });
  await c.vote('u2', [['stars', 'b']], { time: T + 1 });
  const v = await c.void('v1');
  assert.equal(v.status, 'voided');
  assert.equal((await c.void('v1')).status, 'already_voided');
  // the log is kept by the server's clock: the range covers now
  const r = await c.voidRange('user', 'u2', { from: 0, to: 4102444800 });
  assert.deepEqual(r, { voided: 1, skipped: 0, next: '0' });
  const [page] = await c.top('stars', { time: T });
  assert.equal(page.size, 0);
});

test('atTime fixes the clock of every call', async () => {
  const c = (await configured()).atTime(T + 86400);
  const [b] = await c.vote('u1', [['stars', 'c']]);
  assert.ok('day:2026-01-02' in b.scores);
});

test('a buffered campaign: empty ballots with folded, scores after fold, configure drains', async () => {
  const c = new Campaign(ctx.redis, 'hot');
  const [s0, us0] = await ctx.redis.time();
  const switched = Number(s0) * 1000 + Math.floor(Number(us0) / 1000);
  await c.configure({ mode: 'buffered', fold_ms: 60000, boards: { stars: { periods: ['total'], options: { a: { weight: 2 }, b: {} } } } });
  assert.equal((await c.settings()).mode, 'buffered');
  const ballots = await c.vote('u1', [['stars', 'a'], ['stars', 'b']], { voteId: 'hot-1', time: T });
  // folded up to the switch to buffered: nothing waited then
  const foldedAt = ballots[0].folded;
  assert.ok(Number.isInteger(foldedAt) && foldedAt >= switched, `folded ${foldedAt}`);
  assert.deepEqual(ballots, [
    { board: 'stars', option: 'a', scores: {}, replay: false, voteId: 'hot-1', folded: foldedAt },
    { board: 'stars', option: 'b', scores: {}, replay: false, voteId: 'hot-1', folded: foldedAt },
  ]);
  const [replayed] = await c.vote('u1', [['stars', 'a'], ['stars', 'b']], { voteId: 'hot-1', time: T });
  assert.equal(replayed.replay, true);
  assert.equal(replayed.folded, foldedAt);
  await c.vote('u2', [['stars', 'b']], { time: T });

  const [before] = await c.top('stars', { time: T });
  assert.equal(before.size, 0, 'nothing on the boards before a fold');
  assert.equal(before.folded, foldedAt);
  // a member's standing and neighbourhood say so alike: not on the board yet
  const [standing] = await c.standing('stars', 'a', { time: T });
  assert.deepEqual([standing.rank, standing.folded], [null, foldedAt]);
  const around = await c.around('stars', 'a', { time: T });
  assert.deepEqual([around.rank, around.window, around.folded], [null, [], foldedAt]);

  const [sec, usec] = await ctx.redis.time();
  const now = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
  const folded = await c.fold(1);
  // a's buffer holds the oldest vote: its one line first, b's two left
  assert.deepEqual({ ...folded, until: 0 }, { folded: 1, left: 2, until: 0, overflow: 0 });
  assert.ok(Number.isInteger(folded.until) && folded.until >= T * 1000, `until ${folded.until}`);
  const rest = await c.fold();
  assert.deepEqual([rest.folded, rest.left], [2, 0]);
  assert.ok(rest.until >= now, `until ${rest.until} is the server's time (>= ${now})`);

  const [after] = await c.top('stars', { time: T });
  assert.deepEqual(after.members, [
    { member: 'b', score: '2.00', rank: 1 },
    { member: 'a', score: '2.00', rank: 1 },
  ]);
  assert.ok(after.folded >= rest.until, 'nothing buffered: the page is folded up to now');
  const [standingAfter] = await c.standing('stars', 'a', { time: T });
  assert.equal(standingAfter.rank, 1);
  assert.ok(standingAfter.folded >= rest.until, `standing folded ${standingAfter.folded}`);
  const aroundAfter = await c.around('stars', 'a', { time: T });
  assert.equal(aroundAfter.rank, 1);
  assert.ok(aroundAfter.folded >= rest.until, `around folded ${aroundAfter.folded}`);
  const empty = await c.fold();
  assert.deepEqual([empty.folded, empty.left, empty.overflow], [0, 0, 0], 'an empty buffer folds nothing');

  // back to immediate: the configure call folds what is buffered first
  await c.vote('u3', [['stars', 'a']], { time: T });
  await c.configure({ mode: 'immediate' });
  const [drained] = await c.top('stars', { time: T });
  assert.equal(drained.members[0].score, '4.00');
  assert.equal(drained.folded, null);
  assert.equal((await c.standing('stars', 'a', { time: T }))[0].folded, null);
  assert.equal((await c.around('stars', 'a', { time: T })).folded, null);
  const [plain] = await c.vote('u4', [['stars', 'b']], { time: T });
  assert.deepEqual([plain.scores, plain.folded], [{ total: '3.00' }, null]);
  const none = await c.fold();
  assert.deepEqual([none.folded, none.left, none.overflow], [0, 0, 0], 'an immediate campaign folds nothing');
  assert.ok(Number.isInteger(none.until));
});

test('the campaign registry registers and pages names', async () => {
  const reg = new CampaignRegistry(ctx.redis);
  assert.equal(await reg.register(['spring', 'autumn']), 2);
  assert.equal(await reg.register('spring'), 0);
  const page = await reg.registry({ cursor: 0, count: 1 });
  assert.equal(page.total, 2);
  assert.equal(page.names.length, 1);
  assert.notEqual(page.next, 0);
  assert.deepEqual((await reg.names()).sort(), ['autumn', 'spring']);
});

test('an import larger than one call is sent in calls; in a pipeline it is one call', async () => {
  // a board keeping five periods with first ties: a call takes 13 pairs (lua/src/lib/board.lua, CALL_WORK)
  const c = new Campaign(ctx.redis, 'bounded');
  const options = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`o${i}`, {}]));
  await c.configure({ boards: { f: { periods: ['hour', 'day', 'week', 'month', 'total'], ties: 'first', carry: '0.1', options } } });
  const pairs = Array.from({ length: 30 }, (_, i) => [`o${i}`, 10 + i]);
  const pipe = ctx.redis.pipeline();
  const once = new Campaign(pipe, 'bounded').import('f', pairs, { time: T });
  await pipe.exec();
  assert.deepEqual(await once, { changed: 13, unchanged: 0, rest: 17 });
  assert.deepEqual(await c.import('f', pairs, { time: T }), { changed: 17, unchanged: 13, rest: 0 });
  const [top] = await c.top('f', { perPage: 50, time: T });
  assert.equal(top.size, 30);
});
