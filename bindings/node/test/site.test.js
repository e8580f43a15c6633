'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { withServer } = require('./helpers/context');
const { Site } = require('..');

const ctx = withServer();

test('post, vote, article, pages, groups, config and rerank', async () => {
  const site = new Site(ctx.redis);
  const cfg = await site.configure({ rankings: ['hot', 'best'], page_size: 10 });
  assert.deepEqual(cfg.rankings, ['hot', 'best']);
  assert.equal(cfg.page_size, 10);
  assert.equal(cfg.vote_score, 432);
  assert.deepEqual(await site.config(), cfg);

  const id1 = await site.post('user:1', 'Hello Redis', 'https://example.com/hello');
  const id2 = await site.post('user:1', 'Second', 'https://example.com/2');
  assert.deepEqual([id1, id2], [1, 2]);

  const v = await site.vote('user:2', id1);
  assert.equal(v.changed, 1);
  assert.equal(v.previous, 'none');
  assert.equal(v.vote, 'up');
  assert.equal(v.votes, 2);
  assert.equal(v.downvotes, 0);
  assert.equal(typeof v.score, 'string');
  assert.equal((await site.vote('user:2', 'article:1')).changed, 0, 'a repeated vote changes nothing');
  await site.vote('user:3', 1, 'down');
  await site.vote('user:3', 1, 'none');

  const a = await site.article(1, 'user:2');
  assert.equal(a.id, 1);
  assert.equal(a.rank, 1);
  assert.equal(a.vote, 'up');
  assert.equal(a.fields.title, 'Hello Redis');
  assert.equal(a.fields.votes, '2');

  const page = await site.page('score', 1, undefined, { withScores: true });
  assert.equal(page.total, 2);
  assert.equal(page.perPage, 10);
  assert.deepEqual(page.members, ['article:1', 'article:2']);
  assert.equal(page.articles[0].id, 1);
  assert.equal(page.articles[0].title, 'Hello Redis');
  assert.equal(page.articles[0].score, a.score);
  const hot = await site.page('hot', 1, 1);
  assert.equal(hot.articles.length, 1);
  assert.deepEqual((await site.page('time', 5)).articles, []);

  assert.deepEqual(await site.groups(1, { add: ['redis', 'lua'] }), { added: 2, removed: 0 });
  assert.deepEqual(await site.groups(1, { remove: ['lua'] }), { added: 0, removed: 1 });
  const gp = await site.groupPage('redis', 'score', 1);
  assert.deepEqual(gp.members, ['article:1']);
  assert.equal(gp.articles[0].title, 'Hello Redis');
  assert.equal(typeof gp.built, 'number');

  assert.deepEqual(await site.rerank(0, 100), { ranked: 2, next: 0 });
});

test('a site under a prefix uses its own keys', async () => {
  const site = new Site(ctx.redis, { prefix: 'app:' });
  await site.post('u', 't', 'https://x');
  assert.equal(await ctx.redis.exists('app:article:1'), 1);
  assert.equal(await ctx.redis.exists('article:1'), 0);
  assert.equal((await site.page('score')).articles[0].id, 1);
});

test('upgrade moves a site to layout 2: group pages read the kept boards', async () => {
  const site = new Site(ctx.redis, { prefix: 'up:' });
  // a new site starts at layout 2: ask for layout 1 first, as the seeds' data is
  await ctx.redis.hset('up:redvote:config', 'layout', '1');
  await site.post('u', 'a', 'https://a');
  await site.post('u', 'b', 'https://b');
  await site.groups(1, { add: ['g'] });
  await site.groups(2, { add: ['g'] });
  let step = await site.upgrade({ count: 1 });
  let calls = 1;
  while (step.next !== '0') {
    step = await site.upgrade({ cursor: step.next, count: 1 });
    calls += 1;
  }
  assert.ok(calls > 1);
  assert.deepEqual([step.from, step.to], [1, 2]);
  assert.equal(await ctx.redis.hget('up:redvote:config', 'layout'), '2');
  await site.vote('v', 2);
  const gp = await site.groupPage('g', 'score', 1);
  assert.deepEqual(gp.members, ['article:2', 'article:1']);
  assert.equal(gp.built, 0);
  assert.deepEqual(await site.upgrade(), { from: 2, to: 2, next: '0' });
});

test('a group page refused in its second round trip is InvalidConfig and leaves nothing', async () => {
  const { InvalidConfigError } = require('..');
  const site = new Site(ctx.redis);
  await site.post('user:1', 'One', 'https://example.com/1');
  await site.post('user:1', 'Two', 'https://example.com/2');
  await site.groups(1, { add: ['g'] });
  await site.groups(2, { add: ['g'] });
  // article 2's hash replaced by a string: its HGETALL fails
  await ctx.redis.del('article:2');
  await ctx.redis.set('article:2', 'not a hash');
  const before = await ctx.redis.debug('DIGEST');
  await assert.rejects(site.groupPage('g', 'time'), (err) => {
    assert.ok(err instanceof InvalidConfigError, String(err));
    assert.equal(err.code, 'REDVOTE_INVALID_CONFIG');
    return true;
  });
  assert.equal(await ctx.redis.debug('DIGEST'), before, 'the ordering the first call built is gone');
});
