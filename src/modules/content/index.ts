export type { Compiled, CompileEnvelope } from './compile';
export { CompileResult, contentColumns, ContentInput } from './dto';
export { ContentErrors } from './errors';
export { personalEmail } from './personal-email';
export { compileForWorkspace, createSnippet } from './service';
export { escapeHtml, renderHtmlTokens, renderTextTokens, tokenValues } from './tokens';
export { WEB_CONTENT_STYLES, webContent } from './web';
export { newUnsubscribeToken, parseUnsubscribeToken, type UnsubscribeKind } from './unsubscribe-links';
