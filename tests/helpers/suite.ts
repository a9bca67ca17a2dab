/**
 * One server per test file: every `test` of a suite shares a lazily started server, and the
 * suite's last test shuts it down (and checks that shutdown is clean).
 */
import { type Client, client } from "./http.ts";
import { startTestServer, type TestServer } from "./server.ts";

export function serverSuite(name: string, env: Record<string, string> = {}) {
  let server: Promise<TestServer> | undefined;
  const get = () => server ??= startTestServer(env);
  const options = { sanitizeOps: false, sanitizeResources: false };
  return {
    test(title: string, fn: (api: Client, server: TestServer) => Promise<void>) {
      Deno.test({
        name: `${name}: ${title}`,
        ...options,
        fn: async () => {
          const s = await get();
          await fn(client(s.url), s);
        },
      });
    },
    /** Registers the closing test; call it after the last `test`. */
    end() {
      Deno.test({
        name: `${name}: server drains and closes`,
        ...options,
        fn: async () => {
          if (server) await (await server).close();
        },
      });
    },
  };
}
