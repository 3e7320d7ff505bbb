import { sql } from 'drizzle-orm';
import { rawRun } from '../../platform/d1/raw-query';
import { ownRows, rekeyAll, rekeyKeyed, scrubRows, type PersonalData } from '../../platform/personal-data';
import { conversations, messages, whatsappCampaignRecipients } from './schema';

/** Conversations, messages and campaign recipients of a contact: moved in a merge, exported, and stripped of text and media on erasure. */
export const whatsappPersonalData: PersonalData = {
  exportKinds: {
    whatsapp_conversations: ownRows(conversations),
    whatsapp_messages: ownRows(messages, 'created_at', ['media']),
    campaign_recipients: {
      rows: (
        w,
        c,
      ) => sql`SELECT 'whatsapp' AS channel, campaign_id, status, message_id AS sent_as, NULL AS unsubscribed_at, error, created_at, updated_at
        FROM ${whatsappCampaignRecipients} WHERE workspace_id = ${w} AND contact_id = ${c}`,
    },
  },
  rekey: (db, w, from, to) => [
    // The absorbed contact's messages join the target's conversation on the same channel, where the target has one
    // (otherwise its conversation itself moves over).
    rawRun(
      db,
      sql`UPDATE ${messages} SET conversation_id = (SELECT t.id FROM ${conversations} t JOIN ${conversations} o ON o.id = messages.conversation_id
          WHERE t.workspace_id = ${w} AND t.contact_id = ${to} AND t.channel = o.channel)
        WHERE workspace_id = ${w} AND contact_id = ${from} AND EXISTS (SELECT 1 FROM ${conversations} t JOIN ${conversations} o ON o.id = messages.conversation_id
          WHERE t.workspace_id = ${w} AND t.contact_id = ${to} AND t.channel = o.channel)`,
    ),
    ...rekeyKeyed(db, conversations, w, from, to),
    ...rekeyKeyed(db, whatsappCampaignRecipients, w, from, to),
    rekeyAll(db, messages, w, from, to),
  ],
  erase: (db, w, c) => [scrubRows(db, messages, sql`text = NULL, media = NULL`, w, c)],
};
