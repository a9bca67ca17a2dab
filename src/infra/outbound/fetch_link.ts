/**
 * Fetches a `link` asset without letting it reach the service's own network (CONTRACT.md
 * "Targetless contents": http/https only, no private or loopback addresses, 5 s and 2 MiB at
 * most). The name is resolved here, every address it resolves to is judged, and the connection
 * goes to the judged address itself (TLS still verifies the name), so nothing resolves the name a
 * second time. Each redirect hop is judged the same way, at most three of them. The whole fetch,
 * DNS included, has one deadline.
 */
import { isForbiddenName, isIpLiteral, judgeAddress } from "./address_guard.ts";
import { BadResponse, get, request, TooLarge } from "./http1.ts";

/** Why a link could not be used; `transient` failures may work on a later try. */
export interface LinkFailure {
  ok: false;
  code: "link_refused" | "link_too_large" | "link_unreachable" | "link_failed";
  message: string;
  transient: boolean;
  /** Refused because the host is (or resolves to) a private or loopback address only. */
  privateTarget?: boolean;
}

export interface LinkBody {
  ok: true;
  /** The URL the body came from, after redirects. */
  url: string;
  /** The Content-Type header, lower-cased, without parameters ("" when absent). */
  mediaType: string;
  /** The `charset` parameter, when given. */
  charset: string | null;
  body: Uint8Array;
}

/** A request other than the plain GET of a link (a polling plugin's verb, headers and body). */
export interface LinkRequest {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: Uint8Array;
}

export interface LinkFetcherOptions {
  /**
   * Which resolved addresses may be connected to. The default (public addresses only) is the
   * only one production builds; unit tests of the fetcher widen it to reach a local server.
   */
  allowAddress?: (address: string) => boolean;
  /** Resolves a name to addresses; default DNS A and AAAA lookups. */
  resolve?: (hostname: string, signal: AbortSignal) => Promise<string[]>;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** The User-Agent sent; default the link previews' own. */
  userAgent?: string;
}

/**
 * The fetcher options of outbound calls a user aims (webhook targets, polling plugins): public
 * addresses only, unless WEBHOOK_ALLOW_PRIVATE lets private and loopback ones through too.
 */
export function outboundAddresses(allowPrivate: boolean): Pick<LinkFetcherOptions, "allowAddress"> {
  return allowPrivate
    ? { allowAddress: (address) => [null, "private", "loopback"].includes(judgeAddress(address)) }
    : {};
}

/** CONTRACT.md: 5 s and 2 MiB at most. */
export const LINK_TIMEOUT_MS = 5000;
export const LINK_MAX_BYTES = 2 * 1024 * 1024;
export const LINK_MAX_REDIRECTS = 3;
export const LINK_USER_AGENT = "DeviceDisplayService/0.1 (link preview)";

const isPublic = (address: string) => judgeAddress(address) === null;

/** DNS A and AAAA records; a name without either is unresolvable. */
async function resolveDns(hostname: string, signal: AbortSignal): Promise<string[]> {
  const lookup = (type: "A" | "AAAA") =>
    Deno.resolveDns(hostname, type, { signal }).catch((error) => {
      if (signal.aborted) throw error;
      return [] as string[];
    });
  const [v4, v6] = await Promise.all([lookup("A"), lookup("AAAA")]);
  return [...v4, ...v6];
}

const refused = (message: string): LinkFailure => ({
  ok: false,
  code: "link_refused",
  message,
  transient: false,
});

/**
 * `opening`, or a rejection as soon as `signal` aborts (connect and TLS set-up take no signal);
 * a connection that opens after the deadline is closed at once.
 */
function untilAborted<T extends Deno.Conn>(opening: Promise<T>, signal: AbortSignal): Promise<T> {
  const discard = () =>
    opening.then((conn) => {
      try {
        conn.close();
      } catch { /* already closed */ }
    }, () => {});
  if (signal.aborted) {
    discard();
    return Promise.reject(new Error("deadline"));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      discard();
      reject(new Error("deadline"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    opening.then(
      (conn) => {
        signal.removeEventListener("abort", onAbort);
        resolve(conn);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Checks a link's syntax before anything is stored: http/https, a host, no credentials. */
export function checkLinkSyntax(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `Link ${JSON.stringify(text.slice(0, 100))} is not a URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `Link scheme ${url.protocol.slice(0, -1)} is not allowed; use http or https`;
  }
  // Credentials in a link would be stored and sent on: a permanent third-party credential.
  if (url.username || url.password) return "Link must not contain a user name or password";
  if (!url.hostname) return "Link has no host";
  return null;
}

/** The SSRF-safe fetcher of link assets. */
export class LinkFetcher {
  private readonly allowAddress: (address: string) => boolean;
  private readonly resolve: (hostname: string, signal: AbortSignal) => Promise<string[]>;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly userAgent: string;

  constructor(options: LinkFetcherOptions = {}) {
    this.allowAddress = options.allowAddress ?? isPublic;
    this.resolve = options.resolve ?? resolveDns;
    this.timeoutMs = options.timeoutMs ?? LINK_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? LINK_MAX_BYTES;
    this.maxRedirects = options.maxRedirects ?? LINK_MAX_REDIRECTS;
    this.userAgent = options.userAgent ?? LINK_USER_AGENT;
  }

  /**
   * Fetches `link` (a GET unless `init` says otherwise); never throws. A redirect keeps a POST
   * only for 307 and 308; 301, 302 and 303 go on as a GET without the body, as browsers do.
   */
  async fetch(link: string, init?: LinkRequest): Promise<LinkBody | LinkFailure> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    try {
      let url = link;
      let hopInit = init;
      for (let hop = 0;; hop++) {
        const result = await this.fetchOnce(url, deadline.signal, hopInit);
        if (!("redirect" in result)) return result;
        if (hop >= this.maxRedirects) {
          return refused(`Link ${link} redirects more than ${this.maxRedirects} times`);
        }
        url = result.redirect;
        if (hopInit?.method === "POST" && result.status !== 307 && result.status !== 308) {
          hopInit = { method: "GET", headers: hopInit.headers };
        }
      }
    } catch (error) {
      if (deadline.signal.aborted) {
        return {
          ok: false,
          code: "link_unreachable",
          message: `Link ${link} did not answer within ${this.timeoutMs / 1000} s`,
          transient: true,
        };
      }
      if (error instanceof TooLarge) {
        return {
          ok: false,
          code: "link_too_large",
          message: `Link ${link} is larger than ${this.maxBytes} bytes`,
          transient: false,
        };
      }
      const bad = error instanceof BadResponse;
      return {
        ok: false,
        code: bad ? "link_failed" : "link_unreachable",
        message: bad
          ? `Link ${link} gave an unreadable answer: ${error.message}`
          : `Link ${link} could not be reached`,
        transient: !bad,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Whether `link` may be fetched at all: its syntax, and every address its host resolves to
   * (null when it may). Webhook targets are judged with it when they are created.
   */
  async checkTarget(link: string): Promise<LinkFailure | null> {
    const syntax = checkLinkSyntax(link);
    if (syntax) return refused(syntax);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      const address = await this.addressOf(new URL(link), deadline);
      return typeof address === "string" ? null : address;
    } catch {
      return {
        ok: false,
        code: "link_unreachable",
        message: `${link} could not be resolved`,
        transient: true,
      };
    }
  }

  /**
   * POSTs `body` to `link` under the same guard (a webhook delivery): no redirect is followed
   * and the answer's body is never read, only its status. Never throws.
   */
  async post(
    link: string,
    headers: Record<string, string>,
    body: Uint8Array,
  ): Promise<{ ok: true; status: number } | LinkFailure> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const signal = deadline.signal;
    try {
      const syntax = checkLinkSyntax(link);
      if (syntax) return refused(syntax);
      const url = new URL(link);
      const address = await this.addressOf(url, signal);
      if (typeof address !== "string") return address;
      const conn = await this.connect(url, address, signal);
      const close = () => {
        try {
          conn.close();
        } catch { /* already closed */ }
      };
      signal.addEventListener("abort", close, { once: true });
      try {
        const response = await request(conn, url, {
          method: "POST",
          headers,
          body,
          maxBytes: 0,
          userAgent: this.userAgent,
          skipBody: true,
        });
        return { ok: true, status: response.status };
      } finally {
        signal.removeEventListener("abort", close);
        close();
      }
    } catch (error) {
      return {
        ok: false,
        code: error instanceof BadResponse ? "link_failed" : "link_unreachable",
        message: signal.aborted
          ? `${link} did not answer within ${this.timeoutMs / 1000} s`
          : error instanceof BadResponse
          ? `${link} gave an unreadable answer: ${error.message}`
          : `${link} could not be reached`,
        transient: true,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /** A connection to the judged `address` (TLS for https, verifying the name). */
  private async connect(url: URL, address: string, signal: AbortSignal): Promise<Deno.Conn> {
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    const conn = await untilAborted(Deno.connect({ hostname: address, port }), signal);
    if (url.protocol !== "https:") return conn;
    try {
      return await untilAborted(Deno.startTls(conn, { hostname: url.hostname }), signal);
    } catch (error) {
      try {
        conn.close();
      } catch { /* already closed */ }
      throw error;
    }
  }

  /** The address to connect to for `url`'s host, or why there is none. */
  private async addressOf(url: URL, signal: AbortSignal): Promise<string | LinkFailure> {
    const host = url.hostname;
    let addresses: string[];
    if (isIpLiteral(host)) addresses = [host.replace(/^\[|\]$/g, "")];
    else {
      if (isForbiddenName(host)) return refused(`Link host ${host} is not on the public internet`);
      addresses = await this.resolve(host, signal);
      if (addresses.length === 0) {
        return {
          ok: false,
          code: "link_unreachable",
          message: `Link host ${host} could not be resolved`,
          transient: true,
        };
      }
    }
    // Every address must be public: a name that mixes public and private answers is a rebinding
    // attempt or a misconfiguration either way.
    const denied = addresses.filter((address) => !this.allowAddress(address));
    if (denied.length > 0) {
      return {
        ...refused(`Link host ${host} is not on the public internet`),
        privateTarget: denied.every((a) => ["private", "loopback"].includes(judgeAddress(a)!)),
      };
    }
    return addresses.find((a) => !a.includes(":")) ?? addresses[0];
  }

  private async fetchOnce(
    link: string,
    signal: AbortSignal,
    init?: LinkRequest,
  ): Promise<LinkBody | LinkFailure | { redirect: string; status: number }> {
    const syntax = checkLinkSyntax(link);
    if (syntax) return refused(syntax);
    const url = new URL(link);
    const address = await this.addressOf(url, signal);
    if (typeof address !== "string") return address;
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    let conn: Deno.Conn = await untilAborted(Deno.connect({ hostname: address, port }), signal);
    const close = () => {
      try {
        conn.close();
      } catch { /* already closed */ }
    };
    // The deadline closes the connection, which ends any read waiting on it.
    signal.addEventListener("abort", close, { once: true });
    try {
      if (url.protocol === "https:") {
        conn = await untilAborted(
          Deno.startTls(conn as Deno.TcpConn, { hostname: url.hostname }),
          signal,
        );
      }
      const response = init
        ? await request(conn, url, {
          ...init,
          maxBytes: this.maxBytes,
          userAgent: this.userAgent,
        })
        : await get(conn, url, { maxBytes: this.maxBytes, userAgent: this.userAgent });
      if (response.status >= 300 && response.status < 400) {
        const location = response.headers.get("location");
        if (!location) return refused(`Link ${link} redirects without a Location`);
        return { redirect: new URL(location, url).href, status: response.status };
      }
      if (response.status >= 400) {
        const transient = response.status >= 500 || response.status === 429 ||
          response.status === 408;
        return {
          ok: false,
          code: "link_failed",
          message: `Link ${link} answered ${response.status}`,
          transient,
        };
      }
      const contentType = response.headers.get("content-type") ?? "";
      const [mediaType, ...params] = contentType.split(";").map((p) => p.trim());
      const charset = params.find((p) => /^charset=/i.test(p))?.slice(8).replace(/"/g, "") ??
        null;
      return {
        ok: true,
        url: url.href,
        mediaType: mediaType.toLowerCase(),
        charset,
        body: response.body,
      };
    } finally {
      signal.removeEventListener("abort", close);
      close();
    }
  }
}
