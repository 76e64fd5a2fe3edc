/**
 * The HTML of `GET /api/docs`: Swagger UI pointed at this handler's own OpenAPI document, with
 * every asset served from `/api/docs/assets/` and the online spec validator switched off, so the
 * page makes no request beyond the handler it came from. The page has no inline script (the
 * start-up code is the `docs-init.js` asset, which reads the spec URL from a data attribute), so
 * it runs under the strict {@link DOCS_CONTENT_SECURITY_POLICY}.
 */

/**
 * The Content-Security-Policy of the docs page: scripts, styles, images and fonts only from this
 * origin (the handler's own assets), requests only to this origin, never framed (clickjacking),
 * no `<base>` or form posts. No inline or evaluated script and no inline style: Swagger UI sets
 * its styles through the DOM, which the policy allows (checked in headless Chromium).
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Start-up code of the page, served as the `docs-init.js` asset (an external script: the CSP
 * refuses inline ones). The spec URL comes from the page's `data-spec-url` attribute.
 */
export const DOCS_INIT_SCRIPT = `(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-spec-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
})();
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The docs page for a handler mounted at `basePath`. */
export function docsPageHtml(title: string, basePath: string): string {
  const assets = `${basePath}/api/docs/assets`;
  // An attribute value, HTML-escaped: inert whatever the base path holds.
  const specUrl = escapeHtml(`${basePath}/api/openapi.json`);
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
  <div id="swagger-ui" data-spec-url="${specUrl}"></div>
  <script src="${assets}/swagger-ui-bundle.js"></script>
  <script src="${assets}/docs-init.js"></script>
</body>
</html>
`;
}
