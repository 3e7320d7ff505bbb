import type { Bindings } from '../../env';
import { nowIso, type Db } from '../../platform/d1/db';
import { wroteFor } from '../../platform/d1/floors';
import type { SweepResult } from '../../platform/manifest';
import { dueIssues } from './delivery';
import { publishIssueRow } from './publishing';

const PUBLISH_PAGE = 100;

/**
 * `publish-issues`: due scheduled issues get exactly what publish does (the
 * same batch); an issue another run or a publish call already took is left as
 * is, so overlapping runs publish each issue once with one number.
 */
export async function publishDueIssues(_env: Bindings, db: Db): Promise<SweepResult> {
  const due = await dueIssues(db, nowIso(), PUBLISH_PAGE);
  let published = 0;
  for (const issue of due) {
    if (!(await publishIssueRow(db, issue.workspaceId, issue.id)).published) continue;
    published++;
    wroteFor(db, [issue.workspaceId]);
  }
  return { issues_published: published };
}
