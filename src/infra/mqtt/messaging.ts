/**
 * Opens device messaging as configured: the external broker of MQTT_URL, or the embedded
 * broker on MQTT_PORT, plus the service's own client on it.
 */
import type { Config } from "../../config.ts";
import { type EmbeddedBroker, SERVICE_USERNAME, startEmbeddedBroker } from "./broker.ts";
import type { MqttGateway } from "./gateway.ts";
import type { Metrics } from "../metrics/metrics.ts";

export interface MessagingOptions {
  /** The gateway the services publish through; connected here. */
  gateway: MqttGateway;
  serviceSecret: string;
  /** Key of the per-device passwords the embedded broker checks (MQTT_DEVICE_KEY). */
  deviceKey: Uint8Array;
  /** Current credential versions of registered things (embedded broker authentication). */
  credentialVersions(thingNames: string[]): Promise<Map<string, number>>;
  onError(msg: string, fields?: Record<string, unknown>): void;
  log?(msg: string, fields?: Record<string, unknown>): void;
  /** Devices connected to the embedded broker (`/metrics`). */
  metrics?: Metrics;
}

export interface Messaging {
  gateway: MqttGateway;
  /** The embedded broker, when MQTT_URL is unset. */
  broker?: EmbeddedBroker;
  /** Where devices connect. */
  url: string;
  /** Banner line for the embedded default. */
  embedded?: string;
  close(): Promise<void>;
}

/**
 * Starts the embedded broker when MQTT_URL is unset, then connects the service's gateway. The
 * caller registers the gateway's message handler once the services exist.
 */
export async function openMessaging(config: Config, options: MessagingOptions): Promise<Messaging> {
  const broker = config.mqtt.url ? undefined : await startEmbeddedBroker({
    port: config.mqtt.port,
    host: config.host,
    serviceSecret: options.serviceSecret,
    deviceKey: options.deviceKey,
    credentialVersions: options.credentialVersions,
    onError: (error) => options.onError("mqtt broker error", { error: String(error) }),
    log: options.log,
  });
  if (broker) options.metrics?.mqttDevices(() => broker.connectedDevices());
  const local = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  const url = config.mqtt.url ?? `mqtt://${local}:${broker!.port}`;
  const gateway = options.gateway;
  try {
    await gateway.connect({
      url,
      ...(broker ? { username: SERVICE_USERNAME, password: options.serviceSecret } : {}),
    });
  } catch (error) {
    await broker?.close();
    throw error;
  }
  return {
    gateway,
    broker,
    url,
    embedded: broker
      ? `MQTT: embedded broker on ${config.host}:${broker.port} (set MQTT_URL for an external one)`
      : undefined,
    async close() {
      await gateway.close();
      await broker?.close();
    },
  };
}
