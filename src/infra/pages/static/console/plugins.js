// Plugins (docs/plugins.md): the list, a new one from a starting point (a webhook one, a polling
// one, an imported recipe zip), and one plugin's page: its markup with a preview drawn by the
// service at a panel's size and depth (saved and redrawn a moment after typing stops), the merge
// variables it has now (watched while the page is open), and a push to a device.
import { api } from "./api.js";
import { announce, card, copyable, field, form, greys, h, show, when } from "./ui.js";
import { showWhenRendered } from "./photo.js";

const WEBHOOK_MARKUP = `<div class="layout layout--col">
  <span class="value value--xxlarge">{{ temperature }}°</span>
  <span class="label">{{ room }}</span>
</div>`;
const POLLING_MARKUP = `<div class="layout layout--col">
  <span class="value value--xxlarge">{{ current.temperature_2m }}°</span>
  <span class="label">Now</span>
</div>`;

/** Panels to preview at: the common TRMNL ones and each display of the user's. */
const PANELS = [
  ["800x480x1", "TRMNL OG: 800x480, black and white"],
  ["800x480x2", "TRMNL OG: 800x480, 4 greys"],
  ["1872x1404x4", "TRMNL X: 1872x1404, 16 greys"],
  ["1072x1448x4", "Kindle Paperwhite: 1072x1448, 16 greys"],
];

function newPluginCard() {
  const name = h("input", { required: true, maxLength: 100, placeholder: "Living room" });
  const strategy = h(
    "select",
    {},
    h("option", { value: "webhook" }, "Webhook: a script or Home Assistant posts the data"),
    h("option", { value: "polling" }, "Polling: the service fetches a JSON URL"),
  );
  const url = h("input", { type: "url", placeholder: "https://api.open-meteo.com/v1/forecast?…" });
  const urlField = field("URL to fetch (JSON)", url);
  urlField.hidden = true;
  strategy.addEventListener("change", () => {
    urlField.hidden = strategy.value !== "polling";
    url.required = strategy.value === "polling";
  });
  const create = form({}, [
    field("Name", name),
    field("Starting point", strategy),
    urlField,
    h("button", { type: "submit" }, "Create plugin"),
  ], async () => {
    const polling = strategy.value === "polling";
    const plugin = await api("/api/plugins", {
      method: "POST",
      body: {
        name: name.value.trim(),
        strategy: strategy.value,
        markup: { full: polling ? POLLING_MARKUP : WEBHOOK_MARKUP },
        ...(polling ? { polling: { urls: [url.value.trim()] } } : {}),
      },
    });
    location.hash = `#/plugins/${plugin.id}`;
  });

  const zip = h("input", { type: "file", accept: ".zip,application/zip", required: true });
  const warnings = h("div", { "aria-live": "polite" });
  const importForm = form({}, [
    field("Recipe zip", zip, "A TRMNL export or a trmnlp project"),
    h("button", { type: "submit", class: "secondary" }, "Import recipe"),
  ], async () => {
    const { plugin, compatibility } = await api("/api/plugins/import", {
      method: "POST",
      body: zip.files[0],
      type: "application/zip",
    });
    if (compatibility.warnings.length) {
      sessionStorage.setItem(
        `dds.console.warnings.${plugin.id}`,
        JSON.stringify(compatibility.warnings),
      );
    }
    location.hash = `#/plugins/${plugin.id}`;
    warnings.textContent = "";
  });
  return h(
    "div",
    { class: "grid two" },
    card("New plugin", create),
    card("Import a recipe", importForm, warnings),
  );
}

export async function pluginsView() {
  const plugins = await api("/api/plugins");
  show(
    h("h1", {}, "Plugins"),
    h("p", { class: "lead" }, "Screens drawn from your data, in TRMNL's Liquid markup."),
    card(
      "Your plugins",
      plugins.length
        ? h(
          "ul",
          { class: "list", "aria-label": "Your plugins" },
          plugins.map((p) =>
            h(
              "li",
              {},
              h("a", { href: `#/plugins/${p.id}` }, h("strong", {}, p.name)),
              h(
                "span",
                { class: "hint" },
                ` ${p.strategy}, data updated `,
                when(p.dataUpdatedAt, "never"),
              ),
            )
          ),
        )
        : h("p", { class: "empty" }, "No plugins yet."),
    ),
    newPluginCard(),
  );
}

/** A preview of the saved plugin, redrawn when asked; keeps one object URL at a time. */
function previewPane(plugin, devices) {
  const size = h(
    "select",
    {},
    PANELS.map(([value, label]) => h("option", { value }, label)),
    devices.map((d) => h("option", { value: `device:${d.id}` }, `${d.nickname || d.thingName}`)),
  );
  const img = h("img", { class: "panel", alt: `Preview of ${plugin.name}` });
  const caption = h("figcaption", {});
  const error = h("p", { class: "error", role: "alert", hidden: true });
  let objectUrl = null;
  const panelFor = async () => {
    if (!size.value.startsWith("device:")) {
      const [width, height, bitDepth] = size.value.split("x").map(Number);
      return { width, height, bitDepth };
    }
    return await api(`/api/devices/${size.value.slice(7)}/display-profile`);
  };
  async function draw() {
    const { width, height, bitDepth, rotation } = await panelFor();
    const [w, hgt] = rotation === 90 || rotation === 270 ? [height, width] : [width, height];
    try {
      const res = await api(
        `/api/plugins/${plugin.id}/preview?width=${w}&height=${hgt}&bitDepth=${bitDepth}`,
        { raw: true },
      );
      const blob = await res.blob();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      objectUrl = URL.createObjectURL(blob);
      img.src = objectUrl;
      img.width = w;
      img.height = hgt;
      img.style.setProperty("--ratio", `${w} / ${hgt}`);
      caption.textContent = `${w}x${hgt}, ${greys(bitDepth)}, drawn ${
        new Date().toLocaleTimeString()
      }`;
      error.hidden = true;
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
    }
  }
  size.addEventListener("change", draw);
  return {
    el: h(
      "div",
      {},
      field("Preview at", size),
      h("figure", { class: "preview" }, img, caption),
      error,
    ),
    draw,
  };
}

function dataPane(plugin, onChange) {
  const pre = h("pre", { class: "data", tabindex: "0", "aria-label": "Merge variables" });
  const updated = h("p", { class: "hint" });
  let last;
  async function load() {
    const data = await api(`/api/plugins/${plugin.id}/data`);
    pre.textContent = JSON.stringify(data.mergeVariables, null, 2);
    updated.replaceChildren(
      ...(plugin.strategy === "static" && !data.updatedAt
        ? ["The plugin's own data (static)"]
        : ["Updated ", when(data.updatedAt)]),
      data.error ? ` · last poll failed: ${data.error}` : "",
    );
    if (last !== undefined && last !== data.updatedAt) onChange();
    last = data.updatedAt;
  }
  // Watch for new data (a webhook post, a poll) while this page is open.
  const timer = setInterval(() => {
    if (!pre.isConnected) return clearInterval(timer);
    load().catch(() => {});
  }, 3000);
  return { el: card("Merge variables", updated, pre), load };
}

export async function pluginView(id) {
  const [plugin, devices] = await Promise.all([api(`/api/plugins/${id}`), api("/api/devices")]);
  const displays = devices.filter((d) => d.transport === "http");
  const preview = previewPane(plugin, displays);
  const data = dataPane(plugin, () => preview.draw());
  const markup = h("textarea", { rows: 14, spellcheck: "false", class: "mono" });
  markup.value = plugin.markup.full;
  const saveState = h("span", { class: "hint", "aria-live": "polite" });

  // Saved and redrawn 800 ms after typing stops.
  let timer;
  async function save() {
    saveState.textContent = "Saving…";
    try {
      await api(`/api/plugins/${id}`, {
        method: "PUT",
        body: { markup: { ...plugin.markup, full: markup.value } },
      });
      plugin.markup.full = markup.value;
      saveState.textContent = "Saved";
      await preview.draw();
    } catch (e) {
      saveState.textContent = e.message;
    }
  }
  markup.addEventListener("input", () => {
    clearTimeout(timer);
    saveState.textContent = "Editing…";
    timer = setTimeout(save, 800);
  });

  const warnings = JSON.parse(sessionStorage.getItem(`dds.console.warnings.${id}`) || "[]");
  const target = h(
    "select",
    {},
    devices.map((d) => h("option", { value: d.id }, d.nickname || d.thingName)),
  );
  show(
    h("p", { class: "crumbs" }, h("a", { href: "#/plugins" }, "Plugins")),
    h("h1", {}, plugin.name),
    warnings.length
      ? card("What will not work as on TRMNL", h("ul", {}, warnings.map((w) => h("li", {}, w))))
      : null,
    plugin.webhookUrl
      ? card(
        "Send it data",
        copyable("Webhook URL", plugin.webhookUrl),
        h("p", { class: "hint" }, "POST JSON there, no token needed:"),
        h(
          "pre",
          { class: "data" },
          `curl -X POST '${plugin.webhookUrl}' -H 'Content-Type: application/json' \\\n` +
            `  -d '{"merge_variables": {"temperature": 21.5, "room": "Living room"}}'`,
        ),
      )
      : null,
    h(
      "div",
      { class: "grid two editor" },
      card(
        "Markup",
        field("Full view (Liquid and HTML)", markup, "Saved and previewed as you type"),
        saveState,
      ),
      card("Preview", preview.el),
    ),
    data.el,
    devices.length
      ? card(
        "Show it on a display",
        form(
          {},
          [field("Display", target), h("button", { type: "submit" }, "Push to display")],
          async () => {
            const device = devices.find((d) => d.id === target.value);
            announce(`${plugin.name} is being drawn for the display`);
            const { pushId } = await api(`/api/plugins/${id}/push`, {
              method: "POST",
              body: { deviceId: device.id },
            });
            await showWhenRendered(device, pushId);
            announce(`Sent: ${device.nickname || device.thingName} shows it at its next poll`);
          },
        ),
      )
      : null,
    card(
      "Delete",
      form(
        {},
        [h("button", { type: "submit", class: "danger" }, `Delete ${plugin.name}`)],
        async () => {
          if (!confirm(`Delete ${plugin.name}?`)) return;
          await api(`/api/plugins/${id}`, { method: "DELETE" });
          location.hash = "#/plugins";
        },
      ),
    ),
  );
  await Promise.all([data.load(), preview.draw()]);
}
