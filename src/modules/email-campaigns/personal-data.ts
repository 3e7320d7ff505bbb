import { sql } from 'drizzle-orm';
import { rekeyKeyed, type PersonalData } from '../../platform/personal-data';
import { emailCampaignRecipients } from './schema';

/** A contact's place in email campaigns: moved in a merge and exported (its address lives on the send, erased there). */
export const emailCampaignPersonalData: PersonalData = {
  exportKinds: {
    campaign_recipients: {
      rows: (w, c) => sql`SELECT 'email' AS channel, campaign_id, status, send_id AS sent_as, unsubscribed_at, error, created_at, updated_at
        FROM ${emailCampaignRecipients} WHERE workspace_id = ${w} AND contact_id = ${c}`,
    },
  },
  rekey: (db, w, from, to) => rekeyKeyed(db, emailCampaignRecipients, w, from, to),
};
