/**
 * Interactive API reference: the Scalar viewer reading the generated OpenAPI
 * document. The viewer is the pinned `@scalar/api-reference` browser bundle,
 * served by this service as a static asset (wrangler.toml `[assets]`,
 * scripts/docs-assets.mjs), so the page loads nothing from another host.
 */
export const DOCS_VIEWER_PATH = '/docs/scalar-api-reference.js';

/** Served by the Worker beside the viewer: the viewer's scrolling panes take keyboard focus, so a keyboard alone can scroll them. */
export const DOCS_KEYBOARD_PATH = '/docs/keyboard.js';
export const docsKeyboardScript = `new MutationObserver(() => {
  for (const pane of document.querySelectorAll('.endpoints:not([tabindex])')) pane.setAttribute('tabindex', '0');
}).observe(document.documentElement, { childList: true, subtree: true });
`;

/** The viewer's theme with text colours that meet WCAG AA contrast on its backgrounds (its defaults fall short on labels and badges). */
const contrastCss = `
.light-mode { --scalar-color-2: #4a4a4a; --scalar-color-3: #595959; --scalar-color-green: #05703a; --scalar-color-blue: #0a55b8;
  --scalar-color-orange: #9a4700; --scalar-color-red: #b1221b; --scalar-color-purple: #6a35b0; --scalar-color-yellow: #7a5a00; }
.dark-mode { --scalar-color-2: #d0d0d0; --scalar-color-3: #b8b8b8; }
`;

/** Viewer settings: no web fonts, telemetry, assistant, registry or developer toolbar, all of which reach other hosts. */
const viewerConfig = {
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  customCss: contrastCss,
  // Both documents, picked from the viewer's document menu: the public API first (the default).
  sources: [
    { title: 'Workspace API', slug: 'api', url: '/v1/openapi.json', default: true },
    { title: 'Operator API', slug: 'operator', url: '/admin/v1/openapi.json' },
  ],
};

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

export const docsPage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Workspace API reference</title>
  </head>
  <body>
    <script id="api-reference" type="application/json" data-configuration="${attribute(JSON.stringify(viewerConfig))}"></script>
    <script src="${DOCS_VIEWER_PATH}"></script>
    <script src="${DOCS_KEYBOARD_PATH}"></script>
    <noscript>The machine-readable documents are at <a href="/v1/openapi.json">/v1/openapi.json</a> (the API) and <a href="/admin/v1/openapi.json">/admin/v1/openapi.json</a> (the operator API).</noscript>
  </body>
</html>`;

/**
 * The page may only load from this origin: the browser itself refuses any
 * request the viewer might attempt to another host. The viewer injects its
 * stylesheet and inline styles, hence `'unsafe-inline'` for styles only.
 */
export const docsContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');
