/**
 * Every environment variable of CONTRACT.md, parsed once with zod into a frozen object.
 * Nothing else in the service reads `Deno.env`.
 */
import { z } from "zod";
import { parseNetworks, PRIVATE_NETWORKS } from "./infra/lib/networks.ts";

const port = z.coerce.number().int().min(0).max(65535);
const optionalString = z.string().trim().min(1).optional().catch(undefined);
const optionalUrl = z.url().optional();

/** "72h", "90m", "3600s" or plain seconds; 0 or invalid falls back to the default (CONTRACT.md). */
export function parseDuration(value: string | undefined, fallbackSeconds: number): number {
  const match = value?.trim().match(/^(\d+)\s*([hms]?)$/);
  if (!match) return fallbackSeconds;
  const seconds = Number(match[1]) * ({ h: 3600, m: 60, s: 1, "": 1 } as const)[match[2] as "h"];
  return seconds > 0 ? seconds : fallbackSeconds;
}

/** A positive integer setting; 0, unset or invalid means the default, never unlimited (SPEC 8). */
function positiveOrDefault(fallback: number) {
  return z.string().optional().transform((v) => {
    const n = Number(v);
    return Number.isInteger(n) && n > 0 ? n : fallback;
  });
}

function jsonOf<T extends z.ZodType>(schema: T) {
  return z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "is not valid JSON" });
      return z.NEVER;
    }
  }).pipe(schema);
}

const principal = z.object({
  id: z.string().min(1),
  name: z.string().default(""),
  token: z.string().min(16, "token must be at least 16 characters"),
  role: z.enum(["operator", "supervisor", "auditor"]),
  stationId: z.string().nullable().default(null),
  factoryId: z.string().nullable().default(null),
  batches: z.array(z.string()).default([]),
  skus: z.array(z.string()).default([]),
});

const issuer = z.object({
  authUrl: z.string().optional(),
  tokenUrl: z.string().optional(),
  jwksUrl: z.string().optional(),
  issuer: z.string().optional(),
  revokeUrl: z.string().optional(),
});

const schema = z.object({
  PORT: port.default(8080),
  FACTORY_PORT: port.optional(),
  HOST: z.string().default("0.0.0.0"),
  PUBLIC_BASE_URL: optionalUrl,
  DATA_DIR: z.string().default("./data"),
  // Says DATA_DIR is one volume every process of a split deployment mounts (docs/deploy.md).
  DATA_DIR_SHARED: z.stringbool().default(false),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  MQTT_URL: z.string().regex(/^mqtts?:\/\//, "must be an mqtt:// or mqtts:// URL").optional(),
  MQTT_PORT: port.default(1883),
  // MQTT shared subscriptions (`$share/<group>/...`): the API processes of one deployment share
  // a group, so each device message goes to exactly one of them.
  MQTT_SHARE_GROUP: z.string().regex(
    /^[A-Za-z0-9_-]{1,64}$/,
    "must be 1-64 letters, digits, _ or -",
  )
    .default("dds"),
  // `--role` on the command line overrides it (see `loadConfig`).
  ROLE: z.enum(["all", "api", "worker"], "must be all, api or worker").default("all"),
  RENDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  S3_BUCKET: optionalString,
  S3_REGION: z.string().default("us-east-1"),
  S3_ENDPOINT: optionalUrl,
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: z.stringbool().default(false),
  JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  ACCESS_TOKEN_EXPIRY: z.string().optional(),
  // SPEC 5.7: each principal has a unique id (idempotency keys, rate limits and "own" download
  // requests are keyed by it) and tokens identify exactly one principal.
  FACTORY_PRINCIPALS: jsonOf(
    z.array(principal)
      .refine((list) => new Set(list.map((p) => p.id)).size === list.length, "ids must be unique")
      .refine((list) => new Set(list.map((p) => p.token)).size === list.length, {
        message: "tokens must be unique",
      }),
  ).optional(),
  NFC_MASTER_KEYS: jsonOf(z.record(z.string(), z.base64())).optional(),
  NFC_ACTIVE_KEY_ID: optionalString,
  NFC_URI_SCHEME: z.string().regex(/^[a-z][a-z0-9+.-]*$/, "must be a URI scheme").default("dds"),
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_PRICE_MONTHLY: optionalString,
  STRIPE_PRICE_YEARLY: optionalString,
  STRIPE_API_URL: optionalUrl,
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalUrl,
  ANTHROPIC_MODEL: z.string().trim().min(1).default("claude-sonnet-4-6"),
  ANTHROPIC_SUMMARY_MODEL: z.string().trim().min(1).optional(),
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  APPLE_CLIENT_ID: optionalString,
  APPLE_TEAM_ID: optionalString,
  APPLE_KEY_ID: optionalString,
  APPLE_PRIVATE_KEY: optionalString,
  APPLE_BUNDLE_ID: optionalString,
  OAUTH_ISSUER_OVERRIDES: jsonOf(z.object({ google: issuer.optional(), apple: issuer.optional() }))
    .optional(),
  WEB_APP_URL: z.url().default("http://localhost:3000"),
  CORS_ORIGINS: z.string().optional(),
  TARGETLESS_MAX_RENDITION_PIXELS: positiveOrDefault(4_000_000),
  TARGETLESS_MAX_RENDITIONS_PER_PRESENTATION: positiveOrDefault(20),
  TARGETLESS_MAX_CONCURRENT_RENDITIONS: positiveOrDefault(8),
  // pg-boss cron: five fields, minute-grained (STACK.md).
  ANALYZE_SCHEDULE: z.string().trim().regex(
    /^[\d*/,A-Za-z?#-]+(\s+[\d*/,A-Za-z?#-]+){4}$/,
    "must be a cron expression of five fields",
  ).default("0 * * * *"),
  ANALYZE_MAX_STEPS: positiveOrDefault(20),
  ANALYZE_TOKEN_BUDGET: positiveOrDefault(200_000),
  FACTORY_DOWNLOADS_PER_MINUTE: positiveOrDefault(30),
  DISPLAY_SETUPS_PER_MINUTE: positiveOrDefault(30),
  // CONTRACT.md "Display ownership and fair shares": where key-less polls may come from.
  DISPLAY_KEYLESS_NETWORKS: z.string().optional().transform((text, ctx) => {
    try {
      return parseNetworks(text?.trim() || PRIVATE_NETWORKS);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  }),
  // CONTRACT.md "Display ownership and fair shares": displays one user may hold.
  DISPLAYS_PER_USER: positiveOrDefault(100),
  // CONTRACT.md "Integrations": webhook targets on private or loopback addresses (local use).
  WEBHOOK_ALLOW_PRIVATE: z.stringbool().default(false),
  // HTML screens (docs/render.md): the Chromium to draw with, and a stylesheet replacing the
  // built-in one for the design system's classes (e.g. TRMNL's published MIT stylesheet).
  CHROMIUM_PATH: optionalString,
  SCREEN_FRAMEWORK_CSS: optionalString,
  // CONTRACT.md "Screens that keep themselves current": posts to one plugin's webhook inbox.
  PLUGIN_WEBHOOKS_PER_HOUR: positiveOrDefault(120),
  // CONTRACT.md "Displays behind another provider": posts to a provider's webhook (TRMNL's limit).
  PROVIDER_POSTS_PER_HOUR: positiveOrDefault(12),
  LOGIN_FAILURES_PER_IDENTIFIER: positiveOrDefault(10),
  LOGIN_FAILURES_PER_IP: positiveOrDefault(100),
  MQTT_DEVICE_KEY: z.base64().refine((v) => atob(v).length === 32, "must be base64 of 32 bytes")
    .optional(),
  LOG_LEVEL: z.enum(["info", "silent"]).default("info"),
  METRICS_TOKEN: z.string().trim().min(16, "must be at least 16 characters").optional(),
});

/** The parsed configuration; `secrets.ts` fills in generated values at start-up. */
export type Config = ReturnType<typeof shape>;

function shape(env: z.output<typeof schema>) {
  return {
    port: env.PORT,
    factoryPort: env.FACTORY_PORT,
    host: env.HOST,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ""),
    publicBaseUrlConfigured: env.PUBLIC_BASE_URL !== undefined,
    dataDir: env.DATA_DIR,
    /** DATA_DIR is storage every process of the deployment shares (DATA_DIR_SHARED). */
    dataDirShared: env.DATA_DIR_SHARED,
    databaseUrl: env.DATABASE_URL,
    mqtt: { url: env.MQTT_URL, port: env.MQTT_PORT, deviceKey: env.MQTT_DEVICE_KEY },
    /** The MQTT shared-subscription group of the API processes (external broker only). */
    mqttShareGroup: env.MQTT_SHARE_GROUP,
    /**
     * What this process runs: `api` serves HTTP and handles device messages, `worker` runs the
     * jobs (and the outbox), `all` both (docs/deploy.md).
     */
    role: env.ROLE,
    /** Render pool threads; default: 1 for `api` (previews only), up to 4 otherwise. */
    renderThreads: env.RENDER_THREADS,
    s3: env.S3_BUCKET
      ? {
        bucket: env.S3_BUCKET,
        region: env.S3_REGION,
        endpoint: env.S3_ENDPOINT,
        accessKeyId: env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY,
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
      }
      : undefined,
    jwtSecret: env.JWT_SECRET,
    accessTokenTtlSeconds: parseDuration(env.ACCESS_TOKEN_EXPIRY, 72 * 3600),
    factoryPrincipals: env.FACTORY_PRINCIPALS ?? [],
    nfc: {
      masterKeys: env.NFC_MASTER_KEYS,
      activeKeyId: env.NFC_ACTIVE_KEY_ID,
      uriScheme: env.NFC_URI_SCHEME,
    },
    /** Factory file downloads (single and ZIP) per principal per minute (SPEC 8: not shown). */
    factoryDownloadsPerMinute: env.FACTORY_DOWNLOADS_PER_MINUTE,
    /** CONTRACT.md "Displays people already own": `GET /api/setup` per client address and minute. */
    displaySetupsPerMinute: env.DISPLAY_SETUPS_PER_MINUTE,
    /**
     * CONTRACT.md "Displays that send no key": the client addresses a poll with a MAC and no key
     * is answered from (default the private and loopback ranges; `none`: no key-less polls).
     */
    displayKeylessNetworks: env.DISPLAY_KEYLESS_NETWORKS,
    /** CONTRACT.md "Display ownership and fair shares": displays one user may hold (409 over). */
    displaysPerUser: env.DISPLAYS_PER_USER,
    /** Webhook targets may be private or loopback addresses (WEBHOOK_ALLOW_PRIVATE; not in production). */
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE,
    /** Posts per hour to one display's provider webhook at most (PROVIDER_POSTS_PER_HOUR). */
    providerPostsPerHour: env.PROVIDER_POSTS_PER_HOUR,
    /**
     * HTML screens (src/infra/html/): `chromiumPath` (CHROMIUM_PATH) instead of a system Chromium
     * or the npm one; `frameworkCss` (SCREEN_FRAMEWORK_CSS) a stylesheet file read once, in place
     * of the built-in one.
     */
    htmlScreens: { chromiumPath: env.CHROMIUM_PATH, frameworkCss: env.SCREEN_FRAMEWORK_CSS },
    /** CONTRACT.md: posts one plugin's webhook inbox takes an hour (429 with Retry-After over). */
    pluginWebhooksPerHour: env.PLUGIN_WEBHOOKS_PER_HOUR,
    /**
     * CONTRACT.md: failed password checks counted in the database; over a limit 429 before any
     * hashing. Identifier: 10 per 15 minutes per account and source (src/domains/accounts/
     * login_limiter.ts: and 10 times that per account before sources that failed wait); IP: 100
     * per minute.
     */
    loginFailures: {
      perIdentifier: env.LOGIN_FAILURES_PER_IDENTIFIER,
      identifierWindowSeconds: 15 * 60,
      perIp: env.LOGIN_FAILURES_PER_IP,
      ipWindowSeconds: 60,
    },
    stripe: {
      secretKey: env.STRIPE_SECRET_KEY,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET,
      priceMonthly: env.STRIPE_PRICE_MONTHLY,
      priceYearly: env.STRIPE_PRICE_YEARLY,
      apiUrl: env.STRIPE_API_URL,
    },
    anthropic: {
      apiKey: env.ANTHROPIC_API_KEY,
      baseUrl: env.ANTHROPIC_BASE_URL,
      /** The analyze agent's model (and every task without its own). */
      model: env.ANTHROPIC_MODEL,
      /** Summaries and picture descriptions: many small calls, a faster model does. */
      summaryModel: env.ANTHROPIC_SUMMARY_MODEL ?? "claude-haiku-4-5",
    },
    google: { clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET },
    apple: {
      clientId: env.APPLE_CLIENT_ID,
      teamId: env.APPLE_TEAM_ID,
      keyId: env.APPLE_KEY_ID,
      privateKey: env.APPLE_PRIVATE_KEY,
      bundleId: env.APPLE_BUNDLE_ID,
    },
    oauthIssuerOverrides: env.OAUTH_ISSUER_OVERRIDES ?? {},
    webAppUrl: env.WEB_APP_URL.replace(/\/$/, ""),
    corsOrigins: (env.CORS_ORIGINS ?? env.WEB_APP_URL).split(",").map((o) => o.trim())
      .filter(Boolean),
    targetless: {
      maxRenditionPixels: env.TARGETLESS_MAX_RENDITION_PIXELS,
      maxRenditionsPerPresentation: env.TARGETLESS_MAX_RENDITIONS_PER_PRESENTATION,
      maxConcurrentRenditions: env.TARGETLESS_MAX_CONCURRENT_RENDITIONS,
    },
    analyze: {
      schedule: env.ANALYZE_SCHEDULE,
      /** Model calls per run at most (a model that never finishes is stopped). */
      maxSteps: env.ANALYZE_MAX_STEPS,
      /** Input plus output tokens per run at most. */
      tokenBudget: env.ANALYZE_TOKEN_BUDGET,
    },
    logLevel: env.LOG_LEVEL,
    /**
     * `GET /metrics` needs `Authorization: Bearer <token>` when set, and is then served on the
     * user port too; unset, only the factory ingress (or the shared port) serves it.
     */
    metricsToken: env.METRICS_TOKEN,
  };
}

/** Raised when a variable is invalid; its message is the one line start-up prints. */
export class ConfigError extends Error {}

/** Parses an environment map; throws ConfigError naming the first bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ""),
  );
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = String(issue.path[0] ?? "environment");
    throw new ConfigError(`Invalid ${name}: ${issue.message}`);
  }
  return shape(result.data);
}

/** What this process runs (`--role` / ROLE). */
export type Role = Config["role"];

/**
 * Reads `--role api|worker|all` (or `--role=...`) from the command line: `deno task start --role
 * api` passes it through. Anything else on the command line is refused.
 */
export function roleArgument(args: string[]): string | undefined {
  let role: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--role") {
      role = args[++i];
      if (role === undefined) throw new ConfigError("Invalid --role: a value is required");
    } else if (arg.startsWith("--role=")) role = arg.slice("--role=".length);
    else {
      throw new ConfigError(
        `Unknown argument ${arg}: the options are --role api|worker|all and --help`,
      );
    }
  }
  if (role !== undefined && !["all", "api", "worker"].includes(role)) {
    throw new ConfigError(`Invalid --role: ${role} is not all, api or worker`);
  }
  return role;
}

/**
 * The embedded PostgreSQL (PGlite, one process holds its directory) and the embedded broker
 * (inside its process) cannot be shared, so a split role needs the external ones; and the disk
 * object store is shared only when DATA_DIR is one volume of every process, which only the
 * operator knows (DATA_DIR_SHARED), else an API's uploads are invisible to the workers (issue 27).
 * Returns the one line start-up prints, or null.
 */
export function splitRoleProblem(config: Config): string | null {
  if (config.role === "all") return null;
  const missing = [
    ...(config.databaseUrl ? [] : ["DATABASE_URL"]),
    ...(config.mqtt.url ? [] : ["MQTT_URL"]),
  ];
  if (missing.length) {
    return `Role ${config.role} needs ${missing.join(" and ")}: the embedded ${
      missing.length === 2
        ? "database and MQTT broker are"
        : missing[0] === "DATABASE_URL"
        ? "database is"
        : "MQTT broker is"
    } single-process; start with --role all (the default) or configure them`;
  }
  if (!config.s3 && !config.dataDirShared) {
    return `Role ${config.role} needs S3_BUCKET or DATA_DIR_SHARED=1: files stored on disk under DATA_DIR (${config.dataDir}) are invisible to the other processes unless it is a volume they all mount`;
  }
  return null;
}

/**
 * Reads the process environment into the configuration; with nothing else of the process, so
 * every command-line tool (`deno task admin`, `device-sim`, `migrate`) can call it and parse its
 * own arguments. The only place besides `loadServiceConfig` that reads `Deno.env`.
 */
export function loadConfig(): Config {
  // trpc-to-openapi regenerates its OpenAPI document per request unless in production mode.
  Deno.env.set("NODE_ENV", "production");
  return parseConfig(Deno.env.toObject());
}

/**
 * The service's configuration (`deno task start`): the environment plus `--role` from its
 * command line, refused with one line when the role cannot run as configured.
 */
export function loadServiceConfig(args: string[]): Config {
  const role = roleArgument(args);
  Deno.env.set("NODE_ENV", "production");
  const config = parseConfig({ ...Deno.env.toObject(), ...(role ? { ROLE: role } : {}) });
  const problem = splitRoleProblem(config);
  if (problem) throw new ConfigError(problem);
  return config;
}
