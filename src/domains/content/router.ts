/**
 * Content pipeline procedures (SPEC 4.6): raw items, analyze runs, templates. `getRawItemStats`
 * is declared before `getRawItem`: `stats` must not be read as an item id.
 */
import { router } from "../../infra/trpc/init.ts";
import { uploadRawItem } from "./upload_raw_item.ts";
import { confirmRawItem } from "./confirm_raw_item.ts";
import { listRawItems } from "./list_raw_items.ts";
import { getRawItemStats } from "./get_raw_item_stats.ts";
import { getRawItem } from "./get_raw_item.ts";
import { triggerAnalyze } from "./trigger_analyze.ts";
import { listAnalyzeRuns } from "./list_analyze_runs.ts";
import { getAnalyzeRun } from "./get_analyze_run.ts";
import { listTemplates } from "./list_templates.ts";

export const contentRouter = router({
  uploadRawItem,
  confirmRawItem,
  listRawItems,
  getRawItemStats,
  getRawItem,
  triggerAnalyze,
  listAnalyzeRuns,
  getAnalyzeRun,
  listTemplates,
});
