// GET /v1/data-import/openapi.json (the OpenAPI 3.1 document) and GET /docs (Swagger UI over it).
// Both are public: the document describes the published contract and holds no secret. Mount this
// router before the data-import router, whose authentication would otherwise answer 401.
//
// Swagger UI comes from the swagger-ui-dist package in node_modules, never a CDN (the machines that
// run this service may be offline). The page has its own Content-Security-Policy, narrower than
// helmet()'s default: the bundle, its stylesheet, the initializer below, data: icons, and fetches
// to this origin only (the document and "Try it out").
import express, { Router, type RequestHandler } from 'express';
import helmet from 'helmet';
import path from 'node:path';
import { buildOpenApiDocument } from '../../shared/catalog/openapi-document';
import type { DocsConfig } from '../../shared/openapi/docs-config';
import { DOCS_PATH, OPENAPI_PATH } from '../../shared/openapi/service.paths';

const ASSET_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
// The package also ships a demo index.html and an initializer pointing at a public petstore.
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);
const ASSET_PATH = `${DOCS_PATH}/assets`;
const INIT_PATH = `${DOCS_PATH}/init.js`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Data-import API</title>
<link rel="stylesheet" href="${ASSET_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${ASSET_PATH}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<noscript>This page needs JavaScript. The document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${ASSET_PATH}/swagger-ui-bundle.js"></script>
<script src="${INIT_PATH}"></script>
</body>
</html>
`;

// A file, not an inline script, so the policy needs no 'unsafe-inline' and no hash.
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
    persistAuthorization: false,
  });
});
`;

const pagePolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
});

const onlyKnownAssets: RequestHandler = (req, _res, next) => {
  next(ASSETS.has(req.path.slice(1)) ? undefined : 'router');
};

export function docsRoutes(config: DocsConfig): Router {
  const document = JSON.stringify(buildOpenApiDocument(config));
  const router = Router();

  router.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').send(document);
  });
  router.get(DOCS_PATH, pagePolicy, (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get(INIT_PATH, pagePolicy, (_req, res) => {
    res.type('text/javascript').send(INIT);
  });
  router.use(ASSET_PATH, pagePolicy, onlyKnownAssets, express.static(ASSET_DIR, { index: false, maxAge: '1h' }));
  return router;
}
