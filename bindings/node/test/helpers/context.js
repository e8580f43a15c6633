'use strict';
// One throwaway server per test file, FLUSHALL between tests.
const { before, after, beforeEach } = require('node:test');
const { startServer } = require('./server');

function withServer() {
  const ctx = {};
  before(async () => {
    ctx.server = await startServer();
    ctx.redis = ctx.server.client();
  });
  beforeEach(async () => {
    await ctx.redis.flushall();
  });
  after(async () => {
    if (ctx.server) await ctx.server.stop();
  });
  return ctx;
}

module.exports = { withServer };
