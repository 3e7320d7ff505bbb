import { sql } from 'drizzle-orm';
import type { Db, Statement } from '../../platform/d1/db';
import { preparedSql } from '../../platform/d1/prepared';
import { contactCarriesTag } from '../contacts';

/**
 * Tag auto-subscribe, as one statement for the batch that links tags to a
 * contact: every active newsletter of the workspace whose
 * `auto_subscribe_tag_id` is now on the contact gets an active subscription,
 * its cursor placed by the newsletter's `start_policy` (as the operator route
 * places it; a `first_issue` subscriber with back-issues to walk starts on the
 * next delivery sweep). An existing subscription is left alone, so an
 * explicit unsubscribe is never undone by a tag.
 */
export const autoSubscribeStatements = (db: Db, workspaceId: string, contactId: string, now: string): Statement[] => [
  autoSubscribe.in(db, { ws: workspaceId, contact: contactId, now }),
];

const autoSubscribe = preparedSql('run', () => {
  const [workspaceId, contactId, now] = [sql.placeholder('ws'), sql.placeholder('contact'), sql.placeholder('now')];
  return sql`INSERT INTO newsletter_subscriptions (id, workspace_id, newsletter_id, contact_id, status, cursor, next_catchup_at, unsubscribe_token, source, subscribed_at, unsubscribed_at, created_at, updated_at)
      SELECT (SELECT lower(substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12)) FROM (SELECT hex(randomblob(16)) AS h)), n.workspace_id, n.id, ${contactId}, 'active',
        CASE n.start_policy WHEN 'next_issue' THEN max(n.next_issue_number - 1, n.start_issue_number - 1)
          WHEN 'latest_issue' THEN max(n.next_issue_number - 2, n.start_issue_number - 1)
          ELSE n.start_issue_number - 1 END,
        CASE WHEN n.start_policy = 'first_issue' AND n.next_issue_number - n.start_issue_number > 1 THEN ${now} ELSE NULL END,
        n.workspace_id || '.' || lower(hex(randomblob(16))), 'tag', ${now}, NULL, ${now}, ${now}
      FROM newsletters n
      WHERE n.workspace_id = ${workspaceId} AND n.status = 'active' AND n.auto_subscribe_tag_id IS NOT NULL
        AND ${contactCarriesTag(workspaceId, contactId, sql`n.auto_subscribe_tag_id`)}
      ON CONFLICT (newsletter_id, contact_id) DO NOTHING`;
});
