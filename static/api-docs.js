// Swagger UI for /docs, started from this file rather than an inline script, so that the
// page keeps the site's policy: scripts from our own address only.
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({
    url: root.dataset.openapi,
    domNode: root,
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
