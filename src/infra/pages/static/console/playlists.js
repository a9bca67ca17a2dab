// Playlists (docs/playlists.md): the list, a new one by name, and one playlist's page: its name,
// time zone and items (one plugin, or a mashup of plugins in a layout's slots), each with its
// duration and optional weekdays and hours, reordered with buttons; saved whole (PUT), run on
// the devices ticked, deleted.
import { api } from "./api.js";
import { announce, card, field, form, h, show, when } from "./ui.js";

/** TRMNL's mashup layouts and the plugins each one takes, in reading order. */
const LAYOUTS = [
  ["1Lx1R", "Left and right halves", 2],
  ["1Tx1B", "Top and bottom halves", 2],
  ["1Lx2R", "Left half, two quarters right", 3],
  ["2Lx1R", "Two quarters left, right half", 3],
  ["1Tx2B", "Top half, two quarters below", 3],
  ["2Tx1B", "Two quarters on top, bottom half", 3],
  ["2x2", "Four quarters", 4],
];
const SLOTS = Object.fromEntries(LAYOUTS.map(([layout, , slots]) => [layout, slots]));
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
/** CONTRACT.md: an item shows 900 s unless it says. */
const DEFAULT_SECONDS = 900;

/** The device's name as the other pages show it. */
const deviceName = (d) => d.nickname || d.thingName;

/** Each of the user's devices with the id of the playlist it runs (or null), and the playlists. */
async function devicesWithPlaylists() {
  const [devices, playlists] = await Promise.all([api("/api/devices"), api("/api/playlists")]);
  const runs = new Map(playlists.flatMap((p) => p.deviceIds.map((id) => [id, p.id])));
  return {
    devices: devices.map((d) => ({ ...d, playlistId: runs.get(d.id) ?? null })),
    playlists,
  };
}

function newPlaylistCard() {
  const name = h("input", { required: true, maxLength: 100, placeholder: "Kitchen" });
  return card(
    "New playlist",
    form({}, [
      field("Name", name),
      h("button", { type: "submit" }, "Create playlist"),
    ], async () => {
      const playlist = await api("/api/playlists", {
        method: "POST",
        body: {
          name: name.value.trim(),
          timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
          items: [],
        },
      });
      location.hash = `#/playlists/${playlist.id}`;
    }),
  );
}

export async function playlistsView() {
  const { playlists, devices } = await devicesWithPlaylists();
  show(
    h("h1", {}, "Playlists"),
    h(
      "p",
      { class: "lead" },
      "Screens in turn, each for its time, on the days and hours you choose.",
    ),
    card(
      "Your playlists",
      playlists.length
        ? h(
          "ul",
          { class: "list", "aria-label": "Your playlists" },
          playlists.map((p) => {
            const on = devices.filter((d) => d.playlistId === p.id).map(deviceName);
            return h(
              "li",
              {},
              h("a", { href: `#/playlists/${p.id}` }, h("strong", {}, p.name)),
              h(
                "span",
                { class: "hint" },
                `${p.items.length} item${p.items.length === 1 ? "" : "s"} · `,
                on.length ? `on ${on.join(", ")}` : "on no device",
                " · changed ",
                when(p.updatedAt),
              ),
            );
          }),
        )
        : h("p", { class: "empty" }, "No playlists yet."),
    ),
    newPlaylistCard(),
  );
}

/** A select of the user's plugins with `value` chosen. */
function pluginSelect(plugins, value, onChange) {
  return h(
    "select",
    { onchange: (e) => onChange(e.target.value) },
    plugins.map((p) => h("option", { value: p.id, selected: p.id === value }, p.name)),
  );
}

/** The fields of one item; `changed` redraws the list (a new kind or layout changes fields). */
function itemFields(item, plugins, changed) {
  const mashup = item.mashup;
  const kind = h(
    "select",
    {
      onchange: () => {
        if (kind.value === "mashup") {
          item.mashup = { layout: "1Lx1R", pluginIds: [item.pluginId, plugins[0].id] };
          delete item.pluginId;
        } else {
          item.pluginId = mashup.pluginIds[0];
          delete item.mashup;
        }
        changed();
      },
    },
    h("option", { value: "plugin", selected: !mashup }, "One plugin"),
    h("option", { value: "mashup", selected: Boolean(mashup) }, "A mashup of plugins"),
  );
  const what = mashup
    ? [
      field(
        "Layout",
        h(
          "select",
          {
            onchange: (e) => {
              const slots = SLOTS[e.target.value];
              const ids = mashup.pluginIds.slice(0, slots);
              while (ids.length < slots) ids.push(plugins[0].id);
              Object.assign(mashup, { layout: e.target.value, pluginIds: ids });
              changed();
            },
          },
          LAYOUTS.map(([value, label]) =>
            h("option", { value, selected: value === mashup.layout }, `${value}: ${label}`)
          ),
        ),
      ),
      ...mashup.pluginIds.map((id, slot) =>
        field(
          `Slot ${slot + 1}`,
          pluginSelect(plugins, id, (value) => (mashup.pluginIds[slot] = value)),
        )
      ),
    ]
    : field("Plugin", pluginSelect(plugins, item.pluginId, (value) => (item.pluginId = value)));

  const seconds = item.durationSeconds ?? DEFAULT_SECONDS;
  const number = (value, max) => h("input", { type: "number", min: 0, max, value });
  const minutes = number(Math.floor(seconds / 60), 1440);
  const secs = number(seconds % 60, 59);
  const duration = () => (item.durationSeconds = Number(minutes.value) * 60 + Number(secs.value));
  minutes.addEventListener("input", duration);
  secs.addEventListener("input", duration);

  // No days given shows on every day; all ticked says the same.
  const days = DAYS.map((_, day) =>
    h("input", {
      type: "checkbox",
      value: day,
      checked: !item.days || item.days.includes(day),
      onchange: () => {
        const ticked = days.filter((b) => b.checked).map((b) => Number(b.value));
        if (ticked.length === 7) delete item.days;
        else item.days = ticked;
      },
    })
  );
  const time = (key) =>
    h("input", {
      type: "time",
      value: item[key] ?? "",
      oninput: (e) => {
        if (e.target.value) item[key] = e.target.value;
        else delete item[key];
      },
    });

  return [
    field("Shows", kind),
    ...[what].flat(),
    h(
      "div",
      { class: "grid pair" },
      field("Minutes", minutes),
      field("Seconds", secs),
    ),
    h(
      "fieldset",
      { class: "checks days" },
      h("legend", {}, "Days"),
      days.map((box, i) => h("label", { class: "check" }, box, ` ${DAYS[i]}`)),
    ),
    h(
      "div",
      { class: "grid pair" },
      field("From", time("from"), "Empty: all day"),
      field("Until", time("until")),
    ),
  ];
}

/** The items as an ordered list of fieldsets with move and remove buttons. */
function itemsEditor(items, plugins) {
  const list = h("ol", { class: "items", "aria-label": "Items, shown in this order" });
  function draw(focus) {
    list.replaceChildren(
      ...items.map((item, i) => {
        const button = (label, name, action, disabled) =>
          h("button", {
            type: "button",
            class: "secondary small",
            "data-action": label,
            // Short on screen (three fit a phone's row); the name says which item.
            "aria-label": name,
            disabled,
            onclick: () => {
              const next = action();
              draw(next === undefined ? undefined : [next, label]);
            },
          }, label);
        const swap = (j) => {
          [items[i], items[j]] = [items[j], items[i]];
          return j;
        };
        return h(
          "li",
          {},
          h(
            "fieldset",
            { class: "item" },
            h("legend", {}, `Item ${i + 1}`),
            ...itemFields(item, plugins, () => draw()),
            h(
              "div",
              { class: "row wrap" },
              button("Up", `Move item ${i + 1} up`, () => swap(i - 1), i === 0),
              button("Down", `Move item ${i + 1} down`, () => swap(i + 1), i === items.length - 1),
              button("Remove", `Remove item ${i + 1}`, () => void items.splice(i, 1)),
            ),
          ),
        );
      }),
    );
    // The moved item keeps the focus: on the same button, or the other one at either end.
    if (focus) {
      const [index, label] = focus;
      const buttons = [...list.children[index].querySelectorAll("button[data-action]")]
        .filter((b) => !b.disabled);
      (buttons.find((b) => b.dataset.action === label) ?? buttons[0]).focus();
    }
  }
  draw();
  const add = (make) =>
    h("button", {
      type: "button",
      class: "secondary",
      disabled: !plugins.length,
      onclick: () => {
        items.push({ ...make(plugins[0].id), durationSeconds: DEFAULT_SECONDS });
        draw();
        list.lastChild.querySelector("select").focus();
      },
    }, make === onePlugin ? "Add a plugin" : "Add a mashup");
  return h(
    "div",
    {},
    items.length || plugins.length ? null : h(
      "p",
      { class: "empty" },
      "Make a plugin first: ",
      h("a", { href: "#/plugins" }, "Plugins"),
    ),
    list,
    h("div", { class: "row wrap" }, add(onePlugin), add(twoHalves)),
  );
}
const onePlugin = (id) => ({ pluginId: id });
const twoHalves = (id) => ({ mashup: { layout: "1Lx1R", pluginIds: [id, id] } });

/** A checkbox per device: ticked runs this playlist on it, unticked stops it. */
function devicesCard(playlist, devices, playlists) {
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const names = Object.fromEntries(playlists.map((p) => [p.id, p.name]));
  const rows = devices.map((d) => {
    const other = h("span", { class: "hint" });
    const showOther = () =>
      other.textContent = d.playlistId && d.playlistId !== playlist.id
        ? ` (runs ${names[d.playlistId] ?? "another playlist"})`
        : "";
    showOther();
    const box = h("input", {
      type: "checkbox",
      checked: d.playlistId === playlist.id,
      onchange: async () => {
        error.hidden = true;
        box.disabled = true;
        try {
          const playlistId = box.checked ? playlist.id : null;
          await api(`/api/devices/${d.id}/playlist`, { method: "PUT", body: { playlistId } });
          d.playlistId = playlistId;
          announce(`${deviceName(d)} ${playlistId ? "runs" : "stopped"} ${playlist.name}`);
        } catch (e) {
          box.checked = !box.checked;
          error.textContent = e.message;
          error.hidden = false;
        } finally {
          box.disabled = false;
          showOther();
        }
      },
    });
    return h("label", { class: "check" }, box, ` ${deviceName(d)}`, other);
  });
  return card(
    "Run it on",
    devices.length
      ? h("fieldset", { class: "checks" }, h("legend", {}, "Devices"), rows)
      : h("p", { class: "empty" }, "No devices yet."),
    error,
  );
}

export async function playlistView(id) {
  const [playlist, plugins, { devices, playlists }] = await Promise.all([
    api(`/api/playlists/${id}`),
    api("/api/plugins"),
    devicesWithPlaylists(),
  ]);
  const items = structuredClone(playlist.items);
  const name = h("input", { required: true, maxLength: 100, value: playlist.name });
  const zone = h("input", { required: true, maxLength: 64, value: playlist.timeZone });
  show(
    h("p", { class: "crumbs" }, h("a", { href: "#/playlists" }, "Playlists")),
    h("h1", {}, playlist.name),
    card(
      "Playlist",
      form({ class: "playlist" }, [
        h(
          "div",
          { class: "grid two" },
          field("Name", name),
          field("Time zone", zone, "Of the days and hours, e.g. Europe/Berlin"),
        ),
        h("h3", {}, "Items"),
        itemsEditor(items, plugins),
        h("button", { type: "submit" }, "Save playlist"),
      ], async () => {
        const saved = await api(`/api/playlists/${id}`, {
          method: "PUT",
          body: { name: name.value.trim(), timeZone: zone.value.trim(), items },
        });
        Object.assign(playlist, saved);
        document.querySelector("main h1").textContent = saved.name;
        announce("Playlist saved");
      }),
    ),
    devicesCard(playlist, devices, playlists),
    card(
      "Delete",
      form(
        {},
        [h("button", { type: "submit", class: "danger" }, `Delete ${playlist.name}`)],
        async () => {
          if (!confirm(`Delete ${playlist.name}?`)) return;
          await api(`/api/playlists/${id}`, { method: "DELETE" });
          location.hash = "#/playlists";
        },
      ),
    ),
  );
}
