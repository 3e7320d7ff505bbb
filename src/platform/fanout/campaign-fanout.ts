import type { Bindings } from '../../env';
import type { Db } from '../d1/db';
import type { ReadSpec } from '../d1/operation';
import type { Channel, FanoutCampaign, Link, PageMessage } from './channel';
import { sendChunk } from './chunk';
import { handlePage } from './pages';
import { redriveStaleCampaigns } from './redrive';

/**
 * A channel's campaign fan-out: its page messages (`handlePage`), a chunk of recipients
 * (`sendChunk`, also the message earlier releases enqueued per chunk) and the sweep's re-drive of
 * campaigns whose lease lapsed (`redriveStaleCampaigns`). The walk is the same for every channel;
 * the channel says only who is eligible and how its messages are built and sent.
 */
export function campaignFanout<Row extends FanoutCampaign, P extends PageMessage, Context, Reads extends ReadSpec>(
  ch: Channel<Row, P, Context, Reads>,
) {
  return {
    handlePage: (env: Bindings, body: P) => handlePage(ch, env, body),
    sendChunk: (env: Bindings, link: Link<P>, contactIds: string[]) => sendChunk(ch, env, link, contactIds),
    redriveStaleCampaigns: (env: Bindings, db: Db, now?: string, limit?: number) => redriveStaleCampaigns(ch, env, db, now, limit),
  };
}
