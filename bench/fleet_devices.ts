/**
 * The devices of the fleet benchmark, in a child process (their own event loop and file
 * descriptors, not the service's); commands and results are JSON lines on stdin and stdout:
 * connects every device, then on `burst` has each publish `up/get_push` at once and records when
 * its answer on `down/push` arrives. A device told to retry (`{"error":"busy","retryAfter"}`)
 * asks again after that many seconds, as the firmware should.
 */
import mqtt, { type MqttClient } from "mqtt";

interface Start {
  kind: "start";
  url: string;
  devices: Array<[string, string]>;
  /** CONNECTs in flight at once (all of them: a fleet reconnecting after a broker restart). */
  concurrency?: number;
  /** A CONNECT without its CONNACK after this long is given up and sent again (counted). */
  connectTimeoutMs?: number;
}

/** Splits a text stream into lines (the JSON-lines protocol between the two processes). */
export function splitLines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const part of parts) if (part) controller.enqueue(part);
    },
    flush(controller) {
      if (rest) controller.enqueue(rest);
    },
  });
}

let clients: Array<{ thing: string; client: MqttClient }> = [];

/**
 * Connects every device, `concurrency` CONNECTs in flight at once; a CONNECT not answered within
 * `connectTimeoutMs` is counted and sent again on a new connection (as a firmware would), up to
 * five times. Resolves with the failures, the timeouts and when the last device was connected.
 */
async function connectAll(
  url: string,
  devices: Array<[string, string]>,
  concurrency = 64,
  connectTimeoutMs = 30_000,
) {
  const queue = [...devices];
  const failures: string[] = [];
  let timeouts = 0, lastConnectedMs = 0;
  const started = performance.now();
  const connectOne = async (thing: string, password: string) => {
    for (let attempt = 1;; attempt++) {
      try {
        const client = await mqtt.connectAsync(url, {
          clientId: thing,
          username: thing,
          password,
          protocolVersion: 4,
          reconnectPeriod: 0,
          connectTimeout: connectTimeoutMs,
          keepalive: 600,
        }, false);
        if (!client.connected) throw new Error("connection ended before its CONNACK");
        lastConnectedMs = Math.max(lastConnectedMs, performance.now() - started);
        await client.subscribeAsync(`devices/${thing}/down/push`, { qos: 1 });
        clients.push({ thing, client });
        return;
      } catch (error) {
        const timedOut = String(error).includes("connack timeout");
        if (timedOut) timeouts++;
        if (!timedOut || attempt === 5) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, devices.length) }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [thing, password] = next;
      try {
        await connectOne(thing, password);
      } catch (error) {
        failures.push(`${thing}: ${error}`);
      }
    }
  }));
  return { failures, timeouts, lastConnectedMs, subscribedMs: performance.now() - started };
}

function burst(timeoutMs: number) {
  return new Promise<Record<string, number>>((resolve) => {
    const started = performance.now();
    let answered = 0, firstAnswered = 0, busy = 0, lastFirst = 0, lastFinal = 0, pending = 0;
    const done = new Set<string>();
    const seen = new Set<string>();
    const finish = () => {
      clearTimeout(timer);
      resolve({
        devices: clients.length,
        firstAnswered,
        answered,
        busyAnswers: busy,
        lastFirstAnswerMs: lastFirst,
        lastFinalAnswerMs: lastFinal,
        unanswered: clients.length - answered,
        pendingRetries: pending,
      });
    };
    const timer = setTimeout(finish, timeoutMs);
    if (clients.length === 0) return finish();
    for (const { thing, client } of clients) {
      const ask = () =>
        client.publish(`devices/${thing}/up/get_push`, '{"format":"raw2"}', { qos: 1 });
      client.removeAllListeners("message");
      client.on("message", (_topic, payload) => {
        const now = performance.now() - started;
        if (!seen.has(thing)) {
          seen.add(thing);
          firstAnswered++;
          lastFirst = Math.max(lastFirst, now);
        }
        const body = JSON.parse(payload.toString());
        if (body.error === "busy") {
          busy++;
          pending++;
          setTimeout(() => {
            pending--;
            ask();
          }, (Number(body.retryAfter) || 1) * 1000 * (1 + 0.2 * Math.random()));
          return;
        }
        if (done.has(thing)) return;
        done.add(thing);
        answered++;
        lastFinal = Math.max(lastFinal, now);
        if (answered === clients.length) finish();
      });
      ask();
    }
  });
}

if (import.meta.main) {
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).pipeThrough(
    splitLines(),
  );
  const reply = (message: unknown) => console.log(JSON.stringify(message));
  for await (const line of lines) {
    const message = JSON.parse(line as string) as Start | { kind: "burst"; timeoutMs: number } | {
      kind: "close";
    };
    if (message.kind === "start") {
      const { failures, ...timing } = await connectAll(
        message.url,
        message.devices,
        message.concurrency,
        message.connectTimeoutMs,
      );
      reply({
        kind: "connected",
        count: clients.length,
        failures: failures.slice(0, 5),
        ...timing,
      });
    } else if (message.kind === "burst") {
      reply({ kind: "result", ...(await burst(message.timeoutMs)) });
    } else {
      await Promise.all(clients.map(({ client }) => client.endAsync(true).catch(() => {})));
      clients = [];
      reply({ kind: "closed" });
      break;
    }
  }
  Deno.exit(0);
}
