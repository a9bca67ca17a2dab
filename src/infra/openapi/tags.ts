/**
 * The tags of the documents, in display order, with what each groups. An operation whose tag is
 * not here fails document generation: add the tag with a one-line description.
 */
export const TAGS: Record<string, string> = {
  accounts: "Registration, login, tokens, sessions and the account itself (SPEC 4.1)",
  "identity-providers": "Sign-in with Google and Apple (SPEC 4.2)",
  "personal-access-tokens": "Tokens for scripts and the SDK; managed with a user token (SPEC 4.3)",
  billing: "The pro subscription, checkout, portal, invoices and the provider's webhook (SPEC 4.4)",
  devices: "The caller's devices: binding, state, nickname, commands (SPEC 4.5)",
  displays:
    "Displays people already own, polling with TRMNL's protocol: setup, the image to show, logs",
  pushes: "What a device shows: pushes, their bitmaps and custom images (SPEC 4.5)",
  content: "Raw items (notes and pictures), their summaries and files (SPEC 4.6)",
  analyze: "The analyze agent: trigger a run, read what it did (SPEC 4.6)",
  templates: "Push templates, their variables' schemas and previews (SPEC 4.6)",
  webhooks: "Signed event webhooks: subscriptions, their deliveries, the battery threshold",
  app: "The versioned surface of the owner's apps, for user access tokens (SPEC 4.7)",
  sdk: "The versioned surface of SDK scripts, for personal access tokens (SPEC 4.7)",
  integrations:
    "Assistants over the Model Context Protocol at /mcp (JSON-RPC, not REST; docs/integrations.md)",
  storage: "The embedded object store's signed uploads and downloads (SPEC 5.9)",
  system: "Liveness, this document and the operators' metrics",
  pages: "Pages for people in a browser: this API reference and the render playground",
  factory: "The factory console: batches, devices, NFC credentials, audit (SPEC 4.8)",
};
