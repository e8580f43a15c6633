// Type-checked by test/types.test.js (tsc --strict --noEmit): the
// declarations accept the documented calls and give the documented replies.
import Redis from 'ioredis';
import redvote, {
  Campaign,
  CampaignRegistry,
  Site,
  RedvoteError,
  RateLimitedError,
  InvalidUserError,
  errorClasses,
  runScript,
  ScriptRegistry,
  type Ballot,
  type BoardPage,
  type Folded,
  type ErrorCode,
  type ScriptName,
} from 'redvote';

async function main(): Promise<void> {
  const redis = new Redis(process.env.REDVOTE_URL ?? 'redis://127.0.0.1:6379');
  const spring = new Campaign(redis, 'spring2026');
  const ballots: Ballot[] = await spring.vote('user:1', [['male-stars', 'yyqx']], { voteId: 'req-1', channel: 'web', cost: 1 });
  const replayed: boolean = ballots[0].replay;
  // without a voteId the package makes one; the ballots name it
  const [own] = await spring.vote('user:2', [['male-stars', 'wjk']]);
  const ownId: string = own.voteId;
  await spring.void(ownId);
  const pages: BoardPage[] = await spring.top(['male-stars'], { kind: 'shown', period: 'total', perPage: 10 });
  const rank: number | null = (await spring.standing('male-stars', ['wjk']))[0].rank;
  const around = await spring.around('male-stars', 'wjk', { window: 3 });
  const pct: string | null = around.percentile;
  const imported: number = (await spring.import('male-stars', { yyqx: 120 })).changed;
  const parts = (await spring.participants('male-stars', ['yyqx'])).options[0].participants;
  const bucket = (await spring.stats('male-stars', { granularity: 'hour', from: 0, to: 3600 }))[0];
  const amount: number = bucket.amount;
  const voided = await spring.void('req-1');
  const status: 'voided' | 'already_voided' = voided.status;
  await spring.voidRange('user', 'user:1', { to: 4102444800 });
  await spring.limits('user:1', [['male-stars', 'yyqx']], { channel: 'web' });
  await spring.limitsReset('user:1');
  await spring.reindex('male-stars', { count: 100 });
  await spring.upgrade();
  await spring.settings();
  await spring.configure({ boards: { b: { periods: ['day', 'total'], options: { o: { weight: 2 } } } } });
  // a hot campaign: votes buffered, folded onto the boards in batches
  const hot = new Campaign(redis, 'final');
  await hot.configure({ mode: 'buffered', fold_ms: 500, boards: { b: { options: { o: {} } } } });
  const buffered: number | null = (await hot.vote('user:1', ['b', 'o']))[0].folded;
  let step: Folded = await hot.fold();
  while (step.left > 0) step = await hot.fold(1000);
  const until: number = step.until;
  const pageFolded: number | null = (await hot.top('b'))[0].folded;
  const standingFolded: number | null = (await hot.standing('b', 'o'))[0].folded;
  const aroundFolded: number | null = (await hot.around('b', 'o')).folded;
  // @ts-expect-error the mode is "immediate" or "buffered"
  await hot.configure({ mode: 'batched' });

  const site = new Site(redis, { prefix: 'app:' });
  const id: number = await site.post('user:1', 'Hello', 'https://example.com');
  const v = await site.vote('user:2', id, 'down');
  const votes: number = v.votes;
  const page = await site.page('hot', 1, 10, { withScores: true });
  const title: string | undefined = page.articles[0]?.title;
  await site.groups(id, { add: ['redis'], remove: 'lua' });
  await site.groupPage('redis', 'score');
  const size: number = (await site.config()).page_size;
  await site.configure({ rankings: ['hot', 'best'] });
  await site.rerank(0, 500);
  await site.article(id, 'user:2');

  const registry = new CampaignRegistry(redis);
  const fresh: number = await registry.register(['spring2026']);
  const names: string[] = (await registry.registry({ cursor: 0, count: 100 })).names;

  const pipe = redis.pipeline();
  const queued: Promise<Ballot[]> = spring.on(pipe).vote('user:3', ['male-stars', 'wjk']);
  await pipe.exec();
  await queued;

  const raw: unknown = await runScript(redis, 'campaign_top', ['{c:spring2026}:campaign'], ['shown', 'total', 1, 10, '', 'male-stars']);
  const script: ScriptName = 'campaign_vote';
  new ScriptRegistry(redis).sha(script);

  try {
    await spring.vote('', [['male-stars', 'yyqx']]);
  } catch (err) {
    if (err instanceof RateLimitedError) {
      const wait: number | undefined = err.data?.retryAfter;
      const old: number | undefined = err.data?.retry_after; // the deprecated alias still types
      console.log(wait, old);
    } else if (err instanceof InvalidUserError) {
      const code: 'REDVOTE_INVALID_USER' = err.code;
      console.log(code);
    } else if (err instanceof RedvoteError) {
      const code: ErrorCode = err.code;
      // @ts-expect-error err.code is the union of codes, not any string: a typo is caught
      const typo = err.code === 'REDVOTE_INVALID_USR';
      switch (err.code) {
        case 'REDVOTE_VOTE_ID_REUSED':
        case 'REDVOTE_RATE_LIMITED':
          break;
        default: {
          const other: Exclude<ErrorCode, 'REDVOTE_VOTE_ID_REUSED' | 'REDVOTE_RATE_LIMITED'> = err.code;
          console.log(other);
        }
      }
      console.log(code, typo, err.detail);
    }
  }
  const cls: typeof InvalidUserError = errorClasses.InvalidUserError;
  console.log(buffered, until, pageFolded, standingFolded, aroundFolded, step.folded, step.overflow);
  console.log(replayed, pages, rank, pct, imported, parts, amount, status, votes, title, size, fresh, names, raw, cls, redvote.VERSION);
  redis.disconnect();
}

void main;
