/**
 * Sign-in through the identity providers (SPEC 4.2, CONTRACT.md): the Google redirect flow
 * with PKCE, the Apple form_post flow, Apple native sign-in, linking by email, and revocation of
 * Apple authorizations on account deletion.
 */
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import type { Config } from "../../config.ts";
import type { Db } from "../../schema.ts";
import type { ClientInfo } from "../accounts/service.ts";
import { AppError, badRequest, unauthorized } from "../../errors.ts";
import { randomToken, sha256Hex, timingSafeEqualString } from "../../infra/lib/crypto.ts";
import {
  appleClientSecret,
  endpointsOf,
  postForm,
  type ProviderName,
  verifyIdToken,
} from "./providers.ts";
import * as repo from "./repository.ts";
import { type Identity, type LinkingDeps, signIn } from "./linking.ts";
import { bindingCookie, clearedBindingCookie, STATE_TTL_SECONDS } from "./browser_binding.ts";
import { appleFormName, nonceMatches } from "./apple_claims.ts";
import {
  CLIENT_REDIRECTS,
  clientErrorOf,
  type OauthClient,
  withFragment,
} from "./client_redirects.ts";

const PROVIDER_LABEL: Record<ProviderName, string> = { google: "Google", apple: "Apple" };

const encoder = new TextEncoder();

/** What a redirect sign-in's start hands the browser. */
export interface StartResult {
  /** The provider's consent screen. */
  location: string;
  /** The browser-binding cookie (CONTRACT.md). */
  setCookie: string;
}

/** What a callback hands the browser. */
export interface CallbackResult {
  /** The client redirect, tokens or `error` in the fragment. */
  location: string;
  /** Removes the browser-binding cookie: its state is used up. */
  setCookie: string;
}

/** What `OauthService` is built from (one object, like every domain's service). */
export interface OauthDeps extends LinkingDeps {
  config: Config;
  /** The public base URL of the callbacks; known once the server listens. */
  baseUrl?: () => string;
}

export class OauthService {
  private readonly deps: LinkingDeps;

  private readonly db: Db;
  private readonly config: Config;
  private readonly baseUrl: () => string;

  constructor({ config, baseUrl, ...linking }: OauthDeps) {
    this.db = linking.db;
    this.config = config;
    this.baseUrl = baseUrl ?? (() => config.publicBaseUrl);
    this.deps = linking;
  }

  private callbackUrl(provider: ProviderName) {
    return `${this.baseUrl()}/auth/oauth/${provider}/callback`;
  }

  /** Whether the browser talks to the service over https (the Google cookie's `Secure`). */
  private get https() {
    return this.baseUrl().startsWith("https:");
  }

  /** 501 when the provider's web flow has no configuration (CONTRACT.md). */
  /** Whether the provider's redirect sign-in is configured (the console offers only those). */
  webFlowConfigured(provider: ProviderName): boolean {
    return Boolean(
      provider === "google"
        ? this.config.google.clientId && this.config.google.clientSecret
        : this.config.apple.clientId && this.config.apple.teamId && this.config.apple.keyId &&
          this.config.apple.privateKey,
    );
  }

  requireWebFlow(provider: ProviderName) {
    if (!this.webFlowConfigured(provider)) {
      throw new AppError(
        "not_implemented",
        `${PROVIDER_LABEL[provider]} sign-in is not configured`,
      );
    }
  }

  /**
   * `GET /auth/oauth/{provider}?client=`: the consent-screen URL with a fresh single-use state,
   * and the cookie that binds the state to this browser (CONTRACT.md). Only `client` is read:
   * the client redirect is one of four fixed URLs, never taken from the request.
   */
  async start(provider: ProviderName, client: string | null): Promise<StartResult> {
    this.requireWebFlow(provider);
    if (!client || !Object.hasOwn(CLIENT_REDIRECTS, client)) {
      throw badRequest("client must be web, desktop, ios or console");
    }
    const state = randomToken(32);
    const verifier = randomToken(32);
    const nonce = randomToken(16);
    const binding = randomToken(32);
    await repo.deleteExpiredStates(this.db);
    await repo.insertState(this.db, {
      state_digest: sha256Hex(state),
      provider,
      client,
      code_verifier: verifier,
      nonce,
      browser_digest: sha256Hex(binding),
      expires_at: new Date(Date.now() + STATE_TTL_SECONDS * 1000),
    });
    const endpoints = endpointsOf(this.config, provider);
    const url = new URL(endpoints.authUrl);
    const params = provider === "google"
      ? {
        response_type: "code",
        client_id: this.config.google.clientId!,
        redirect_uri: this.callbackUrl(provider),
        scope: "openid email profile",
        state,
        nonce,
        code_challenge: encodeBase64urlNoPadding(sha256(encoder.encode(verifier))),
        code_challenge_method: "S256",
        prompt: "select_account",
      }
      : {
        response_type: "code",
        response_mode: "form_post",
        client_id: this.config.apple.clientId!,
        redirect_uri: this.callbackUrl(provider),
        scope: "name email",
        state,
        nonce,
      };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return { location: url.toString(), setCookie: bindingCookie(provider, binding, this.https) };
  }

  /**
   * CONTRACT.md: a callback from a browser holding no binding cookie is 400 and creates no
   * session. Checked before the Apple form body is read.
   */
  requireBinding(provider: ProviderName, bindings: string[]) {
    this.requireWebFlow(provider);
    if (!bindings.length) throw badRequest("Sign-in was not started in this browser");
  }

  /**
   * The provider's redirect back (Google query, Apple form): consumes the state, which must be
   * unexpired, of this provider and started by this browser (else 400, and the state stays for
   * the browser that started it); then exchanges the code, verifies the id token and signs in.
   * Returns the client redirect with tokens, or with `error` in the fragment when the provider
   * refused or the identity is not accepted.
   */
  async callback(
    provider: ProviderName,
    params: URLSearchParams,
    bindings: string[],
    info: ClientInfo,
  ): Promise<CallbackResult> {
    this.requireBinding(provider, bindings);
    const state = params.get("state");
    const row = state
      ? await repo.consumeState(this.db, sha256Hex(state), provider, bindings.map(sha256Hex))
      : undefined;
    if (!row) throw badRequest("Invalid or expired state");
    const target = CLIENT_REDIRECTS[row.client as OauthClient](this.config, this.baseUrl());
    return {
      location: await this.finish(provider, params, row, target, info),
      setCookie: clearedBindingCookie(provider, this.https),
    };
  }

  /** The client redirect after a consumed state: tokens, or `error` in the fragment. */
  private async finish(
    provider: ProviderName,
    params: URLSearchParams,
    row: { code_verifier: string; nonce: string },
    target: string,
    info: ClientInfo,
  ): Promise<string> {
    const fail = (error: string, description: string) =>
      withFragment(target, { error, error_description: description });
    const providerError = params.get("error");
    if (providerError !== null) {
      return clientErrorOf(providerError) === "access_denied"
        ? fail("access_denied", "The provider did not sign you in")
        : fail("server_error", "The provider reported an error");
    }
    const code = params.get("code");
    if (!code) return fail("invalid_request", "The provider sent no authorization code");
    let identity: Identity;
    try {
      identity = await this.exchange(provider, code, row.code_verifier, row.nonce);
      if (provider === "apple") identity.name = appleFormName(params.get("user"));
    } catch (error) {
      if (error instanceof AppError) return fail("invalid_token", error.message);
      return fail("server_error", "The provider could not be reached");
    }
    try {
      const result = await signIn(this.deps, identity, info);
      return withFragment(target, {
        accessToken: result.accessToken,
        refreshToken: result.refreshToken,
      });
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        return fail("access_denied", error.message);
      }
      throw error;
    }
  }

  /** Code for tokens at the provider; the id token is checked for audience and nonce. */
  private async exchange(
    provider: ProviderName,
    code: string,
    verifier: string,
    nonce: string,
  ): Promise<Identity> {
    const endpoints = endpointsOf(this.config, provider);
    const clientId = provider === "google"
      ? this.config.google.clientId!
      : this.config.apple.clientId!;
    const form: Record<string, string> = {
      grant_type: "authorization_code",
      code,
      redirect_uri: this.callbackUrl(provider),
      client_id: clientId,
      client_secret: provider === "google"
        ? this.config.google.clientSecret!
        : await appleClientSecret(this.config, clientId),
    };
    if (provider === "google") form.code_verifier = verifier;
    const tokens = await postForm(endpoints.tokenUrl, form);
    if (typeof tokens.id_token !== "string") throw unauthorized("The provider sent no id token");
    const claims = await verifyIdToken(tokens.id_token, endpoints, clientId);
    if (typeof claims.nonce !== "string" || !timingSafeEqualString(claims.nonce, nonce)) {
      throw unauthorized("Identity token nonce does not match");
    }
    return {
      provider,
      claims,
      name: typeof claims.name === "string" ? claims.name : undefined,
      refreshToken: typeof tokens.refresh_token === "string" ? tokens.refresh_token : undefined,
      clientId,
    };
  }

  /**
   * `POST /auth/oauth/apple/native` (SPEC 4.2): verifies the identity token for the app's
   * bundle id, checks the nonce, exchanges the authorization code for a refresh token kept for
   * revocation, and signs in.
   */
  async appleNative(
    input: {
      identityToken: string;
      authorizationCode?: string;
      nonce?: string;
      fullName?: { givenName?: string | null; familyName?: string | null } | null;
    },
    info: ClientInfo,
  ) {
    const bundleId = this.config.apple.bundleId;
    if (!bundleId) {
      throw new AppError("not_implemented", "Apple native sign-in is not configured");
    }
    const endpoints = endpointsOf(this.config, "apple");
    const claims = await verifyIdToken(input.identityToken, endpoints, bundleId);
    if (input.nonce !== undefined && !nonceMatches(claims.nonce, input.nonce)) {
      throw unauthorized("Nonce does not match the identity token");
    }
    let refreshToken: string | undefined;
    if (input.authorizationCode && this.config.apple.privateKey) {
      try {
        const tokens = await postForm(endpoints.tokenUrl, {
          grant_type: "authorization_code",
          code: input.authorizationCode,
          client_id: bundleId,
          client_secret: await appleClientSecret(this.config, bundleId),
        });
        if (typeof tokens.refresh_token === "string") refreshToken = tokens.refresh_token;
      } catch {
        throw unauthorized("Authorization code was rejected");
      }
    }
    const name = [input.fullName?.givenName, input.fullName?.familyName]
      .filter((p): p is string => typeof p === "string" && p.trim() !== "")
      .map((p) => p.trim()).join(" ");
    return await signIn(this.deps, {
      provider: "apple",
      claims,
      name: name || undefined,
      refreshToken,
      clientId: bundleId,
    }, info);
  }

  /**
   * Account deletion step (SPEC 4.1): revokes every Apple authorization of the user with the
   * client that obtained it. A provider failure aborts the deletion (500, nothing deleted).
   */
  async revokeApple(userId: string): Promise<void> {
    const links = await repo.linksWithTokens(this.db, userId, "apple");
    if (!links.length) return;
    const endpoints = endpointsOf(this.config, "apple");
    for (const link of links) {
      const clientId = link.provider_client_id ?? this.config.apple.clientId ??
        this.config.apple.bundleId;
      if (!clientId) throw new Error("No Apple client id to revoke the authorization with");
      await postForm(endpoints.revokeUrl, {
        client_id: clientId,
        client_secret: await appleClientSecret(this.config, clientId),
        token: link.provider_refresh_token!,
        token_type_hint: "refresh_token",
      });
    }
  }
}
