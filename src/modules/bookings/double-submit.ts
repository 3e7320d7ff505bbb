import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { uniqueOn } from '../../platform/d1/constraints';
import { prepared } from '../../platform/d1/prepared';
import { bookings } from './schema';

/*
 * A double submit: the same contact booking the same meeting type at the same start (and pinned
 * host) twice. Each confirmed booking holds its key; a unique index over them settles parallel
 * submits, and a later one answers the booking already made.
 */

export const dedupeKeyOf = (meetingTypeId: string, startIso: string, contactId: string, pinned: string | null) =>
  `${meetingTypeId}|${startIso}|${contactId}|${pinned ?? ''}`;

/** A confirmed booking of the same key was written meanwhile. */
export const doubleSubmitKey = uniqueOn(bookings.workspaceId, bookings.dedupeKey);

/** The confirmed bookings of one meeting type and start (their double-submit keys share the prefix; the contact and pin follow): at most a few. */
const sameStartRead = prepared((db) =>
  db
    .select()
    .from(bookings)
    .where(
      and(
        eq(bookings.workspaceId, sql.placeholder('ws')),
        eq(bookings.status, 'confirmed'),
        gt(bookings.dedupeKey, sql.placeholder('prefix')),
        lt(bookings.dedupeKey, sql.placeholder('beyond')),
      ),
    ),
);

// '~' sorts after every character a key holds after the prefix (hex digits, dashes, '|').
export const sameStart = (ctx: ServiceContext, meetingTypeId: string, startIso: string) =>
  sameStartRead.in(ctx.db, { ws: ctx.ws.id, prefix: `${meetingTypeId}|${startIso}|`, beyond: `${meetingTypeId}|${startIso}|~` });
