'use strict';
// Every script of the manifest has a typed call, and each typed call sends
// its script with an argument count the manifest allows (a recording client,
// no server).
const test = require('node:test');
const assert = require('node:assert/strict');
const { MANIFEST, SCRIPT_METHODS, Site, Campaign, CampaignRegistry, commandName } = require('..');

const CLASSES = { Site, Campaign, CampaignRegistry };

/** A stand-in for an ioredis client that records the scripts it is sent. */
function recorder() {
  const calls = [];
  const client = {
    scriptsSet: {},
    defineCommand(name, def) {
      this.scriptsSet[name] = { sha: require('node:crypto').createHash('sha1').update(def.lua).digest('hex') };
      this[name] = (numkeys, ...rest) => {
        const callback = rest.pop(); // ioredis's callback form, as the calls send it
        calls.push({ name, keys: rest.slice(0, numkeys), args: rest.slice(numkeys) });
        callback(new Error('recorded'));
      };
    },
  };
  return { client, calls };
}

// One sample call of each typed method.
const SAMPLES = {
  Site: {
    post: (s) => s.post('u', 't', 'https://x'),
    vote: (s) => s.vote('u', 1, 'down'),
    page: (s) => s.pageMembers('score', 1, 10),
    article: (s) => s.article(1, 'u'),
    groups: (s) => s.groups(1, { add: ['a', 'b'], remove: ['c'] }),
    groupPage: (s) => s.groupPageMembers('a', 'score', 1),
    configure: (s) => s.configure({ page_size: 10, rankings: ['hot', 'best'] }),
    config: (s) => s.config(),
    rerank: (s) => s.rerank(0, 10),
    upgrade: (s) => s.upgrade({ cursor: '0', count: 10 }),
  },
  Campaign: {
    configure: (c) => c.configure({ boards: {} }),
    vote: (c) => c.vote('u', [['b', 'o'], ['b2', 'o2']], { voteId: 'id', channel: 'ch', device: 'pc', cost: 2, time: 1 }),
    fold: (c) => c.fold(10),
    top: (c) => c.top(['b', 'c']),
    around: (c) => c.around('b', 'o'),
    standing: (c) => c.standing('b', ['o', 'p']),
    limits: (c) => c.limits('u', [['b', 'o']]),
    limitsReset: (c) => c.limitsReset('u'),
    participants: (c) => c.participants('b', ['o']),
    import: (c) => c.import('b', { o: 5, p: '1.5' }),
    reindex: (c) => c.reindex('b'),
    removeStep: (c) => c.removeStep('b', { cursor: '0', count: 10 }),
    settings: (c) => c.settings(),
    stats: (c) => c.stats('b', { granularity: 'day', from: 0, to: 86400 }),
    void: (c) => c.void('id'),
    voidRange: (c) => c.voidRange('user', 'u', { from: 0, to: 10 }),
    upgrade: (c) => c.upgrade(),
  },
  CampaignRegistry: {
    register: (r) => r.register(['a', 'b']),
    registry: (r) => r.registry(),
  },
};

function argBounds(entry) {
  let min = 0;
  let max = 0;
  for (const a of entry.argv) {
    const width = a.type.includes('/') ? 2 : 1;
    if (a.variadic) {
      const [lo, hi] = (a.repeat || '0..100000').split('..').map(Number);
      min += lo * width;
      max += hi * width;
    } else {
      max += 1;
      if (!a.optional) min += 1;
    }
  }
  return { min, max };
}

test('every manifest script has a typed call, and every typed call a script', () => {
  const names = MANIFEST.scripts.map((s) => s.name).sort();
  assert.deepEqual(Object.keys(SCRIPT_METHODS).sort(), names, 'SCRIPT_METHODS lists exactly the manifest scripts');
  for (const [script, [cls, method]] of Object.entries(SCRIPT_METHODS)) {
    assert.equal(typeof CLASSES[cls].prototype[method], 'function', `${script}: ${cls}.${method}`);
    assert.ok(SAMPLES[cls][method], `${script}: a sample call of ${cls}.${method}`);
  }
});

test('each typed call sends its script, one key, and arguments the manifest allows', async () => {
  for (const entry of MANIFEST.scripts) {
    const [cls, method] = SCRIPT_METHODS[entry.name];
    const { client, calls } = recorder();
    const obj = cls === 'Campaign' ? new Campaign(client, 'g') : new CLASSES[cls](client);
    await SAMPLES[cls][method](obj).catch(() => {});
    assert.equal(calls.length, 1, `${cls}.${method} sends one script`);
    const [call] = calls;
    assert.equal(call.name, commandName(entry.name), `${cls}.${method} sends ${entry.name}`);
    assert.equal(call.keys.length, 1);
    const root = { Site: 'article:', Campaign: '{c:g}:campaign', CampaignRegistry: '{c}:campaigns' }[cls];
    assert.equal(call.keys[0], root, `${entry.name}: the key`);
    const { min, max } = argBounds(entry);
    assert.ok(call.args.length >= min && call.args.length <= max, `${entry.name}: ${call.args.length} args, manifest ${min}..${max}`);
    for (const a of call.args) assert.equal(typeof a, 'string', `${entry.name}: arguments are strings`);
  }
});
