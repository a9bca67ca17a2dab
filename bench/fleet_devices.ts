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

async function connectAll(url: string, devices: Array<[string, string]>) {
  const queue = [...devices];
  const failures: string[] = [];
  await Promise.all(Array.from({ length: 64 }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [thing, password] = next;
      try {
        const client = await mqtt.connectAsync(url, {
          clientId: thing,
          username: thing,
          password,
          protocolVersion: 4,
          reconnectPeriod: 0,
          connectTimeout: 30_000,
          keepalive: 600,
        });
        await client.subscribeAsync(`devices/${thing}/down/push`, { qos: 1 });
        clients.push({ thing, client });
      } catch (error) {
        failures.push(`${thing}: ${error}`);
      }
    }
  }));
  return failures;
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
      const failures = await connectAll(message.url, message.devices);
      reply({ kind: "connected", count: clients.length, failures: failures.slice(0, 5) });
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
