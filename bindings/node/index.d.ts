// Type declarations of the redvote Node package. The error part (between the
// GENERATED markers) is written by `node tools/generate.js` from the
// manifest's codes; test/types.test.js checks both parts against the manifest.
import type { Redis, Cluster, ChainableCommander } from 'ioredis';

/**
 * A client of another ioredis 5 copy than the package's own (an
 * application's ioredis of another 5.x version): structurally, what the
 * package uses of it.
 */
export interface ClientLike {
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number | null; readOnly?: boolean }): void;
}
/** A pipeline or MULTI of another ioredis 5 copy. */
export interface PipelineLike {
  exec(): Promise<unknown>;
}
/** A pipeline or MULTI: redis.pipeline(), redis.multi(). */
export type Pipeline = ChainableCommander | PipelineLike;
/** An ioredis client, or a pipeline / MULTI made from one. */
export type Client = Redis | Cluster | Pipeline | ClientLike;

// ---- the manifest -------------------------------------------------------

export interface ManifestArg {
  index: number;
  name: string;
  type: string;
  bounds?: string;
  optional: boolean;
  default?: string;
  empty?: string;
  variadic: boolean;
  repeat?: string;
}
export interface ManifestScript {
  name: ScriptName;
  file: string;
  source: string;
  sha1: string;
  version: string;
  flags: string[];
  key: { root: string; derives: string[] };
  argv: ManifestArg[];
  reply: string;
  errors: ErrorCode[];
  idempotent: 'yes' | 'no' | 'with vote id';
  vote_id: boolean;
}
export interface Manifest {
  $schema: string;
  redvote: string;
  scripts: ManifestScript[];
}
/** A loaded script: its manifest entry and its text. */
export interface Script extends ManifestScript {
  lua: string;
}

export declare const MANIFEST: Manifest;
export declare const SCRIPTS: ReadonlyMap<ScriptName, Script>;
export declare const CODES: readonly ErrorCode[];
export declare const VERSION: string;
export declare const LUA_DIR: string;
export declare const REGISTRY_KEY: string;
/** Which typed call sends each script: script -> [class, method]. */
export declare const SCRIPT_METHODS: { readonly [S in ScriptName]: readonly [string, string] };
/** The scripts of `dir` (default: the package's) whose SHA1 is not the manifest's. */
export declare function verifyScripts(dir?: string): { name: string; file: string; expected: string; actual: string }[];

// ---- the low-level registry ---------------------------------------------

export type Arg = string | number;

/** Defines every script on an ioredis client as a custom command (once). */
export declare function defineScripts<C extends Client>(client: C): C;
/** The ioredis command name of a script ("redvote_campaign_vote"). */
export declare function commandName(name: ScriptName): string;
/** Runs a script by name; the raw reply (RESP2 as ioredis reads it). */
export declare function runScriptRaw(client: Client, name: ScriptName, keys: string[], args?: Arg[]): Promise<unknown>;
/** Runs a script by name; the reply read by its manifest shape (camelCase fields). */
export declare function runScript(client: Client, name: ScriptName, keys: string[], args?: Arg[]): Promise<unknown>;
/** Reads a raw reply of a script by its manifest shape. */
export declare function readReply(name: ScriptName, raw: unknown): unknown;

export declare class ScriptRegistry {
  constructor(client: Client);
  readonly client: Client;
  readonly names: ScriptName[];
  get(name: ScriptName): Script;
  sha(name: ScriptName): string;
  run(name: ScriptName, keys: string[], args?: Arg[], target?: Client): Promise<unknown>;
  runRaw(name: ScriptName, keys: string[], args?: Arg[], target?: Client): Promise<unknown>;
  /** SCRIPT LOAD of every script; answers name -> SHA1. */
  load(target?: Client): Promise<Record<ScriptName, string>>;
}

// ---- the article site ---------------------------------------------------

export type Order = 'score' | 'time' | 'hot' | 'best';
export type ArticleRef = number | string;

export interface SiteVote {
  changed: number;
  previous: 'up' | 'down' | 'none';
  vote: 'up' | 'down' | 'none';
  score: string;
  votes: number;
  downvotes: number;
}
export interface ArticleInfo {
  id: number;
  score: string | null;
  rank: number | null;
  /** The asking user's vote ("none" without a user). */
  vote: string;
  fields: Record<string, string>;
}
export interface PageMembers {
  total: number;
  perPage: number;
  /** The page's article keys without the prefix ("article:9"), best first. */
  members: string[];
  n: number;
}
export interface GroupPageMembers extends PageMembers {
  /** 1 when this call built the group's cached ordering. */
  built: number;
}
export interface PageArticle {
  id: number;
  key: string;
  title?: string;
  link?: string;
  poster?: string;
  time?: string;
  votes?: string;
  downvotes?: string;
  /** With { withScores: true }. */
  score?: string | null;
  [field: string]: unknown;
}
export interface Page extends PageMembers {
  articles: PageArticle[];
}
export interface GroupPage extends GroupPageMembers {
  articles: PageArticle[];
}
export interface GroupChange {
  added: number;
  removed: number;
}
export interface SiteSettings {
  vote_score?: number;
  window?: number;
  page_size?: number;
  rankings?: ('hot' | 'best')[] | string;
}
export interface SiteConfig {
  vote_score: number;
  window: number;
  page_size: number;
  rankings: ('hot' | 'best')[];
  [field: string]: unknown;
}
export interface Reranked {
  ranked: number;
  next: number;
}

export declare class Site {
  /** The site under `prefix` (default ""): root key `<prefix>article:`. */
  constructor(client: Client, options?: { prefix?: string });
  readonly client: Client;
  readonly prefix: string;
  readonly root: string;
  /** The same site, its calls queued on a pipeline or MULTI. */
  on(pipeline: Pipeline): Site;
  /** post.lua: answers the new article's id. */
  post(user: string, title: string, link: string, options?: { time?: number }): Promise<number>;
  /** vote.lua */
  vote(user: string, article: ArticleRef, vote?: 'up' | 'down' | 'none'): Promise<SiteVote>;
  /** article.lua */
  article(article: ArticleRef, user?: string): Promise<ArticleInfo>;
  /** page.lua, then one MULTI of HGETALL (two round trips; not on a pipeline). */
  page(order: Order, page?: number, perPage?: number, options?: { withScores?: boolean }): Promise<Page>;
  /** page.lua alone (one round trip; usable on a pipeline). */
  pageMembers(order: Order, page?: number, perPage?: number): Promise<PageMembers>;
  /** group_page.lua, then the articles as for page(). */
  groupPage(group: string, order: Order, page?: number, perPage?: number, options?: { withScores?: boolean }): Promise<GroupPage>;
  /** group_page.lua alone. */
  groupPageMembers(group: string, order: Order, page?: number, perPage?: number): Promise<GroupPageMembers>;
  /** groups.lua */
  groups(article: ArticleRef, change: { add?: string[] | string; remove?: string[] | string }): Promise<GroupChange>;
  /** configure.lua */
  configure(settings: SiteSettings): Promise<SiteConfig>;
  /** config.lua (read-only) */
  config(): Promise<SiteConfig>;
  /** rerank.lua */
  rerank(start?: number, count?: number): Promise<Reranked>;
  /** upgrade.lua: one step to site data layout 2; loop until next is "0" */
  upgrade(options?: { cursor?: string; count?: number }): Promise<Upgraded>;
}

// ---- campaigns ----------------------------------------------------------

export type Kind = 'real' | 'shown';
/** hour, day, week, month, total, or a period name such as day:2026-03-17. */
export type Period = string;
/** Unix seconds; omitted: the server's clock. */
export type Time = number;
export type Pair = readonly [board: string, option: string] | { board: string; option: string };

export interface Ballot {
  board: string;
  option: string;
  /** Period name -> the shown score, fixed decimals. */
  scores: Record<string, string>;
  /**
   * True when the vote id was already applied (by an earlier send of the
   * same call, or an earlier call with the same `voteId`): this send counted
   * nothing and the scores are the first reply's.
   */
  replay: boolean;
  /**
   * The vote id the call carried: the caller's `voteId`, or the one the
   * package made for the call (for `campaign.void(id)`).
   */
  voteId: string;
  /**
   * On a buffered campaign (`mode: 'buffered'`) the vote is accepted but not
   * on the boards yet (`scores` is empty): the Unix ms before which every
   * accepted vote is on the boards. null on an immediate campaign.
   */
  folded: number | null;
}
export interface Entry {
  member: string;
  score: string;
  rank: number;
}
export interface BoardPage {
  board: string;
  period: string;
  size: number;
  members: Entry[];
  /** On a buffered campaign, the Unix ms before which every accepted vote is on the boards; null on an immediate one. */
  folded: number | null;
}
/** campaign_fold.lua's reply. */
export interface Folded {
  /** Buffered votes this call wrote to the boards. */
  folded: number;
  /** Votes still buffered: fold again until 0. */
  left: number;
  /** Unix ms before which every accepted vote is on the boards. */
  until: number;
  /** Board entries left out because they would leave the exact range. */
  overflow: number;
}
export interface Around {
  size: number;
  pages: number;
  rank: number | null;
  percentile: string | null;
  page: number | null;
  window: Entry[];
  /** On a buffered campaign, the Unix ms before which every accepted vote is on the boards; null on an immediate one. */
  folded: number | null;
}
export interface Standing {
  member: string;
  rank: number | null;
  score: string | null;
  ahead: string | null;
  gap: string | null;
  previousRank: number | null;
  previousScore: string | null;
  /** On a buffered campaign, the Unix ms before which every accepted vote is on the boards; null on an immediate one. */
  folded: number | null;
}
export interface LimitLeft {
  rule: string;
  remaining: number;
  resetIn: number;
}
export interface Participants {
  campaign: number;
  options: { option: string; participants: number }[];
}
export interface Imported {
  changed: number;
  unchanged: number;
  /** Pairs left (one call's work is bounded): send the last `rest` again; 0 when done. */
  rest: number;
}
export interface Reindexed {
  indexed: number;
  finished: number;
  next: string;
}
export interface RemoveStep {
  removed: number;
  finished: number;
  next: string;
}
export interface StatsBucket {
  bucket: string;
  start: number;
  votes: number;
  amount: number;
  voided: number;
  voidedAmount: number;
  participants: number;
  channels: Record<string, number>;
  devices: Record<string, number>;
}
export interface Voided {
  status: 'voided' | 'already_voided';
  at: number;
  changed: number;
  skipped: number;
}
export interface VoidedRange {
  voided: number;
  skipped: number;
  next: string;
}
export interface Upgraded {
  from: number;
  to: number;
  next: string;
}
/** The settings document of docs/campaigns.md (campaign_configure.lua). */
export interface CampaignSettings {
  /** "buffered": votes are accepted into a buffer and folded into the boards in batches (docs/hot-campaigns.md). */
  mode?: 'immediate' | 'buffered';
  /** Buffered campaigns: how old (ms, 10..60000, default 200) the oldest buffered vote grows before a vote folds. */
  fold_ms?: number;
  offset?: string;
  start?: number;
  end?: number;
  vote_id_ttl?: number;
  vote_log?: number;
  limits?: Record<string, unknown>[];
  deny?: { users?: string[]; channels?: string[] };
  boards?: Record<
    string,
    {
      periods?: ('hour' | 'day' | 'week' | 'month' | 'total')[];
      ties?: 'name' | 'competition' | 'dense' | 'first';
      carry?: string | number;
      decimals?: number;
      retention?: Record<string, number>;
      options?: Record<string, { weight?: number; data?: Record<string, string> } | null>;
      [field: string]: unknown;
    }
  >;
  [field: string]: unknown;
}
export interface VoteOptions {
  /** The call's idempotency key (1..128 bytes); omitted, the package makes one. */
  voteId?: string;
  channel?: string;
  device?: string;
  cost?: number;
  time?: Time;
}
export interface ViewOptions {
  kind?: Kind;
  period?: Period;
  time?: Time;
}
export interface VoterOptions {
  channel?: string;
  device?: string;
  time?: Time;
}

export declare class Campaign {
  /** The campaign `name` in the namespace `{c:NAME}:` (root `{c:NAME}:campaign`). */
  constructor(client: Client, name: string, options?: { namespace?: string; at?: Time });
  readonly client: Client;
  readonly name: string;
  readonly namespace: string;
  readonly root: string;
  /** The same campaign, its calls queued on a pipeline or MULTI. */
  on(pipeline: Pipeline): Campaign;
  /** The same campaign with every call at Unix time `time` (test/import path). */
  atTime(time: Time): Campaign;
  /** campaign_configure.lua: answers counts (boards, options, ...). */
  configure(settings: CampaignSettings | string): Promise<Record<string, number>>;
  /** campaign_settings.lua (read-only) */
  settings(): Promise<CampaignSettings>;
  /** campaign_vote.lua: one or more [board, option] pairs, all or nothing, applied once (a vote id always). */
  vote(user: string, pairs: Pair | Pair[], options?: VoteOptions): Promise<Ballot[]>;
  /** campaign_fold.lua: up to `max` (1..1000, default 1000) buffered votes onto the boards. */
  fold(max?: number): Promise<Folded>;
  /** campaign_top.lua */
  top(boards: string | string[], options?: ViewOptions & { page?: number; perPage?: number }): Promise<BoardPage[]>;
  /** campaign_around.lua */
  around(board: string, member: string, options?: ViewOptions & { window?: number; perPage?: number }): Promise<Around>;
  /** campaign_standing.lua */
  standing(board: string, members: string | string[], options?: ViewOptions): Promise<Standing[]>;
  /** campaign_limits.lua (read-only) */
  limits(user: string, pairs?: Pair | Pair[], options?: VoterOptions): Promise<LimitLeft[]>;
  /** campaign_limits_reset.lua: answers the counters deleted. */
  limitsReset(user: string, pairs?: Pair | Pair[], options?: VoterOptions): Promise<number>;
  /** campaign_participants.lua */
  participants(board: string, options?: string | string[]): Promise<Participants>;
  /** campaign_import.lua */
  import(board: string, votes: Record<string, number | string> | [string, number | string][], options?: { time?: Time }): Promise<Imported>;
  /** campaign_reindex.lua */
  reindex(board: string, options?: { cursor?: string; count?: number }): Promise<Reindexed>;
  /** campaign_remove.lua */
  removeStep(board: string, options?: { cursor?: string; count?: number }): Promise<RemoveStep>;
  /** campaign_stats.lua (read-only) */
  stats(board: string, options: { granularity?: 'hour' | 'day'; from: number; to: number }): Promise<StatsBucket[]>;
  /** campaign_void.lua */
  void(voteId: string): Promise<Voided>;
  /** campaign_void_range.lua */
  voidRange(by: 'user' | 'channel', value: string, options: { from?: number; to: number; cursor?: string; count?: number }): Promise<VoidedRange>;
  /** campaign_upgrade.lua */
  upgrade(options?: { cursor?: string; count?: number }): Promise<Upgraded>;
}

export interface RegistryPage {
  next: number;
  total: number;
  names: string[];
}

export declare class CampaignRegistry {
  /** The registry `{c}:campaigns` (or `key`). */
  constructor(client: Client, options?: { key?: string });
  readonly client: Client;
  readonly root: string;
  on(pipeline: Pipeline): CampaignRegistry;
  /** campaign_register.lua: answers how many names were new. */
  register(names: string | string[]): Promise<number>;
  /** campaign_registry.lua (read-only) */
  registry(options?: { cursor?: number; count?: number }): Promise<RegistryPage>;
  /** Every registered name. */
  names(options?: { count?: number }): Promise<string[]>;
}

// ---- errors -------------------------------------------------------------

export declare class RedvoteError extends Error {
  constructor(code: ErrorCode, detail: string, cause?: Error);
  /** "REDVOTE_INVALID_USER", ...: one of the codes the scripts answer. */
  readonly code: ErrorCode;
  /** The message after the code: the detail in words (JSON for RATE_LIMITED). */
  readonly detail: string;
}
/** The RedvoteError for a REDVOTE_* Redis error; any other error as it is. */
export declare function translateError<E>(err: E): E | RedvoteError;
export declare function errorClassFor(code: string): (new (detail: string, cause?: Error) => RedvoteError) & { readonly code: ErrorCode } | undefined;

// GENERATED ERRORS BEGIN
/** Every script of the manifest. */
export type ScriptName =
  | "article"
  | "campaign_around"
  | "campaign_configure"
  | "campaign_fold"
  | "campaign_import"
  | "campaign_limits"
  | "campaign_limits_reset"
  | "campaign_participants"
  | "campaign_register"
  | "campaign_registry"
  | "campaign_reindex"
  | "campaign_remove"
  | "campaign_settings"
  | "campaign_standing"
  | "campaign_stats"
  | "campaign_top"
  | "campaign_upgrade"
  | "campaign_void"
  | "campaign_void_range"
  | "campaign_vote"
  | "config"
  | "configure"
  | "group_page"
  | "groups"
  | "page"
  | "post"
  | "rerank"
  | "upgrade"
  | "vote";
/** Every REDVOTE_* code the scripts answer (the manifest's, and INTERNAL). */
export type ErrorCode =
  | "REDVOTE_CAMPAIGN_CLOSED"
  | "REDVOTE_CONFIG_LOCKED"
  | "REDVOTE_DENIED"
  | "REDVOTE_INTERNAL"
  | "REDVOTE_INVALID_CONFIG"
  | "REDVOTE_INVALID_CURSOR"
  | "REDVOTE_INVALID_GROUP"
  | "REDVOTE_INVALID_ID"
  | "REDVOTE_INVALID_NAME"
  | "REDVOTE_INVALID_NUMBER"
  | "REDVOTE_INVALID_ORDER"
  | "REDVOTE_INVALID_PERIOD"
  | "REDVOTE_INVALID_TEXT"
  | "REDVOTE_INVALID_USER"
  | "REDVOTE_INVALID_VOTE"
  | "REDVOTE_INVALID_VOTE_ID"
  | "REDVOTE_LAYOUT_VERSION"
  | "REDVOTE_NOT_VOIDABLE"
  | "REDVOTE_OUT_OF_RANGE"
  | "REDVOTE_RATE_LIMITED"
  | "REDVOTE_UNFOLDED"
  | "REDVOTE_UNKNOWN_ARTICLE"
  | "REDVOTE_UNKNOWN_BOARD"
  | "REDVOTE_UNKNOWN_CAMPAIGN"
  | "REDVOTE_UNKNOWN_OPTION"
  | "REDVOTE_UNKNOWN_VOTE"
  | "REDVOTE_USAGE"
  | "REDVOTE_VOTE_ID_REUSED"
  | "REDVOTE_VOTING_CLOSED";
/** REDVOTE_CAMPAIGN_CLOSED */
export declare class CampaignClosedError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_CAMPAIGN_CLOSED";
  readonly code: "REDVOTE_CAMPAIGN_CLOSED";
}
/** REDVOTE_CONFIG_LOCKED */
export declare class ConfigLockedError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_CONFIG_LOCKED";
  readonly code: "REDVOTE_CONFIG_LOCKED";
}
/** REDVOTE_DENIED */
export declare class DeniedError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_DENIED";
  readonly code: "REDVOTE_DENIED";
}
/** REDVOTE_INTERNAL */
export declare class InternalError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INTERNAL";
  readonly code: "REDVOTE_INTERNAL";
}
/** REDVOTE_INVALID_CONFIG */
export declare class InvalidConfigError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_CONFIG";
  readonly code: "REDVOTE_INVALID_CONFIG";
}
/** REDVOTE_INVALID_CURSOR */
export declare class InvalidCursorError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_CURSOR";
  readonly code: "REDVOTE_INVALID_CURSOR";
}
/** REDVOTE_INVALID_GROUP */
export declare class InvalidGroupError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_GROUP";
  readonly code: "REDVOTE_INVALID_GROUP";
}
/** REDVOTE_INVALID_ID */
export declare class InvalidIdError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_ID";
  readonly code: "REDVOTE_INVALID_ID";
}
/** REDVOTE_INVALID_NAME */
export declare class InvalidNameError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_NAME";
  readonly code: "REDVOTE_INVALID_NAME";
}
/** REDVOTE_INVALID_NUMBER */
export declare class InvalidNumberError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_NUMBER";
  readonly code: "REDVOTE_INVALID_NUMBER";
}
/** REDVOTE_INVALID_ORDER */
export declare class InvalidOrderError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_ORDER";
  readonly code: "REDVOTE_INVALID_ORDER";
}
/** REDVOTE_INVALID_PERIOD */
export declare class InvalidPeriodError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_PERIOD";
  readonly code: "REDVOTE_INVALID_PERIOD";
}
/** REDVOTE_INVALID_TEXT */
export declare class InvalidTextError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_TEXT";
  readonly code: "REDVOTE_INVALID_TEXT";
}
/** REDVOTE_INVALID_USER */
export declare class InvalidUserError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_USER";
  readonly code: "REDVOTE_INVALID_USER";
}
/** REDVOTE_INVALID_VOTE */
export declare class InvalidVoteError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_VOTE";
  readonly code: "REDVOTE_INVALID_VOTE";
}
/** REDVOTE_INVALID_VOTE_ID */
export declare class InvalidVoteIdError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_INVALID_VOTE_ID";
  readonly code: "REDVOTE_INVALID_VOTE_ID";
}
/** REDVOTE_LAYOUT_VERSION */
export declare class LayoutVersionError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_LAYOUT_VERSION";
  readonly code: "REDVOTE_LAYOUT_VERSION";
}
/** REDVOTE_NOT_VOIDABLE */
export declare class NotVoidableError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_NOT_VOIDABLE";
  readonly code: "REDVOTE_NOT_VOIDABLE";
}
/** REDVOTE_OUT_OF_RANGE */
export declare class OutOfRangeError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_OUT_OF_RANGE";
  readonly code: "REDVOTE_OUT_OF_RANGE";
}
/** REDVOTE_RATE_LIMITED */
export declare class RateLimitedError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_RATE_LIMITED";
  readonly code: "REDVOTE_RATE_LIMITED";
  /** The JSON detail: the rule, seconds to wait (-1: not in this campaign), what each rule leaves. */
  readonly data:
    | {
        rule: string;
        retryAfter: number;
        remaining: Record<string, number>;
        /** @deprecated The script's snake_case name of `retryAfter`, kept until 1.0 (not enumerable). */
        readonly retry_after: number;
      }
    | undefined;
}
/** REDVOTE_UNFOLDED */
export declare class UnfoldedError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_UNFOLDED";
  readonly code: "REDVOTE_UNFOLDED";
}
/** REDVOTE_UNKNOWN_ARTICLE */
export declare class UnknownArticleError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_UNKNOWN_ARTICLE";
  readonly code: "REDVOTE_UNKNOWN_ARTICLE";
}
/** REDVOTE_UNKNOWN_BOARD */
export declare class UnknownBoardError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_UNKNOWN_BOARD";
  readonly code: "REDVOTE_UNKNOWN_BOARD";
}
/** REDVOTE_UNKNOWN_CAMPAIGN */
export declare class UnknownCampaignError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_UNKNOWN_CAMPAIGN";
  readonly code: "REDVOTE_UNKNOWN_CAMPAIGN";
}
/** REDVOTE_UNKNOWN_OPTION */
export declare class UnknownOptionError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_UNKNOWN_OPTION";
  readonly code: "REDVOTE_UNKNOWN_OPTION";
}
/** REDVOTE_UNKNOWN_VOTE */
export declare class UnknownVoteError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_UNKNOWN_VOTE";
  readonly code: "REDVOTE_UNKNOWN_VOTE";
}
/** REDVOTE_USAGE */
export declare class UsageError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_USAGE";
  readonly code: "REDVOTE_USAGE";
}
/** REDVOTE_VOTE_ID_REUSED */
export declare class VoteIdReusedError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_VOTE_ID_REUSED";
  readonly code: "REDVOTE_VOTE_ID_REUSED";
}
/** REDVOTE_VOTING_CLOSED */
export declare class VotingClosedError extends RedvoteError {
  constructor(detail: string, cause?: Error);
  static readonly code: "REDVOTE_VOTING_CLOSED";
  readonly code: "REDVOTE_VOTING_CLOSED";
}
export declare const errorClasses: {
  CampaignClosedError: typeof CampaignClosedError;
  ConfigLockedError: typeof ConfigLockedError;
  DeniedError: typeof DeniedError;
  InternalError: typeof InternalError;
  InvalidConfigError: typeof InvalidConfigError;
  InvalidCursorError: typeof InvalidCursorError;
  InvalidGroupError: typeof InvalidGroupError;
  InvalidIdError: typeof InvalidIdError;
  InvalidNameError: typeof InvalidNameError;
  InvalidNumberError: typeof InvalidNumberError;
  InvalidOrderError: typeof InvalidOrderError;
  InvalidPeriodError: typeof InvalidPeriodError;
  InvalidTextError: typeof InvalidTextError;
  InvalidUserError: typeof InvalidUserError;
  InvalidVoteError: typeof InvalidVoteError;
  InvalidVoteIdError: typeof InvalidVoteIdError;
  LayoutVersionError: typeof LayoutVersionError;
  NotVoidableError: typeof NotVoidableError;
  OutOfRangeError: typeof OutOfRangeError;
  RateLimitedError: typeof RateLimitedError;
  UnfoldedError: typeof UnfoldedError;
  UnknownArticleError: typeof UnknownArticleError;
  UnknownBoardError: typeof UnknownBoardError;
  UnknownCampaignError: typeof UnknownCampaignError;
  UnknownOptionError: typeof UnknownOptionError;
  UnknownVoteError: typeof UnknownVoteError;
  UsageError: typeof UsageError;
  VoteIdReusedError: typeof VoteIdReusedError;
  VotingClosedError: typeof VotingClosedError;
};
// GENERATED ERRORS END

declare const redvote: typeof import('./index');
export default redvote;
