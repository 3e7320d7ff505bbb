import { sql } from 'drizzle-orm';
import { rawRun } from '../../platform/d1/raw-query';
import { eventAttendances } from './attendance/schema';
import { consentLedger } from './consent/schema';
import { deleteRows, ownRows, rekeyAll, rekeyKeyed, scrubRows, type PersonalData } from '../../platform/personal-data';
import { groups, tags } from './labels/schema';
import { contactActivities, contactCustomValues, contactGroupLinks, contactIdentifiers, contactTagLinks, mergeRequests } from './schema';

/** The contacts module's own rows about a person, handled like every other module's (src/platform/personal-data.ts). */
export const ownPersonalData: PersonalData = {
  exportKinds: {
    identifiers: ownRows(contactIdentifiers, 'assigned_at'),
    consent: ownRows(consentLedger, 'created_at', ['evidence']),
    timeline: ownRows(contactActivities, 'created_at', ['data']),
    tags: {
      rows: (
        w,
        c,
      ) => sql`SELECT t.id, t.name, t.color, t.description, l.created_at FROM ${contactTagLinks} l JOIN ${tags} t ON t.id = l.tag_id AND t.workspace_id = l.workspace_id
        WHERE l.workspace_id = ${w} AND l.contact_id = ${c}`,
    },
    groups: {
      rows: (
        w,
        c,
      ) => sql`SELECT g.id, g.name, g.color, g.description, l.created_at FROM ${contactGroupLinks} l JOIN ${groups} g ON g.id = l.group_id AND g.workspace_id = l.workspace_id
        WHERE l.workspace_id = ${w} AND l.contact_id = ${c}`,
    },
    custom_values: ownRows(contactCustomValues, 'key'),
    attendance: ownRows(eventAttendances),
  },
  rekey: (db, w, from, to) => [
    ...[contactTagLinks, contactGroupLinks, eventAttendances, contactIdentifiers].flatMap((table) => rekeyKeyed(db, table, w, from, to)),
    rekeyAll(db, contactActivities, w, from, to),
    rekeyAll(db, consentLedger, w, from, to),
  ],
  erase: (db, w, c) => [
    rawRun(db, sql`DELETE FROM ${mergeRequests} WHERE workspace_id = ${w} AND (target_contact_id = ${c} OR other_contact_id = ${c})`),
    ...[contactIdentifiers, contactActivities, contactTagLinks, contactGroupLinks, eventAttendances].map((table) => deleteRows(db, table, w, c)),
    scrubRows(db, consentLedger, sql`evidence = NULL`, w, c),
  ],
};
