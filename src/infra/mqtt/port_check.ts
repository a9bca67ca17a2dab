/**
 * The embedded broker's port, checked before anything slow starts (issue 27): a Mosquitto already
 * on MQTT_PORT is common on a developer's machine, and the refusal must come in a second, not after
 * the database, migrations and render pool have opened.
 */
import type { Config } from "../../config.ts";

/** The one line start-up prints when MQTT_PORT is taken (CONTRACT.md: names MQTT_PORT, MQTT_URL). */
export function mqttPortInUse(port: number): string {
  return `MQTT_PORT ${port} is already in use (another broker?): set MQTT_URL=mqtt://127.0.0.1:${port} to use that broker, or choose a free MQTT_PORT (e.g. MQTT_PORT=1884)`;
}

/**
 * Binds and releases the embedded broker's port; returns the refusal line when it is taken, null
 * when free, not embedded (MQTT_URL) or chosen by the OS (0). The broker binds it for real later;
 * a process taking the port in between still gets the same line from the broker.
 */
export function mqttPortProblem(config: Pick<Config, "host" | "mqtt">): string | null {
  if (config.mqtt.url || config.mqtt.port === 0) return null;
  try {
    Deno.listen({ port: config.mqtt.port, hostname: config.host }).close();
    return null;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) return mqttPortInUse(config.mqtt.port);
    throw error;
  }
}
