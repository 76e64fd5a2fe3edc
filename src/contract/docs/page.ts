/**
 * The HTML of `GET /api/docs`: Swagger UI pointed at this handler's own OpenAPI document, with
 * every asset served from `/api/docs/assets/` and the online spec validator switched off, so the
 * page makes no request beyond the handler it came from.
 */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The docs page for a handler mounted at `basePath`. */
export function docsPageHtml(title: string, basePath: string): string {
  const assets = `${basePath}/api/docs/assets`;
  // JSON.stringify + escaping `<` keeps the URL inert inside the inline script.
  const specUrl = JSON.stringify(`${basePath}/api/openapi.json`).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)}</title>
  <link rel="stylesheet" href="${assets}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${assets}/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${assets}/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${assets}/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: ${specUrl},
      dom_id: '#swagger-ui',
      deepLinking: true,
      validatorUrl: null,
      tryItOutEnabled: false,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
    });
  </script>
</body>
</html>
`;
}
