// The render playground: a Scene v1 document or a push template's variables, rendered by this
// service (POST {surface}/scenes/preview, POST /api/templates/{name}/preview). The token stays
// in this tab's sessionStorage; nothing is stored on the server.
(function () {
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = "dds.playground.token";
  const token = $("token");
  token.value = sessionStorage.getItem(TOKEN_KEY) || "";
  token.addEventListener("input", () => sessionStorage.setItem(TOKEN_KEY, token.value.trim()));
  $("forget").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    token.value = "";
  });

  // A PAT renders through the SDK surface, any other token through the app surface.
  const surface = () => token.value.trim().startsWith("pat_") ? "/api/sdk/v1" : "/api/app/v1";

  for (const name of ["scene", "template"]) {
    $(`tab-${name}`).addEventListener("click", () => {
      for (const other of ["scene", "template"]) {
        $(`tab-${other}`).setAttribute("aria-selected", String(other === name));
        $(`panel-${other}`).hidden = other !== name;
      }
    });
  }

  function showError(kind, message) {
    const box = $(`${kind}-error`);
    box.textContent = message;
    box.hidden = false;
  }

  /** The message of either error envelope ({"error": msg} or {"error": {code, message}}). */
  async function errorOf(res) {
    try {
      const body = await res.json();
      if (typeof body.error === "string") return body.error;
      if (body.error && body.error.message) return `${body.error.code}: ${body.error.message}`;
    } catch { /* not JSON */ }
    return `The service answered ${res.status}`;
  }

  const urls = {};
  async function render(kind, url, body) {
    $(`${kind}-error`).hidden = true;
    if (!token.value.trim()) return showError(kind, "Paste a bearer token first.");
    const started = performance.now();
    let res;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token.value.trim()}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
    } catch (error) {
      return showError(kind, `The request failed: ${error.message}`);
    }
    if (!res.ok) return showError(kind, `${res.status}: ${await errorOf(res)}`);
    const blob = await res.blob();
    if (urls[kind]) URL.revokeObjectURL(urls[kind]);
    urls[kind] = URL.createObjectURL(blob);
    const img = $(`${kind}-image`);
    img.onload = () => {
      $(`${kind}-info`).textContent = `${img.naturalWidth}x${img.naturalHeight}, ` +
        `${Math.round(blob.size / 1024)} KB, ${Math.round(performance.now() - started)} ms`;
    };
    img.src = urls[kind];
    img.hidden = false;
  }

  function parseJson(kind, text, what) {
    try {
      return { value: JSON.parse(text) };
    } catch (error) {
      showError(kind, `${what} is not valid JSON: ${error.message}`);
      return null;
    }
  }

  function renderScene() {
    const parsed = parseJson("scene", $("scene").value, "The Scene");
    if (!parsed) return;
    const body = { scene: parsed.value, colorMode: $("scene-color").value };
    for (const side of ["width", "height"]) {
      const value = $(`scene-${side}`).value.trim();
      if (value) body[side] = Number(value);
    }
    return render("scene", `${surface()}/scenes/preview`, body);
  }

  function renderTemplate() {
    const parsed = parseJson("template", $("variables").value, "The variables");
    if (!parsed) return;
    const name = encodeURIComponent($("template").value);
    return render("template", `/api/templates/${name}/preview`, parsed.value);
  }

  $("render-scene").addEventListener("click", renderScene);
  $("render-template").addEventListener("click", renderTemplate);
  $("scene").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) renderScene();
  });
  $("variables").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) renderTemplate();
  });

  fetch("/playground/samples.json").then((res) => res.json()).then((samples) => {
    $("scene").value = JSON.stringify(samples.scene, null, 2);
    const select = $("template");
    for (const t of samples.templates) {
      const option = document.createElement("option");
      option.value = t.name;
      option.textContent = `${t.name}: ${t.title}`;
      select.append(option);
    }
    const pick = () => {
      const t = samples.templates.find((x) => x.name === select.value);
      if (!t) return;
      $("template-description").textContent = t.description;
      $("variables").value = JSON.stringify(t.sample, null, 2);
    };
    select.addEventListener("change", pick);
    pick();
  }).catch((error) => showError("scene", `Samples could not be loaded: ${error.message}`));
})();
