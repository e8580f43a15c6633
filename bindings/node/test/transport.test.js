'use strict';
// EVALSHA with the NOSCRIPT fallback, pipelines and MULTI, the raw registry.
const test = require('node:test');
const assert = require('node:assert/strict');
const { withServer } = require('./helpers/context');
const { Campaign, Site, ScriptRegistry, MANIFEST, RedvoteError } = require('..');

const ctx = withServer();
const T = 1767225600;
const BOARDS = { boards: { b: { options: { o1: {}, o2: {} } } } };

async function evalshaCount(r) {
  const info = await r.info('commandstats');
  const m = /cmdstat_evalsha:calls=(\d+)/.exec(info);
  return m ? Number(m[1]) : 0;
}

test('calls go as EVALSHA of the manifest SHA1 and survive SCRIPT FLUSH', async () => {
  const r = ctx.redis;
  const c = new Campaign(r, 'g');
  await c.configure(BOARDS);
  await c.vote('u1', [['b', 'o1']], { time: T });
  const before = await evalshaCount(r);
  await c.vote('u2', [['b', 'o1']], { time: T });
  assert.ok((await evalshaCount(r)) > before, 'the second call on a connection is an EVALSHA');
  const sha = MANIFEST.scripts.find((s) => s.name === 'campaign_vote').sha1;
  assert.deepEqual(await r.script('EXISTS', sha), [1], 'the server knows the manifest SHA1');

  await r.script('FLUSH');
  assert.deepEqual(await r.script('EXISTS', sha), [0]);
  await c.vote('u3', [['b', 'o1']], { time: T }); // NOSCRIPT, then EVAL
  const [page] = await c.top('b', { kind: 'real', time: T });
  assert.equal(page.members[0].score, '3');
  assert.deepEqual(await r.script('EXISTS', sha), [1]);

  // after a flush, a pipeline too
  await r.script('FLUSH');
  const p = r.pipeline();
  const v = c.on(p).vote('u4', [['b', 'o2']], { time: T });
  const top = c.on(p).top('b', { kind: 'real', time: T });
  await p.exec();
  assert.equal((await v)[0].option, 'o2');
  assert.equal((await top)[0].size, 2);
});

test('a pipeline queues typed calls; each promise settles on exec', async () => {
  const r = ctx.redis;
  const c = new Campaign(r, 'g');
  await c.configure(BOARDS);
  const p = r.pipeline();
  const cp = c.on(p);
  const votes = [1, 2, 3].map((i) => cp.vote(`u${i}`, [['b', 'o1']], { time: T, voteId: `id-${i}` }));
  const refused = cp.vote('', [['b', 'o1']], { time: T });
  const top = cp.top('b', { kind: 'real', time: T });
  const raw = await p.exec();
  assert.equal(raw.length, 5);
  assert.ok(raw[3][0] instanceof Error, 'exec reports the refusal in its place');
  for (const v of votes) assert.equal((await v)[0].replay, false);
  await assert.rejects(refused, { code: 'REDVOTE_INVALID_USER' });
  assert.deepEqual((await top)[0].members, [{ member: 'o1', score: '3', rank: 1 }]);
});

test('a pipeline made before any typed call still gets the scripts', async () => {
  const r = ctx.server.client(); // a fresh client: nothing defined on it yet
  const p = r.pipeline();
  const site = new Site(p);
  const id = site.post('u', 't', 'https://x');
  const cfg = site.config();
  await p.exec();
  assert.equal(await id, 1);
  assert.equal((await cfg).page_size, 25);
});

test('MULTI runs typed calls atomically, also after SCRIPT FLUSH', async () => {
  const r = ctx.redis;
  const c = new Campaign(r, 'g');
  await c.configure(BOARDS);
  for (const flush of [false, true]) {
    if (flush) await r.script('FLUSH');
    const m = r.multi();
    const a = c.on(m).vote('u1', [['b', 'o1']], { time: T });
    const b = c.on(m).participants('b', ['o1']);
    const bad = c.on(m).top('nope', { time: T });
    const res = await m.exec();
    assert.equal(res.length, 3);
    await assert.rejects(bad, { code: 'REDVOTE_UNKNOWN_BOARD' });
    assert.equal((await a)[0].board, 'b');
    assert.equal((await b).campaign, 1);
  }
});

test('the raw registry runs any script by name, with any keys', async () => {
  const r = ctx.redis;
  const reg = new ScriptRegistry(r);
  assert.deepEqual(reg.names.sort(), MANIFEST.scripts.map((s) => s.name).sort());
  assert.equal(await reg.runRaw('post', ['article:'], ['u', 't', 'https://x']), 1);
  assert.deepEqual(await reg.runRaw('page', ['article:'], ['score', 1]), [1, 25, 'article:1', 1]);
  assert.deepEqual(await reg.run('rerank', ['article:'], [0, 10]), { ranked: 1, next: 0 });
  await assert.rejects(reg.runRaw('page', [], ['score', 1]), (e) => e instanceof RedvoteError && e.code === 'REDVOTE_USAGE');
  const p = r.pipeline();
  reg.runRaw('config', ['article:'], [], p);
  const [[err, cfg]] = await p.exec();
  assert.equal(err, null);
  assert.ok(cfg.includes('page_size'));
  const loaded = await reg.load();
  for (const s of MANIFEST.scripts) assert.equal(loaded[s.name], s.sha1, `SCRIPT LOAD of ${s.name}`);
});

test('a refused call of a pipeline that nobody awaits is no unhandled rejection', async () => {
  const r = ctx.redis;
  const c = new Campaign(r, 'g');
  await c.configure(BOARDS);
  const p = r.pipeline();
  c.on(p).vote('', [['b', 'o1']], { time: T }); // not awaited
  const m = r.multi();
  c.on(m).top('nope', { time: T }); // not awaited
  const [[err]] = await p.exec();
  assert.match(err.message, /REDVOTE_INVALID_USER/);
  await m.exec();
  await new Promise((resolve) => setTimeout(resolve, 50)); // an unhandled rejection would fail this test
});
