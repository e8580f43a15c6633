'use strict';
// One refusal of each kind: the typed call rejects with the code's class
// (a RedvoteError with .code and .detail) and DEBUG DIGEST is unchanged.
const test = require('node:test');
const assert = require('node:assert/strict');
const { withServer } = require('./helpers/context');
const redvote = require('..');
const { Site, Campaign, CampaignRegistry, RedvoteError, CODES, errorClassFor, runScript } = redvote;

const ctx = withServer();
const T = 1767225600;

async function setup(r) {
  const site = new Site(r);
  await site.post('u', 'old', 'https://x', { time: 1000 }); // article 1: its window closed long ago
  await site.post('u', 'new', 'https://y'); // article 2
  const c = new Campaign(r, 'g');
  await c.configure({
    vote_id_ttl: 3600,
    limits: [{ name: 'one-a-day', by: ['user'], window: 'day', limit: 1 }],
    deny: { users: ['user:banned'], channels: [] },
    boards: { b: { periods: ['total'], options: { o1: {}, o2: {} } } },
  });
  // by the server's clock: a counter of a past day would expire at once
  await c.vote('spender', [['b', 'o1']], { voteId: 'used' });
  await new Campaign(r, 'closed').configure({ start: T, end: T + 3600, boards: { b: { options: { o: {} } } } });
  await new Campaign(r, 'layout').configure({ boards: { b: { options: { o: {} } } } });
  await r.hset('{c:layout}:campaign', 'layout', '999');
  await r.set('{c:g}:vid:old', JSON.stringify(['request', []])); // a record of 0.5: no amounts
  // a removal under way on board b of campaign rm: o2 is still on its boards
  const rm = new Campaign(r, 'rm');
  await rm.configure({ boards: { b: { periods: ['total'], options: { o1: {}, o2: {} } } } });
  await rm.vote('u', [['b', 'o2']]);
  await rm.configure({ boards: { b: { remove: ['o2'] } } });
  // a buffered campaign holding more votes than one call folds (a vote
  // folds at 1000, so the buffer is written by hand, as lib/fold lays it
  // out): configure must refuse
  const hot = new Campaign(r, 'hot');
  await hot.configure({ mode: 'buffered', boards: { b: { periods: ['total'], options: { o: {} } } } });
  const line = ['1', String(T * 1000), '0', String(T), 'u', '', '', '1'].join('\t');
  await r.rpush('{c:hot}:buf:b:o', ...Array(1001).fill(line));
  await r.zadd('{c:hot}:bufs', String(T * 1000 * 64), 'b:o');
  await r.hset('{c:hot}:campaign', 'buffered', '1001', 'fold_due', String(T * 1000 + 200));
  return { site, c, rm, hot };
}

// code -> a call that is refused with it
const CASES = {
  REDVOTE_USAGE: (r) => runScript(r, 'vote', ['not-the-root'], ['u', '2']),
  REDVOTE_INVALID_USER: (r, { c }) => c.vote('', [['b', 'o1']], { time: T }),
  REDVOTE_INVALID_VOTE_ID: (r, { c }) => c.vote('u', [['b', 'o1']], { time: T, voteId: 'bad\u0001id' }),
  REDVOTE_VOTE_ID_REUSED: (r, { c }) => c.vote('spender', [['b', 'o2']], { voteId: 'used' }),
  REDVOTE_UNKNOWN_VOTE: (r, { c }) => c.void('never'),
  REDVOTE_INVALID_CURSOR: (r, { rm }) => rm.removeStep('b', { cursor: '1|shown:total|1' }),
  REDVOTE_NOT_VOIDABLE: (r, { c }) => c.void('old'),
  REDVOTE_INVALID_ID: (r, { site }) => site.vote('u2', '1:x'),
  REDVOTE_INVALID_TEXT: (r, { site }) => site.post('u', '', 'https://x'),
  REDVOTE_INVALID_NUMBER: (r, { site }) => site.pageMembers('score', 0),
  REDVOTE_INVALID_VOTE: (r, { site }) => site.vote('u2', 2, 'sideways'),
  REDVOTE_INVALID_ORDER: (r, { site }) => site.pageMembers('random', 1),
  REDVOTE_INVALID_GROUP: (r, { site }) => site.groups(2, { add: ['a b'] }),
  REDVOTE_INVALID_CONFIG: (r, { site }) => site.configure({ page_size: 0 }),
  REDVOTE_CONFIG_LOCKED: (r, { site }) => site.configure({ vote_score: 1 }),
  REDVOTE_UNKNOWN_ARTICLE: (r, { site }) => site.vote('u2', 99),
  REDVOTE_VOTING_CLOSED: (r, { site }) => site.vote('u2', 1),
  REDVOTE_INVALID_NAME: (r, { c }) => c.top('a b', { time: T }),
  REDVOTE_INVALID_PERIOD: (r, { c }) => c.top('b', { period: 'year', time: T }),
  REDVOTE_UNKNOWN_CAMPAIGN: (r) => new Campaign(r, 'nope').top('b', { time: T }),
  REDVOTE_UNKNOWN_BOARD: (r, { c }) => c.top('nope', { time: T }),
  REDVOTE_UNKNOWN_OPTION: (r, { c }) => c.vote('u', [['b', 'nope']], { time: T }),
  REDVOTE_CAMPAIGN_CLOSED: (r) => new Campaign(r, 'closed').vote('u', [['b', 'o']], { time: T + 7200 }),
  REDVOTE_OUT_OF_RANGE: (r, { c }) => c.import('b', { o1: '9007199254740993' }, { time: T }),
  REDVOTE_RATE_LIMITED: (r, { c }) => c.vote('spender', [['b', 'o2']]),
  REDVOTE_DENIED: (r, { c }) => c.vote('user:banned', [['b', 'o1']], { time: T }),
  REDVOTE_LAYOUT_VERSION: (r) => new Campaign(r, 'layout').top('b', { time: T }),
  REDVOTE_UNFOLDED: (r, { hot }) => hot.configure({ boards: { b: { options: { o: { weight: 2 } } } } }),
  REDVOTE_INTERNAL: null, // Redis refusing a command inside a script, or a bug: no input reaches it
};

test('every code of the manifest has a refusal case here', () => {
  assert.deepEqual(Object.keys(CASES).sort(), [...CODES].sort());
});

test('each refusal is its error class and writes nothing', async () => {
  const r = ctx.redis;
  const state = await setup(r);
  for (const [code, call] of Object.entries(CASES)) {
    if (!call) continue;
    const before = await r.debug('DIGEST');
    const err = await call(r, state).then(
      (v) => assert.fail(`${code}: the call answered ${JSON.stringify(v)}`),
      (e) => e
    );
    assert.ok(err instanceof RedvoteError, `${code}: got ${err && err.stack}`);
    assert.equal(err.code, code, `${code}: got ${err.message}`);
    assert.ok(err instanceof errorClassFor(code), `${code}: its class`);
    assert.equal(typeof err.detail, 'string');
    assert.equal(await r.debug('DIGEST'), before, `${code}: DEBUG DIGEST changed`);
  }
});

test('a rate-limit refusal carries its JSON detail', async () => {
  const { c } = await setup(ctx.redis);
  const err = await c.vote('spender', [['b', 'o2']]).catch((e) => e);
  assert.ok(err instanceof redvote.RateLimitedError);
  const { rule, retryAfter, remaining } = err.data;
  assert.equal(rule, 'one-a-day');
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0, `retryAfter: seconds to wait, got ${retryAfter}`);
  assert.deepEqual(Object.keys(err.data).sort(), ['remaining', 'retryAfter', 'rule'], 'camelCase fields only');
  assert.equal(typeof remaining, 'object');
  assert.equal(err.data.retry_after, retryAfter, 'the deprecated alias reads the same');
  assert.equal(JSON.parse(JSON.stringify(err.data)).retry_after, undefined, 'the alias is not enumerable');
});

test('other Redis errors pass through as they are', async () => {
  const r = ctx.redis;
  await r.set('{c}:campaigns', 'a string');
  await r.set('plain', 'x');
  const err = await r.hget('plain', 'f').catch((e) => e);
  assert.ok(!(err instanceof RedvoteError));
  assert.match(err.message, /WRONGTYPE/);
  // a registry of the wrong type is the script's own refusal
  await assert.rejects(new CampaignRegistry(r).register('x'), { code: 'REDVOTE_INVALID_CONFIG' });
});
