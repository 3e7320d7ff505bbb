import { defineErrors } from '../../platform/errors';

/** Content is compiled for routers that answer the domain envelope (email campaigns, newsletters, the operator's snippets). */
export const ContentErrors = defineErrors('domain', {
  invalidContent: { status: 400, code: 'invalid_content', message: '{problems}', about: "the content's problems, joined by `; `" },
  contentInvalid: { status: 400, code: 'invalid_content', message: 'content is invalid' },
  unknownSnippet: {
    status: 400,
    code: 'unknown_snippet',
    message: '{problems}',
    about: 'the snippets the content names that the workspace lacks, and the ones it has',
  },
  duplicateSnippet: { status: 409, code: 'duplicate_name', message: 'A snippet named "{name}" already exists' },
});
