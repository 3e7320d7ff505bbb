import { failedOn, raisedBy } from '../constraints';
import { FENCE_MESSAGE, FENCE_PREFIX } from './triggers';

/** A write refused by a move's fence on a shard the workspace is leaving or has left (./triggers.ts); answered 503 WORKSPACE_MOVING. */
const fence = raisedBy(`${FENCE_PREFIX}*`, FENCE_MESSAGE);

export const refusedByFence = (err: unknown): boolean => failedOn(err, fence);
