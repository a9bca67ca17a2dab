// Send to a display: a photo (photo.js), a note laid out by the service's note template, or a
// Scene made earlier (a presentation); the notes kept for the assistant (the content pipeline:
// summarised, then placed on the displays by the agent); and the chosen display's push history.
import { api } from "./api.js";
import { announce, card, field, form, h, show, when } from "./ui.js";
import { historyWithId, panelOf, photoForm, showWhenRendered } from "./photo.js";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Redraws the push history after something was sent. */
async function redrawHistory(device, panel) {
  document.getElementById("history").replaceWith(await historyWithId(device, panel));
}

/** The ids of the device's newest pushes. */
async function newestPushIds(device) {
  const { items } = await api(`/api/devices/${device.id}/pushes?limit=10`);
  return items.map((p) => p.pushId);
}

/**
 * A note to this display now: a `manual` content (SPEC 4.7) whose text the service lays out with
 * its note template; its push is made at confirm, drawn, then shown.
 */
function noteForm(device, panel) {
  const title = h("input", { maxLength: 200, placeholder: "Shopping" });
  const text = h("textarea", { required: true, maxLength: 20000, rows: 4 });
  return form({ "aria-label": "Write a note" }, [
    field("Note title", title),
    field("Note", text, "Up to 20,000 characters; the service sets it to fit the panel"),
    h("button", { type: "submit" }, "Send note"),
  ], async (el) => {
    const before = new Set(await newestPushIds(device));
    announce("Sending…");
    const content = await api("/api/app/v1/contents", {
      method: "POST",
      // One key per press: a retried request stores nothing twice.
      headers: { "idempotency-key": crypto.randomUUID() },
      body: {
        mode: "manual",
        displayId: device.id,
        ...(title.value.trim() ? { title: title.value.trim() } : {}),
        assets: [{ type: "text", text: text.value }],
      },
    });
    await api(`/api/app/v1/contents/${content.id}/confirm`, { method: "POST" });
    const pushId = (await newestPushIds(device)).find((id) => !before.has(id));
    if (pushId) await showWhenRendered(device, pushId);
    announce("Sent: the display shows it at its next poll");
    el.reset();
    await redrawHistory(device, panel);
  });
}

/** A presentation's picture: its first drawn rendition. */
function scenePicture(presentation) {
  const ready = presentation.renditions.find((r) => r.state === "ready" && r.url);
  if (!ready) return h("div", { class: "thumb hint" }, "Drawing…");
  const img = h("img", { src: ready.url, alt: "", class: "panel" });
  img.style.setProperty("--ratio", `${ready.width} / ${ready.height}`);
  return h("div", { class: "thumb" }, img);
}

/** Scenes made earlier (the app's or an SDK script's presentations), each sent with a button. */
async function scenesCard(device, panel) {
  const list = h("div", {});
  const target = device.nickname || device.thingName;
  const load = async () => {
    const { items } = await api("/api/app/v1/presentations?scope=generated&state=ready&limit=12");
    list.replaceChildren(
      items.length
        ? h(
          "ul",
          { class: "scenes", "aria-label": "Your Scenes" },
          items.map((p, i) =>
            h(
              "li",
              { class: "scene" },
              scenePicture(p),
              h("span", { class: "hint" }, "Made ", when(p.createdAt)),
              h("button", {
                type: "button",
                class: "secondary small",
                "aria-label": `Send Scene ${i + 1} to ${target}`,
                onclick: async (event) => {
                  event.target.disabled = true;
                  try {
                    announce("Sending…");
                    const { pushId } = await api(
                      `/api/app/v1/presentations/${p.id}/deliveries`,
                      { method: "POST", body: { displayId: device.id } },
                    );
                    await showWhenRendered(device, pushId);
                    announce("Sent: the display shows it at its next poll");
                    await redrawHistory(device, panel);
                  } catch (error) {
                    announce(error.message);
                  } finally {
                    event.target.disabled = false;
                  }
                },
              }, "Send"),
            )
          ),
        )
        : h("p", { class: "empty" }, "No Scenes yet. Describe one below, or make one in the app."),
    );
  };
  await load();

  // A new one from a description: the assistant's Scene at this panel's size (Pro plan).
  const intent = h("textarea", {
    required: true,
    maxLength: 2000,
    rows: 2,
    placeholder: "A calm screen with today's weather in Lisbon",
  });
  const [width, height] = panel.rotation === 90 || panel.rotation === 270
    ? [panel.height, panel.width]
    : [panel.width, panel.height];
  const describe = form({ "aria-label": "Describe a Scene" }, [
    field("What the Scene shows", intent, "The assistant lays it out for this panel (Pro plan)"),
    h("button", { type: "submit", class: "secondary" }, "Make Scene"),
  ], async (el) => {
    const content = await api("/api/app/v1/contents", {
      method: "POST",
      headers: { "idempotency-key": crypto.randomUUID() },
      body: {
        mode: "auto",
        intent: intent.value.trim(),
        output: {
          viewport: { width, height },
          colorMode: panel.bitDepth === 1 ? "monochrome" : "grayscale",
        },
        assets: [{ type: "text", text: intent.value.trim() }],
      },
    });
    await api(`/api/app/v1/contents/${content.id}/confirm`, { method: "POST" });
    announce("Making the Scene…");
    for (let attempt = 0; attempt < 120; attempt++) {
      const now = await api(`/api/app/v1/contents/${content.id}`);
      if (now.state === "failed") throw new Error("The Scene could not be made.");
      if (now.state === "ready") break;
      await sleep(1000);
    }
    el.reset();
    await load();
    announce("Scene made: send it with its button");
  });
  return card("Send a Scene", list, describe);
}

const NOTE_STATUS = {
  uploading: "Not sent",
  processing: "Reading",
  summarized: "Summarised",
  failed: "Failed",
};

/**
 * Notes for the assistant (the content pipeline, SPEC 4.6): kept, summarised, and placed on the
 * displays by the agent at its next run (or now, with the button).
 */
async function assistantCard() {
  const list = h("div", {});
  const load = async () => {
    const { items } = await api("/api/raw-items?limit=5");
    list.replaceChildren(
      items.length
        ? h(
          "ul",
          { class: "list", "aria-label": "Your notes, newest first" },
          items.map((item) =>
            h(
              "li",
              {},
              h("strong", {}, item.summary_content?.title || item.title || "Note"),
              " ",
              h("span", { class: "badge" }, NOTE_STATUS[item.status] || item.status),
              item.summary_content ? h("p", { class: "hint" }, item.summary_content.summary) : null,
              h(
                "p",
                { class: "hint" },
                item.pushIds.length
                  ? `On ${item.pushIds.length} display${item.pushIds.length === 1 ? "" : "s"}`
                  : "Not on a display yet",
                " · ",
                when(item.createdAt),
              ),
            )
          ),
        )
        : h("p", { class: "empty" }, "No notes yet."),
    );
  };
  await load();
  const text = h("textarea", { required: true, maxLength: 20000, rows: 3 });
  const keep = form({ "aria-label": "Keep a note for the assistant" }, [
    field("Note for the assistant", text, "It is summarised and placed on your displays"),
    h("button", { type: "submit", class: "secondary" }, "Keep note"),
  ], async (el) => {
    const item = await api("/api/raw-items/upload", { method: "POST", body: { text: text.value } });
    await api(`/api/raw-items/${item.id}/confirm`, { method: "POST" });
    el.reset();
    announce("Note kept: the assistant reads it now");
    await load();
  });
  const place = h("button", {
    type: "button",
    class: "secondary",
    onclick: async () => {
      try {
        await api("/api/analyze/trigger", { method: "POST" });
        announce("The assistant is placing your notes");
      } catch (error) {
        announce(error.message);
      }
    },
  }, "Place notes now");
  const refresh = h("button", { type: "button", class: "link", onclick: load }, "Refresh");
  return card(
    "Notes for the assistant",
    keep,
    list,
    h("div", { class: "row" }, place, refresh),
  );
}

export async function sendView(id) {
  const devices = await api("/api/devices");
  if (!devices.length) {
    return show(
      h("h1", {}, "Send to a display"),
      h(
        "p",
        { class: "empty" },
        "Claim a display first ",
        h("a", { href: "#/devices" }, "on Devices"),
        ".",
      ),
    );
  }
  const device = devices.find((d) => d.id === id) || devices[0];
  const picker = h(
    "select",
    { onchange: (e) => (location.hash = `#/send/${e.target.value}`) },
    devices.map((d) =>
      h("option", { value: d.id, selected: d.id === device.id }, d.nickname || d.thingName)
    ),
  );
  const panel = await panelOf(device);
  const target = device.nickname || device.thingName;
  const [scenes, assistant, history] = await Promise.all([
    scenesCard(device, panel),
    assistantCard(),
    historyWithId(device, panel),
  ]);
  show(
    h("h1", {}, "Send to a display"),
    devices.length > 1 ? field("Display", picker) : null,
    card(`A photo to ${target}`, photoForm(device, panel)),
    card(`A note to ${target}`, noteForm(device, panel)),
    scenes,
    history,
    assistant,
  );
}
