#!/usr/bin/env bash
# Sends the room plugin its readings the way a TRMNL webhook script does: set WEBHOOK_URL to the
# plugin's webhookUrl (from POST /api/plugins or the import's answer). The second post appends
# the reading to `readings`, keeping the newest 12 (merge_strategy stream).
set -euo pipefail
: "${WEBHOOK_URL:?set WEBHOOK_URL to the webhookUrl of the plugin}"
curl -sf -X POST "$WEBHOOK_URL" -H 'Content-Type: application/json' \
  -d '{"merge_variables": {"room": "Living room", "temperature": 21.46, "humidity": 48, "co2": 1130, "updated_at": "09:30"}}'
curl -sf -X POST "$WEBHOOK_URL" -H 'Content-Type: application/json' \
  -d '{"merge_variables": {"readings": [21.5]}, "merge_strategy": "stream", "stream_limit": 12}'
