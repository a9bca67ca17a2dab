/** Button actions of pull displays (issue 24): the owner's choice, carried out at a poll. */
import { buildWith, defineDomain } from "../../face.ts";
import { buttonsRouter } from "./router.ts";
import { ButtonActions } from "./service.ts";
import { forgetButtonAction } from "./unlink.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { ButtonTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** Button actions of pull displays (issue 24). */
    buttons: ButtonActions;
  }
}

export const buttons = defineDomain({
  name: "buttons",
  router: buttonsRouter,
  hooks: {
    // A device that leaves its owner takes its button action with it.
    deviceUnlinked: () => forgetButtonAction(),
    // A display's poll announces its button's function and carries out a press.
    displayButton: ({ services }) => (device, headers) => services.buttons.onPoll(device, headers),
  },
  /** A press moves the device's current push (pushes) or identifies it; owners check (devices). */
  build: buildWith(["pushes", "devices"], ({ db, storage, renderer, changes, services }) => ({
    buttons: new ButtonActions({
      db,
      store: storage,
      renderer,
      step: (deviceId, direction) => services.pushes.step(deviceId, direction),
      owned: (userId, deviceId) => services.devices.owned(userId, deviceId),
      changes,
    }),
  })),
});
