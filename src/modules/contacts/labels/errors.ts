import { defineErrors } from '../../../platform/errors';
import type { LabelKind } from './links';

/** Tags and contact groups answer the framework shape (README "Errors"). */
export const LabelErrors = defineErrors('LabelErrors', {
  tagNotFound: { status: 404, message: 'Tag not found' },
  groupNotFound: { status: 404, message: 'Contact group not found' },
  tagExists: { status: 409, message: 'A tag with this name already exists' },
  groupExists: { status: 409, message: 'A contact group with this name already exists' },
});

/** Each kind's own entries: tags and contact groups share routes and rules. */
export const LABEL_KIND_ERRORS = {
  tags: { notFound: LabelErrors.tagNotFound, duplicate: LabelErrors.tagExists },
  groups: { notFound: LabelErrors.groupNotFound, duplicate: LabelErrors.groupExists },
} satisfies Record<LabelKind, unknown>;
