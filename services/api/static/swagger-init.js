/* Starts Swagger UI (served from swagger-ui-dist) on the catalogue's OpenAPI document. The
 * online spec validator is switched off, so the page makes no request outside the server. */
/* global SwaggerUIBundle, document, window */
(function () {
  'use strict';
  var element = document.getElementById('swagger-ui');
  if (!element || typeof SwaggerUIBundle === 'undefined') return;
  window.ui = SwaggerUIBundle({
    url: element.dataset.specUrl,
    domNode: element,
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
  });
})();
