import type { SQL } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Bindings } from '../../env';
import type { Db, Statement } from '../d1/db';
import type { ReadSpec, ReadsOf } from '../d1/operation';

/** What the fan-out reads of a campaign: every channel's campaign row has these. */
export type FanoutCampaign = {
  id: string;
  workspaceId: string;
  status: string;
  leaseUntil: string | null;
  drive: number;
  targetingDoneAt: string | null;
};

/** A channel's campaigns table: besides the columns of `FanoutCampaign`, the counters `targeted`, `sent` and `failed`. */
export type CampaignTable = SQLiteTable & {
  id: AnySQLiteColumn;
  workspaceId: AnySQLiteColumn;
  status: AnySQLiteColumn;
  leaseUntil: AnySQLiteColumn;
  drive: AnySQLiteColumn<{ notNull: true }>;
};

/**
 * One step of a campaign's fan-out on the send queue. `after` and `after_created_at`: the last
 * contact of the previous page and its creation time (the keyset). `drain`: the page takes
 * recipients still queued instead of targeting (the re-drive's). `drive`: the chain of pages it
 * belongs to (the campaign's `drive` when it was sent; absent, 0). A channel's pages may carry
 * more (`Carried`), handed on from page to page.
 */
export type PageMessage<Kind extends string = string, Carried extends object = object> = {
  kind: Kind;
  workspace_id: string;
  campaign_id: string;
  after: string | null;
  after_created_at?: string;
  drain?: true;
  drive?: number;
} & Carried;

/** The campaign a page or chunk works for, and what the channel's pages carry besides. */
export type Link<Page extends PageMessage> = { workspace_id: string; campaign_id: string } & Omit<
  Page,
  'kind' | 'after' | 'after_created_at' | 'drain' | 'drive'
>;

export type Cursor = { id: string; createdAt: string | null };

/** A claimed recipient: its contact and the channel's own recipient columns (`recipientColumns`). */
export type ClaimedRecipient = { contact_id: string } & Record<string, string>;

/** What became of one claimed recipient: `ref` names its send (the email send, the WhatsApp message); an `error` settles it `failed`. */
export type RecipientOutcome = { contactId: string; ref: string | null; error: string | null };

/** A chunk whose recipients are claimed, for the channel to build and send their messages. */
export type ClaimedChunk<Row, Page extends PageMessage, Context, Reads extends ReadSpec = Record<never, never>> = {
  env: Bindings;
  db: Db;
  link: Link<Page>;
  campaign: Row;
  claimed: ClaimedRecipient[];
  /** What the channel's `chunkReads` read, by name. */
  reads: ReadsOf<Reads>;
  context: Context;
  /** When the claim was made. */
  now: string;
  /**
   * The statements that settle the recipients as `outcomes` say (only those still `sending`), grow
   * the counters by exactly the rows they changed and end the campaign when nothing is left: the
   * channel runs them in the batch that records its sends, so an outcome is never lost or counted twice.
   */
  settle(outcomes: RecipientOutcome[], at: string): Statement[];
};

/**
 * What one channel of campaigns (email, WhatsApp) gives the fan-out: where its campaigns and
 * recipients are, the words its rows use, who is eligible, and how a chunk's messages are built and
 * sent. Its recipients table has `campaign_id`, `contact_id`, `workspace_id`, `status`
 * (`queued`, `sending`, `sent`, `failed`), `error`, `created_at` and `updated_at`.
 */
export type Channel<Row extends FanoutCampaign, Page extends PageMessage, Context, Reads extends ReadSpec = ReadSpec> = {
  pageKind: Page['kind'];
  /** Contacts a page targets, or recipients a drain page takes. */
  pageSize: number;
  campaigns: CampaignTable;
  recipients: SQLiteTable;
  /** The campaign's status while its fan-out runs. */
  running: Row['status'];
  /** The status a campaign ends in once nothing is left to send, over its counters. */
  ended: SQL;
  /** A column of the campaign stamped when it ends. */
  endedAt?: AnySQLiteColumn;
  /** The recipient's column naming its send (`RecipientOutcome.ref`). */
  sentRef: AnySQLiteColumn;
  /** The error of a recipient a dead worker left `sending`: settled `failed`, never resent. */
  givenUp: string;
  /** The channel's own recipient columns, written when a recipient is targeted and read back by its claim. */
  recipientColumns: { column: AnySQLiteColumn; value: (workspaceId: string) => string }[];
  /** The next contacts eligible for the campaign after `after`, and the ids of those to target (a channel may leave some out). */
  eligible(
    env: Bindings,
    db: Db,
    campaign: Row,
    page: { after: Cursor | null; limit: number },
  ): Promise<{ page: { id: string; created_at: string }[]; ids: string[] }>;
  /** What a re-driven campaign's pages carry besides the fan-out's fields; null, and the campaign waits. */
  redriven(env: Bindings, campaign: Row): Omit<Link<Page>, 'workspace_id' | 'campaign_id'> | null;
  /** Reads of the channel's that ride in a chunk's claim batch. */
  chunkReads(db: Db, link: Link<Page>, contactIds: string[]): Reads;
  /** What a chunk needs of the control plane, read beside its claim. */
  chunkContext(env: Bindings, workspaceId: string): Promise<Context>;
  send(chunk: ClaimedChunk<Row, Page, Context, Reads>): Promise<void>;
};

/** The part of a channel the statements on its rows need. */
export type ChannelRows = Pick<
  Channel<FanoutCampaign, PageMessage, unknown>,
  'campaigns' | 'recipients' | 'running' | 'ended' | 'endedAt' | 'sentRef' | 'givenUp' | 'recipientColumns'
>;
