import { nowIso } from '../../platform/d1/db';
import { wroteFor } from '../../platform/d1/floors';
import { registerQueueTask } from '../../queue';
import { registerSweep } from '../../sweeps/registry';
import { DELIVERY_KIND, deliverNewsletters, dueIssues, handleDeliveries } from './delivery';
import { publishIssueRow } from './service';

const PUBLISH_PAGE = 100;

/**
 * `publish-issues`: due scheduled issues get exactly what publish does (the
 * same batch); an issue another run or a publish call already took is left as
 * is, so overlapping runs publish each issue once with one number.
 */
registerSweep('publish-issues', async (_env, db) => {
  const due = await dueIssues(db, nowIso(), PUBLISH_PAGE);
  let published = 0;
  for (const issue of due) {
    if (!(await publishIssueRow(db, issue.workspaceId, issue.id)).published) continue;
    published++;
    wroteFor(db, [issue.workspaceId]);
  }
  return { issues_published: published };
});

registerSweep('deliver-newsletters', (env, db) => deliverNewsletters(env, db));

registerQueueTask(DELIVERY_KIND, handleDeliveries);
