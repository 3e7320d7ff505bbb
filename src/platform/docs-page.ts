/**
 * Interactive API reference: the Scalar viewer reading the generated OpenAPI
 * document. The viewer is the pinned `@scalar/api-reference` browser bundle,
 * served by this service as a static asset (wrangler.toml `[assets]`,
 * scripts/docs-assets.mjs), so the page loads nothing from another host.
 */
export const DOCS_VIEWER_PATH = '/docs/scalar-api-reference.js';

/** Viewer settings: no web fonts, telemetry, assistant, registry or developer toolbar, all of which reach other hosts. */
const viewerConfig = {
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
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
