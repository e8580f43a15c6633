'use strict';
// Typed calls for every script: Site (the article site), Campaign and
// CampaignRegistry. Each method builds the script's KEYS and ARGV, runs it
// and answers the reply as a plain object (see index.d.ts). Built on a
// client, a call answers a promise of its reply; built on a pipeline or a
// MULTI (campaign.on(pipeline)), it queues the script and its promise
// settles when exec() runs.
const { run, runRaw, defineScripts, isPipeline } = require('./scripts');
const { randomBytes } = require('node:crypto');
const { translateError, errorClassFor } = require('./errors');

/** Which typed call sends each script: script -> [class, method]. */
const SCRIPT_METHODS = Object.freeze({
  post: ['Site', 'post'],
  vote: ['Site', 'vote'],
  page: ['Site', 'page'],
  article: ['Site', 'article'],
  groups: ['Site', 'groups'],
  group_page: ['Site', 'groupPage'],
  configure: ['Site', 'configure'],
  config: ['Site', 'config'],
  rerank: ['Site', 'rerank'],
  upgrade: ['Site', 'upgrade'],
  campaign_configure: ['Campaign', 'configure'],
  campaign_vote: ['Campaign', 'vote'],
  campaign_fold: ['Campaign', 'fold'],
  campaign_top: ['Campaign', 'top'],
  campaign_around: ['Campaign', 'around'],
  campaign_standing: ['Campaign', 'standing'],
  campaign_limits: ['Campaign', 'limits'],
  campaign_limits_reset: ['Campaign', 'limitsReset'],
  campaign_participants: ['Campaign', 'participants'],
  campaign_import: ['Campaign', 'import'],
  campaign_reindex: ['Campaign', 'reindex'],
  campaign_remove: ['Campaign', 'removeStep'],
  campaign_settings: ['Campaign', 'settings'],
  campaign_stats: ['Campaign', 'stats'],
  campaign_void: ['Campaign', 'void'],
  campaign_void_range: ['Campaign', 'voidRange'],
  campaign_upgrade: ['Campaign', 'upgrade'],
  campaign_register: ['CampaignRegistry', 'register'],
  campaign_registry: ['CampaignRegistry', 'registry'],
});

// The script reads an empty id as "no id" (counted on every send); sent as a
// control character instead, it is refused (REDVOTE_INVALID_VOTE_ID) before
// anything is read or written, as the Rust driver does.
const sentVoteId = (id) => (id === '' ? '\u0000' : id);
const time = (t) => (t === undefined || t === null ? '' : String(t));
const opt = (v) => (v === undefined || v === null ? '' : String(v));
const list = (v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
// A buffered campaign's "how far folded" (Unix ms, as a string) as a number;
// null on an immediate campaign, whose replies lack it.
const foldedMs = (v) => (v === undefined || v === null ? null : Number(v));

/** [[board, option], ...] or [{board, option}, ...] or one [board, option]. */
function flatPairs(pairs, a = 'board', b = 'option') {
  if (!Array.isArray(pairs)) throw new TypeError(`redvote: pairs must be an array of [${a}, ${b}]`);
  if (pairs.length === 2 && typeof pairs[0] === 'string' && typeof pairs[1] === 'string') pairs = [pairs];
  return pairs.flatMap((p) => (Array.isArray(p) ? [p[0], p[1]] : [p[a], p[b]]));
}

class Bound {
  constructor(client) {
    if (!client) throw new TypeError('redvote: an ioredis client, pipeline or multi is required');
    this.client = client;
    defineScripts(client);
  }
  get inPipeline() {
    return isPipeline(this.client);
  }
  _run(name, args) {
    return run(this.client, name, [this.root], args);
  }
  _then(promise, fn) {
    const p = promise.then(fn);
    if (this.inPipeline) p.catch(() => {}); // see handled() in scripts.js
    return p;
  }
}

const SITE_INTS = ['vote_score', 'window', 'page_size'];
function siteConfig(raw) {
  const out = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'rankings') out[k] = v === '' ? [] : String(v).split(',');
    else if (SITE_INTS.includes(k) && /^\d+$/.test(String(v))) out[k] = Number(v);
    else out[k] = v;
  }
  return out;
}

function articleId(article) {
  return String(article);
}

class Site extends Bound {
  /**
   * The article site under `prefix` (default ""): its root key is
   * `<prefix>article:`.
   */
  constructor(client, { prefix = '' } = {}) {
    super(client);
    this.prefix = prefix;
    this.root = `${prefix}article:`;
  }
  /** The same site, its calls queued on `pipeline` (or a multi). */
  on(pipeline) {
    return new Site(pipeline, { prefix: this.prefix });
  }
  /** post.lua: a new article; answers its id. `time` only on the import path. */
  post(user, title, link, { time: t } = {}) {
    return this._run('post', t === undefined ? [user, title, link] : [user, title, link, String(t)]);
  }
  /** vote.lua: `up` (default), `down` or `none` (retract). */
  vote(user, article, vote = 'up') {
    return this._run('vote', [user, articleId(article), vote]);
  }
  /** article.lua: one article, its score, rank and `user`'s vote. */
  article(article, user) {
    const args = user === undefined ? [articleId(article)] : [articleId(article), user];
    // the script answers the id as it stores it, digits: a number here, as post() answers
    return this._then(this._run('article', args), (a) => ({ ...a, id: Number(a.id) }));
  }
  /** page.lua alone: the page's article keys (one round trip; usable in a pipeline). */
  pageMembers(order, page = 1, perPage) {
    const args = perPage === undefined ? [order, String(page)] : [order, String(page), String(perPage)];
    return this._then(this._run('page', args), members);
  }
  /** group_page.lua alone: the group page's article keys. */
  groupPageMembers(group, order, page = 1, perPage) {
    const args = perPage === undefined ? [group, order, String(page)] : [group, order, String(page), String(perPage)];
    return this._then(this._run('group_page', args), members);
  }
  /**
   * page.lua, then one MULTI of HGETALL for the page's articles (the
   * driver's two round trips, docs/site.md#pages). `withScores` reads their
   * scores in the same MULTI.
   */
  page(order, page = 1, perPage, { withScores = false } = {}) {
    this._direct('page');
    return this.pageMembers(order, page, perPage).then((p) => this._articles(p, withScores, null));
  }
  /** group_page.lua, then the articles as for page(). */
  groupPage(group, order, page = 1, perPage, { withScores = false } = {}) {
    this._direct('groupPage');
    return this.groupPageMembers(group, order, page, perPage).then((p) =>
      this._articles(p, withScores, p.built ? `${this.prefix}${order}:${group}` : null),
    );
  }
  _direct(method) {
    if (this.inPipeline) {
      throw new TypeError(`redvote: Site.${method} takes two round trips; in a pipeline use ${method}Members`);
    }
  }
  // The second round trip (docs/site.md#pages): a refusal there (an article
  // key of the wrong type) is REDVOTE_INVALID_CONFIG, and the group ordering
  // the first call built (`built`, its key) is deleted, so nothing stays.
  async _articles(p, withScores, built) {
    if (!p.members.length) return { ...p, articles: [] };
    const m = this.client.multi();
    if (withScores) m.zmscore(`${this.prefix}score:`, ...p.members);
    for (const key of p.members) m.hgetall(this.prefix + key);
    let res;
    let failed;
    try {
      res = await m.exec();
      failed = res.find(([err]) => err);
    } catch (err) {
      failed = [err];
    }
    if (failed) {
      if (built) await this.client.del(built);
      const InvalidConfig = errorClassFor('REDVOTE_INVALID_CONFIG');
      throw new InvalidConfig(`reading the page's articles: ${failed[0].message}`, failed[0]);
    }
    const values = res.map(([, v]) => v);
    const scores = withScores ? values.shift() : null;
    const articles = p.members.map((key, i) => {
      const a = { id: Number(key.slice(key.indexOf(':') + 1)), key, ...values[i] };
      if (withScores) a.score = scores[i];
      return a;
    });
    return { ...p, articles };
  }
  /** groups.lua: adds the article to groups and removes it from others. */
  groups(article, { add = [], remove = [] } = {}) {
    const tokens = [...list(add).map((g) => `+${g}`), ...list(remove).map((g) => `-${g}`)];
    return this._then(this._run('groups', [articleId(article), ...tokens]), counts);
  }
  /**
   * configure.lua: writes settings ({vote_score, window, page_size,
   * rankings}); answers all of them.
   */
  configure(settings = {}) {
    const args = [];
    for (const [k, v] of Object.entries(settings)) {
      if (v === undefined) continue;
      args.push(k, Array.isArray(v) ? v.join(',') : String(v));
    }
    return this._then(this._run('configure', args), siteConfig);
  }
  /** config.lua: the settings (read-only). */
  config() {
    return this._then(this._run('config', []), siteConfig);
  }
  /** rerank.lua: ranks `count` articles from `start` in hot: and best:. */
  rerank(start = 0, count = 500) {
    return this._run('rerank', [String(start), String(count)]);
  }

  /** upgrade.lua: one step moving the site to data layout 2 (group boards kept up to date); loop until next is "0". */
  upgrade({ cursor = '0', count = 100 } = {}) {
    return this._run('upgrade', [String(cursor), String(count)]);
  }
}

// groups.lua and campaign_import.lua answer two counts.
function counts(p) {
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, Number(v)]));
}

// A page's members: one space-separated string of `n` article keys (a key
// holding a space would split into more: refused as the Python package does).
function members(p) {
  const list = p.members === '' ? [] : p.members.split(' ');
  if (list.length !== Number(p.n)) {
    const InvalidConfig = errorClassFor('REDVOTE_INVALID_CONFIG');
    throw new InvalidConfig(`the page lists ${list.length} article keys, ${p.n} expected`);
  }
  return { ...p, members: list };
}

class Campaign extends Bound {
  /**
   * The campaign `name` in the namespace `{c:NAME}:` (its root key
   * `{c:NAME}:campaign`), or under `namespace`.
   */
  constructor(client, name, { namespace, at } = {}) {
    super(client);
    this.name = name;
    this.namespace = namespace ?? `{c:${name}}:`;
    this.root = `${this.namespace}campaign`;
    this.at = at;
  }
  /** The same campaign, its calls queued on `pipeline` (or a multi). */
  on(pipeline) {
    return new Campaign(pipeline, this.name, { namespace: this.namespace, at: this.at });
  }
  /** The same campaign with every call at Unix time `t` (test/import path). */
  atTime(t) {
    return new Campaign(this.client, this.name, { namespace: this.namespace, at: t });
  }
  _time(t) {
    return time(t === undefined ? this.at : t);
  }
  /** campaign_configure.lua: the settings document (an object or JSON text). */
  configure(settings) {
    return this._run('campaign_configure', [typeof settings === 'string' ? settings : JSON.stringify(settings)]);
  }
  /** campaign_settings.lua: the settings document (read-only). */
  settings() {
    return this._run('campaign_settings', []);
  }
  /**
   * campaign_vote.lua: `user` votes for each [board, option] pair, all or
   * nothing, exactly once: the call carries a vote id (`voteId`, or one the
   * package makes for it), so a resend of it (ioredis resends what a dropped
   * connection left unanswered) answers the first reply (replay: true) and
   * counts nothing. Each ballot names the id (`voteId`, for `void`). On a
   * buffered campaign the vote is accepted but not on the boards yet: its
   * scores are empty and `folded` says how far the boards are folded (Unix
   * ms; null on an immediate campaign).
   */
  vote(user, pairs, { voteId, channel, device, cost, time: t } = {}) {
    const id = voteId === undefined || voteId === null ? `auto-${randomBytes(16).toString('hex')}` : String(voteId);
    const args = [user, this._time(t), opt(channel), opt(device), opt(cost), sentVoteId(id), ...flatPairs(pairs)];
    return this._then(this._run('campaign_vote', args), (ballots) =>
      ballots.map((b) => ({ ...b, replay: b.replay === 'replay', voteId: id, folded: foldedMs(b.folded) }))
    );
  }
  /**
   * campaign_fold.lua: writes up to `max` (1..1000) of a buffered
   * campaign's oldest votes to its boards in one atomic call; `left` is how
   * many are still buffered (fold again until 0), `until` the Unix ms
   * before which every accepted vote is on the boards. On an immediate
   * campaign it folds nothing.
   */
  fold(max = 1000) {
    return this._then(this._run('campaign_fold', [String(max)]), (f) => ({
      folded: f.folded,
      left: f.left,
      until: Number(f.foldedUntil),
      overflow: f.overflow,
    }));
  }
  /** campaign_top.lua: a page of each board (`folded`: as for a ballot). */
  top(boards, { kind = 'shown', period = 'total', page = 1, perPage = 10, time: t } = {}) {
    const args = [kind, period, String(page), String(perPage), this._time(t), ...list(boards)];
    return this._then(this._run('campaign_top', args), (pages) => pages.map((p) => ({ ...p, folded: foldedMs(p.folded) })));
  }
  /** campaign_around.lua: `window` members centred on `member` (`folded`: as for a ballot). */
  around(board, member, { kind = 'shown', period = 'total', time: t, window = 5, perPage = 10 } = {}) {
    const args = [board, kind, period, this._time(t), member, String(window), String(perPage)];
    return this._then(this._run('campaign_around', args), (a) => ({ ...a, folded: foldedMs(a.folded) }));
  }
  /** campaign_standing.lua: each member's rank, score and gap to the one ahead (`folded`: as for a ballot). */
  standing(board, members, { kind = 'shown', period = 'total', time: t } = {}) {
    const args = [board, kind, period, this._time(t), ...list(members)];
    return this._then(this._run('campaign_standing', args), (all) => all.map((s) => ({ ...s, folded: foldedMs(s.folded) })));
  }
  /** campaign_limits.lua: what each rate-limit rule leaves `user` (read-only). */
  limits(user, pairs = [], { channel, device, time: t } = {}) {
    return this._run('campaign_limits', [user, this._time(t), opt(channel), opt(device), ...flatPairs(pairs)]);
  }
  /** campaign_limits_reset.lua: deletes the voter's counters; answers how many. */
  limitsReset(user, pairs = [], { channel, device, time: t } = {}) {
    return this._run('campaign_limits_reset', [user, this._time(t), opt(channel), opt(device), ...flatPairs(pairs)]);
  }
  /** campaign_participants.lua: unique participants of the campaign and of options. */
  participants(board, options = []) {
    return this._then(this._run('campaign_participants', [board, ...list(options)]), (p) => ({
      campaign: p.campaign,
      options: p.rest,
    }));
  }
  /** campaign_import.lua: sets imported votes ({option: votes} or [[option, votes]]). One call's work
   * is bounded: on a client, the pairs a call leaves are sent again until none is (each call atomic)
   * and the counts of every call come back (rest 0); in a pipeline it is one call (see rest). */
  import(board, votes, { time: t } = {}) {
    const entries = Array.isArray(votes) ? votes : Object.entries(votes);
    const once = (left) =>
      this._then(this._run('campaign_import', [board, this._time(t), ...left.flatMap(([o, v]) => [o, String(v)])]), counts);
    if (this.inPipeline) return once(entries);
    return (async () => {
      let left = entries;
      const total = { changed: 0, unchanged: 0, rest: 0 };
      for (;;) {
        const done = await once(left);
        total.changed += done.changed;
        total.unchanged += done.unchanged;
        total.rest = done.rest;
        if (done.rest === 0 || done.rest >= left.length) return total;
        left = left.slice(left.length - done.rest);
      }
    })();
  }
  /** campaign_reindex.lua: one step of a tie-rule switch; loop until next is "0". */
  reindex(board, { cursor = '0', count = 100 } = {}) {
    return this._run('campaign_reindex', [board, String(cursor), String(count)]);
  }
  /** campaign_remove.lua: one step of finishing a removal of options (configure's `remove`); loop until next is "0". */
  removeStep(board, { cursor = '0', count = 100 } = {}) {
    return this._run('campaign_remove', [board, String(cursor), String(count)]);
  }
  /** campaign_stats.lua: hourly or daily buckets from `from` to `to` (Unix seconds). */
  stats(board, { granularity = 'hour', from, to } = {}) {
    return this._run('campaign_stats', [board, granularity, String(from), String(to)]);
  }
  /** campaign_void.lua: takes back what the vote with this id added. */
  void(voteId) {
    return this._run('campaign_void', [voteId]);
  }
  /** campaign_void_range.lua: voids logged votes of a user or channel in [from, to]. */
  voidRange(by, value, { from = 0, to, cursor = '0', count = 100 } = {}) {
    return this._run('campaign_void_range', [by, value, String(from), String(to), String(cursor), String(count)]);
  }
  /** campaign_upgrade.lua: one step moving the campaign's data layout forward; loop until next is "0". */
  upgrade({ cursor = '0', count = 100 } = {}) {
    return this._run('campaign_upgrade', [String(cursor), String(count)]);
  }
}

const REGISTRY_KEY = '{c}:campaigns';

class CampaignRegistry extends Bound {
  /** The registry of campaigns, the sorted set `{c}:campaigns` by default. */
  constructor(client, { key = REGISTRY_KEY } = {}) {
    super(client);
    this.root = key;
  }
  on(pipeline) {
    return new CampaignRegistry(pipeline, { key: this.root });
  }
  /** campaign_register.lua: registers names once each; answers how many were new. */
  register(names) {
    return this._run('campaign_register', list(names));
  }
  /** campaign_registry.lua: one page of names; `next` 0 when done. */
  registry({ cursor = 0, count = 100 } = {}) {
    return this._then(this._run('campaign_registry', [String(cursor), String(count)]), (p) => ({
      next: p.next,
      total: p.total,
      names: p.rest,
    }));
  }
  /** Every registered name (registry() until next is 0). */
  async names({ count = 1000 } = {}) {
    const out = [];
    let cursor = 0;
    do {
      const p = await this.registry({ cursor, count });
      out.push(...p.names);
      cursor = p.next;
    } while (cursor !== 0);
    return out;
  }
}

module.exports = { Site, Campaign, CampaignRegistry, SCRIPT_METHODS, REGISTRY_KEY, runRaw };
