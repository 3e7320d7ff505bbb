/** Interactive API reference: the Scalar viewer reading the generated OpenAPI document. */
export const docsPage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Workspace API reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="/v1/openapi.json"></script>
    <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
    <noscript>The machine-readable document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
  </body>
</html>`;
