/**
 * The fleet benchmark's baseline broker, in its own process: a bare aedes on `node:net`, every
 * client accepted, nothing else. The same burst of CONNECTs against it says what the machine and
 * aedes alone cost (the service's broker adds authentication, the packet guard and its own work).
 * Prints `{"port":n}` and runs until stdin closes.
 */
import net from "node:net";
import { Aedes } from "aedes";

const broker = await Aedes.createBroker();
const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  broker.handle(socket);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
console.log(JSON.stringify({ port: (server.address() as net.AddressInfo).port }));
for await (const _ of Deno.stdin.readable) { /* until stdin closes */ }
Deno.exit(0);
