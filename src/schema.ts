/**
 * The typed database: the union of every domain's tables. A domain adds its tables here with
 * one `extends`; repositories take `Kysely<DB>` or `Transaction<DB>`.
 */
import type { Kysely, Transaction } from "kysely";
import type { AccountTables } from "./domains/accounts/tables.ts";
import type { PatTables } from "./domains/pats/tables.ts";
import type { BillingTables } from "./domains/billing/tables.ts";
import type { DeviceCommandTables, DevicesTable, DeviceTables } from "./domains/devices/tables.ts";
import type { FileTables } from "./domains/files/tables.ts";
import type { PushTables } from "./domains/pushes/tables.ts";
import type { OauthTables } from "./domains/oauth/tables.ts";
import type { ContentTables } from "./domains/content/tables.ts";
import type { FactoryDeviceColumns, FactoryTables } from "./domains/factory/tables.ts";
import type { TargetlessTables } from "./domains/targetless/tables.ts";
import type { DisplayTables } from "./domains/displays/tables.ts";
import type { FirmwareUpdateTables } from "./domains/firmware/tables.ts";
import type { ButtonTables } from "./domains/buttons/tables.ts";
import type { WebhookTables } from "./domains/webhooks/tables.ts";

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
    FirmwareUpdateTables,
    ButtonTables,
    WebhookTables {
  /** One table split by columns between devices and the factory (both declare their part). */
  devices: DevicesTable & FactoryDeviceColumns;
}

/** Any executor: the pool or an open transaction. */
export type Db = Kysely<DB>;
/** An open transaction; functions that lock rows take only this. */
export type Trx = Transaction<DB>;
