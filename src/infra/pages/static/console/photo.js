// A photo: pick a file (the phone's camera or a computer's file), see it drawn for the
// panel (its size, rotation and grey depth, dithered here as the service will), upload it
// through the custom-push upload ticket, confirm it, and show it as soon as it is rendered.
// Also the push history of a device with its pictures at the panel's real aspect.
import { api } from "./api.js";
import { announce, card, field, form, greys, h, when } from "./ui.js";

/** A device's panel: a display's profile, or the 800x480 1-bit panel of an NFC device. */
export async function panelOf(device) {
  if (device.transport !== "http") {
    return { model: "nfc", width: 800, height: 480, bitDepth: 1, rotation: 0, editable: false };
  }
  return { ...(await api(`/api/devices/${device.id}/display-profile`)), editable: true };
}

/** The picture's upright size: a panel hung turned 90 or 270 degrees is laid out portrait. */
function upright(panel) {
  const turned = panel.rotation === 90 || panel.rotation === 270;
  return turned ? [panel.height, panel.width] : [panel.width, panel.height];
}

/**
 * An `<img>` of a push's picture, pixel for pixel at the panel's aspect: the panel's upright size
 * when known, else the picture's own once it has loaded.
 */
function picture(src, size, alt) {
  const img = h("img", { src, alt, class: "panel" });
  const fit = ([width, height]) => img.style.setProperty("--ratio", `${width} / ${height}`);
  if (size) fit(size);
  else img.addEventListener("load", () => fit([img.naturalWidth, img.naturalHeight]));
  return img;
}

/** The picture of one of a device's pushes (its signed URL is valid 15 minutes). */
export async function pushPicture(device, pushId, size, alt) {
  const { url } = await api(`/api/devices/${device.id}/push/${pushId}?format=png`);
  return picture(url, size, alt);
}

const STATUS = {
  PREPARE: "Drawing",
  QUEUE: "Ready",
  PUBLISHED: "Sent",
  CONFIRMED: "Shown",
  EXPIRED: "Replaced",
};

function historyItem(device, push, size) {
  const thumb = h("div", { class: "thumb" });
  if (push.status !== "PREPARE") {
    pushPicture(device, push.pushId, size, push.title || "Push")
      .then((img) => thumb.append(img))
      .catch(() => {});
  }
  const showNow = push.status === "QUEUE" || push.status === "EXPIRED"
    ? h("button", {
      type: "button",
      class: "secondary small",
      onclick: async () => {
        await api(`/api/devices/${device.id}/current-push`, {
          method: "POST",
          body: { pushId: push.pushId },
        });
        announce(`${push.title || "The push"} goes on the display`);
      },
    }, "Show now")
    : null;
  return h(
    "li",
    { class: "push" },
    thumb,
    h(
      "div",
      {},
      h("strong", {}, push.title || push.summary || "Push"),
      " ",
      h("span", { class: `badge ${push.status.toLowerCase()}` }, STATUS[push.status]),
      h(
        "dl",
        { class: "times" },
        h("div", {}, h("dt", {}, "Made"), h("dd", {}, when(push.createdAt))),
        h("div", {}, h("dt", {}, "Fetched"), h("dd", {}, when(push.fetchedAt))),
        h("div", {}, h("dt", {}, "Shown"), h("dd", {}, when(push.confirmedAt))),
      ),
      push.error ? h("p", { class: "error" }, push.error) : null,
      showNow,
    ),
  );
}

/** The device's latest pushes, newest first. */
export async function historyCard(device, panel) {
  const { items } = await api(`/api/devices/${device.id}/pushes?limit=10`);
  const size = upright(panel);
  return card(
    "Push history",
    items.length
      ? h(
        "ol",
        { class: "history", "aria-label": "Pushes, newest first" },
        items.map((p) => historyItem(device, p, size)),
      )
      : h("p", { class: "empty" }, "Nothing pushed yet."),
  );
}

/** Where the picture goes in a width x height frame: the whole of it, or cropped to fill. */
function placement(img, width, height, fit) {
  const scaleCover = Math.max(width / img.naturalWidth, height / img.naturalHeight);
  const scaleContain = Math.min(width / img.naturalWidth, height / img.naturalHeight);
  // The service's default: cover when cropping keeps at least 3/4 of the picture.
  const kept = (width * height) / (img.naturalWidth * img.naturalHeight * scaleCover ** 2);
  const cover = fit === "cover" || (fit === "auto" && kept >= 0.75);
  const scale = cover ? scaleCover : scaleContain;
  const w = img.naturalWidth * scale;
  const hgt = img.naturalHeight * scale;
  return [(width - w) / 2, (height - hgt) / 2, w, hgt];
}

/**
 * The service's tone stage, roughly (docs/render.md, "The tone stage"): over the picture's own
 * pixels (`rect`, not the white bands), black and white points at the 0.5% and 99.5% percentiles
 * stretched to 0..255 (at least 64 greys apart), then gamma 1.1.
 */
function tone(grey, width, [x0, y0, w, hgt]) {
  const counts = new Uint32Array(256);
  let total = 0;
  for (let y = Math.max(0, Math.round(y0)); y < Math.min(grey.length / width, y0 + hgt); y++) {
    for (let x = Math.max(0, Math.round(x0)); x < Math.min(width, x0 + w); x++) {
      counts[Math.round(grey[y * width + x])]++;
      total++;
    }
  }
  const percentile = (p) => {
    let seen = 0;
    for (let v = 0; v < 256; v++) if ((seen += counts[v]) >= total * p) return v;
    return 255;
  };
  let black = percentile(0.005);
  let white = percentile(0.995);
  if (white - black < 64) {
    const middle = (black + white) / 2;
    black = Math.max(0, middle - 32);
    white = Math.min(255, black + 64);
  }
  for (let i = 0; i < grey.length; i++) {
    const stretched = Math.min(1, Math.max(0, (grey[i] - black) / (white - black)));
    grey[i] = 255 * stretched ** (1 / 1.1);
  }
}

/** Toned greys of `bitDepth` bits, Atkinson-dithered: how a photo looks on the panel. */
function dither(ctx, width, height, bitDepth, rect) {
  const image = ctx.getImageData(0, 0, width, height);
  const px = image.data;
  const grey = new Float32Array(width * height);
  for (let i = 0; i < grey.length; i++) {
    grey[i] = 0.299 * px[i * 4] + 0.587 * px[i * 4 + 1] + 0.114 * px[i * 4 + 2];
  }
  tone(grey, width, rect);
  const steps = 2 ** bitDepth - 1;
  const spread = [[1, 0], [2, 0], [-1, 1], [0, 1], [1, 1], [0, 2]];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const level = Math.round(Math.min(255, Math.max(0, grey[i])) / 255 * steps) * 255 / steps;
      const error = (grey[i] - level) / 8;
      grey[i] = level;
      for (const [dx, dy] of spread) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx >= 0 && nx < width && ny < height) grey[ny * width + nx] += error;
      }
    }
  }
  for (let i = 0; i < grey.length; i++) {
    px[i * 4] = px[i * 4 + 1] = px[i * 4 + 2] = grey[i];
    px[i * 4 + 3] = 255;
  }
  ctx.putImageData(image, 0, 0);
}

function drawPreview(canvas, img, panel, fit) {
  const [width, height] = upright(panel);
  canvas.width = width;
  canvas.height = height;
  canvas.style.setProperty("--ratio", `${width} / ${height}`);
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, width, height);
  const rect = placement(img, width, height, fit);
  ctx.drawImage(img, ...rect);
  dither(ctx, width, height, panel.bitDepth, rect);
}

/** Waits for the push's render: its status once it leaves PREPARE, or its error. */
export async function rendered(device, pushId) {
  for (let attempt = 0; attempt < 60; attempt++) {
    const { items } = await api(`/api/devices/${device.id}/pushes?limit=10`);
    const push = items.find((p) => p.pushId === pushId);
    if (push && push.error) throw new Error(`The picture could not be drawn: ${push.error}`);
    if (push && push.status !== "PREPARE") return push;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error("The picture is still being drawn; it shows in the history when it is ready.");
}

async function send(device, file, { title, fit }) {
  const ticket = await api(`/api/devices/${device.id}/custom-push/upload`, {
    method: "POST",
    body: { contentType: file.type || "application/octet-stream", sizeBytes: file.size },
  });
  const body = new FormData();
  for (const [key, value] of Object.entries(ticket.fields)) body.append(key, value);
  body.append("file", file);
  const upload = await fetch(ticket.url, { method: "POST", body });
  if (!upload.ok) throw new Error(`The upload failed (${upload.status})`);
  const { pushId } = await api(`/api/devices/${device.id}/custom-push/confirm`, {
    method: "POST",
    body: {
      fileId: ticket.fileId,
      ...(title ? { title } : {}),
      ...(fit === "auto" ? {} : { fit }),
    },
  });
  await showWhenRendered(device, pushId);
}

/**
 * Waits for a push the owner just made to be drawn, then puts it on the display (a rendered push
 * waits in the queue until then, as any other: SPEC 3.1).
 */
export async function showWhenRendered(device, pushId) {
  const push = await rendered(device, pushId);
  if (push.status === "QUEUE") {
    await api(`/api/devices/${device.id}/current-push`, { method: "POST", body: { pushId } });
  }
}

/** The photo form: choose, see it drawn for the panel, send; the history is redrawn after. */
export function photoForm(device, panel) {
  const file = h("input", { type: "file", accept: "image/*", required: true });
  const title = h("input", { maxLength: 200, placeholder: "Holiday" });
  const fit = h(
    "select",
    {},
    h("option", { value: "auto" }, "Automatic"),
    h("option", { value: "cover" }, "Fill the screen (crop)"),
    h("option", { value: "contain" }, "Whole picture (white bands)"),
  );
  const canvas = h("canvas", {
    class: "panel",
    role: "img",
    "aria-label": "How the photo will look on the display",
  });
  const [width, height] = upright(panel);
  const caption = h("figcaption", {}, `${width}x${height}, ${greys(panel.bitDepth)}`);
  const preview = h("figure", { class: "preview", hidden: true }, canvas, caption);
  let image = null;
  const redraw = () => image && drawPreview(canvas, image, panel, fit.value);
  file.addEventListener("change", () => {
    const chosen = file.files[0];
    if (!chosen) return;
    const img = new Image();
    img.onload = () => {
      image = img;
      preview.hidden = false;
      redraw();
    };
    img.src = URL.createObjectURL(chosen);
  });
  fit.addEventListener("change", redraw);
  return form({}, [
    field(
      "Photo",
      file,
      "Take one with the phone's camera or choose a file: JPEG, PNG, WebP, up to 10 MB",
    ),
    preview,
    h("div", { class: "grid two" }, field("Title", title), field("Fit", fit)),
    h("button", { type: "submit" }, "Send to display"),
  ], async (el) => {
    if (!file.files[0]) throw new Error("Choose a photo first.");
    announce("Sending…");
    await send(device, file.files[0], { title: title.value.trim(), fit: fit.value });
    announce("Sent: the display shows it at its next poll");
    el.reset();
    preview.hidden = true;
    document.getElementById("history").replaceWith(await historyWithId(device, panel));
  });
}

/** The push history card with the id the forms redraw it by. */
export async function historyWithId(device, panel) {
  const history = await historyCard(device, panel);
  history.id = "history";
  return history;
}
