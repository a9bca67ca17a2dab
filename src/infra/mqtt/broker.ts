/**
 * The embedded development broker (CONTRACT.md "MQTT topics"): aedes on `node:net`, used when
 * MQTT_URL is unset. A device connects with client id = username = its thing name and password =
 * its device secret (src/infra/mqtt/device_secret.ts) for its current credential version; it may
 * publish only on its own `up/` channels and subscribe only under its own `devices/{thingName}/`.
 * The service's own client logs in as `dds-service` with a secret only the service knows.
 */
import type { EventEmitter } from "node:events";
import { Buffer } from "node:buffer";
import { timingSafeEqual } from "node:crypto";
import net from "node:net";
import { Aedes, type Client } from "aedes";
import { ConfigError } from "../../config.ts";
import { Batcher } from "../lib/batcher.ts";
import { timingSafeEqualString } from "../lib/crypto.ts";
import { deviceMqttPassword } from "./device_secret.ts";
import { guardPacketSize } from "./packet_guard.ts";
import "./packets.ts";
import { mqttPortInUse } from "./port_check.ts";
import { isOwnFilter, ownUpChannel, RETAINED_CHANNEL, THING_NAME } from "./topics.ts";

/** Username of the service's own client; its password is a generated secret. */
export const SERVICE_USERNAME = "dds-service";

/** Largest packet body accepted from any client (a device's `up/state` is the big one). */
export const MAX_PACKET_BYTES = 64 * 1024;
/** Distinct subscriptions one device may hold (it needs one or two under its own prefix). */
export const MAX_DEVICE_SUBSCRIPTIONS = 8;
/**
 * CONNECTs authenticated by one credential-version query at most. Every CONNECT of a batch is
 * answered in the same turn of the event loop (aedes' setup and the CONNACK write, about half a
 * millisecond each on a loaded 2-core machine), so a batch of 500 held `/health` for 300 ms.
 */
export const CONNECT_BATCH = 64;
/** How often connected devices are checked against their current credential version. */
export const CREDENTIAL_RECHECK_MS = 30_000;

export interface BrokerOptions {
  port: number;
  host: string;
  serviceSecret: string;
  /** Key of the per-device passwords (MQTT_DEVICE_KEY). */
  deviceKey: Uint8Array;
  /**
   * The current credential version of each registered thing among `thingNames` (absent: not
   * registered). Version 0 means no credential was ever issued, so no password exists.
   */
  credentialVersions(thingNames: string[]): Promise<Map<string, number>>;
  /** How often connected devices are re-checked (revoke-and-reissue ends their session). */
  recheckMs?: number;
  onError?(error: unknown): void;
  /** Notable events (a device disconnected because its credential was reissued). */
  log?(msg: string, fields?: Record<string, unknown>): void;
}

export interface EmbeddedBroker {
  /** The port actually listened on (useful with port 0). */
  port: number;
  /** The aedes instance (tests and diagnostics). */
  aedes: Aedes;
  /** Disconnects devices whose credential version is no longer current (also runs on a timer). */
  recheckCredentials(): Promise<void>;
  /** Devices connected now (authenticated; the service's own client not counted). */
  connectedDevices(): number;
  close(): Promise<void>;
}

type Identity = { service: true } | { thingName: string; credentialVersion: number };

/**
 * Constant-time check of a device's password. Every expected password has the same public length
 * (43 base64url characters of an HMAC-SHA256), so the bytes are compared directly and natively,
 * not hashed first as `timingSafeEqualString` does for secrets of any length: two SHA-256 in
 * JavaScript for every CONNECT of a reconnecting fleet (issue 40).
 */
function samePassword(given: Uint8Array, expected: string): boolean {
  const want = Buffer.from(expected);
  return given.byteLength === want.byteLength && timingSafeEqual(given, want);
}

type AuthError = Error & { returnCode: number };
const authError = (message: string, returnCode: number) =>
  Object.assign(new Error(message), { returnCode }) as AuthError;
// MQTT 3.1.1 CONNACK return codes.
const IDENTIFIER_REJECTED = 2;
const SERVER_UNAVAILABLE = 3;
const BAD_CREDENTIALS = 4;

// aedes keeps these on its objects but leaves them out of its type declarations.
const subscriptionsOf = (client: Client) =>
  (client as unknown as { subscriptions?: Record<string, unknown> }).subscriptions ?? {};
const clientsOf = (broker: Aedes) =>
  (broker as unknown as { clients: Record<string, Client> }).clients;

/** Starts the broker; a taken port stops start-up with one line naming MQTT_PORT and MQTT_URL. */
export async function startEmbeddedBroker(options: BrokerOptions): Promise<EmbeddedBroker> {
  const report = (error: unknown) => options.onError?.(error);
  // Who each connected client is: the service, or one credential version of one device.
  const identities = new WeakMap<Client, Identity>();
  const deviceOf = (client: Client | null) => {
    const who = client ? identities.get(client) : undefined;
    return who && "thingName" in who ? who : undefined;
  };

  // A reconnecting fleet's CONNECTs share one `IN (…)` query per batch, gathered over the loop's
  // turn since each CONNECT is its own socket read (issue 40: one query per CONNECT, 15,600 of
  // them for 10,000 devices, made them wait in line on the database and thousands timed out). A
  // name asked for while a batch runs joins the next one, so a revoked credential is refused as
  // soon as its new version is committed, as with one query each.
  const versions = new Batcher<string, number>(
    (thingNames) => options.credentialVersions(thingNames),
    { maxBatch: CONNECT_BATCH, concurrency: 2, gather: "turn" },
  );

  async function authenticateDevice(client: Client, username?: string, password?: Uint8Array) {
    const thingName = client.id;
    if (!THING_NAME.test(thingName) || username !== thingName) {
      throw authError("Client id and username must be the thing name", IDENTIFIER_REJECTED);
    }
    // Cheap checks first: no database lookup for a connection that brings no password.
    if (!password || password.byteLength === 0 || password.byteLength > 128) {
      throw authError("Bad device credentials", BAD_CREDENTIALS);
    }
    let version: number | undefined;
    try {
      version = await versions.load(thingName);
    } catch (error) {
      report(error);
      throw authError("Device lookup failed", SERVER_UNAVAILABLE);
    }
    // Unknown thing, no credential issued yet, wrong password or an earlier version's password:
    // the same refusal. Constant-time comparison, so timing does not reveal the secret.
    const ok = version !== undefined && version > 0 &&
      samePassword(password, deviceMqttPassword(options.deviceKey, thingName, version));
    if (!ok) throw authError("Bad device credentials", BAD_CREDENTIALS);
    return { thingName, credentialVersion: version! };
  }

  const broker = await Aedes.createBroker({
    // Every session is clean: the broker keeps no subscriptions or queued messages for a client
    // that is gone, so nothing grows per offline device (a device asks `get_push` on connect).
    preConnect(_client, packet, callback) {
      packet.clean = true;
      callback(null, true);
    },
    authenticate(client, username, password, done) {
      if (username === SERVICE_USERNAME) {
        const ok = password !== undefined &&
          timingSafeEqualString(password.toString(), options.serviceSecret);
        if (!ok) return done(authError("Bad service credentials", BAD_CREDENTIALS), false);
        identities.set(client, { service: true });
        return done(null, true);
      }
      authenticateDevice(client, username, password).then(
        (identity) => {
          identities.set(client, identity);
          done(null, true);
        },
        (error: AuthError) => done(error, false),
      ).catch(report);
    },
    authorizePublish(client, packet, callback) {
      const who = client && identities.get(client);
      // No client: the broker's own messages ($SYS heartbeats).
      if (!client || (who && "service" in who)) return callback(null);
      const device = deviceOf(client);
      const channel = device ? ownUpChannel(device.thingName, packet.topic) : null;
      // Only `up/status` may be retained (the last will), so a device cannot park messages on
      // the broker under topics nobody reads.
      if (channel && (!packet.retain || channel === RETAINED_CHANNEL)) return callback(null);
      // MQTT 3.1.1 cannot refuse a single publish: the broker drops the message and the client.
      // The last will goes through here too: a will on another topic is never published.
      callback(new Error(`Publishing to ${packet.topic} is not allowed`));
    },
    authorizeSubscribe(client, subscription, callback) {
      const who = identities.get(client);
      if (who && "service" in who) return callback(null, subscription);
      const device = deviceOf(client);
      const held = Object.keys(subscriptionsOf(client));
      const withinCap = held.includes(subscription.topic) ||
        held.length < MAX_DEVICE_SUBSCRIPTIONS;
      if (device && isOwnFilter(device.thingName, subscription.topic) && withinCap) {
        return callback(null, subscription);
      }
      // A refused subscription gets a failure return code (0x80); the connection stays up.
      callback(null, null);
    },
  });
  // aedes reports persistence and delivery failures as an `error` event: without a listener
  // an EventEmitter throws it, which would take the whole process down.
  (broker as unknown as EventEmitter).on("error", report);

  async function recheckCredentials() {
    const devices: Array<[Client, { thingName: string; credentialVersion: number }]> = [];
    for (const client of Object.values(clientsOf(broker))) {
      const device = deviceOf(client);
      if (device) devices.push([client, device]);
    }
    for (let i = 0; i < devices.length; i += 500) {
      const chunk = devices.slice(i, i + 500);
      const current = await options.credentialVersions(chunk.map(([, d]) => d.thingName));
      for (const [client, device] of chunk) {
        if (current.get(device.thingName) === device.credentialVersion) continue;
        options.log?.("mqtt device disconnected: credential no longer current", {
          thingName: device.thingName,
        });
        client.close();
      }
    }
  }
  const recheckTimer = setInterval(
    () => recheckCredentials().catch(report),
    options.recheckMs ?? CREDENTIAL_RECHECK_MS,
  );

  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    // STACK.md: without it every QoS 1 message waits ~44 ms for Nagle.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    broker.handle(guardPacketSize(socket, MAX_PACKET_BYTES));
  });
  const closeBroker = async () => {
    clearInterval(recheckTimer);
    await new Promise<void>((resolve) => broker.close(() => resolve()));
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await closeBroker();
    if ((error as { code?: string }).code === "EADDRINUSE") {
      throw new ConfigError(mqttPortInUse(options.port));
    }
    throw error;
  }
  server.on("error", report);
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    aedes: broker,
    recheckCredentials,
    connectedDevices: () =>
      Object.values(clientsOf(broker)).filter((client) => deviceOf(client)).length,
    async close() {
      await closeBroker();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
