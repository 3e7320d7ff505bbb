import { defineErrors } from '../../platform/errors';

/** Content as email campaigns, newsletters and the operator's snippets compile it, and the names they give it. */
export const ContentErrors = defineErrors('ContentErrors', {
  invalidContent: {
    status: 400,
    code: 'invalid_content',
    variants: {
      problems: { message: '{problems}', about: "the content's problems, joined by `; `" },
      unnamed: 'content is invalid',
    },
  },
  unknownSnippet: {
    status: 400,
    code: 'unknown_snippet',
    message: '{problems}',
    about: 'the snippets the content names that the workspace lacks, and the ones it has',
  },
  duplicateName: {
    status: 409,
    code: 'duplicate_name',
    variants: {
      snippet: 'A snippet named "{name}" already exists',
      newsletter: 'A newsletter named "{name}" already exists in this workspace',
      newsletterSlug: 'Could not find a free archive slug for this name; choose another name',
    },
  },
});
