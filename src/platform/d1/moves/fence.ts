import { failedOn, raisedBy } from '../constraints';
import { FENCE_MESSAGE } from './triggers';

/** A write refused by a move's fence on the shard the workspace is leaving (./triggers.ts); answered 503 WORKSPACE_MOVING. */
const fence = raisedBy('move_<id>_f*', FENCE_MESSAGE);

export const refusedByFence = (err: unknown): boolean => failedOn(err, fence);
