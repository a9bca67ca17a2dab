/**
 * The embedded development broker (CONTRACT.md): aedes on `node:net`, used when MQTT_URL is
 * unset. A device connects with client id = username = its thing name and no password, and may
 * publish only on `devices/{thingName}/up/...` and subscribe only under `devices/{thingName}/`;
 * unknown thing names are refused. The service's own client authenticates with a secret.
 */
import net from "node:net";
import { Aedes } from "aedes";
import { ConfigError } from "../config.ts";
import { timingSafeEqualString } from "../lib/crypto.ts";
import { THING_NAME } from "./topics.ts";

/** Username of the service's own client; its password is a generated secret. */
export const SERVICE_USERNAME = "dds-service";

export interface BrokerOptions {
  port: number;
  host: string;
  serviceSecret: string;
  /** True when a device with this thing name is registered. */
  isKnownThing(thingName: string): Promise<boolean>;
  onError?(error: unknown): void;
}

export interface EmbeddedBroker {
  /** The port actually listened on (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

type AuthError = Error & { returnCode: number };
const authError = (message: string, returnCode: number) =>
  Object.assign(new Error(message), { returnCode }) as AuthError;

/** Starts the broker; a taken port stops start-up with one line naming MQTT_PORT and MQTT_URL. */
export async function startEmbeddedBroker(options: BrokerOptions): Promise<EmbeddedBroker> {
  // Who each connected client is: the service, or the device of that thing name.
  const identities = new WeakMap<object, { service: true } | { thingName: string }>();
  const broker = await Aedes.createBroker({
    authenticate(client, username, password, done) {
      if (username === SERVICE_USERNAME) {
        const ok = password !== undefined &&
          timingSafeEqualString(password.toString(), options.serviceSecret);
        if (!ok) return done(authError("Bad service credentials", 4), false);
        identities.set(client, { service: true });
        return done(null, true);
      }
      const thingName = client.id;
      if (!THING_NAME.test(thingName) || username !== thingName) {
        return done(authError("Client id and username must be the thing name", 2), false);
      }
      options.isKnownThing(thingName).then(
        (known) => {
          if (!known) return done(authError(`Unknown thing ${thingName}`, 5), false);
          identities.set(client, { thingName });
          done(null, true);
        },
        (error) => done(authError(String(error), 3), false),
      );
    },
    authorizePublish(client, packet, callback) {
      const who = client && identities.get(client);
      if (!client || (who && "service" in who)) return callback(null);
      if (who && packet.topic.startsWith(`devices/${who.thingName}/up/`)) return callback(null);
      // MQTT 3.1.1 cannot refuse a single publish: the broker drops the message and the client.
      callback(new Error(`Publishing to ${packet.topic} is not allowed`));
    },
    authorizeSubscribe(client, subscription, callback) {
      const who = identities.get(client);
      if (who && "service" in who) return callback(null, subscription);
      if (who && subscription.topic.startsWith(`devices/${who.thingName}/`)) {
        return callback(null, subscription);
      }
      // A refused subscription gets a failure return code (0x80); the connection stays up.
      callback(null, null);
    },
  });
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    // STACK.md: without it every QoS 1 message waits ~44 ms for Nagle.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    broker.handle(socket);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    if ((error as { code?: string }).code === "EADDRINUSE") {
      throw new ConfigError(
        `MQTT_PORT ${options.port} is already in use (another broker?): set MQTT_URL=mqtt://127.0.0.1:${options.port} to use that broker, or choose a free MQTT_PORT`,
      );
    }
    throw error;
  }
  server.on("error", (error) => options.onError?.(error));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
