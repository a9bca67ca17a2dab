// The API reference page: Swagger UI over the document of this ingress (data-spec). "Try it
// out" calls this page's own origin first, so the reference works wherever the service is
// reached (localhost, 127.0.0.1, a proxy) without a CORS grant. Tokens pasted into "Authorize"
// stay in this page's memory: nothing is stored in the browser or on the server.
(async function () {
  const root = document.getElementById("swagger-ui");
  const specUrl = root.dataset.spec;
  let spec;
  try {
    const res = await fetch(specUrl, { headers: { accept: "application/json" } });
    if (!res.ok) throw new Error(`${specUrl} answered ${res.status}`);
    spec = await res.json();
  } catch (error) {
    root.textContent = `The OpenAPI document could not be loaded: ${error.message}`;
    return;
  }
  const here = globalThis.location.origin;
  const servers = (spec.servers || []).filter((s) => {
    try {
      return new URL(s.url, here).origin !== here;
    } catch {
      return false;
    }
  });
  spec.servers = [{ url: here, description: "This server" }, ...servers];
  globalThis.ui = globalThis.SwaggerUIBundle({
    spec,
    dom_id: "#swagger-ui",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    filter: true,
    persistAuthorization: false,
    // No validator badge: it would send the document to a third-party service.
    validatorUrl: null,
  });
})();
