// Devices: the list with each one's health, claiming a display by the code its screen shows,
// an enrollment token for a Kindle or a Raspberry Pi with what to type into it, and one
// device's page (nickname, display profile, unbind).
import { api } from "./api.js";
import { announce, card, copyable, field, form, h, show, when } from "./ui.js";
import { historyCard, panelOf, pushPicture } from "./photo.js";

const name = (device) => device.nickname || device.thingName;

/** The device's last reported state: SPEC 2.7 sends it as an escaped JSON string. */
function stateOf(device) {
  if (typeof device.state !== "string") return device.state || null;
  try {
    return JSON.parse(device.state);
  } catch {
    return null;
  }
}

/** Battery, signal, online and firmware as short labelled facts. */
function health(device) {
  const state = stateOf(device);
  const facts = [
    ["Status", device.online ? "Online" : "Offline"],
    [
      "Battery",
      device.battery === undefined || device.battery === null ? "—" : `${device.battery}%`,
    ],
    // The list form has no state (SPEC 2.7): the signal shows on the device's own page.
    "state" in device ? ["Signal", state && state.rssi ? `${state.rssi} dBm` : "—"] : null,
    ["Firmware", device.firmware || "—"],
    ["Last seen", when(device.lastSeenAt, "never")],
  ];
  return h(
    "dl",
    { class: "facts" },
    facts.filter(Boolean).map(([term, value]) =>
      h("div", {}, h("dt", {}, term), h("dd", {}, value))
    ),
  );
}

function claimCard() {
  const code = h("input", {
    name: "code",
    required: true,
    maxLength: 64,
    autocomplete: "off",
    autocapitalize: "characters",
    spellcheck: "false",
    class: "mono code",
  });
  return card(
    "Claim a display",
    form({}, [
      field("Code on the display's screen", code, "Six letters and digits, e.g. K7P3XQ"),
      h("button", { type: "submit" }, "Claim"),
    ], async () => {
      const { device } = await api("/api/devices/claim", {
        method: "POST",
        body: { code: code.value.trim().toUpperCase() },
      });
      announce(`${name(device)} is yours`);
      location.hash = `#/devices/${device.id}`;
    }),
  );
}

/** What to type into TRMNL's Raspberry Pi and Kindle clients for an enrollment token. */
function enrollmentSteps(token) {
  const base = location.origin;
  return h(
    "div",
    { class: "steps" },
    h("p", {}, "Shown once. It works for 24 hours, until the display's first poll."),
    copyable("Key (enrollment token)", token),
    h("h3", {}, "Raspberry Pi (trmnl-display)"),
    copyable("Environment", `TRMNL_BASE_URL=${base} TRMNL_API_KEY=${token}`),
    h("h3", {}, "Kindle (TRMNL.sh)"),
    copyable("In TRMNL.sh, under USER SETTINGS", `BASE_URL="${base}"`),
    copyable("apikey.txt, beside TRMNL.sh", token),
  );
}

function enrollCard() {
  const label = h("input", { name: "name", maxLength: 64, placeholder: "Kitchen Kindle" });
  const result = h("div", { "aria-live": "polite" });
  return card(
    "Set up a Kindle or a Raspberry Pi",
    h("p", {}, "Make a key for TRMNL's Kindle or Pi client before its first start."),
    form({}, [field("Name", label), h("button", { type: "submit" }, "Make a key")], async () => {
      const { token } = await api("/api/devices/enrollment-tokens", {
        method: "POST",
        body: label.value.trim() ? { name: label.value.trim() } : {},
      });
      result.replaceChildren(enrollmentSteps(token));
    }),
    result,
  );
}

/** A device's card: what it shows now, its name and its health. */
function deviceRow(device) {
  const now = h("div", { class: "now" });
  if (device.latestPushId) {
    pushPicture(device, device.latestPushId, null, `What ${name(device)} shows`)
      .then((img) => now.append(img))
      .catch(() => {});
  }
  return h(
    "li",
    { class: "device" },
    now,
    h(
      "a",
      { href: `#/devices/${device.id}`, class: "device-link" },
      h("span", { class: `dot ${device.online ? "on" : "off"}`, "aria-hidden": "true" }),
      h("strong", {}, name(device)),
      h("span", { class: "sr-only" }, device.online ? " online" : " offline"),
    ),
    health(device),
  );
}

export async function devicesView() {
  const devices = await api("/api/devices");
  show(
    h("h1", {}, "Devices"),
    devices.length
      ? h("ul", { class: "devices", "aria-label": "Your devices" }, devices.map(deviceRow))
      : h("p", { class: "empty" }, "No displays yet. Claim the one that shows a code."),
    h("div", { class: "grid two" }, claimCard(), enrollCard()),
  );
}

function nicknameCard(device) {
  const input = h("input", { name: "nickname", value: device.nickname || "", maxLength: 64 });
  return form({}, [
    field("Nickname", input, "Empty shows its thing name"),
    h("button", { type: "submit", class: "secondary" }, "Save nickname"),
  ], async () => {
    await api(`/api/devices/${device.id}/nickname`, {
      method: "PUT",
      body: { nickname: input.value.trim() },
    });
    announce("Nickname saved");
  });
}

function select(name, options, value) {
  return h(
    "select",
    { name },
    options.map(([v, label]) =>
      h("option", { value: String(v), selected: String(v) === String(value) }, label)
    ),
  );
}

function profileCard(device, profile) {
  const width = h("input", {
    type: "number",
    min: 1,
    max: 4096,
    value: profile.width,
    required: true,
  });
  const height = h("input", {
    type: "number",
    min: 1,
    max: 4096,
    value: profile.height,
    required: true,
  });
  const depth = select("bitDepth", [[1, "1 bit (black and white)"], [2, "2 bits (4 greys)"], [
    4,
    "4 bits (16 greys)",
  ]], profile.bitDepth);
  const rotation = select(
    "rotation",
    [[0, "0°"], [90, "90°"], [180, "180°"], [270, "270°"]],
    profile.rotation,
  );
  const sleep = profile.sleepWindow;
  const sleepOn = h("input", { type: "checkbox", checked: Boolean(sleep) });
  const start = h("input", { type: "time", value: sleep ? sleep.start : "22:00" });
  const end = h("input", { type: "time", value: sleep ? sleep.end : "06:30" });
  const zone = h("input", {
    value: sleep ? sleep.timeZone : Intl.DateTimeFormat().resolvedOptions().timeZone,
    maxLength: 64,
  });
  const sleepFields = h(
    "div",
    { class: "grid three", hidden: !sleep },
    field("From", start),
    field("Until", end),
    field("Time zone", zone),
  );
  sleepOn.addEventListener("change", () => (sleepFields.hidden = !sleepOn.checked));
  const keyless = h("input", { type: "checkbox", checked: profile.keyless });
  return card(
    "Display profile",
    h("p", { class: "hint" }, `Model ${profile.model}: pictures are drawn for this panel.`),
    form({}, [
      h(
        "div",
        { class: "grid three" },
        field("Width (px)", width),
        field("Height (px)", height),
        field("Grey depth", depth),
      ),
      field("Rotation (clockwise)", rotation),
      h("label", { class: "check" }, sleepOn, " Sleep at night"),
      sleepFields,
      h(
        "label",
        { class: "check" },
        keyless,
        " Key-less: show pictures to polls that send only its MAC",
      ),
      h("button", { type: "submit" }, "Save profile"),
    ], async () => {
      await api(`/api/devices/${device.id}/display-profile`, {
        method: "PUT",
        body: {
          width: Number(width.value),
          height: Number(height.value),
          bitDepth: Number(depth.value),
          rotation: Number(rotation.value),
          sleepWindow: sleepOn.checked
            ? { start: start.value, end: end.value, timeZone: zone.value }
            : null,
          keyless: keyless.checked,
        },
      });
      announce("Profile saved");
    }),
  );
}

function unbindCard(device) {
  return card(
    "Unbind",
    h(
      "p",
      {},
      "It stops being yours: its key stops working at once. To give it away, unbind it; the " +
        "new owner resets it and claims the code it then shows.",
    ),
    form(
      {},
      [h("button", { type: "submit", class: "danger" }, `Unbind ${name(device)}`)],
      async () => {
        if (!confirm(`Unbind ${name(device)}?`)) return;
        await api(`/api/devices/${device.id}/unbind`, { method: "POST" });
        announce(`${name(device)} unbound`);
        location.hash = "#/devices";
      },
    ),
  );
}

export async function deviceView(id) {
  const device = await api(`/api/devices/${id}`);
  const profile = await panelOf(device);
  show(
    h("p", { class: "crumbs" }, h("a", { href: "#/devices" }, "Devices")),
    h("h1", {}, name(device)),
    card("Health", health(device), nicknameCard(device)),
    h(
      "p",
      {},
      h("a", { class: "button", href: `#/send/${device.id}` }, "Send a photo, note or Scene"),
    ),
    await historyCard(device, profile),
    profile.editable ? profileCard(device, profile) : null,
    unbindCard(device),
  );
}
