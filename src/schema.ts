/**
 * The typed database: the union of every domain's tables. A domain adds its tables here with
 * one `extends`; repositories take `Kysely<DB>` or `Transaction<DB>`.
 */
import type { Kysely, Transaction } from "kysely";
import type { AccountTables } from "./accounts/tables.ts";
import type { PatTables } from "./pats/tables.ts";
import type { BillingTables } from "./billing/tables.ts";
import type { DeviceCommandTables, DevicesTable, DeviceTables } from "./devices/tables.ts";
import type { FileTables } from "./files/tables.ts";
import type { PushTables } from "./pushes/tables.ts";
import type { OauthTables } from "./oauth/tables.ts";
import type { ContentTables } from "./content/tables.ts";
import type { FactoryDeviceColumns, FactoryTables } from "./factory/tables.ts";
import type { TargetlessTables } from "./targetless/tables.ts";
import type { DisplayTables } from "./displays/tables.ts";
import type { WebhookTables } from "./webhooks/tables.ts";

export interface DB
  extends
    AccountTables,
    PatTables,
    BillingTables,
    DeviceTables,
    DeviceCommandTables,
    FileTables,
    PushTables,
    OauthTables,
    FactoryTables,
    ContentTables,
    TargetlessTables,
    DisplayTables,
    WebhookTables {
  /** The factory adds its credential columns to the shared devices table. */
  devices: DevicesTable & FactoryDeviceColumns;
}

/** Any executor: the pool or an open transaction. */
export type Db = Kysely<DB>;
/** An open transaction; functions that lock rows take only this. */
export type Trx = Transaction<DB>;
